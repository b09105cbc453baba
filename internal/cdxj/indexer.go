package cdxj

// The indexer follows pywb's cdx-indexer (pywb/indexer/archiveindexer.py,
// DefaultRecordParser with the cdxj and append-POST options):
//
//   - indexed: response, revisit, resource, metadata and conversion records
//     and ARC records; not indexed: request and warcinfo records, records
//     whose Content-Type is exactly "application/warc-fields", metadata
//     records of mime "text/anvl" (Heritrix 1.x's, which collide with their
//     response; pywb's METADATA_NO_INDEX_TYPES), the ARC file header, and
//     HTTP messages whose status code is "-".
//   - mime: "warc/revisit" for revisits; else the HTTP Content-Type up to the
//     first ';' or space, or, for records without an HTTP head, the record's
//     own Content-Type (ARC: the header line's content type); "unk" if none.
//   - status: response records (and ARC records) only: the HTTP status code;
//     "200" for responses without an HTTP head (pywb's default head);
//     none for "204 …Error…".
//   - digest: WARC-Payload-Digest without "sha1:"; when absent (and not a
//     revisit), the base32 SHA-1 of the payload (the block after the HTTP
//     head, as stored) is computed.
//   - POST and PUT (and any non-GET) requests: a request record right before
//     or after its response (same URL, WARC-Concurrent-To pointing at the
//     other) adds "__wb_method=post&<body as query>" to the key of both.
//     The method is the request line's first token, whatever it is (a
//     "GETX" request gives "__wb_method=getx", as in pywb).
//
// Deliberate differences, all about damaged input where pywb stops with an
// exception: records with an unparsable WARC-Date or a URL the SURT
// canonicaliser rejects are skipped and reported; whole-file gzip archives
// are indexed (offsets in the decompressed stream). pywb also writes
// "mime-detected" (WARC-Identified-Payload-Type) and "metadata"
// (WARC-Json-Metadata) fields, which Capture has no room for.

import (
	"crypto/sha1"
	"encoding/base32"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/recrawl/recrawl/internal/records"
	"github.com/recrawl/recrawl/internal/surt"
)

// IndexOptions tune IndexFile.
type IndexOptions struct {
	// OnSkip receives every problem found in the file and every record left
	// out of the index because of one. May be nil.
	OnSkip func(records.Skip)
	// NoPostAppend leaves request bodies out of keys (pywb without -p).
	NoPostAppend bool
	// ReadBuffer is the size of the buffer the file is read through (0:
	// stream.DefaultBufferSize, 64 KB); IndexRange reads through 1 MB.
	ReadBuffer int
	// FileOffset is the offset in the file of the reader's first byte, for
	// a reader over a part of the file: error messages name offsets in the
	// file (IndexRange sets it; capture and Skip offsets are its to shift).
	FileOffset int64
}

// IndexStats counts what IndexFile did.
type IndexStats struct {
	Records  int // records read
	Captures int // captures emitted
	Skips    int // problems reported through OnSkip
	Digests  int // payload digests computed because the header had none
	Damaged  int // records left out because they are damaged (records.Record.Damage)
}

// Skip kinds added by the indexer.
const KindBadURL = "bad-url"

// maxHeld bounds the captures of a whole-file gzip held back until its
// checksum is known (about 50 MB).
const maxHeld = 100_000

// IndexFile reads one WARC or ARC file (plain or gzip, detected from the
// content) and emits a capture for every record pywb's cdx-indexer indexes,
// in file order (see Sort). filename is stored in every capture as given.
// Problems are reported through opts.OnSkip and indexing goes on; the error
// is non-nil only if the input cannot be read, emit fails, or not a single
// record could be read (an empty file, or nothing but garbage; the error then
// wraps records.ErrNoRecords).
func IndexFile(r io.Reader, filename string, opts IndexOptions, emit func(Capture) error) (IndexStats, error) {
	var st IndexStats
	x := &indexer{opts: opts, filename: filename, st: &st}
	hold := &wholeGzipHold{x: x, out: emit, holding: true}
	x.emit, x.onSkip = hold.emit, hold.onSkip
	it, err := records.NewIteratorSize(r, filename, x.onSkip, opts.ReadBuffer)
	if err != nil {
		return st, err
	}
	hold.it = it
	it.SetFileOffset(opts.FileOffset)
	it.ReuseRecords() // an entry keeps a record's strings, never the record
	it.IndexFieldsOnly()
	for {
		rec, err := it.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return st, err
		}
		st.Records++
		e := x.entry(rec, x.prev)
		if e == nil {
			continue
		}
		if err := x.readPayload(e, rec); err != nil {
			return st, err
		}
		if err := it.Finish(); err != nil {
			return st, err
		}
		if rec.Damage != nil {
			// Reported by the iterator as a Skip at the record's offset;
			// what the log says is skipped is not in the index.
			st.Damaged++
			continue
		}
		e.c.Offset, e.c.Length = rec.Offset, rec.Length
		if err := x.joinRequests(e); err != nil {
			return st, err
		}
	}
	if x.prev != nil {
		if err := x.out(x.prev); err != nil {
			return st, err
		}
	}
	if err := hold.release(); err != nil {
		return st, err
	}
	if st.Records == 0 && st.Skips > 0 {
		return st, fmt.Errorf("%s: %w", filename, records.ErrNoRecords)
	}
	return st, nil
}

// joinRequests is pywb's join_request_records: it pairs neighbours. A
// request next to its response (same URL, WARC-Concurrent-To naming the
// other) adds its method and POST body to both keys (merge). e is the
// entry of the record just read; x.prev, the one held back to be paired
// with it, is emitted with it or before it. With NoPostAppend every entry
// is emitted as it comes.
func (x *indexer) joinRequests(e *entry) error {
	if x.opts.NoPostAppend {
		return x.out(e)
	}
	prev := x.prev
	if prev == nil {
		x.prev = e
		return nil
	}
	if e.c.URL == prev.c.URL && e.concurrentTo == prev.recordID && (x.merge(e, prev) || x.merge(prev, e)) {
		if err := x.out(prev); err != nil {
			return err
		}
		if err := x.out(e); err != nil {
			return err
		}
		x.prev = nil
		return nil
	}
	if err := x.out(prev); err != nil {
		return err
	}
	x.prev = e
	return nil
}

// wholeGzipHold holds back the captures of a whole-file gzip until its one
// CRC-32 is checked at the stream's end (up to maxHeld of them): a stream
// that fails it may have any record wrong, so all of them are left out.
type wholeGzipHold struct {
	x       *indexer
	it      *records.Iterator   // nil until the iterator is made
	out     func(Capture) error // IndexFile's emit
	held    []Capture
	holding bool // captures are still held back (fewer than maxHeld so far)
	failed  bool // the stream failed its checksum or broke off
}

// onSkip counts and reports a problem. When a whole-file gzip fails its
// checksum, the captures held back and the entry held for pairing are left
// out, and the Skip says so.
func (h *wholeGzipHold) onSkip(s records.Skip) {
	st := h.x.st
	st.Skips++
	if h.it != nil && h.it.WholeFileGzip() && !h.failed && (s.Kind == records.KindBadGzip || s.Kind == records.KindTruncatedGzip) {
		n := len(h.held)
		if h.x.prev != nil {
			n++
		}
		h.failed = true
		if s.Kind == records.KindBadGzip && h.holding {
			st.Damaged += n
			st.Captures -= len(h.held)
			s.Err = fmt.Errorf("%w; the file is one gzip stream with one checksum, so its %d records are left out", s.Err, n)
			h.held, h.x.prev = nil, nil
		} else if s.Kind == records.KindBadGzip {
			s.Err = fmt.Errorf("%w; the file is one gzip stream with one checksum, and its first %d records were indexed before its end (more than %d are not held back)", s.Err, st.Captures, maxHeld)
		}
	}
	if h.x.opts.OnSkip != nil {
		h.x.opts.OnSkip(s)
	}
}

// emit passes a capture on, or holds it back when the file is a whole-file
// gzip; at maxHeld captures it lets them all through and holds no more.
func (h *wholeGzipHold) emit(c Capture) error {
	if !h.holding || !h.it.WholeFileGzip() {
		return h.out(c)
	}
	h.held = append(h.held, c)
	if len(h.held) < maxHeld {
		return nil
	}
	h.holding = false
	for _, c := range h.held {
		if err := h.out(c); err != nil {
			return err
		}
	}
	h.held = nil
	return nil
}

// release emits the captures still held back, once the stream's end has
// been read.
func (h *wholeGzipHold) release() error {
	for _, c := range h.held {
		if err := h.out(c); err != nil {
			return err
		}
	}
	return nil
}

type indexer struct {
	opts     IndexOptions
	filename string
	emit     func(Capture) error
	onSkip   func(records.Skip)
	st       *IndexStats
	buf      []byte
	// keys makes the SURT keys in shared chunks (see key).
	keys records.Slab
	// ents are the entries entry fills, in turn: at most two are alive
	// (the one held for request pairing and the new one).
	ents [2]entry
	// prev is the entry held back for request pairing (joinRequests).
	prev *entry
}

type entry struct {
	c                      Capture
	typ                    string
	recordID, concurrentTo string
	computeDigest          bool
	method, query          string      // requests: method and POST query
	post                   postRequest // requests with an HTTP head (hasPost)
	hasPost                bool
}

// entry applies pywb's selection and field rules; nil means not indexed.
// The entry is one of x.ents, not held (the entry held for pairing).
func (x *indexer) entry(rec *records.Record, held *entry) *entry {
	if rec.HTTP != nil && rec.HTTP.StatusCode() == "-" {
		return nil
	}
	if rec.Type == "filedesc" || rec.Timestamp == "" {
		return nil
	}
	postAppend := !x.opts.NoPostAppend
	e := &x.ents[0]
	if e == held {
		e = &x.ents[1]
	}
	*e = entry{typ: rec.Type, recordID: rec.RecordID, concurrentTo: rec.ConcurrentTo}
	e.c.Filename = x.filename
	e.c.Timestamp = rec.Timestamp
	e.c.URL = rec.TargetURI
	if rec.Format == records.WARC {
		if (rec.Type == "request" || rec.Type == "warcinfo") && !postAppend {
			return nil
		}
		if rec.ContentType == "application/warc-fields" {
			return nil
		}
		if rec.Type == "warcinfo" {
			e.c.URL = rec.Header.Get("WARC-Filename")
			return e // takes part in request pairing only
		}
		switch {
		case rec.Type == "revisit":
			e.c.Mime = "warc/revisit"
		case rec.Type == "request":
			e.c.Mime = mimeOf(x.contentType(rec), "")
		default:
			e.c.Mime = mimeOf(x.contentType(rec), "unk")
		}
		if rec.Type == "response" {
			e.c.Status = statusOf(rec.HTTP)
		}
		d := rec.PayloadDigest
		if strings.HasPrefix(d, "sha1:") {
			d = d[len("sha1:"):]
		}
		e.c.Digest = d
		if d == "" || d == "-" {
			e.c.Digest = ""
			e.computeDigest = rec.Type != "revisit" && rec.Type != "request"
		}
	} else {
		e.c.Mime = mimeOf(rec.ContentType, "unk")
		e.c.Status = statusOf(rec.HTTP)
		e.computeDigest = true
	}
	if e.c.URL == "" {
		return e
	}
	key, err := x.key(e.c.URL)
	if err != nil {
		x.onSkip(records.Skip{File: x.filename, Offset: rec.Offset, Kind: KindBadURL, Err: err})
		return nil
	}
	e.c.Key = key
	if rec.Type == "request" && rec.Format == records.WARC {
		e.method = "HTTP/1.0" // pywb's default head for requests it does not parse
		if rec.HTTP != nil {
			e.method = rec.HTTP.Protocol
			e.hasPost = true
			e.post = postRequest{
				method:        rec.HTTP.Protocol,
				contentType:   rec.HTTP.Header.Get("Content-Type"),
				contentLength: rec.HTTP.Header.Get("Content-Length"),
				hasLength:     rec.HTTP.Header.Has("Content-Length"),
			}
		}
	}
	return e
}

// key is surt.Key(url), made in x.keys: no allocation per key.
func (x *indexer) key(url string) (string, error) {
	room := 3*len(url) + 64 // the full pipeline escapes bytes as %XX
	return x.keys.Append(room, func(dst []byte) ([]byte, error) { return surt.AppendKey(dst, url) })
}

// contentType is the Content-Type pywb takes the mime from: the HTTP
// header's, or the record's when there is no HTTP head.
func (x *indexer) contentType(rec *records.Record) string {
	if rec.HTTP != nil {
		return rec.HTTP.Header.Get("Content-Type")
	}
	return rec.ContentType
}

func mimeOf(ct, def string) string {
	if ct == "" {
		return def
	}
	if i := strings.IndexAny(ct, "; "); i >= 0 {
		return ct[:i]
	}
	return ct
}

func statusOf(h *records.HTTP) string {
	if h == nil {
		return "200"
	}
	code := h.StatusCode()
	if code == "-" || code == "204" && strings.Contains(h.StatusLine, "Error") {
		return ""
	}
	return code
}

var b32 = base32.StdEncoding

func (x *indexer) readPayload(e *entry, rec *records.Record) error {
	switch {
	case e.computeDigest:
		h := sha1.New()
		if x.buf == nil {
			x.buf = make([]byte, 64<<10)
		}
		if _, err := io.CopyBuffer(h, rec.Payload(), x.buf); err != nil {
			return err
		}
		e.c.Digest = b32.EncodeToString(h.Sum(nil))
		x.st.Digests++
	case e.hasPost:
		q, err := e.post.query(rec.Payload())
		if err != nil {
			return err
		}
		e.query = q
	}
	return nil
}

// merge is pywb's merge_request_data: self takes the request other's query.
func (x *indexer) merge(self, other *entry) bool {
	if other.typ != "request" || self.typ == "request" {
		return false
	}
	newURL := appendMethodQuery(self.c.URL, other.method, other.query)
	if newURL != self.c.URL {
		if key, err := surt.Key(newURL); err == nil {
			self.c.Key, other.c.Key = key, key
		}
	}
	return true
}

func (x *indexer) out(e *entry) error {
	if e.typ == "request" || e.typ == "warcinfo" || e.c.URL == "" || e.c.Key == "" {
		return nil
	}
	// pywb's BaseCDXWriter._is_skipped (METADATA_NO_INDEX_TYPES): a
	// text/anvl metadata record (Heritrix 1.x) has its response's URL and
	// time and would collide with it in the index.
	if e.typ == "metadata" && e.c.Mime == "text/anvl" {
		return nil
	}
	x.st.Captures++
	return x.emit(e.c)
}

// Compare orders captures as pywb sorts index lines: by the whole line, that
// is by key, then timestamp, then the rest of the line (so equal keys and
// times are ordered by URL).
func Compare(a, b Capture) int {
	if c := strings.Compare(a.Key, b.Key); c != 0 {
		return c
	}
	if c := strings.Compare(a.Timestamp, b.Timestamp); c != 0 {
		return c
	}
	return strings.Compare(a.Line(), b.Line())
}

// Sort sorts captures in index order (see Compare).
func Sort(cs []Capture) { slices.SortStableFunc(cs, Compare) }
