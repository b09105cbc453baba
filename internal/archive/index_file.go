// Package archive reads the archive files of a web archive (WARC and ARC,
// local or gs://) as whole files: plain Go that the index pipeline's Beam
// step (transforms/index.IndexArchives) and tests call alike.
package archive

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/records"
	"github.com/recrawl/recrawl/internal/storage"
)

// IndexFile indexes one archive file (a local path or gs:// URI of a .warc,
// .warc.gz, .arc or .arc.gz file), calling emit for each capture and onSkip
// (may be nil) for each record it had to skip, after logging it with file and
// offset. The index records the file by its base name, as pywb does. It
// returns the number of captures, and an error only when the file could not
// be read at all.
func IndexFile(ctx context.Context, path string, emit func(cdxj.Capture), onSkip func(records.Skip)) (int, error) {
	r, err := storage.Open(ctx, path)
	if err != nil {
		return 0, fmt.Errorf("open archive file: %w", err)
	}
	defer r.Close()
	n := 0
	_, err = cdxj.IndexFile(r, storage.Base(path), cdxj.IndexOptions{
		OnSkip: func(skip records.Skip) {
			slog.Warn("skipped archive record", "file", path, "offset", skip.Offset, "kind", skip.Kind, "err", skip.Err)
			if onSkip != nil {
				onSkip(skip)
			}
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
