package index

import (
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
// URIs of .warc, .warc.gz, .arc, .arc.gz files) and emits one CDXJ line per
// capture, as pywb's indexer would write it. The index records a file by its
// base name, as pywb does; the extraction finds it again through --archive.
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
	// Index several ranges at once; lines leave in range order.
	return beam.ParDo(s, &indexRangesFn{Parallelism: opts.Parallelism}, ranges)
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
// goroutine. Lines are emitted from ProcessElement and FinishBundle (the
// only places Beam allows), in the order the ranges came: while more than
// Parallelism ranges are under way, the oldest is drained. Each range's
// lines wait in a bounded channel, so memory stays bounded whatever the
// size of a range.
type indexRangesFn struct {
	Parallelism int

	failed, captures beam.Counter
	pending          []*rangeJob
}

// rangeJob is one range being indexed.
type rangeJob struct {
	rng   cdxj.Range
	lines chan string // closed when the range is done
	// Set before lines is closed:
	captures int
	skips    map[string]int64
	err      error
}

// linesInFlight bounds the lines one range holds before they are emitted.
const linesInFlight = 8192

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

func (f *indexRangesFn) ProcessElement(ctx context.Context, rng cdxj.Range, emit func(string)) error {
	job := &rangeJob{rng: rng, lines: make(chan string, linesInFlight), skips: map[string]int64{}}
	go job.run(context.WithoutCancel(ctx))
	f.pending = append(f.pending, job)
	for len(f.pending) > f.parallelism() {
		f.drainOldest(ctx, emit)
	}
	return nil
}

func (f *indexRangesFn) FinishBundle(ctx context.Context, emit func(string)) error {
	for len(f.pending) > 0 {
		f.drainOldest(ctx, emit)
	}
	return nil
}

// drainOldest emits the lines of the oldest range until it is done and
// adds its counts to the counters.
func (f *indexRangesFn) drainOldest(ctx context.Context, emit func(string)) {
	job := f.pending[0]
	f.pending = f.pending[1:]
	for line := range job.lines {
		emit(line)
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
	defer close(j.lines)
	j.captures, j.err = archive.IndexRange(ctx, j.rng, func(c cdxj.Capture) {
		j.lines <- c.Line()
	}, func(skip records.Skip) {
		j.skips[skip.Kind]++
	})
}

// IsSkipCounter reports whether a counter name of namespace "index" counts
// skipped records, and returns the skip kind.
func IsSkipCounter(name string) (kind string, ok bool) {
	return strings.CutPrefix(name, CounterSkippedPrefix)
}
