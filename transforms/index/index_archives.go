package index

import (
	"bytes"
	"context"
	"log/slog"
	"runtime"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/recrawl/recrawl/internal/archive"
	"github.com/recrawl/recrawl/internal/cdxj"
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
}

// IndexArchives reads every archive file named in files (local paths or gs://
// URIs of .warc, .warc.gz, .arc, .arc.gz files) and emits the CDXJ lines of
// their captures, one per capture, as pywb's indexer would write them. The
// index records a file by its base name, as pywb does; the extraction finds
// it again through --archive.
//
// The lines come in batches: a []byte of about BatchBytes holding whole
// lines, each ending in '\n', in file order within the batch. A runner
// moves and stores a batch at the cost of one element, where a line per
// element cost prism as much CPU as the indexing itself and about 1.3 KB of
// memory per line. SortIntoShards takes the batches; Lines turns them into
// one line per element for the steps that want that.
//
// Every file is cut into ranges of about opts.RangeBytes, which start and end
// at confirmed record boundaries (cdxj.IndexRange: the lines do not depend on
// the cut), and each worker indexes opts.Parallelism ranges at once, so all
// cores work on one large file as on many files. Gzip files with one member
// per record are cut; plain and whole-file gzip files are one range.
//
// A corrupt record is counted (index/skipped_<kind>), logged with its file and
// offset, and skipped; the rest of the file is still indexed. A file (or a
// range of one) that cannot be opened or read at all is counted
// (index/files_unreadable) and logged; the run goes on with the others.
func IndexArchives(s beam.Scope, files beam.PCollection, opts IndexArchivesOptions) beam.PCollection {
	s = s.Scope("IndexArchives")
	if opts.RangeBytes == 0 {
		opts.RangeBytes = DefaultRangeBytes
	}
	// Cut the files into ranges, then spread them over workers.
	ranges := beam.ParDo(s, &planRangesFn{RangeBytes: opts.RangeBytes}, files)
	ranges = beam.Reshuffle(s, ranges)
	// Index several ranges at once; batches leave in range order.
	return beam.ParDo(s, &indexRangesFn{Parallelism: opts.Parallelism}, ranges)
}

// BatchBytes is the size at which IndexArchives closes a batch of lines.
const BatchBytes = 1 << 20

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
// goroutine. Batches are emitted from ProcessElement and FinishBundle (the
// only places Beam allows), in the order the ranges came: while more than
// Parallelism ranges are under way, the oldest is drained. Each range's
// batches wait in a bounded channel, so memory stays bounded whatever the
// size of a range.
type indexRangesFn struct {
	Parallelism int

	failed, captures beam.Counter
	pending          []*rangeJob
}

// rangeJob is one range being indexed.
type rangeJob struct {
	rng     cdxj.Range
	batches chan []byte // closed when the range is done
	// Set before batches is closed:
	captures int
	skips    map[string]int64
	err      error
}

// batchesInFlight bounds the batches one range holds before they are emitted.
const batchesInFlight = 4

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

func (f *indexRangesFn) ProcessElement(ctx context.Context, rng cdxj.Range, emit func([]byte)) error {
	job := &rangeJob{rng: rng, batches: make(chan []byte, batchesInFlight), skips: map[string]int64{}}
	go job.run(context.WithoutCancel(ctx))
	f.pending = append(f.pending, job)
	for len(f.pending) > f.parallelism() {
		f.drainOldest(ctx, emit)
	}
	return nil
}

func (f *indexRangesFn) FinishBundle(ctx context.Context, emit func([]byte)) error {
	for len(f.pending) > 0 {
		f.drainOldest(ctx, emit)
	}
	return nil
}

// drainOldest emits the batches of the oldest range until it is done and
// adds its counts to the counters.
func (f *indexRangesFn) drainOldest(ctx context.Context, emit func([]byte)) {
	job := f.pending[0]
	f.pending = f.pending[1:]
	for batch := range job.batches {
		emit(batch)
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

func (j *rangeJob) run(ctx context.Context) {
	defer close(j.batches)
	batch := make([]byte, 0, BatchBytes+4<<10)
	j.captures, j.err = archive.IndexRange(ctx, j.rng, func(c cdxj.Capture) {
		batch = append(c.AppendLine(batch), '\n')
		if len(batch) >= BatchBytes {
			j.batches <- batch
			batch = make([]byte, 0, BatchBytes+4<<10)
		}
	}, func(skip records.Skip) {
		j.skips[skip.Kind]++
	})
	if len(batch) > 0 {
		j.batches <- batch
	}
}

// IsSkipCounter reports whether a counter name of namespace "index" counts
// skipped records, and returns the skip kind.
func IsSkipCounter(name string) (kind string, ok bool) {
	return strings.CutPrefix(name, CounterSkippedPrefix)
}
