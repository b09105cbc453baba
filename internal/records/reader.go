package records

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/recrawl/recrawl/internal/records/stream"
)

// Iterator reads the records of one archive file in order:
//
//	it, err := records.NewIterator(f, "x.warc.gz", onSkip)
//	for {
//		rec, err := it.Next()
//		if err == io.EOF { break }
//		… rec.Payload() …
//		err = it.Finish() // rec.Length is now set
//	}
//
// Next returns an error other than io.EOF only when the input cannot be read;
// damage is reported through onSkip.
type Iterator struct {
	s       *stream.Reader
	name    string
	onSkip  func(Skip)
	cur     *Record
	block   blockReader
	blockAt int64 // stream position after the current block

	pending    []byte
	pendingOff int64
	hasPending bool

	garbage struct {
		active bool
		off, n int64
		err    error
	}
	strict  bool // first line must be a record header (ReadRecordAt)
	records int
	skips   int

	first []byte        // the copy of a record's first line nextLine returns
	hb    headerBuilder // reused by every header

	// With reuse (ReuseRecords), every record is rec, its HTTP head http,
	// and their Headers use the arrays kept in warcHeader and httpHeader.
	reuse                  bool
	indexOnly              bool  // IndexFieldsOnly
	sl                     *Slab // the strings of IndexFieldsOnly; nil: one allocation each
	rec                    Record
	http                   HTTP
	warcHeader, httpHeader Header
}

// ReuseRecords makes Next return the same *Record every time, its HTTP head
// and header fields stored where the previous record's were: no allocation
// for them per record. Only for callers that keep nothing of a Record but
// its strings (which stay valid) once they call Next again.
func (it *Iterator) ReuseRecords() { it.reuse = true }

// IndexFieldsOnly makes the iterator keep only the header fields an index
// reads: in Record.Header the WARC fields Record has fields for (WARC-Type,
// WARC-Target-URI, WARC-Date, Content-Type, Content-Length, WARC-Record-ID,
// WARC-Concurrent-To, WARC-Payload-Digest, WARC-Refers-To…) and
// WARC-Filename; in HTTP.Header, Content-Type and Content-Length. The other
// fields are neither decoded nor copied; every Record field is the same as
// without it, and the header bounds count every line.
//
// The strings of its records (header fields, status line, timestamp) are
// copied into shared chunks of 64 KB (no allocation per string): a string
// kept keeps its chunk alive.
func (it *Iterator) IndexFieldsOnly() { it.indexOnly, it.sl = true, &Slab{} }

// latin1 is latin1(b), from the slab of IndexFieldsOnly if there is one.
func (it *Iterator) latin1(b []byte) string {
	if utf8.Valid(b) {
		return it.sl.String(b)
	}
	return latin1(b)
}

// newRecord is the Record parse fills.
func (it *Iterator) newRecord(off int64) *Record {
	if !it.reuse {
		return &Record{File: it.name, Offset: off}
	}
	it.rec = Record{File: it.name, Offset: off}
	return &it.rec
}

// newHTTP is the HTTP head parseHTTP fills.
func (it *Iterator) newHTTP() *HTTP {
	if !it.reuse {
		return &HTTP{}
	}
	it.http = HTTP{}
	return &it.http
}

// header makes the header gathered in it.hb, in *keep's array when
// records are reused.
func (it *Iterator) header(keep *Header) Header {
	if !it.reuse {
		return it.hb.appendTo(nil, it.sl)
	}
	h := it.hb.appendTo((*keep)[:0], it.sl)
	if h != nil {
		*keep = h
	}
	return h
}

// NewIterator starts reading r; name is the file name used in errors and
// skips. onSkip may be nil.
func NewIterator(r io.Reader, name string, onSkip func(Skip)) (*Iterator, error) {
	return NewIteratorSize(r, name, onSkip, stream.DefaultBufferSize)
}

// NewIteratorSize is NewIterator reading r through a buffer of size bytes
// (at least stream.DefaultBufferSize).
func NewIteratorSize(r io.Reader, name string, onSkip func(Skip), size int) (*Iterator, error) {
	s, err := stream.NewSize(r, size)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &Iterator{s: s, name: name, onSkip: onSkip}, nil
}

// Records is the number of records returned so far.
func (it *Iterator) Records() int { return it.records }

// SetFileOffset says that the input starts at offset base of the file (a
// range of it, or one record read at its index offset): error messages
// then name offsets in the file. Record and Skip offsets stay relative to
// the input.
func (it *Iterator) SetFileOffset(base int64) { it.s.Base = base }

// WholeFileGzip reports whether the file is one gzip stream of several
// records (known once its first record is finished): one CRC-32 covers
// them all, checked only at the stream's end.
func (it *Iterator) WholeFileGzip() bool { return it.s.Gzipped() && it.s.Continuous }

// Skips is the number of problems reported so far.
func (it *Iterator) Skips() int { return it.skips }

func (it *Iterator) skip(s Skip) {
	s.File = it.name
	it.skips++
	if it.onSkip != nil {
		it.onSkip(s)
	}
}

// fileOffset is the offset to report for a problem at stream position pos:
// the member start in per-record gzip files, pos otherwise.
func (it *Iterator) fileOffset(pos int64) int64 {
	if it.s.Gzipped() && !it.s.Continuous {
		return it.s.MemberStart()
	}
	return pos
}

func (it *Iterator) addGarbage(pos, n int64, err error) {
	g := &it.garbage
	if !g.active {
		g.active, g.off, g.n, g.err = true, it.fileOffset(pos), 0, err
	}
	g.n += n
}

func (it *Iterator) flushGarbage() {
	g := &it.garbage
	if g.active {
		it.skip(Skip{Offset: g.off, Bytes: g.n, Kind: KindGarbage, Err: g.err})
		g.active = false
	}
}

// Next returns the next record, reading the previous one through first.
func (it *Iterator) Next() (*Record, error) {
	if it.cur != nil {
		if err := it.Finish(); err != nil {
			return nil, err
		}
	}
	for {
		line, off, err := it.nextLine()
		if err != nil {
			if err == io.EOF && it.records == 0 && it.s.Empty() {
				it.skip(Skip{Kind: KindEmptyFile, Err: errors.New("the file is empty")})
			}
			return nil, err
		}
		rec, perr := it.parse(line, off)
		if perr != nil {
			if it.strict {
				return nil, perr
			}
			it.addGarbage(off, int64(len(line)), perr)
			continue
		}
		it.flushGarbage()
		it.records++
		it.cur = rec
		return rec, nil
	}
}

// nextLine returns the next non-blank line (a copy, valid until the next
// call) and its stream position.
func (it *Iterator) nextLine() ([]byte, int64, error) {
	if it.hasPending {
		it.hasPending = false
		return it.pending, it.pendingOff, nil
	}
	for {
		off := it.s.Pos()
		line, err := it.s.ReadLine()
		switch {
		case err == nil:
			if isBlank(line) {
				continue
			}
			it.first = append(it.first[:0], line...)
			return it.first, off, nil
		case errors.Is(err, stream.ErrLineTooLong):
			if it.strict {
				return nil, 0, fmt.Errorf("%s offset %d: not the start of a WARC record: %w", it.name, it.s.Base+off, err)
			}
			it.addGarbage(off, int64(len(line)), err)
		case err == io.EOF:
			it.flushGarbage()
			return nil, 0, io.EOF
		case errors.Is(err, stream.EndOfMember):
			it.flushGarbage()
			if it.strict {
				return nil, 0, io.EOF
			}
			if err := it.s.NextMember(); err != nil {
				if err == io.EOF {
					return nil, 0, io.EOF
				}
				if err := it.damage(err); err != nil {
					return nil, 0, err
				}
			}
		default:
			var se *stream.SourceError
			if errors.As(err, &se) {
				return nil, 0, fmt.Errorf("%s: %w", it.name, err)
			}
			it.flushGarbage()
			if it.strict {
				return nil, 0, fmt.Errorf("%s offset %d: %w", it.name, it.s.Base+it.s.MemberStart(), err)
			}
			if err := it.damage(err); err != nil {
				return nil, 0, err
			}
		}
	}
}

// damage reports a damaged gzip member and looks for the next one.
func (it *Iterator) damage(cause error) error {
	kind := KindBadGzip
	if errors.Is(cause, io.ErrUnexpectedEOF) {
		kind = KindTruncatedGzip
	}
	start := it.s.MemberStart()
	found, _, err := it.s.Resync()
	var se *stream.SourceError
	if errors.As(err, &se) {
		return fmt.Errorf("%s: %w", it.name, err)
	}
	s := Skip{Offset: start, Kind: kind, Err: cause}
	if err == nil {
		s.Bytes = found - start
		s.Err = fmt.Errorf("%w; going on at the gzip member at offset %d", cause, it.s.Base+found)
	}
	it.skip(s)
	return err
}

// isSourceError reports whether err wraps a *stream.SourceError (an error
// of the underlying reader). The usual ends of data are answered without
// errors.As, whose target would escape to the heap at every record.
func isSourceError(err error) bool {
	if err == nil || err == io.EOF || err == stream.EndOfMember {
		return false
	}
	var se *stream.SourceError
	return errors.As(err, &se)
}

// parse reads a record's header, starting with its first line.
func (it *Iterator) parse(line []byte, off int64) (*Record, error) {
	rec := it.newRecord(off)
	if it.s.Gzipped() && !it.s.Continuous {
		rec.Offset = it.s.MemberStart()
	}
	var n int64
	switch {
	case warcVersion(line):
		n = it.parseWARC(rec, line)
	default:
		h, err := ParseARCHeader(line)
		if err != nil {
			return nil, fmt.Errorf("%s offset %d: not the start of a WARC or ARC record: %q", it.name, it.s.Base+rec.Offset, clip(line))
		}
		n = it.parseARC(rec, h)
		if line[len(line)-1] != '\n' {
			rec.Damage = errors.New("the ARC header line is cut off")
			it.skip(Skip{Offset: rec.Offset, Kind: KindTruncatedRecord, Err: fmt.Errorf("%w; the record is left out", rec.Damage)})
		}
	}
	it.block = blockReader{s: it.s, n: n}
	rec.payload = &it.block
	it.parseHTTP(rec)
	return rec, nil
}

func (it *Iterator) parseWARC(rec *Record, first []byte) int64 {
	rec.Format = WARC
	rec.Version = versionString(first)
	hb := &it.hb
	hb.reset()
	hb.only = nil
	if it.indexOnly {
		hb.only = indexWARCField
	}
	var hc headerCap
	complete := false
	for {
		l, err := it.s.ReadLine()
		if err != nil && !errors.Is(err, stream.ErrLineTooLong) {
			break
		}
		if isBlank(l) {
			// A blank line without its '\n' is the end of the file, not of
			// the header.
			complete = l[len(l)-1] == '\n'
			break
		}
		if hc.over(l, errors.Is(err, stream.ErrLineTooLong)) {
			// Read on to the header's end, keeping only Content-Length, so
			// the records after this one are found.
			if name, _, _ := bytes.Cut(l, []byte(":")); strings.EqualFold(string(bytes.TrimSpace(name)), "Content-Length") {
				hb.add(l)
			}
			continue
		}
		hb.add(l)
	}
	h := it.header(&it.warcHeader)
	rec.Header = h
	cl, ok := setWARCFields(rec, h)
	if ts, err := isoTimestamp(rec.Date); err == nil {
		rec.Timestamp = it.sl.String(ts[:])
	} else if rec.Type != "warcinfo" || rec.Date != "" {
		it.skip(Skip{Offset: rec.Offset, Kind: KindBadDate, Err: fmt.Errorf("WARC-Date %q: %w", rec.Date, err)})
	}
	if hc.cut != nil {
		rec.Damage = fmt.Errorf("the WARC header %w", hc.cut)
		it.skip(Skip{Offset: rec.Offset, Kind: KindHeaderTooLong, Err: fmt.Errorf("%w; the record is left out", rec.Damage)})
	}
	if !complete {
		rec.Damage = errors.New("the WARC header is cut off")
		it.skip(Skip{Offset: rec.Offset, Kind: KindTruncatedRecord, Err: fmt.Errorf("%w; the record is left out", rec.Damage)})
		rec.ContentLength = -1
		return 0
	}
	v, err := pyInt(cl)
	switch {
	case ok && err == nil && v >= 0:
		rec.ContentLength = v
		return v
	case !ok && it.s.Gzipped() && !it.s.Continuous:
		rec.ContentLength = -1
		it.skip(Skip{Offset: rec.Offset, Kind: KindBadContentLength, Err: errors.New("no Content-Length; the record is indexed with its block read to the end of its gzip member")})
		return -1
	default:
		rec.ContentLength = -1
		it.skip(Skip{Offset: rec.Offset, Kind: KindBadContentLength, Err: fmt.Errorf("Content-Length %q is not a length; read as 0 (as pywb does): the record is indexed with an empty payload", cl)})
		return 0
	}
}

// Finish reads the current record through and sets its Length.
func (it *Iterator) Finish() error {
	rec := it.cur
	if rec == nil {
		return nil
	}
	it.cur = nil
	if err := it.block.skipRest(); err != nil {
		return fmt.Errorf("%s: %w", it.name, err)
	}
	blockEnd := it.s.Pos()
	if it.block.n > 0 && it.block.damage == nil {
		rec.Damage = fmt.Errorf("the file ends %d bytes before the end of the record", it.block.n)
		it.skip(Skip{Offset: rec.Offset, Kind: KindTruncatedRecord, Err: fmt.Errorf("%w; the record is left out", rec.Damage)})
	}
	if it.block.damage != nil && rec.Damage == nil {
		// Reported as a Skip at the member's start when iteration goes on.
		rec.Damage = it.block.damage
	}
	if !it.s.Gzipped() || it.s.Continuous {
		rec.Length = blockEnd - rec.Offset
		return nil
	}
	// The rest of the member: blank lines, or more records.
	for {
		off := it.s.Pos()
		line, err := it.s.ReadLine()
		if err != nil && !errors.Is(err, stream.ErrLineTooLong) {
			if isSourceError(err) {
				return fmt.Errorf("%s: %w", it.name, err)
			}
			break
		}
		if isBlank(line) {
			continue
		}
		header := isHeaderLine(line)
		if header && it.records == 1 && rec.Offset == 0 {
			// Several records in the first member: whole-file gzip.
			it.s.Continuous = true
			it.pending, it.pendingOff, it.hasPending = append([]byte(nil), line...), off, true
			rec.Length = blockEnd - rec.Offset
			return nil
		}
		kind, why := KindGarbage, "data after the record in its gzip member"
		if header {
			kind, why = KindMultiRecord, "another record in the same gzip member; only the first record of a member is read"
		}
		n, _ := it.s.Discard(1 << 62)
		it.skip(Skip{Offset: rec.Offset, Bytes: int64(len(line)) + n, Kind: kind, Err: fmt.Errorf("%s: %q", why, clip(line))})
		break
	}
	rec.Length = it.s.MemberEnd() - rec.Offset
	if err := it.s.MemberErr(); err != nil && rec.Damage == nil {
		// The member failed its CRC-32 (or broke off) after the block: the
		// block and the header may be wrong all the same. The Skip is
		// reported when iteration goes on (bad-gzip at the member's start).
		rec.Damage = err
	}
	return nil
}

// blockReader reads what is left of a record's block.
type blockReader struct {
	s      *stream.Reader
	n      int64 // bytes left; -1: to the end of the gzip member
	damage error
}

func (b *blockReader) Read(p []byte) (int, error) {
	if b.n == 0 {
		return 0, io.EOF
	}
	if b.n > 0 && int64(len(p)) > b.n {
		p = p[:b.n]
	}
	k, err := b.s.Read(p)
	if b.n > 0 {
		b.n -= int64(k)
	}
	if err != nil {
		var se *stream.SourceError
		if errors.As(err, &se) {
			return k, err
		}
		if err != io.EOF && !errors.Is(err, stream.EndOfMember) {
			b.damage = err
		}
		if b.n < 0 {
			b.n = 0
		}
		return k, io.EOF
	}
	return k, nil
}

// skipRest discards what is left of the block; only errors of the
// underlying reader are returned.
func (b *blockReader) skipRest() error {
	if b.n < 0 {
		_, err := io.Copy(io.Discard, b)
		return err
	}
	k, err := b.s.Discard(b.n)
	b.n -= k
	if err != nil {
		var se *stream.SourceError
		if errors.As(err, &se) {
			return err
		}
		if err != io.EOF && !errors.Is(err, stream.EndOfMember) {
			b.damage = err
		}
	}
	return nil
}

func (b *blockReader) readLine() ([]byte, error) {
	lim := b.n
	if lim < 0 {
		lim = 1 << 62
	}
	l, err := b.s.ReadLineLimit(lim)
	if b.n > 0 {
		b.n -= int64(len(l))
	}
	return l, err
}

func clip(b []byte) string {
	if len(b) > 80 {
		return string(b[:80]) + "…"
	}
	return string(b)
}
