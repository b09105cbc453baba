package index

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

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

// TestIndexRangesManyBundlesOneSlot: ranges spread over 6 bundles run at
// once, as prism runs them after the Reshuffle, with one range at a time
// in the process (Parallelism 1) and runs of 2 KB (many outputs per range,
// more than a range holds in flight): every bundle finishes, and their
// batches hold every line of the files once.
func TestIndexRangesManyBundlesOneSlot(t *testing.T) {
	files := sharedtest.ConformanceArchives(t)
	var want []string
	var ranges []cdxj.Range
	for _, f := range files {
		in, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		cdxj.IndexFile(in, filepath.Base(f), cdxj.IndexOptions{}, func(c cdxj.Capture) error {
			want = append(want, c.Line())
			return nil
		})
		st, _ := in.Stat()
		in.Close()
		ranges = append(ranges, cdxj.Split(f, st.Size(), 30000)...)
	}
	slices.Sort(want)
	const bundles = 6
	dir := t.TempDir()
	var (
		mu   sync.Mutex
		got  []string
		runs int
	)
	errs := make(chan error, bundles)
	for b := range bundles {
		go func() {
			fn := &indexRangesFn{Parallelism: 1, RunsDir: dir, SampleK: SamplesPerShard, Batches: true, RunBytes: 2000}
			fn.Setup()
			emitRun := func(SortedRun) { mu.Lock(); runs++; mu.Unlock() }
			emitBatch := func(batch []byte) {
				mu.Lock()
				defer mu.Unlock()
				forEachLine(batch, func(l []byte) { got = append(got, string(l)) })
			}
			ctx := context.Background()
			for i := b; i < len(ranges); i += bundles {
				if err := fn.ProcessElement(ctx, ranges[i], emitRun, emitBatch); err != nil {
					errs <- err
					return
				}
			}
			errs <- fn.FinishBundle(ctx, emitRun, emitBatch)
		}()
	}
	for range bundles {
		select {
		case err := <-errs:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(2 * time.Minute):
			t.Fatal("the bundles did not finish in 2 minutes: ranges wait on each other for slots")
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("the batches hold %d lines, the files %d (or other lines)", len(got), len(want))
	}
	if runs < len(ranges) {
		t.Errorf("%d runs from %d ranges of runs of 2 KB", runs, len(ranges))
	}
}
