package extract

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/storage"
	"github.com/recrawl/recrawl/scoring"
)

// Output file names in OUT.
const (
	DocumentsFile  = "documents.jsonl"
	MissingFile    = "missing.jsonl"
	LinksFile      = "links.tsv"
	RoundsFile     = "rounds.jsonl"
	RunFile        = "run.json"
	CollectionWARC = "collection.warc.gz"
	CollectionCDXJ = "collection.cdxj"
	// ListingsFile holds the listing pages that were followed but not
	// counted (specs count_listing_pages: false); written only then.
	ListingsFile = "listings.jsonl"
)

// RoundStats is one line of rounds.jsonl.
type RoundStats struct {
	Round                int     `json:"round"`
	FrontierSize         int     `json:"frontier_size"` // unseen URLs in the frontier when the round started
	Selected             int     `json:"selected"`
	Collected            int     `json:"collected"`
	Missing              int     `json:"missing"`
	Redirects            int     `json:"redirects"`
	Listings             int     `json:"listings,omitempty"`    // listing pages followed, not counted
	AccumulatedRelevance float64 `json:"accumulated_relevance"` // sum of topic_r over the collection so far
	URLsConsidered       int     `json:"urls_considered"`       // |seen| + |frontier| after the round
	// Links are the outlinks of the round's pages and what became of them.
	Links   LinkStats `json:"links"`
	Seconds float64   `json:"seconds"`
}

// MissingURL is one line of missing.jsonl.
type MissingURL struct {
	URL        string  `json:"url"`
	SURT       string  `json:"surt"`
	Path       string  `json:"path"`
	Depth      int     `json:"depth"`
	Parent     string  `json:"parent,omitempty"`
	Priority   float64 `json:"priority"`
	Round      int     `json:"round"`
	ReasonCode string  `json:"reason_code"`
	Reason     string  `json:"reason"`
}

// Totals summarise a run in run.json.
type Totals struct {
	Collected      int              `json:"collected"`
	Listings       int              `json:"listings,omitempty"`
	Missing        int              `json:"missing"`
	Redirects      int              `json:"redirects"`
	Frontier       int              `json:"frontier"`
	URLsConsidered int              `json:"urls_considered"`
	Rounds         int              `json:"rounds"`
	Relevance      float64          `json:"accumulated_relevance"`
	MissingReasons map[string]int   `json:"missing_reasons"`
	Counters       map[string]int64 `json:"counters,omitempty"`
	StopReason     string           `json:"stop_reason"`
	// Links are the outlinks of the run's pages and what became of them.
	Links LinkStats `json:"links"`
	// Starvation explains a run whose frontier emptied before target_size
	// (extract.Starvation); absent otherwise.
	Starvation string `json:"starvation,omitempty"`
}

// RunInfo is run.json.
type RunInfo struct {
	Spec     json.RawMessage   `json:"spec"`
	Strategy string            `json:"strategy"`
	Engine   string            `json:"engine"`
	Flags    map[string]string `json:"flags"`
	Versions map[string]string `json:"versions"`
	// Archives lists the named archives with the documents taken from
	// each (absent for a single unnamed archive).
	Archives []ArchiveUse `json:"archives,omitempty"`
	// Gate is the calibration of an automatic follow_threshold: the
	// threshold, its parts and every split with its seed.
	Gate *scoring.Calibration `json:"follow_threshold_calibration,omitempty"`
	// Listings: the run does not count listing pages, so listings.jsonl
	// is written (even when empty); not part of run.json.
	Listings bool    `json:"-"`
	Totals   Totals  `json:"totals"`
	Seconds  float64 `json:"seconds"`
}

// ResultSource replays a run's results in collection order; it may be
// called more than once.
type ResultSource func(yield func(Result) error) error

// WriteOutputs writes documents.jsonl, missing.jsonl, links.tsv,
// rounds.jsonl, run.json, collection.warc.gz and collection.cdxj into out,
// each atomically. Both engines call it, so equal results give equal files.
func WriteOutputs(ctx context.Context, out string, results ResultSource, rounds []RoundStats, run RunInfo, f *Fetcher) error {
	inCollection := map[string]bool{}
	hasListings := run.Listings
	if err := results(func(r Result) error {
		if r.Outcome == OutcomeCollected {
			inCollection[r.Entry.Key] = true
		}
		hasListings = hasListings || r.Outcome == OutcomeListing
		return nil
	}); err != nil {
		return err
	}
	docs, err := newLineFile(ctx, storage.Join(out, DocumentsFile))
	if err != nil {
		return err
	}
	missing, err := newLineFile(ctx, storage.Join(out, MissingFile))
	if err != nil {
		docs.abort()
		return err
	}
	links, err := newLineFile(ctx, storage.Join(out, LinksFile))
	if err != nil {
		docs.abort()
		missing.abort()
		return err
	}
	links.w.WriteString("source\ttarget\tanchor\tin_collection\n")
	var listings *lineFile
	if hasListings {
		if listings, err = newLineFile(ctx, storage.Join(out, ListingsFile)); err != nil {
			docs.abort()
			missing.abort()
			links.abort()
			return err
		}
	}
	var collected []Document
	err = results(func(r Result) error {
		switch r.Outcome {
		case OutcomeListing:
			// Not in the collection, so not a node of its link graph.
			return listings.json(r.Document)
		case OutcomeCollected:
			collected = append(collected, *r.Document)
			if err := docs.json(r.Document); err != nil {
				return err
			}
			for _, l := range r.Links {
				fmt.Fprintf(links.w, "%s\t%s\t%s\t%t\n", tsvField(r.Entry.URL), tsvField(l.Target), tsvField(l.Anchor), inCollection[l.Key])
			}
		default:
			e := r.Entry
			return missing.json(MissingURL{URL: e.URL, SURT: e.Key, Path: e.Path, Depth: e.Depth, Parent: e.Parent,
				Priority: e.Priority, Round: r.Round, ReasonCode: r.ReasonCode, Reason: r.Reason})
		}
		return nil
	})
	files := []*lineFile{docs, missing, links}
	if listings != nil {
		files = append(files, listings)
	}
	for _, lf := range files {
		if err != nil {
			lf.abort()
		} else if cerr := lf.close(); cerr != nil {
			err = cerr
		}
	}
	if err != nil {
		return err
	}
	var rb bytes.Buffer
	for _, r := range rounds {
		line, _ := json.Marshal(r)
		rb.Write(line)
		rb.WriteByte('\n')
	}
	if err := storage.WriteFile(ctx, storage.Join(out, RoundsFile), rb.Bytes()); err != nil {
		return err
	}
	if err := WriteCollectionWARC(ctx, out, collected, f); err != nil {
		return err
	}
	runJSON, err := json.MarshalIndent(run, "", "  ")
	if err != nil {
		return fmt.Errorf("encode run.json: %w", err)
	}
	return storage.WriteFile(ctx, storage.Join(out, RunFile), append(runJSON, '\n'))
}

func tsvField(s string) string {
	return strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(s)
}

type lineFile struct {
	sw storage.Writer
	w  *bufio.Writer
}

func newLineFile(ctx context.Context, p string) (*lineFile, error) {
	sw, err := storage.Create(ctx, p)
	if err != nil {
		return nil, err
	}
	return &lineFile{sw: sw, w: bufio.NewWriterSize(sw, 1<<20)}, nil
}

func (l *lineFile) json(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	l.w.Write(b)
	return l.w.WriteByte('\n')
}

func (l *lineFile) close() error {
	if err := l.w.Flush(); err != nil {
		l.sw.Abort()
		return err
	}
	return l.sw.Close()
}

func (l *lineFile) abort() { l.sw.Abort() }

// WriteCollectionWARC copies the records of the collected documents (and the
// records their revisits refer to) unchanged into OUT/collection.warc.gz,
// one gzip member per record, in collection order, each record once; then
// indexes it into OUT/collection.cdxj (pywb's format), so the collection can
// be replayed. Records from uncompressed or whole-file-gzip archives are
// compressed into members of their own; ARC records, which have no place in
// a WARC file, are left out with a warning in the log.
func WriteCollectionWARC(ctx context.Context, out string, docs []Document, f *Fetcher) error {
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
	copyRecord := func(archive, file string, offset, length int64) error {
		if written[loc{archive, file, offset}] {
			return nil
		}
		written[loc{archive, file, offset}] = true
		err := f.CopyRawRecord(ctx, bw, archive, file, offset, length)
		if errors.Is(err, ErrNotWARCRecord) {
			slog.Warn("record left out of the collection WARC", "archive", archive, "file", file, "offset", offset, "err", err)
			return nil
		}
		return err
	}
	for _, d := range docs {
		if d.Revisit {
			if err := copyRecord(d.Archive, d.PayloadFile, d.PayloadOffset, d.PayloadLength); err != nil {
				w.Abort()
				return fmt.Errorf("collection WARC: %s: %w", d.URL, err)
			}
		}
		if err := copyRecord(d.Archive, d.Filename, d.Offset, d.Length); err != nil {
			w.Abort()
			return fmt.Errorf("collection WARC: %s: %w", d.URL, err)
		}
	}
	if err := bw.Flush(); err != nil {
		w.Abort()
		return fmt.Errorf("write %s: %w", warcPath, err)
	}
	if err := w.Close(); err != nil {
		return err
	}
	// Index what was written, with the same indexer as the archive.
	r, err := storage.Open(ctx, warcPath)
	if err != nil {
		return err
	}
	defer r.Close()
	var lines []string
	if _, err := cdxj.IndexFile(r, CollectionWARC, cdxj.IndexOptions{}, func(c cdxj.Capture) error {
		lines = append(lines, c.Line())
		return nil
	}); err != nil && len(docs) > 0 {
		return fmt.Errorf("index %s: %w", warcPath, err)
	}
	sort.Strings(lines)
	var buf bytes.Buffer
	for _, l := range lines {
		buf.WriteString(l)
		buf.WriteByte('\n')
	}
	return storage.WriteFile(ctx, storage.Join(out, CollectionCDXJ), buf.Bytes())
}

// ErrNotWARCRecord: an ARC record, which has no place in a WARC file.
var ErrNotWARCRecord = errors.New("not a WARC record (ARC records are not copied into the collection WARC)")

// CopyRawRecord writes the record at an index offset in a file of an
// archive ("" for a single unnamed one) to w as one gzip member: copied
// unchanged from a per-record-gzip file, else compressed as it is read.
// The record is streamed, never held whole in memory, so a huge record
// costs a copy buffer, not its size. An ARC record is ErrNotWARCRecord,
// found before anything is written; after any other error w may hold part
// of the record, and the caller discards what it wrote.
func (f *Fetcher) CopyRawRecord(ctx context.Context, w io.Writer, archive, name string, offset, length int64) error {
	of, err := f.openNamed(ctx, archive, name)
	if err != nil {
		return err
	}
	defer f.release(of)
	r := of.r
	if offset < 0 || length < 0 {
		return fmt.Errorf("%s: negative offset %d or length %d in the index", name, offset, length)
	}
	// outside: a length from a damaged or hostile index line that the file
	// cannot hold.
	outside := offset > r.Size() || length > r.Size()-offset
	errOutside := fmt.Errorf("%s: the index's offset %d and length %d lie outside the file (%d bytes)", name, offset, length, r.Size())
	var magic [2]byte
	r.ReadAt(magic[:], offset)
	if magic == [2]byte{0x1f, 0x8b} && length > 0 {
		if outside {
			return errOutside
		}
		// A gzip member of its own: check that it holds a WARC record, then
		// copy its bytes unchanged.
		zr, err := gzip.NewReader(io.NewSectionReader(r, offset, length))
		if err != nil {
			return fmt.Errorf("read %s at %d: %w", name, offset, err)
		}
		var head [5]byte
		n, _ := io.ReadFull(zr, head[:])
		if string(head[:n]) != "WARC/" {
			return fmt.Errorf("%s at %d: %w", name, offset, ErrNotWARCRecord)
		}
		if _, err := io.Copy(w, io.NewSectionReader(r, offset, length)); err != nil {
			return fmt.Errorf("copy %s at %d: %w", name, offset, err)
		}
		return nil
	}
	var first [2]byte
	r.ReadAt(first[:], 0)
	var src io.Reader
	if first == [2]byte{0x1f, 0x8b} { // whole-file gzip: offsets are in the decompressed stream
		zr, err := gzip.NewReader(io.NewSectionReader(r, 0, r.Size()))
		if err != nil {
			return fmt.Errorf("read %s: %w", name, err)
		}
		if _, err := io.CopyN(io.Discard, zr, offset); err != nil {
			return fmt.Errorf("read %s at %d: %w", name, offset, err)
		}
		src = io.LimitReader(zr, length)
	} else {
		if outside {
			return errOutside
		}
		src = io.NewSectionReader(r, offset, length)
	}
	br := bufio.NewReaderSize(src, 64<<10)
	if head, _ := br.Peek(5); string(head) != "WARC/" {
		return fmt.Errorf("%s at %d: %w", name, offset, ErrNotWARCRecord)
	}
	zw := gzip.NewWriter(w)
	n, err := io.Copy(zw, br)
	if err == nil && n < length {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return fmt.Errorf("read %s at %d (%d of %d bytes): %w", name, offset, n, length, err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("copy %s at %d: %w", name, offset, err)
	}
	return nil
}
