package index

import (
	"bytes"
	"context"
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

	"github.com/recrawl/recrawl/internal/index"
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

// batchesOf packs lines into batches of n lines, as IndexArchives emits
// them (each line ending in a newline).
func batchesOf(lines []string, n int) [][]byte {
	var out [][]byte
	for i := 0; i < len(lines); i += n {
		var b []byte
		for _, l := range lines[i:min(i+n, len(lines))] {
			b = append(append(b, l...), '\n')
		}
		out = append(out, b)
	}
	return out
}

// runsOf writes lines as n sorted runs in a temporary directory, each with
// the sample SortIntoShards needs for the given number of shards, as
// IndexArchives makes them.
func runsOf(t *testing.T, lines []string, n, shards int) []SortedRun {
	t.Helper()
	dir := t.TempDir()
	var runs []SortedRun
	for i := 0; i < n; i++ {
		var part [][]byte
		var sample index.Sample
		for _, l := range lines[i*len(lines)/n : (i+1)*len(lines)/n] {
			part = append(part, []byte(l))
			sample.Add(l, shards*SamplesPerShard)
		}
		run, err := index.WriteRun(context.Background(), filepath.Join(dir, fmt.Sprintf("run-%d", i)), part)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, SortedRun{Run: run, Sample: sample})
	}
	return runs
}

// TestLines: Lines gives back every line of the batches, without newlines.
func TestLines(t *testing.T) {
	lines := cdxjLines(500)
	p, s := beam.NewPipelineWithRoot()
	passert.Equals(s, Lines(s, beam.CreateList(s, batchesOf(lines, 37))), anys(lines)...)
	ptest.RunAndValidate(t, p)
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
			tmp := filepath.Join(dir, TempDirPrefix+"test")
			out := WriteCDXJ(s, SortIntoShards(s, beam.CreateList(s, runsOf(t, lines, 7, shards)), shards), dir, tmp)
			passert.Equals(s, out, filepath.Join(dir, CDXJFileName))
			ptest.RunAndValidate(t, p)
			got, err := os.ReadFile(filepath.Join(dir, CDXJFileName))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != want {
				t.Errorf("index.cdxj (%d bytes) is not the sorted input (%d bytes)", len(got), len(want))
			}
			if _, err := os.Stat(tmp); err == nil {
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
	WriteZipNum(s, SortIntoShards(s, beam.CreateList(s, runsOf(t, lines, 5, 3)), 3), dir, filepath.Join(dir, TempDirPrefix+"test"), 100)
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
