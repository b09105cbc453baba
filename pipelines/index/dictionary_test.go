package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/corpus/archivegen"
	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/index"
	"github.com/recrawl/recrawl/internal/records"
	"github.com/recrawl/recrawl/internal/storage"
	"github.com/recrawl/recrawl/internal/testkit/hostile"
	"github.com/recrawl/recrawl/scoring"
	"github.com/recrawl/recrawl/scoring/document"
)

// dictionaryArchive generates a small synthetic archive (English and German
// hosts: articles, listing pages, revisits, redirects, 404s, style sheets
// and images) in several files, spread over two directories so the records
// have to be found in more than one archive location.
func dictionaryArchive(t *testing.T) []string {
	t.Helper()
	dirs := []string{t.TempDir(), t.TempDir()}
	_, err := archivegen.Generate(context.Background(), archivegen.Config{
		OutDir: dirs[0], Seed: 7, Pages: 16, MaxFileSize: 100 << 10, Workers: 1,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(dirs[0], "*.warc.gz"))
	if err != nil || len(files) < 2 {
		t.Fatalf("generated %d files: %v", len(files), err)
	}
	for i := 1; i < len(files); i += 2 {
		moved := filepath.Join(dirs[1], filepath.Base(files[i]))
		if err := os.Rename(files[i], moved); err != nil {
			t.Fatal(err)
		}
		files[i] = moved
	}
	return files
}

// dfDirectly computes the document frequencies the pipeline must write,
// without Beam: every capture of every file (cdxj.IndexFile), filtered,
// sampled, read (records.ReadRecordAt), parsed and analysed with the
// scoring package, title and main text with a line break between them.
// It returns the counts by language and the skipped captures by reason.
func dfDirectly(t *testing.T, files []string, sample float64) (map[string]*scoring.DocFreq, map[string]int64, int64) {
	return dfDirectlyAbove(t, files, sample, 0)
}

// dfDirectlyAbove is dfDirectly of the captures of sample level minLevel
// and above (index.DictionaryLevel).
func dfDirectlyAbove(t *testing.T, files []string, sample float64, minLevel int) (map[string]*scoring.DocFreq, map[string]int64, int64) {
	t.Helper()
	analyzers, err := scoring.NewAnalyzers("en")
	if err != nil {
		t.Fatal(err)
	}
	dfs := map[string]*scoring.DocFreq{}
	skipped := map[string]int64{}
	var sampledOut int64
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var captures []cdxj.Capture
		if _, err := cdxj.IndexFile(bytes.NewReader(data), storage.Base(f), cdxj.IndexOptions{}, func(c cdxj.Capture) error {
			captures = append(captures, c)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		for _, c := range captures {
			switch {
			case c.Mime == "warc/revisit":
				skipped["revisit"]++
				continue
			case c.Status != "200":
				skipped["not-200"]++
				continue
			case c.Mime != "text/html" && c.Mime != "application/xhtml+xml":
				skipped["not-html"]++
				continue
			case !index.InDictionarySample(c.Key, c.Timestamp, sample), index.DictionaryLevel(c.Key, c.Timestamp) < minLevel:
				sampledOut++
				continue
			}
			rec, err := records.ReadRecordAt(bytes.NewReader(data), c.Offset, c.Length, c.Filename)
			if err != nil {
				t.Fatalf("%s at %d: %v", c.Filename, c.Offset, err)
			}
			ct := ""
			if rec.HTTP != nil {
				ct = rec.HTTP.Header.Get("Content-Type")
			}
			captured, _ := extract.CaptureTime(c.Timestamp)
			doc, err := document.Parse(rec.Body, ct, c.URL, document.Options{DefaultLanguage: "en", CaptureTime: captured})
			if errors.Is(err, document.ErrNotHTML) {
				skipped["not-html"]++
				continue
			} else if err != nil {
				skipped["parse-failed"]++
				continue
			}
			a := analyzers.For(doc.Language)
			bag := scoring.BagOf(a.Analyze(doc.Title + "\n" + doc.MainText))
			if doc.Reason != "" || bag.Len() == 0 {
				skipped["no-text"]++
				continue
			}
			lang := a.Language()
			if dfs[lang] == nil {
				dfs[lang] = scoring.NewDocFreq(lang)
			}
			dfs[lang].AddDocument(bag)
		}
	}
	return dfs, skipped, sampledOut
}

// checkDocFreqFiles compares the df-<lang>.tsv files in dir with the
// direct counts: the same N, every term with df >= minDF with its exact
// df, and no other term.
func checkDocFreqFiles(t *testing.T, dir string, want map[string]*scoring.DocFreq, minDF int64) {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(dir, "df-*.tsv"))
	if len(names) != len(want) {
		t.Errorf("%d dictionary files %v, want one for each of %d languages", len(names), names, len(want))
	}
	for lang, w := range want {
		got, err := scoring.LoadDocFreq(filepath.Join(dir, scoring.DocFreqFileName(lang)))
		if err != nil {
			t.Error(err)
			continue
		}
		if got.Lang != lang || got.Docs() != w.Docs() {
			t.Errorf("%s: lang %q, N = %d; want %q, %d", lang, got.Lang, got.Docs(), lang, w.Docs())
		}
		kept := 0
		var top []string
		for term := range termsOf(w) {
			n := w.DF(term)
			if n < minDF {
				if got.DF(term) != 0 {
					t.Errorf("%s: %q (df %d < %d) was not pruned", lang, term, n, minDF)
				}
				continue
			}
			kept++
			if got.DF(term) != n {
				t.Errorf("%s: df(%q) = %d, want %d", lang, term, got.DF(term), n)
			}
			top = append(top, term)
		}
		if got.Len() != kept {
			t.Errorf("%s: %d terms, want %d", lang, got.Len(), kept)
		}
		sort.Slice(top, func(i, j int) bool {
			if w.DF(top[i]) != w.DF(top[j]) {
				return w.DF(top[i]) > w.DF(top[j])
			}
			return top[i] < top[j]
		})
		var sample []string
		for _, term := range top[:min(6, len(top))] {
			sample = append(sample, fmt.Sprintf("%q:%d", term, got.DF(term)))
		}
		t.Logf("%s: N = %d, %d terms kept of %d; most frequent %v", lang, got.Docs(), got.Len(), w.Len(), sample)
		d := got.Dictionary()
		if d.Len() != got.Len() || math.IsInf(d.Max(), 0) || d.Max() > math.Log(float64(got.Docs())/float64(minDF))+1e-9 {
			t.Errorf("%s: dictionary of %d terms, max idf %v", lang, d.Len(), d.Max())
		}
	}
}

// termsOf lists the terms of a DocFreq through its file format, the only
// way to enumerate them.
func termsOf(c *scoring.DocFreq) map[string]bool {
	var b bytes.Buffer
	c.WriteTo(&b)
	terms := map[string]bool{}
	for _, line := range bytes.Split(b.Bytes(), []byte("\n")) {
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		i := bytes.LastIndexByte(line, '\t')
		terms[string(line[:i])] = true
	}
	return terms
}

// TestDictionary runs the index pipeline with --dictionary on a synthetic
// archive of English and German pages and checks every count of the
// df-<lang>.tsv files against a computation without Beam, and the summary's
// account of every capture.
func TestDictionary(t *testing.T) {
	files := dictionaryArchive(t)
	want, wantSkipped, _ := dfDirectly(t, files, 1)
	if len(want) != 2 || want["en"] == nil || want["de"] == nil {
		t.Fatalf("the archive has documents in %d languages, want en and de", len(want))
	}
	for _, r := range []string{"revisit", "not-200", "not-html", "no-text"} {
		if wantSkipped[r] == 0 {
			t.Errorf("the archive has no capture skipped as %s: the test would not see that reason", r)
		}
	}
	out := t.TempDir()
	sum := runIndex(t, Config{Files: files, OutputDir: out, Dictionary: true, DictionarySample: 1, DictionaryMinDF: 2, DefaultLanguage: "en"})
	checkDocFreqFiles(t, out, want, 2)
	if !reflect.DeepEqual(sum.DictionarySkipped, wantSkipped) {
		t.Errorf("dictionary skips %v, want %v", sum.DictionarySkipped, wantSkipped)
	}
	docs := want["en"].Docs() + want["de"].Docs()
	if sum.DictionaryDocs != docs || sum.DictionarySampledOut != 0 {
		t.Errorf("summary: %d documents, %d sampled out; want %d, 0", sum.DictionaryDocs, sum.DictionarySampledOut, docs)
	}
	var skipped int64
	for _, n := range sum.DictionarySkipped {
		skipped += n
	}
	if sum.DictionaryDocs+skipped != sum.Captures {
		t.Errorf("%d documents + %d skipped != %d captures", sum.DictionaryDocs, skipped, sum.Captures)
	}
	var buf bytes.Buffer
	sum.Print(&buf)
	t.Logf("summary:\n%s", buf.String())

	// min_df 1 keeps every term.
	out1 := t.TempDir()
	runIndex(t, Config{Files: files, OutputDir: out1, Dictionary: true, DictionarySample: 1, DictionaryMinDF: 1, DefaultLanguage: "en"})
	checkDocFreqFiles(t, out1, want, 1)
}

// TestDictionarySample counts half of the documents: about half of N, the
// exact counts of the documents in the sample, and the same files on a
// second run.
func TestDictionarySample(t *testing.T) {
	files := dictionaryArchive(t)
	all, _, _ := dfDirectly(t, files, 1)
	want, _, wantOut := dfDirectly(t, files, 0.5)
	var outs []string
	for range 2 {
		out := t.TempDir()
		sum := runIndex(t, Config{Files: files, OutputDir: out, Dictionary: true, DictionarySample: 0.5, DictionaryMinDF: 2, DefaultLanguage: "en"})
		if sum.DictionarySampledOut != wantOut {
			t.Errorf("%d documents left out of the sample, want %d", sum.DictionarySampledOut, wantOut)
		}
		checkDocFreqFiles(t, out, want, 2)
		outs = append(outs, out)
	}
	for lang := range all {
		ratio := float64(want[lang].Docs()) / float64(all[lang].Docs())
		t.Logf("%s: sample 0.5 counts %d of %d documents (%.2f)", lang, want[lang].Docs(), all[lang].Docs(), ratio)
		if ratio < 0.3 || ratio > 0.7 {
			t.Errorf("%s: sample 0.5 counts %d of %d documents", lang, want[lang].Docs(), all[lang].Docs())
		}
		name := scoring.DocFreqFileName(lang)
		if !bytes.Equal(readFile(t, filepath.Join(outs[0], name)), readFile(t, filepath.Join(outs[1], name))) {
			t.Errorf("%s differs between two runs", name)
		}
	}
}

// candidatesDirectly counts, by sample level, the captures of the files
// the dictionary may count: HTTP 200 HTML responses.
func candidatesDirectly(t *testing.T, files []string) index.DictionarySample {
	t.Helper()
	var s index.DictionarySample
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cdxj.IndexFile(bytes.NewReader(data), storage.Base(f), cdxj.IndexOptions{}, func(c cdxj.Capture) error {
			if ok, _ := index.CountedInDictionary(c); ok {
				s.Candidates[index.DictionaryLevel(c.Key, c.Timestamp)]++
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// TestDictionaryBoundedSample bounds the documents parsed at about a
// half of the candidates: the counts are exactly those of the captures
// of the level chosen and above, the files record the sample, and a run
// that parses one document at a time writes the same bytes.
func TestDictionaryBoundedSample(t *testing.T) {
	files := dictionaryArchive(t)
	sample := candidatesDirectly(t, files)
	total := sample.Chosen()
	sample.MaxDocs, sample.Rate = total/2, 1
	level := sample.Level()
	if level < 1 || sample.Chosen() > sample.MaxDocs || sample.Chosen() == 0 {
		t.Fatalf("%d candidates, bound %d: level %d keeps %d; want level >= 1 and 1..bound kept", total, sample.MaxDocs, level, sample.Chosen())
	}
	want, _, _ := dfDirectlyAbove(t, files, 1, level)
	var outs []string
	for _, parallelism := range []int{0, 1} {
		out := t.TempDir()
		sum := runIndex(t, Config{Files: files, OutputDir: out, Parallelism: parallelism, Dictionary: true, DictionarySample: 1,
			DictionaryDocs: sample.MaxDocs, DictionaryMinDF: 2, DefaultLanguage: "en"})
		checkDocFreqFiles(t, out, want, 2)
		if docs := want["en"].Docs() + want["de"].Docs(); sum.DictionaryDocs != docs || sum.DictionarySampledOut != total-sample.Chosen() {
			t.Errorf("summary: %d documents, %d sampled out; want %d, %d", sum.DictionaryDocs, sum.DictionarySampledOut, docs, total-sample.Chosen())
		}
		got, err := index.ReadDictionarySample(bytes.NewReader(readFile(t, filepath.Join(out, index.DictionarySampleFile))), "dfsample.tsv")
		if err != nil || got != sample {
			t.Errorf("dfsample.tsv: %+v, %v; want %+v", got, err, sample)
		}
		// The rule after the headers: the extraction reads the file as
		// document frequencies only when its first line is "#docs".
		if df := readFile(t, filepath.Join(out, "df-en.tsv")); !bytes.Contains(df, []byte("\n"+sample.HeaderLine())) || sample.HeaderLine() == "" {
			t.Errorf("df-en.tsv does not hold %q", sample.HeaderLine())
		}
		if _, err := extract.LoadDocFreq(context.Background(), filepath.Join(out, "df-en.tsv")); err != nil {
			t.Errorf("the extraction does not read df-en.tsv as document frequencies: %v", err)
		}
		outs = append(outs, out)
	}
	for _, name := range []string{"df-en.tsv", "df-de.tsv", index.DictionarySampleFile} {
		if !bytes.Equal(readFile(t, filepath.Join(outs[0], name)), readFile(t, filepath.Join(outs[1], name))) {
			t.Errorf("%s differs between all cores and one document at a time", name)
		}
	}
}

// TestDictionarySampleLevel: the level is the smallest whose captures
// (that level and above) number at most the bound, and 0 without a bound.
func TestDictionarySampleLevel(t *testing.T) {
	s := index.DictionarySample{Rate: 1}
	s.Candidates[0], s.Candidates[1], s.Candidates[2], s.Candidates[3] = 50, 25, 12, 13
	for _, c := range []struct{ maxDocs, level, chosen int64 }{{0, 0, 100}, {100, 0, 100}, {99, 1, 50}, {50, 1, 50}, {49, 2, 25}, {13, 3, 13}, {12, 4, 0}} {
		s.MaxDocs = c.maxDocs
		if l, n := s.Level(), s.Chosen(); int64(l) != c.level || n != c.chosen {
			t.Errorf("bound %d: level %d keeps %d; want %d, %d", c.maxDocs, l, n, c.level, c.chosen)
		}
	}
	var b bytes.Buffer
	s.MaxDocs = 49
	s.WriteTo(&b)
	got, err := index.ReadDictionarySample(&b, "dfsample.tsv")
	if err != nil || got != s {
		t.Errorf("read back %+v, %v; want %+v", got, err, s)
	}
}

// TestInDictionarySample checks the sampling hash: the share of a large
// key set, and nested samples (a smaller rate keeps a subset).
func TestInDictionarySample(t *testing.T) {
	const n = 100000
	for _, rate := range []float64{0.01, 0.1, 0.5} {
		in, nested := 0, true
		for i := range n {
			key, ts := fmt.Sprintf("com,host%d)/page/%d", i%97, i), fmt.Sprintf("2009%010d", i*7919)
			if index.InDictionarySample(key, ts, rate) {
				in++
				nested = nested && index.InDictionarySample(key, ts, 2*rate)
			}
		}
		if got := float64(in) / n; math.Abs(got-rate) > 4*math.Sqrt(rate*(1-rate)/n) {
			t.Errorf("rate %v: %.4f of the keys", rate, got)
		}
		if !nested {
			t.Errorf("rate %v: a key in the sample is not in the sample of rate %v", rate, 2*rate)
		}
	}
	if index.InDictionarySample("a", "b", 0) || !index.InDictionarySample("a", "b", 1) {
		t.Error("rates 0 and 1 are not none and all")
	}
}

// TestDictionaryTruncated: captures whose body is over the size limit (a
// 64 MiB WARC block, a 64 MiB gzip Content-Encoding) are read through the
// limit and counted as truncated, beside the documents of a normal archive.
func TestDictionaryTruncated(t *testing.T) {
	files := dictionaryArchive(t)
	bombs := filepath.Join(t.TempDir(), "bombs.warc.gz")
	date := time.Date(2009, 9, 27, 10, 0, 0, 0, time.UTC)
	if _, err := hostile.WriteBombFile(bombs,
		hostile.Bomb{URL: "http://bomb.example/block", Date: date, Kind: hostile.BlockBomb, Size: 64 << 20},
		hostile.Bomb{URL: "http://bomb.example/body", Date: date, Kind: hostile.BodyBomb, Size: 64 << 20}); err != nil {
		t.Fatal(err)
	}
	sum := runIndex(t, Config{Files: append(files, bombs), OutputDir: t.TempDir(), Dictionary: true, DictionarySample: 1, DictionaryMinDF: 1, DefaultLanguage: "en"})
	if sum.DictionaryTruncated != 2 {
		t.Errorf("dictionary: %d captures counted as truncated; want the 2 bombs", sum.DictionaryTruncated)
	}
	var buf bytes.Buffer
	sum.Print(&buf)
	if want := fmt.Sprintf("dictionary: 2 captures had a body over %d bytes, cut there", document.DefaultMaxBytes); !strings.Contains(buf.String(), want) {
		t.Errorf("summary:\n%s\nwant a line %q", buf.String(), want)
	}
}
