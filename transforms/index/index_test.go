package index

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/recrawl/recrawl/internal/zipnum"
	"github.com/recrawl/recrawl/scoring"
)

// The composites run in process on prism (ptest's default runner; -runner
// picks another).
func TestMain(m *testing.M) {
	ptest.Main(m)
}

// cdxjLines makes n CDXJ-like lines in random order, with repeated keys.
func cdxjLines(n int) []string {
	r := rand.New(rand.NewSource(3))
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf("com,example%d)/p%d 2009%010d {\"url\": \"https://example%d.com/p%d\"}", r.Intn(40), r.Intn(200), r.Intn(1e9), i%40, i)
	}
	return lines
}

func sortedCopy(lines []string) []string {
	out := append([]string(nil), lines...)
	sort.Strings(out)
	return out
}

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// TestSortIntoShardsWriteCDXJ: whatever the number of shards, index.cdxj is
// every line, sorted bytewise.
func TestSortIntoShardsWriteCDXJ(t *testing.T) {
	lines := cdxjLines(3000)
	want := strings.Join(sortedCopy(lines), "\n") + "\n"
	for _, shards := range []int{1, 4} {
		t.Run(fmt.Sprintf("shards=%d", shards), func(t *testing.T) {
			dir := t.TempDir()
			p, s := beam.NewPipelineWithRoot()
			out := WriteCDXJ(s, SortIntoShards(s, beam.CreateList(s, lines), shards), dir)
			passert.Equals(s, out, filepath.Join(dir, CDXJFileName))
			ptest.RunAndValidate(t, p)
			got, err := os.ReadFile(filepath.Join(dir, CDXJFileName))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != want {
				t.Errorf("index.cdxj (%d bytes) is not the sorted input (%d bytes)", len(got), len(want))
			}
			if _, err := os.Stat(filepath.Join(dir, ".parts")); err == nil {
				t.Error("the part files were left behind")
			}
		})
	}
}

// TestWriteZipNum: the blocks of the shards, decompressed in shard order,
// are the sorted lines, and cluster.idx has one line per block.
func TestWriteZipNum(t *testing.T) {
	lines := cdxjLines(2000)
	dir := t.TempDir()
	p, s := beam.NewPipelineWithRoot()
	WriteZipNum(s, SortIntoShards(s, beam.CreateList(s, lines), 3), dir, 100)
	ptest.RunAndValidate(t, p)
	r, err := zipnum.Open(dir, zipnum.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var got []string
	for l, err := range r.Range("", "\xff") {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, l)
	}
	want := sortedCopy(lines)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the ZipNum index holds %d lines, not the %d sorted input lines", len(got), len(want))
	}
	idx, err := os.ReadFile(filepath.Join(dir, "cluster.idx"))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(idx, []byte("\n")); n < 2000/100 {
		t.Errorf("cluster.idx has %d lines, want at least %d (one per block of 100 lines)", n, 2000/100)
	}
}

// TestWriteDocumentFrequencies: one df-LANG.tsv per language, with the
// document count and the terms found in at least minDF documents.
func TestWriteDocumentFrequencies(t *testing.T) {
	dir := t.TempDir()
	entries := []any{
		DocFreqEntry{Lang: "en", Term: "", DF: 10},
		DocFreqEntry{Lang: "en", Term: "election", DF: 7},
		DocFreqEntry{Lang: "en", Term: "rare", DF: 1},
		DocFreqEntry{Lang: "de", Term: "", DF: 4},
		DocFreqEntry{Lang: "de", Term: "wahl", DF: 2},
	}
	p, s := beam.NewPipelineWithRoot()
	paths := WriteDocumentFrequencies(s, beam.Create(s, entries...), dir, 2)
	passert.Equals(s, paths, filepath.Join(dir, scoring.DocFreqFileName("en")), filepath.Join(dir, scoring.DocFreqFileName("de")))
	ptest.RunAndValidate(t, p)
	en, err := scoring.LoadDocFreq(filepath.Join(dir, scoring.DocFreqFileName("en")))
	if err != nil {
		t.Fatal(err)
	}
	if en.Docs() != 10 || en.DF("election") != 7 || en.DF("rare") != 0 || en.Len() != 1 {
		t.Errorf("df-en.tsv: docs %d, election %d, rare %d (pruned: want 0), %d terms", en.Docs(), en.DF("election"), en.DF("rare"), en.Len())
	}
	de, err := scoring.LoadDocFreq(filepath.Join(dir, scoring.DocFreqFileName("de")))
	if err != nil {
		t.Fatal(err)
	}
	if de.Docs() != 4 || de.DF("wahl") != 2 {
		t.Errorf("df-de.tsv: docs %d, wahl %d", de.Docs(), de.DF("wahl"))
	}
}
