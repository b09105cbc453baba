package index

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/records"
	"github.com/recrawl/recrawl/internal/storage"
)

// IndexRange indexes one range of an archive file (cdxj.Range: a local path
// or gs:// URI of a .warc, .warc.gz, .arc or .arc.gz file, and the records
// that start in its byte range), calling emit for each capture and onSkip
// for each problem, after logging it with file and offset: as a skipped
// record, or as a record indexed in spite of it (records.RecordKept).
// The index records the file by its base name, as pywb does. It returns the
// number of captures, and an error only when the range could not be read.
func IndexRange(ctx context.Context, rng cdxj.Range, emit func(cdxj.Capture), onSkip func(records.Skip)) (int, error) {
	r, err := storage.OpenReaderAt(ctx, rng.File)
	if err != nil {
		return 0, fmt.Errorf("open archive file: %w", err)
	}
	defer r.Close()
	path := rng.File
	n := 0
	_, err = cdxj.IndexRange(r, storage.Base(path), rng, cdxj.IndexOptions{
		OnSkip: func(skip records.Skip) {
			msg := "skipped archive record"
			if records.RecordKept(skip.Kind) {
				msg = "archive record indexed in spite of a problem"
			}
			slog.Warn(msg, "file", path, "offset", skip.Offset, "kind", skip.Kind, "err", skip.Err)
			onSkip(skip)
		},
	}, func(c cdxj.Capture) error {
		n++
		emit(c)
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("index %s: %w", path, err)
	}
	return n, nil
}
