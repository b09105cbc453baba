package archive

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/collection"
	"github.com/recrawl/recrawl/internal/storage"
)

// The files of a collection in an output directory (package collection
// names them).
const (
	CollectionWARC = collection.WARCFile
	CollectionCDXJ = collection.CDXJFile
)

// Record is where one record of a collection lies in its archive: the file
// an index names, in an archive ("" for a single unnamed one), and the
// record's offset and length there. URL is the document it belongs to,
// named in errors.
type Record struct {
	URL     string
	Archive string
	File    string
	Offset  int64
	Length  int64
}

// WriteCollection copies records unchanged into OUT/collection.warc.gz, one
// gzip member per record, in the order given, each record once (a record
// listed again, such as the payload of two revisits, is skipped); then
// indexes it into OUT/collection.cdxj (pywb's format), so the collection can
// be replayed. Records from uncompressed or whole-file-gzip archives are
// compressed into members of their own; an ARC capture becomes a WARC/1.0
// record naming its origin (CopyRawRecord). A record that is neither
// (ErrNotWARCRecord) is left out with a warning in the log. A collection
// without a record gives an empty collection.warc.gz and an empty
// collection.cdxj.
func WriteCollection(ctx context.Context, out string, recs []Record, f *Fetcher) error {
	warcPath := storage.Join(out, CollectionWARC)
	w, err := storage.Create(ctx, warcPath)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	type loc struct {
		archive, file string
		offset        int64
	}
	written := map[loc]bool{}
	members := 0
	for _, rec := range recs {
		at := loc{rec.Archive, rec.File, rec.Offset}
		if written[at] {
			continue
		}
		written[at] = true
		err := f.CopyRawRecord(ctx, bw, rec.Archive, rec.File, rec.Offset, rec.Length)
		if errors.Is(err, ErrNotWARCRecord) {
			slog.Warn("record left out of the collection WARC", "archive", rec.Archive, "file", rec.File, "offset", rec.Offset, "err", err)
			continue
		}
		if err != nil {
			w.Abort()
			return fmt.Errorf("collection WARC: %s: %w", rec.URL, err)
		}
		members++
	}
	if err := bw.Flush(); err != nil {
		w.Abort()
		return fmt.Errorf("write %s: %w", warcPath, err)
	}
	if err := w.Close(); err != nil {
		return err
	}
	var lines []string
	if members > 0 {
		if lines, err = indexCollection(ctx, warcPath); err != nil {
			return err
		}
	}
	return storage.WriteSortedLines(ctx, storage.Join(out, CollectionCDXJ), lines)
}

// indexCollection indexes the collection WARC at warcPath, with the same
// indexer as the archive, and returns its index lines.
func indexCollection(ctx context.Context, warcPath string) ([]string, error) {
	r, err := storage.Open(ctx, warcPath)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var lines []string
	if _, err := cdxj.IndexFile(r, CollectionWARC, cdxj.IndexOptions{}, func(c cdxj.Capture) error {
		lines = append(lines, c.Line())
		return nil
	}); err != nil {
		return nil, fmt.Errorf("index %s: %w", warcPath, err)
	}
	return lines, nil
}
