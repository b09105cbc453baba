package index

import (
	"bytes"
	"context"
	"fmt"
	"hash/fnv"
	"log/slog"
	"runtime"
	"strings"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/index"
	"github.com/recrawl/recrawl/internal/records"
	"github.com/recrawl/recrawl/internal/storage"
)

// Counter names of IndexArchives (namespace "index").
const (
	CounterNamespaceIndex = "index"
	CounterFiles          = "files"
	CounterFilesFailed    = "files_unreadable"
	CounterCaptures       = "captures"
	CounterSkippedPrefix  = "skipped_" // + the skip kind, e.g. skipped_truncated-gzip
)

// DefaultRangeBytes is the nominal size of the ranges a large archive file
// is cut into (IndexArchivesOptions.RangeBytes).
const DefaultRangeBytes = 64 << 20

// IndexArchivesOptions tune IndexArchives.
type IndexArchivesOptions struct {
	// RangeBytes is the nominal size of the parts of one file indexed on
	// their own (cdxj.Split); 0: DefaultRangeBytes, < 0: whole files.
	RangeBytes int64
	// Parallelism is the number of ranges one worker indexes at once;
	// 0: GOMAXPROCS.
	Parallelism int
	// RunsDir is the directory (local or gs://, reachable by every worker)
	// the sorted runs are written to; "": no runs.
	RunsDir string
	// SampleK is the size of the bottom-k sample of its lines each run
	// carries (SortIntoShards: shards × SamplesPerShard).
	SampleK int
	// Batches also emits the lines in batches, for Lines.
	Batches bool
	// RunBytes caps the line bytes of one run; 0: DefaultRunBytes.
	RunBytes int
	// OneProcess says that every bundle runs in this process (prism in
	// process): the ranges are indexed in the bundle that planned them,
	// without the Reshuffle that spreads them over workers. On prism the
	// Reshuffle gave every range its own bundle; the bundles waiting for
	// a slot (in FinishBundle) blocked the SDK's progress reports, and
	// prism busy-waited for the responses of the finished ones: up to
	// 40 % of the CPU of a 1-worker run.
	OneProcess bool
}

// Indexed is what IndexArchives returns.
type Indexed struct {
	// Runs are the SortedRuns written to RunsDir (empty without RunsDir).
	Runs beam.PCollection
	// Batches are []byte batches of whole lines, each ending in '\n'
	// (empty without Batches).
	Batches beam.PCollection
}

// IndexArchives reads every archive file named in files (local paths or gs://
// URIs of .warc, .warc.gz, .arc, .arc.gz files) and makes one CDXJ line per
// capture, as pywb's indexer would write it. The index records a file by its
// base name, as pywb does; the extraction finds it again through --archive.
//
// The lines do not go through the runner one by one: a line per element
// cost prism as much CPU as the indexing itself, and about 1.3 KB of memory
// per line. Instead, each range's lines are sorted and written to
// opts.RunsDir as runs of at most DefaultRunBytes (internal/index), and only a
// small SortedRun per run is emitted; SortIntoShards and the writers merge
// the runs. For the steps that want the lines themselves (Bigtable, the
// dictionary), opts.Batches also emits them in batches of about BatchBytes;
// Lines turns those into one line per element.
//
// Every file is cut into ranges of about opts.RangeBytes, which start and end
// at confirmed record boundaries (cdxj.IndexRange: the lines do not depend on
// the cut), and each worker indexes opts.Parallelism ranges at once, so all
// cores work on one large file as on many files. Gzip files with one member
// per record are cut; plain and whole-file gzip files are one range.
//
// A corrupt record is counted (index/skipped_<kind>), logged with its file and
// offset, and skipped; the rest of the file is still indexed. A problem that
// leaves its record in the index (records.RecordKept: a Content-Length that
// is not a number, read as 0) is counted the same way and logged as a
// record indexed in spite of it. A file (or a
// range of one) that cannot be opened or read at all is counted
// (index/files_unreadable) and logged; the run goes on with the others.
func IndexArchives(s beam.Scope, files beam.PCollection, opts IndexArchivesOptions) Indexed {
	s = s.Scope("IndexArchives")
	if opts.RangeBytes == 0 {
		opts.RangeBytes = DefaultRangeBytes
	}
	// Cut the files into ranges, then spread them over workers (when there
	// are other workers).
	ranges := beam.ParDo(s, &planRangesFn{RangeBytes: opts.RangeBytes}, files)
	if !opts.OneProcess {
		ranges = beam.Reshuffle(s, ranges)
	}
	// Index several ranges at once: sorted runs written, and batches.
	if opts.RunBytes <= 0 {
		opts.RunBytes = DefaultRunBytes
	}
	runs, batches := beam.ParDo2(s, &indexRangesFn{Parallelism: opts.Parallelism, RunsDir: opts.RunsDir,
		SampleK: opts.SampleK, Batches: opts.Batches, RunBytes: opts.RunBytes}, ranges)
	return Indexed{Runs: runs, Batches: batches}
}

// BatchBytes is the size at which IndexArchives closes a batch of lines.
const BatchBytes = 1 << 20

// DefaultRunBytes is the most line bytes a run holds: the memory one range
// being indexed needs for its lines, whatever the size of the range.
const DefaultRunBytes = 32 << 20

// SortedRun is a run of sorted lines written by IndexArchives, with the
// bottom-k sample of its lines (the sample shard boundaries come from).
type SortedRun struct {
	Run    index.Run
	Sample index.Sample
}

// Lines turns batches of lines (IndexArchives) into one line per element,
// without its newline.
func Lines(s beam.Scope, batches beam.PCollection) beam.PCollection {
	return beam.ParDo(s.Scope("Lines"), splitBatchFn, batches)
}

func splitBatchFn(batch []byte, emit func(string)) {
	forEachLine(batch, func(line []byte) { emit(string(line)) })
}

// forEachLine calls f with each line of a batch, without its newline.
func forEachLine(batch []byte, f func(line []byte)) {
	for len(batch) > 0 {
		i := bytes.IndexByte(batch, '\n')
		if i < 0 {
			f(batch)
			return
		}
		f(batch[:i])
		batch = batch[i+1:]
	}
}

// planRangesFn cuts one file into nominal ranges (cdxj.Split).
type planRangesFn struct {
	RangeBytes    int64
	files, failed beam.Counter
}

func (f *planRangesFn) Setup() {
	f.files = beam.NewCounter(CounterNamespaceIndex, CounterFiles)
	f.failed = beam.NewCounter(CounterNamespaceIndex, CounterFilesFailed)
}

func (f *planRangesFn) ProcessElement(ctx context.Context, path string, emit func(cdxj.Range)) error {
	f.files.Inc(ctx, 1)
	size, err := storage.Size(ctx, path)
	if err != nil {
		f.failed.Inc(ctx, 1)
		slog.Error("archive file could not be indexed", "file", path, "err", err)
		return nil
	}
	for _, r := range cdxj.Split(path, size, f.RangeBytes) {
		emit(r)
	}
	return nil
}

// indexRangesFn indexes up to Parallelism ranges at once, each in its own
// goroutine. Runs and batches are emitted from ProcessElement and
// FinishBundle (the only places Beam allows), in the order the ranges came:
// while more than Parallelism ranges are under way, the oldest is drained.
// Each range's output waits in a bounded channel, and its lines are written
// out every RunBytes, so memory stays bounded whatever the size of a range.
type indexRangesFn struct {
	Parallelism int
	RunsDir     string
	SampleK     int
	Batches     bool
	RunBytes    int

	failed, captures beam.Counter
	pending          []*rangeJob
}

// rangeJob is one range being indexed.
type rangeJob struct {
	rng cdxj.Range
	fn  *indexRangesFn
	out chan rangeOutput // closed when the range is done
	// slots: the range holds one of them while it works (run, send).
	slots slots
	// Set before out is closed:
	captures int
	skips    map[string]int64
	err      error
}

// rangeOutput is a run or a batch of a range.
type rangeOutput struct {
	run   *SortedRun
	batch []byte
}

// outputsInFlight bounds the runs and batches one range holds before they
// are emitted.
const outputsInFlight = 4

func (f *indexRangesFn) Setup() {
	f.failed = beam.NewCounter(CounterNamespaceIndex, CounterFilesFailed)
	f.captures = beam.NewCounter(CounterNamespaceIndex, CounterCaptures)
}

func (f *indexRangesFn) parallelism() int {
	if f.Parallelism > 0 {
		return f.Parallelism
	}
	return runtime.GOMAXPROCS(0)
}

func (f *indexRangesFn) ProcessElement(ctx context.Context, rng cdxj.Range, emitRun func(SortedRun), emitBatch func([]byte)) error {
	job := &rangeJob{rng: rng, fn: f, out: make(chan rangeOutput, outputsInFlight), skips: map[string]int64{}, slots: workerSlots(f.parallelism())}
	go job.run(context.WithoutCancel(ctx))
	f.pending = append(f.pending, job)
	for len(f.pending) > f.parallelism() {
		f.drainOldest(ctx, emitRun, emitBatch)
	}
	return nil
}

// slots bound the ranges indexed at once in one worker process, across
// bundles: a runner may run many bundles of indexRangesFn at once (prism
// gives every range its own bundle after the Reshuffle), and more ranges
// than cores at once cost CPU (each its inflate state, buffers and lines,
// the scheduler switching between them) and memory, and gain nothing.
//
// A range holds a slot only while it works: it gives the slot back while
// it waits for its bundle to take an output (rangeJob.send). So a slot is
// always given back without any bundle's help, and ProcessElement never
// waits on other bundles (a runner may feed every bundle through one data
// stream, which a bundle that does not read its input would stop).
type slots chan struct{}

func (s slots) take() { s <- struct{}{} }

func (s slots) give() { <-s }

var (
	workerSlotsMu sync.Mutex
	workerSlotsOf = map[int]slots{} // by parallelism
)

// workerSlots returns the process's slots for n ranges at once.
func workerSlots(n int) slots {
	workerSlotsMu.Lock()
	defer workerSlotsMu.Unlock()
	s, ok := workerSlotsOf[n]
	if !ok {
		s = make(slots, n)
		workerSlotsOf[n] = s
	}
	return s
}

func (f *indexRangesFn) FinishBundle(ctx context.Context, emitRun func(SortedRun), emitBatch func([]byte)) error {
	for len(f.pending) > 0 {
		f.drainOldest(ctx, emitRun, emitBatch)
	}
	return nil
}

// drainOldest emits the output of the oldest range until it is done and
// adds its counts to the counters.
func (f *indexRangesFn) drainOldest(ctx context.Context, emitRun func(SortedRun), emitBatch func([]byte)) {
	job := f.pending[0]
	f.pending = f.pending[1:]
	for o := range job.out {
		if o.run != nil {
			emitRun(*o.run)
		} else {
			emitBatch(o.batch)
		}
	}
	f.captures.Inc(ctx, int64(job.captures))
	for kind, n := range job.skips {
		beam.NewCounter(CounterNamespaceIndex, CounterSkippedPrefix+kind).Inc(ctx, n)
	}
	if job.err != nil {
		f.failed.Inc(ctx, 1)
		slog.Error("archive file could not be indexed", "file", job.rng.File, "range_start", job.rng.Start, "range_end", job.rng.End,
			"captures_before_error", job.captures, "err", job.err)
	}
}

// send hands an output to the bundle; while the bundle has not taken the
// outputs before it, the range gives its slot to another range.
func (j *rangeJob) send(o rangeOutput) {
	select {
	case j.out <- o:
	default:
		j.slots.give()
		j.out <- o
		j.slots.take()
	}
}

func (j *rangeJob) run(ctx context.Context) {
	defer close(j.out)
	j.slots.take()
	defer j.slots.give()
	var (
		batch   []byte
		lines   [][]byte // the lines of the run being gathered, in chunks
		chunk   []byte   // where they are stored, 1 MB at a time
		scratch []byte   // the line being made
		size    int      // their bytes
		sample  index.Sample
		runs    int
		runErr  error
		runsDir = j.fn.RunsDir
	)
	flushRun := func() {
		if len(lines) == 0 || runErr != nil {
			return
		}
		name := fmt.Sprintf("%016x-%d-%d.run", fileHash(j.rng.File), j.rng.Start, runs)
		run, err := index.WriteRun(ctx, storage.Join(runsDir, name), lines)
		if err != nil {
			runErr = err
			return
		}
		j.send(rangeOutput{run: &SortedRun{Run: run, Sample: sample}})
		runs++
		lines, chunk, size, sample = nil, nil, 0, index.Sample{}
	}
	j.captures, j.err = index.IndexRange(ctx, j.rng, func(c cdxj.Capture) {
		if runsDir != "" && runErr == nil {
			scratch = c.AppendLine(scratch[:0])
			if len(chunk)+len(scratch) > cap(chunk) {
				// A new chunk; the lines taken keep the old one.
				chunk = make([]byte, 0, max(1<<20, len(scratch)))
			}
			start := len(chunk)
			chunk = append(chunk, scratch...)
			line := chunk[start:len(chunk):len(chunk)]
			lines = append(lines, line)
			sample.AddBytes(line, j.fn.SampleK)
			if size += len(line) + 1; size >= j.fn.RunBytes {
				flushRun()
			}
		}
		if j.fn.Batches {
			batch = append(c.AppendLine(batch), '\n')
			if len(batch) >= BatchBytes {
				j.send(rangeOutput{batch: batch})
				batch = nil
			}
		}
	}, func(skip records.Skip) {
		j.skips[skip.Kind]++
	})
	flushRun()
	if runErr != nil && j.err == nil {
		j.err = fmt.Errorf("write a sorted run of %s: %w", j.rng.File, runErr)
	}
	if len(batch) > 0 {
		j.send(rangeOutput{batch: batch})
	}
}

// fileHash names a file's runs: base names alone can repeat across
// directories.
func fileHash(path string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(path))
	return h.Sum64()
}

// IsSkipCounter reports whether a counter name of namespace "index" counts
// skipped records, and returns the skip kind.
func IsSkipCounter(name string) (kind string, ok bool) {
	return strings.CutPrefix(name, CounterSkippedPrefix)
}
