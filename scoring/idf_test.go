package scoring

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadDictionary(t *testing.T) {
	in := "\ufeff# idf values\n" +
		"wahl\t2.5\n" +
		"\n" +
		"bundestag\t4\n" +
		"costa concordia\t7.25\n" + // bigram: the term is everything before the last tab
		"kanzl 3.5\n" + // the original split on any whitespace
		"wahl\t1.5\r\n" // listed twice: the smaller idf wins
	d, err := ReadDictionary(strings.NewReader(in), "idf-de.tsv")
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]float64{"wahl": 1.5, "bundestag": 4, "costa concordia": 7.25, "kanzl": 3.5, "missing": 7.25, "other bigram": 7.25}
	for term, want := range tests {
		if got := d.IDF(term); got != want {
			t.Errorf("IDF(%q) = %v, want %v", term, got, want)
		}
	}
	if d.Len() != 4 || d.Max() != 7.25 {
		t.Errorf("Len, Max = %d, %v; want 4, 7.25", d.Len(), d.Max())
	}
	var buf bytes.Buffer
	if _, err := d.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	if want := "bundestag\t4\ncosta concordia\t7.25\nkanzl\t3.5\nwahl\t1.5\n"; buf.String() != want {
		t.Errorf("WriteTo:\n%s\nwant:\n%s", buf.String(), want)
	}
}

func TestReadDictionaryErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"wahl\t2\nbundestag\tviel\n", `idf.tsv:2: idf "viel" of "bundestag"`},
		{"# c\nwahl\n", `idf.tsv:2: "wahl" is not "term<TAB>value"`},
		{"wahl\t-1\n", `idf.tsv:1: idf "-1"`},
		{"wahl\tNaN\n", `idf.tsv:1: idf "NaN"`},
	}
	for _, tt := range tests {
		_, err := ReadDictionary(strings.NewReader(tt.in), "idf.tsv")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ReadDictionary(%q) error %v, want it to contain %q", tt.in, err, tt.want)
		}
	}
}

func TestEmptyDictionary(t *testing.T) {
	var none *Dictionary
	empty, err := NewDictionary(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []*Dictionary{none, empty} {
		if d.IDF("anything") != 1 || d.Max() != 1 {
			t.Errorf("empty dictionary: IDF = %v, Max = %v, want 1", d.IDF("anything"), d.Max())
		}
	}
	if _, err := NewDictionary(map[string]float64{"a": math.Inf(1)}); err == nil {
		t.Error("infinite idf accepted")
	}
}

func TestLoadDictionary(t *testing.T) {
	path := filepath.Join(t.TempDir(), "idf-en.tsv")
	if err := os.WriteFile(path, []byte("volcano\t3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := LoadDictionary(path)
	if err != nil || d.IDF("volcano") != 3 {
		t.Fatalf("LoadDictionary = %v, %v", d, err)
	}
	if _, err := LoadDictionary(filepath.Join(t.TempDir(), "none.tsv")); err == nil {
		t.Error("missing file accepted")
	}
}

func TestRestemDictionary(t *testing.T) {
	d, err := NewDictionary(map[string]float64{"Wahlen": 3, "Wähler": 2, "Bundestags": 5, "der": 0.1, "Costa Concordia": 8, "auf Grund": 6})
	if err != nil {
		t.Fatal(err)
	}
	r := d.Restem(mustAnalyzer(t, "de"))
	want := map[string]float64{"wahl": 2, "bundestag": 5, "costa concordia": 8}
	if r.Len() != len(want) {
		t.Errorf("restemmed dictionary has %d terms, want %d", r.Len(), len(want))
	}
	for term, idf := range want {
		if got := r.IDF(term); got != idf {
			t.Errorf("IDF(%q) = %v, want %v", term, got, idf)
		}
	}
}

// idf = ln(N / df) over a corpus of four documents.
func TestDocFreqDictionary(t *testing.T) {
	a := mustAnalyzer(t, "en")
	docs := []string{"volcano eruption", "volcano ash", "ash cloud", "flight ban"}
	c := NewDocFreq("en")
	for _, doc := range docs {
		c.AddDocument(BagOf(a.Analyze(doc)))
	}
	if c.Docs() != 4 || c.DF("volcano") != 2 || c.DF("ash") != 2 || c.DF("volcano ash") != 1 {
		t.Fatalf("counts: N=%d volcano=%d ash=%d 'volcano ash'=%d", c.Docs(), c.DF("volcano"), c.DF("ash"), c.DF("volcano ash"))
	}
	d := c.Dictionary()
	tests := map[string]float64{"volcano": math.Log(2), "cloud": math.Log(4), "volcano ash": math.Log(4), "unseen": math.Log(4)}
	for term, want := range tests {
		if got := d.IDF(term); !near(got, want) {
			t.Errorf("IDF(%q) = %v, want %v", term, got, want)
		}
	}
	c.Prune(2)
	if c.Len() != 2 || c.DF("cloud") != 0 {
		t.Errorf("after Prune(2): %d terms, cloud df %d; want 2 terms (volcano, ash)", c.Len(), c.DF("cloud"))
	}
	if got := c.Dictionary().Max(); !near(got, math.Log(2)) {
		t.Errorf("pruned max idf %v, want ln 2", got)
	}
}

// Partial counts of several workers merge to the counts of the whole, and
// files round-trip byte for byte.
func TestDocFreqMergeAndFormat(t *testing.T) {
	a := mustAnalyzer(t, "de")
	docs := []string{"Die Wahl zum Bundestag", "Der Bundestag tagt", "Wahl in Hessen", "Costa Concordia", "Bundestag und Bundesrat"}
	whole := NewDocFreq("de")
	parts := []*DocFreq{NewDocFreq("de"), NewDocFreq("de"), NewDocFreq("")}
	for i, doc := range docs {
		bag := BagOf(a.Analyze(doc))
		whole.AddDocument(bag)
		parts[i%len(parts)].AddDocument(bag)
	}
	files := make([][]byte, len(parts))
	for i, p := range parts {
		var buf bytes.Buffer
		if _, err := p.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		files[i] = buf.Bytes()
	}
	merged := NewDocFreq("")
	for i := len(files) - 1; i >= 0; i-- { // any order
		p, err := ReadDocFreq(bytes.NewReader(files[i]), "part")
		if err != nil {
			t.Fatal(err)
		}
		if err := merged.Merge(p); err != nil {
			t.Fatal(err)
		}
	}
	var got, want bytes.Buffer
	merged.WriteTo(&got)
	whole.WriteTo(&want)
	if got.String() != want.String() {
		t.Errorf("merged:\n%s\nwhole:\n%s", got.String(), want.String())
	}
	if !strings.HasPrefix(want.String(), "#docs\t5\n#lang\tde\nbundesrat\t1\nbundestag\t3\nbundestag tagt\t1\n") {
		t.Errorf("unexpected file:\n%s", want.String())
	}
	if err := NewDocFreq("de").Merge(NewDocFreq("en")); err == nil {
		t.Error("merging German and English counts succeeded")
	}
	sum := NewDocFreq("de")
	sum.AddCounts("", 0, 3)
	sum.AddCounts("wahl", 2, 0)
	if sum.Docs() != 3 || sum.DF("wahl") != 2 {
		t.Errorf("AddCounts: N=%d df=%d", sum.Docs(), sum.DF("wahl"))
	}
}

func TestReadDocFreqErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"wahl\t2\n", `df.tsv:1: missing header "#docs<TAB>N"`},
		{"#docs\t10\nwahl\tzwei\n", `df.tsv:2: document frequency "zwei" of "wahl"`},
		{"#docs\tzehn\n", `df.tsv:1: document count "zehn"`},
		{"#docs\t10\nwahl\t2\n#docs\t3\n", `df.tsv:3: header "#docs" must come once`},
		{"# only a comment\n", `df.tsv: missing header`},
	}
	for _, tt := range tests {
		_, err := ReadDocFreq(strings.NewReader(tt.in), "df.tsv")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ReadDocFreq(%q) error %v, want it to contain %q", tt.in, err, tt.want)
		}
	}
	c, err := ReadDocFreq(strings.NewReader("# made by a test\n#docs\t10\n#lang\tde\n\nwahl\t2\nwahl kreis\t1\n"), "df.tsv")
	if err != nil {
		t.Fatal(err)
	}
	if c.Docs() != 10 || c.Lang != "de" || c.DF("wahl kreis") != 1 {
		t.Errorf("read N=%d lang=%q df=%d", c.Docs(), c.Lang, c.DF("wahl kreis"))
	}
}
