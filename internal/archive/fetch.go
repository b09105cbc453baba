package archive

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/records"
	"github.com/recrawl/recrawl/internal/storage"
	"github.com/recrawl/recrawl/scoring/document"
)

// ErrArchiveFileMissing means an index names a WARC/ARC file that is in none
// of the archive locations. It stops a round (the state stays as it was), so
// the run resumes once the file is back.
var ErrArchiveFileMissing = errors.New("archive file not found in any --archive location")

// Fetcher reads records named by index captures from the archive locations
// (local directories or gs:// prefixes, searched in order). With several
// named archives, a capture's file is looked for in the locations of its
// own archive (cdxj.Capture.Archive) only. Open files are kept in a small
// LRU; a gs:// file is read with ranged reads only. Safe for concurrent use.
type Fetcher struct {
	// MaxBodyBytes caps a record's decoded body (the spec's
	// max_document_bytes); 0 means document.DefaultMaxBytes. The record is
	// read through this limit at every layer (records.ReadRecordAtLimit).
	MaxBodyBytes int64
	// CountMissingFiles makes a missing archive file a *RecordError of kind
	// ReasonArchiveFileGone (the URL is missing, naming the file) instead of
	// an error that stops the run.
	CountMissingFiles bool

	locations map[string][]string // archive name ("" if unnamed) → its locations

	mu       sync.Mutex
	resolved map[archiveFile]string // → path
	open     map[string]*list.Element
	lru      *list.List // of *openFile, most recent first
	maxOpen  int
}

type openFile struct {
	path    string
	r       storage.ReaderAt
	refs    int  // reads in progress
	evicted bool // left the LRU: closed when the last read ends
}

// archiveFile is an index filename in one archive.
type archiveFile struct{ archive, name string }

// NewFetcher returns a fetcher over the locations of a single unnamed archive.
func NewFetcher(locations []string) *Fetcher {
	return NewArchivesFetcher(map[string][]string{"": locations})
}

// NewArchivesFetcher returns a fetcher over several named archives: archive
// name → its locations, searched in order.
func NewArchivesFetcher(locations map[string][]string) *Fetcher {
	return &Fetcher{locations: locations, resolved: map[archiveFile]string{}, open: map[string]*list.Element{}, lru: list.New(), maxOpen: 64}
}

// Resolve finds the file an index filename names (single unnamed archive).
func (f *Fetcher) Resolve(ctx context.Context, name string) (string, error) {
	return f.ResolveIn(ctx, "", name)
}

// ResolveIn finds the file an index filename names in the locations of
// the named archive.
func (f *Fetcher) ResolveIn(ctx context.Context, archive, name string) (string, error) {
	if err := SafeFilename(name); err != nil {
		return "", err
	}
	locations, ok := f.locations[archive]
	if !ok {
		return "", fmt.Errorf("file %s: archive %q has no --archive locations", name, archive)
	}
	key := archiveFile{archive, name}
	f.mu.Lock()
	p, ok := f.resolved[key]
	f.mu.Unlock()
	if ok {
		return p, nil
	}
	for _, loc := range locations {
		candidate := storage.Join(loc, name)
		ok, err := storage.Exists(ctx, candidate)
		if err != nil {
			return "", fmt.Errorf("look for %s: %w", candidate, err)
		}
		if ok {
			// A symbolic link out of the location is refused like "../".
			if err := storage.CheckInside(loc, candidate); err != nil {
				return "", &RecordError{Kind: ReasonUnsafeFilename, Err: fmt.Errorf("filename %q: %w", name, err)}
			}
			f.mu.Lock()
			f.resolved[key] = candidate
			f.mu.Unlock()
			return candidate, nil
		}
	}
	if archive != "" {
		return "", fmt.Errorf("%w: %s (archive %s, searched %s)", ErrArchiveFileMissing, name, archive, strings.Join(locations, ", "))
	}
	return "", fmt.Errorf("%w: %s (searched %s)", ErrArchiveFileMissing, name, strings.Join(locations, ", "))
}

// openNamed opens the archive file an index filename names in an archive
// (release it after use). An unsafe name gives a *RecordError and opens
// nothing.
func (f *Fetcher) openNamed(ctx context.Context, archive, name string) (*openFile, error) {
	if err := SafeFilename(name); err != nil {
		return nil, &RecordError{Kind: ReasonUnsafeFilename, Err: err}
	}
	p, err := f.ResolveIn(ctx, archive, name)
	if err != nil {
		return nil, err
	}
	return f.acquire(ctx, p)
}

// acquire returns the open file for p, opening it if needed; release it
// after use.
func (f *Fetcher) acquire(ctx context.Context, p string) (*openFile, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if el, ok := f.open[p]; ok {
		f.lru.MoveToFront(el)
		of := el.Value.(*openFile)
		of.refs++
		return of, nil
	}
	r, err := storage.OpenReaderAt(ctx, p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s", ErrArchiveFileMissing, p)
		}
		return nil, err
	}
	of := &openFile{path: p, r: r, refs: 1}
	f.open[p] = f.lru.PushFront(of)
	for f.lru.Len() > f.maxOpen {
		last := f.lru.Back()
		old := last.Value.(*openFile)
		f.lru.Remove(last)
		delete(f.open, old.path)
		old.evicted = true
		if old.refs == 0 {
			old.r.Close()
		}
	}
	return of, nil
}

func (f *Fetcher) release(of *openFile) {
	f.mu.Lock()
	defer f.mu.Unlock()
	of.refs--
	if of.evicted && of.refs == 0 {
		of.r.Close()
	}
}

// Close closes the open files.
func (f *Fetcher) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for el := f.lru.Front(); el != nil; el = el.Next() {
		el.Value.(*openFile).r.Close()
	}
	f.lru.Init()
	f.open = map[string]*list.Element{}
	return nil
}

// BytesRead is the number of bytes read from the files open now.
func (f *Fetcher) BytesRead() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	var n int64
	for el := f.lru.Front(); el != nil; el = el.Next() {
		n += el.Value.(*openFile).r.BytesRead()
	}
	return n
}

// Read reads the record of a capture from its archive. A missing file gives
// an error wrapping ErrArchiveFileMissing; a record that is not where the
// index says (a stale entry: another record or past the end) or is damaged
// gives a *RecordError.
func (f *Fetcher) Read(ctx context.Context, c cdxj.Capture) (*records.Record, error) {
	of, err := f.openNamed(ctx, c.Archive, c.Filename)
	if err != nil {
		if f.CountMissingFiles && errors.Is(err, ErrArchiveFileMissing) {
			return nil, &RecordError{Kind: ReasonArchiveFileGone, Err: err}
		}
		return nil, err
	}
	defer f.release(of)
	r := of.r
	if c.Offset < 0 {
		return nil, &RecordError{Kind: ReasonStaleIndex, Err: fmt.Errorf("file %s offset %d: negative offset", c.Filename, c.Offset)}
	}
	if c.Offset >= r.Size() {
		return nil, &RecordError{Kind: ReasonStaleIndex, Err: fmt.Errorf("file %s offset %d: past the end of the file (%d bytes)", c.Filename, c.Offset, r.Size())}
	}
	limit := f.MaxBodyBytes
	if limit <= 0 {
		limit = document.DefaultMaxBytes
	}
	rec, err := records.ReadRecordAtLimit(r, c.Offset, c.Length, c.Filename, limit)
	if err != nil {
		kind := ReasonCorruptRecord
		if strings.Contains(err.Error(), "not the start") {
			kind = ReasonStaleIndex
		}
		return nil, &RecordError{Kind: kind, Err: err}
	}
	if rec.TargetURI != c.URL {
		return nil, &RecordError{Kind: ReasonStaleIndex, Err: fmt.Errorf("file %s offset %d holds a record of %q, the index says %q", c.Filename, c.Offset, rec.TargetURI, c.URL)}
	}
	return rec, nil
}

// RecordError is a record-level failure: the URL goes to missing with this
// reason, the round goes on.
type RecordError struct {
	Kind string // one of the Reason* codes below
	Err  error
}

// The kinds of RecordError: the reason codes the extraction gives a URL
// whose record could not be read (missing.jsonl's reason_code;
// internal/extract names them too).
const (
	// ReasonStaleIndex: the record is not where the index says (another
	// record, or past the end of the file).
	ReasonStaleIndex = "stale-index-entry"
	// ReasonCorruptRecord: the record is there but damaged.
	ReasonCorruptRecord = "corrupt-record"
	// ReasonUnsafeFilename: the index's filename would resolve outside the
	// archive locations (SafeFilename, or a symbolic link out).
	ReasonUnsafeFilename = "filename-outside-archive"
	// ReasonArchiveFileGone: the file is in no location, and the fetcher
	// counts missing files (Fetcher.CountMissingFiles).
	ReasonArchiveFileGone = "archive-file-missing"
)

func (e *RecordError) Error() string { return e.Kind + ": " + e.Err.Error() }
func (e *RecordError) Unwrap() error { return e.Err }
