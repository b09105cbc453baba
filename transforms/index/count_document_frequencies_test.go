package index

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/recrawl/recrawl/internal/corpus/archivegen"
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
