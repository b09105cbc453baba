package index

import (
	"context"
	"log/slog"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/recrawl/recrawl/internal/archive"
	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/records"
)

// Counter names of IndexArchives (namespace "index").
const (
	CounterNamespaceIndex = "index"
	CounterFiles          = "files"
	CounterFilesFailed    = "files_unreadable"
	CounterCaptures       = "captures"
	CounterSkippedPrefix  = "skipped_" // + the skip kind, e.g. skipped_truncated-gzip
)

// IndexArchives reads every archive file named in files (local paths or gs://
// URIs of .warc, .warc.gz, .arc, .arc.gz files) and emits one CDXJ line per
// capture, as pywb's indexer would write it. The index records a file by its
// base name, as pywb does; the extraction finds it again through --archive.
//
// A corrupt record is counted (index/skipped_<kind>), logged with its file and
// offset, and skipped; the rest of the file is still indexed. A file that
// cannot be opened or read at all is counted (index/files_unreadable) and
// logged; the run goes on with the other files.
func IndexArchives(s beam.Scope, files beam.PCollection) beam.PCollection {
	s = s.Scope("IndexArchives")
	// One element per file: spread them over workers before the heavy work.
	files = beam.Reshuffle(s, files)
	return beam.ParDo(s, &indexArchiveFn{}, files)
}

type indexArchiveFn struct {
	files, failed, captures beam.Counter
}

func (f *indexArchiveFn) Setup() {
	f.files = beam.NewCounter(CounterNamespaceIndex, CounterFiles)
	f.failed = beam.NewCounter(CounterNamespaceIndex, CounterFilesFailed)
	f.captures = beam.NewCounter(CounterNamespaceIndex, CounterCaptures)
}

func (f *indexArchiveFn) ProcessElement(ctx context.Context, path string, emit func(string)) error {
	f.files.Inc(ctx, 1)
	n, err := archive.IndexFile(ctx, path, func(c cdxj.Capture) {
		emit(c.Line())
	}, func(skip records.Skip) {
		beam.NewCounter(CounterNamespaceIndex, CounterSkippedPrefix+skip.Kind).Inc(ctx, 1)
	})
	f.captures.Inc(ctx, int64(n))
	if err != nil {
		f.failed.Inc(ctx, 1)
		slog.Error("archive file could not be indexed", "file", path, "captures_before_error", n, "err", err)
	}
	return nil
}

// IsSkipCounter reports whether a counter name of namespace "index" counts
// skipped records, and returns the skip kind.
func IsSkipCounter(name string) (kind string, ok bool) {
	return strings.CutPrefix(name, CounterSkippedPrefix)
}
