package index

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/corpus/archivegen"
	"github.com/recrawl/recrawl/internal/index"
	"github.com/recrawl/recrawl/internal/testkit/extracttest"
	"github.com/recrawl/recrawl/scoring"
)

// TestCountDocumentFrequencies: on a generated archive, CountDocumentFrequencies
// (reading the records through archive.Fetcher) and WriteDocumentFrequencies
// write, byte for byte, the df-LANG.tsv files that internal/testkit/extracttest
// counts without Beam (every HTTP 200 HTML response once, min_df 2).
func TestCountDocumentFrequencies(t *testing.T) {
	a, err := extracttest.Build(context.Background(), t.TempDir(), archivegen.Config{Seed: 3, Pages: 150})
	if err != nil {
		t.Fatal(err)
	}
	want, err := filepath.Glob(filepath.Join(filepath.Dir(a.CDXJ), scoring.DocFreqFileGlob))
	if err != nil || len(want) == 0 {
		t.Fatalf("the fixture's dictionaries: %v, %v", want, err)
	}
	out := t.TempDir()
	p, s := beam.NewPipelineWithRoot()
	counts := CountDocumentFrequencies(s, beam.CreateList(s, a.Lines), DictionaryOptions{Locations: []string{a.WARCDir}, SampleRate: 1, DefaultLanguage: "en"})
	WriteDocumentFrequencies(s, counts.Entries, out, 2)
	ptest.RunAndValidate(t, p)
	got, _ := filepath.Glob(filepath.Join(out, scoring.DocFreqFileGlob))
	if len(got) != len(want) {
		t.Fatalf("files %v, want one per file of %v", got, want)
	}
	for _, w := range want {
		wb, _ := os.ReadFile(w)
		gb, err := os.ReadFile(filepath.Join(out, filepath.Base(w)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(gb, wb) {
			t.Errorf("%s: %d bytes, want the %d bytes counted without Beam", filepath.Base(w), len(gb), len(wb))
		}
		if len(bytes.Split(wb, []byte("\n"))) < 50 {
			t.Errorf("%s holds fewer than 50 lines: too small an archive to test", w)
		}
	}
}

// TestCaptureSelectorHoldsAtMostMaxDocs: with a bound, the dictionary's
// selection hands on at most MaxDocs captures of a bundle (and never holds
// more), not every candidate, and those include every capture of the
// sample the candidate counts of the whole archive choose.
func TestCaptureSelectorHoldsAtMostMaxDocs(t *testing.T) {
	a, err := extracttest.Build(context.Background(), t.TempDir(), archivegen.Config{Seed: 3, Pages: 150})
	if err != nil {
		t.Fatal(err)
	}
	const maxDocs = 10
	ctx := context.Background()
	var sel captureSelector
	sel.setup(1, maxDocs, 0)
	var emitted []string
	emit := func(line string) { emitted = append(emitted, line) }
	for _, line := range a.Lines {
		sel.selectLine(ctx, line, emit)
	}
	var candidates []int64
	sel.finish(emit, func(levels []int64) { candidates = levels })

	sample := DictionarySampleOf(candidates, maxDocs, 1)
	var total int64
	for _, n := range candidates {
		total += n
	}
	if total < 4*maxDocs {
		t.Fatalf("%d candidates: too few to test a bound of %d", total, maxDocs)
	}
	if sel.maxHeld > maxDocs || len(emitted) > maxDocs {
		t.Errorf("held up to %d captures and emitted %d of %d candidates, want at most %d", sel.maxHeld, len(emitted), total, maxDocs)
	}
	kept := map[string]bool{}
	for _, line := range emitted {
		kept[line] = true
	}
	var inSample int64
	for _, line := range a.Lines {
		c, err := cdxj.Parse(line)
		if err != nil {
			t.Fatal(err)
		}
		if ok, _ := index.CountedInDictionary(c); !ok || index.DictionaryLevel(c.Key, c.Timestamp) < sample.Level() {
			continue
		}
		inSample++
		if !kept[line] {
			t.Errorf("a capture of the sample (level >= %d) was not handed on: %s", sample.Level(), line)
		}
	}
	if inSample != sample.Chosen() || inSample == 0 {
		t.Errorf("%d captures of the sample in the lines, the counts choose %d", inSample, sample.Chosen())
	}
}
