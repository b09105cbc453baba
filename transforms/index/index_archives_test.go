package index

import (
	"context"
	"fmt"
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
	"github.com/recrawl/recrawl/internal/testkit/sharedtest"
)

// TestIndexArchivesRunsEqualIndexFile: every real archive in ../shared,
// cut into ranges of 30 KB whose lines go into runs of at most 2 KB (so
// every range makes several runs), merged into 3 shards, gives index.cdxj
// = the sorted lines of cdxj.IndexFile over each whole file; and the runs
// are gone afterwards. The same with the ranges reshuffled (other workers)
// and kept in the bundle that planned them (OneProcess).
func TestIndexArchivesRunsEqualIndexFile(t *testing.T) {
	files := sharedtest.ConformanceArchives(t)
	want, _ := wholeFileLines(t, files, 30000)
	if len(want) < 100 {
		t.Fatalf("only %d captures in %d conformance archives", len(want), len(files))
	}
	for _, oneProcess := range []bool{false, true} {
		t.Run(fmt.Sprintf("OneProcess=%v", oneProcess), func(t *testing.T) {
			indexArchivesRunsEqual(t, files, want, oneProcess)
		})
	}
}

func indexArchivesRunsEqual(t *testing.T, files, want []string, oneProcess bool) {
	dir := t.TempDir()
	p, s := beam.NewPipelineWithRoot()
	indexed := IndexArchives(s, beam.CreateList(s, files), IndexArchivesOptions{
		RangeBytes: 30000, Parallelism: 3, RunsDir: filepath.Join(dir, TempDirPrefix+"test"), SampleK: 3 * SamplesPerShard, RunBytes: 2000,
		OneProcess: oneProcess,
	})
	WriteCDXJ(s, SortIntoShards(s, indexed.Runs, 3), dir, filepath.Join(dir, TempDirPrefix+"test"))
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
	if _, err := os.Stat(filepath.Join(dir, TempDirPrefix+"test")); !os.IsNotExist(err) {
		t.Errorf("the runs' folder was left behind (%v)", err)
	}
}

// TestIndexRangesManyBundlesOneSlot: ranges spread over 6 bundles run at
// once, as prism runs them after the Reshuffle, with one range at a time
// in the process (Parallelism 1) and runs of 2 KB (many outputs per range,
// more than a range holds in flight): every bundle finishes, and their
// batches hold every line of the files once.
func TestIndexRangesManyBundlesOneSlot(t *testing.T) {
	want, ranges := wholeFileLines(t, sharedtest.ConformanceArchives(t), 30000)
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

// TestIndexRangesNoWaitOnOtherBundles: one slot; bundle B indexes a range
// with more outputs than a range holds in flight and is not drained (its
// runner has not fed it further yet). Bundle A's ProcessElement must not
// wait for B (a runner may feed both through one data stream), and A must
// finish before B is drained: B's range gives its slot back while it waits.
func TestIndexRangesNoWaitOnOtherBundles(t *testing.T) {
	files := sharedtest.ConformanceArchives(t)
	// B: the file with the most captures, whole; A: another file.
	counts := map[string]int{}
	big := ""
	for _, f := range files {
		in, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		cdxj.IndexFile(in, filepath.Base(f), cdxj.IndexOptions{}, func(cdxj.Capture) error { counts[f]++; return nil })
		in.Close()
		if big == "" || counts[f] > counts[big] {
			big = f
		}
	}
	small := ""
	for _, f := range files {
		if f != big && counts[f] > 0 {
			small = f
			break
		}
	}
	if counts[big] < 40 || small == "" {
		t.Fatalf("want a conformance archive of >= 40 captures and another one; have %v", counts)
	}
	whole := func(f string) cdxj.Range {
		st, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		return cdxj.Split(f, st.Size(), 0)[0]
	}
	dir := t.TempDir()
	var mu sync.Mutex
	lines := map[string]int{}
	emitRun := func(SortedRun) {}
	emitBatch := func(name string) func([]byte) {
		return func(batch []byte) {
			mu.Lock()
			defer mu.Unlock()
			forEachLine(batch, func([]byte) { lines[name]++ })
		}
	}
	newFn := func() *indexRangesFn {
		fn := &indexRangesFn{Parallelism: 1, RunsDir: dir, SampleK: SamplesPerShard, Batches: true, RunBytes: 2000}
		fn.Setup()
		return fn
	}
	ctx := context.Background()
	fnB, fnA := newFn(), newFn()
	if err := fnB.ProcessElement(ctx, whole(big), emitRun, emitBatch("B")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // B's range fills its outputs and waits
	done := make(chan error, 1)
	go func() {
		if err := fnA.ProcessElement(ctx, whole(small), emitRun, emitBatch("A")); err != nil {
			done <- err
			return
		}
		done <- fnA.FinishBundle(ctx, emitRun, emitBatch("A"))
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("bundle A waited for bundle B, which was not drained")
	}
	if err := fnB.FinishBundle(ctx, emitRun, emitBatch("B")); err != nil {
		t.Fatal(err)
	}
	if lines["A"] != counts[small] || lines["B"] != counts[big] {
		t.Errorf("lines A %d, B %d; the files have %d and %d captures", lines["A"], lines["B"], counts[small], counts[big])
	}
}

// wholeFileLines returns the sorted lines of cdxj.IndexFile over each whole
// file (captures before an error count, as in the pipeline), and the files
// cut into ranges of rangeBytes.
func wholeFileLines(t *testing.T, files []string, rangeBytes int64) (lines []string, ranges []cdxj.Range) {
	t.Helper()
	for _, f := range files {
		in, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		cdxj.IndexFile(in, filepath.Base(f), cdxj.IndexOptions{}, func(c cdxj.Capture) error {
			lines = append(lines, c.Line())
			return nil
		})
		st, err := in.Stat()
		in.Close()
		if err != nil {
			t.Fatal(err)
		}
		ranges = append(ranges, cdxj.Split(f, st.Size(), rangeBytes)...)
	}
	slices.Sort(lines)
	return lines, ranges
}
