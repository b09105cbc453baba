package index

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/sharedtest"
)

// TestIndexArchivesRunsEqualIndexFile: every real archive in ../shared,
// cut into ranges of 30 KB whose lines go into runs of at most 2 KB (so
// every range makes several runs), merged into 3 shards, gives index.cdxj
// = the sorted lines of cdxj.IndexFile over each whole file; and the runs
// are gone afterwards.
func TestIndexArchivesRunsEqualIndexFile(t *testing.T) {
	files := sharedtest.ConformanceArchives(t)
	var want []string
	for _, f := range files {
		in, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		// Captures before an error count, as in the pipeline.
		cdxj.IndexFile(in, filepath.Base(f), cdxj.IndexOptions{}, func(c cdxj.Capture) error {
			want = append(want, c.Line())
			return nil
		})
		in.Close()
	}
	slices.Sort(want)
	if len(want) < 100 {
		t.Fatalf("only %d captures in %d conformance archives", len(want), len(files))
	}
	dir := t.TempDir()
	p, s := beam.NewPipelineWithRoot()
	indexed := IndexArchives(s, beam.CreateList(s, files), IndexArchivesOptions{
		RangeBytes: 30000, Parallelism: 3, RunsDir: filepath.Join(dir, RunsDirName), SampleK: 3 * SamplesPerShard, RunBytes: 2000,
	})
	WriteCDXJ(s, SortIntoShards(s, indexed.Runs, 3), dir)
	ptest.RunAndValidate(t, p)
	got, err := os.ReadFile(filepath.Join(dir, CDXJFileName))
	if err != nil {
		t.Fatal(err)
	}
	if g, w := string(got), strings.Join(want, "\n")+"\n"; g != w {
		gl := strings.Split(strings.TrimSuffix(g, "\n"), "\n")
		for i := range min(len(gl), len(want)) {
			if gl[i] != want[i] {
				t.Fatalf("index.cdxj (%d lines) differs from the whole files' sorted lines (%d) at line %d:\n got  %s\n want %s", len(gl), len(want), i+1, gl[i], want[i])
			}
		}
		t.Fatalf("index.cdxj has %d lines, the whole files' sorted lines %d", len(gl), len(want))
	}
	if _, err := os.Stat(filepath.Join(dir, RunsDirName)); !os.IsNotExist(err) {
		t.Errorf("%s was left behind (%v)", RunsDirName, err)
	}
}
