package records

// Splitting one archive file into byte ranges that can be indexed
// independently, with the same records and offsets as one pass over the
// whole file.
//
// Only gzip files with one member per record (the normal layout) are split.
// A split point is the start of a gzip member, found by scanning for the
// gzip header bytes and confirmed by reading from there:
//
//   - the member holds exactly one record, whose header parses (a WARC or
//     ARC header line);
//   - the members from there follow each other without a gap, damage or
//     garbage, for at least ConfirmBytes of compressed data or to the end of
//     the file. A single member can look valid by chance, and a gzip file
//     stored inside a record (a .warc.gz that was crawled) appears verbatim
//     in the outer member when the compressor falls back to stored blocks:
//     deflate cuts stored data into blocks of at most 65,535 bytes with a
//     5-byte block header between them, so a chain of members longer than
//     two stored blocks cannot be a copy of inner data;
//   - the record there cannot pair with the record before it. pywb pairs a
//     record with the one before it when the later one's WARC-Concurrent-To
//     names the earlier one, one of them being a request (POST keys; see
//     internal/cdxj). Two kinds of record start a range without looking at
//     the record before them:
//       - a record that is not a request and has no WARC-Concurrent-To;
//       - a record with a WARC-Record-ID that the record right after it
//         names in its WARC-Concurrent-To, and whose own
//         WARC-Concurrent-To is absent or names that record: the request
//         and response of one capture as wget writes them (request first;
//         the response names the request, and since wget 1.14 the request
//         names the response too), or a response and its request. Record
//         IDs are unique (WARC 1.1, 5.2), so neither of the two names a
//         record before them, and whichever is indexed first pairs with
//         nothing before the split.
//     (The exceptions are invalid WARC: a request record without
//     WARC-Record-ID followed by a response without WARC-Concurrent-To,
//     which pair unsplit; and a record ID used twice in one file.)
//
// Whole-file gzip (several records in the first member) and plain files are
// never split: in a plain file a line "WARC/1.0" can as well be the start of
// a record as a line inside a crawled WARC file, and only reading from the
// start tells which (a record's Content-Length is what skips over it).

import (
	"bufio"
	"bytes"
	"fmt"
	"io"

	"github.com/recrawl/recrawl/internal/inflate"
)

// ConfirmBytes is how much compressed data, in members that follow each
// other cleanly, confirms a split point (or the end of the file).
const ConfirmBytes = 256 << 10

// Layout is how an archive file is stored, as far as splitting cares.
type Layout int

const (
	LayoutPlain         Layout = iota + 1 // not gzip
	LayoutGzipPerRecord                   // one gzip member per record: splittable
	LayoutGzipWholeFile                   // several records in the first member
)

func (l Layout) String() string {
	switch l {
	case LayoutPlain:
		return "plain"
	case LayoutGzipPerRecord:
		return "gzip-per-record"
	case LayoutGzipWholeFile:
		return "gzip-whole-file"
	}
	return "unknown"
}

// FileLayout tells how the file is stored by reading its first record, the
// way the Iterator decides (see the package doc).
func FileLayout(r io.ReaderAt, size int64) (Layout, error) {
	var head [2]byte
	if n, err := r.ReadAt(head[:], 0); n < 2 {
		if err != nil && err != io.EOF {
			return 0, err
		}
		return LayoutPlain, nil
	}
	if head[0] != 0x1f || head[1] != 0x8b {
		return LayoutPlain, nil
	}
	it, err := NewIterator(io.NewSectionReader(r, 0, size), "", nil)
	if err != nil {
		return 0, err
	}
	rec, err := it.Next()
	if err == io.EOF {
		return LayoutGzipPerRecord, nil
	}
	if err != nil {
		return 0, err
	}
	if rec.Offset != 0 {
		return LayoutGzipPerRecord, nil
	}
	if err := it.Finish(); err != nil {
		return 0, err
	}
	if it.s.Continuous {
		return LayoutGzipWholeFile, nil
	}
	return LayoutGzipPerRecord, nil
}

// SplitFinder finds the split points of one file (see the file comment).
// One finder keeps one window of the file's compressed bytes, one inflater
// and one header buffer for every candidate it looks at. A gzip member that
// cannot start a range costs the inflation of its WARC header and of the
// next member's (at most probeBytes each), not of its record; only a
// member that passes them is confirmed by reading on through its chain.
// Not safe for concurrent use.
type SplitFinder struct {
	size   int64
	layout Layout
	win    window
	at     windowReader
	src    *bufio.Reader // over at: the compressed bytes of one candidate
	gz     inflate.Member
	head   []byte // the decompressed start of a candidate's member
	hb     headerBuilder
	rec    Record
}

// probeBytes bounds what is inflated of a member to read its WARC header;
// a header that does not end within it is confirmed the long way.
const probeBytes = 8 << 10

// windowBytes is the size of a SplitFinder's window of the file, and
// windowKeep how much of the old window a forward move keeps, so that the
// scan resumes after a candidate whose header crossed the window's end
// without reading those bytes again.
const (
	windowBytes = 128 << 10
	windowKeep  = 32 << 10
)

// NewSplitFinder makes a finder for a file of size bytes.
func NewSplitFinder(r io.ReaderAt, size int64) (*SplitFinder, error) {
	layout, err := FileLayout(r, size)
	if err != nil {
		return nil, err
	}
	f := &SplitFinder{size: size, layout: layout}
	f.win = window{r: r, size: size}
	f.at.w = &f.win
	return f, nil
}

// SplitPoint returns the first confirmed split point at or after from (see
// the file comment), or size if there is none. 0 is always a split point.
// The answer depends only on the file's bytes and from, so the range before
// a nominal offset and the range after it agree on where they meet.
func SplitPoint(r io.ReaderAt, size, from int64) (int64, error) {
	if from <= 0 {
		return 0, nil
	}
	if from >= size {
		return size, nil
	}
	f, err := NewSplitFinder(r, size)
	if err != nil {
		return 0, err
	}
	c, _, err := f.Next(from, size)
	return c, err
}

// Next returns the first confirmed split point c with from <= c < limit
// and true; limit and false if there is none. It is SplitPoint(from) when
// that is below limit: the search stops at limit, so a range of the file
// that holds no split point is found empty after reading about its own
// bytes, however far the next split point is.
func (f *SplitFinder) Next(from, limit int64) (int64, bool, error) {
	limit = min(limit, f.size)
	if from <= 0 {
		return 0, true, nil
	}
	if from >= limit || f.layout != LayoutGzipPerRecord {
		return limit, false, nil
	}
	pos := from
	for pos < limit {
		f.win.mark = pos
		c, err := f.nextGzipHeader(pos, limit)
		if err != nil {
			return 0, false, err
		}
		if c < 0 {
			break
		}
		pos = c + 1
		f.win.mark = pos
		maybe, resume := f.mayStartRange(c)
		if !maybe {
			pos = max(pos, resume)
			continue
		}
		ok, bad, err := confirmSplitPoint(&f.win, f.size, c)
		if err != nil {
			return 0, false, err
		}
		if ok {
			return c, true, nil
		}
		if bad > c {
			// Every member start up to the damage has a chain through it:
			// go on after it.
			pos = bad + 1
		}
	}
	return limit, false, nil
}

// nextGzipHeader returns the offset of the first plausible gzip header at
// or after pos and before limit; -1 if there is none.
func (f *SplitFinder) nextGzipHeader(pos, limit int64) (int64, error) {
	for pos < limit {
		chunk, err := f.win.bytesAt(pos)
		if len(chunk) == 0 {
			if err == nil || err == io.EOF {
				return -1, nil
			}
			return -1, fmt.Errorf("looking for a split point at offset %d: %w", pos, err)
		}
		j := bytes.IndexByte(chunk, 0x1f)
		if j < 0 {
			pos += int64(len(chunk))
			continue
		}
		c := pos + int64(j)
		if c >= limit {
			return -1, nil
		}
		if f.plausibleGzipHeader(c) {
			return c, nil
		}
		pos = c + 1
	}
	return -1, nil
}

// plausibleGzipHeader checks the fixed bytes of a gzip header at off: magic,
// deflate, no reserved flag bits.
func (f *SplitFinder) plausibleGzipHeader(off int64) bool {
	var h [4]byte
	if n, _ := f.win.ReadAt(h[:], off); n < 4 {
		return false
	}
	return h[0] == 0x1f && h[1] == 0x8b && h[2] == 0x08 && h[3]&0xe0 == 0
}

// lookAhead bounds how far mayStartRange looks for the member after a
// candidate: a record longer than that is confirmed the long way.
const lookAhead = 1 << 20

// mayStartRange reads the WARC header of the member at c and, for a record
// that can only start a range as the first of a pair, the WARC header of
// the next member (the next gzip header with a WARC header behind it),
// inflating at most probeBytes of each. It reports false only when
// confirmSplitPoint would refuse c: the first record's fields refuse it, or
// the next record does not name it back (a gzip header inside the record's
// own data can only make it refuse more candidates, which costs splits,
// never a wrong one). Anything it cannot read whole (a damaged member, a
// long header, an ARC record, garbage) is left to confirmSplitPoint.
//
// resume is where the search goes on when c is refused: the first
// plausible gzip header after c, or the end of what was looked through.
func (f *SplitFinder) mayStartRange(c int64) (maybe bool, resume int64) {
	rec, ok := f.probeHeader(c)
	if !ok {
		return true, c + 1
	}
	kind := startsRange(rec)
	if kind != opensPair {
		return kind == standsAlone, c + 1
	}
	id, ct := rec.RecordID, rec.ConcurrentTo
	end := min(f.size, c+1+lookAhead)
	resume = -1
	for p := c + 1; ; {
		q, err := f.nextGzipHeader(p, end)
		if err != nil {
			return true, c + 1 // confirmSplitPoint reports it
		}
		if q < 0 {
			if resume < 0 {
				resume = end
			}
			return true, resume
		}
		if resume < 0 {
			resume = q
		}
		if next, ok := f.probeHeader(q); ok {
			return namesBack(id, ct, next), resume
		}
		p = q + 1
	}
}

// probeHeader inflates the start of the member at c, at most probeBytes,
// and parses the WARC header there; ok is false if there is no whole one.
func (f *SplitFinder) probeHeader(c int64) (rec *Record, ok bool) {
	f.at.off = c
	if f.src == nil {
		f.src = bufio.NewReaderSize(&f.at, 16<<10)
		f.gz = inflate.New()
		f.head = make([]byte, probeBytes)
	} else {
		f.src.Reset(&f.at)
	}
	if err := f.gz.Reset(f.src); err != nil {
		return nil, false
	}
	n := 0
	for n < len(f.head) {
		k, err := f.gz.Read(f.head[n:])
		n += k
		if err != nil {
			break
		}
		if bytes.Contains(f.head[max(0, n-k-3):n], []byte("\n\r\n")) || bytes.Contains(f.head[max(0, n-k-1):n], []byte("\n\n")) {
			break
		}
	}
	return f.warcHeader(f.head[:n])
}

// warcHeader parses the WARC header at the start of head as the Iterator
// does (blank lines before it skipped); complete is false if head holds no
// whole WARC header.
func (f *SplitFinder) warcHeader(head []byte) (rec *Record, complete bool) {
	line, rest := nextLine(head)
	for line != nil && isBlank(line) {
		line, rest = nextLine(rest)
	}
	if line == nil || line[len(line)-1] != '\n' || !warcVersion(line) {
		return nil, false
	}
	f.hb.reset()
	f.hb.only = indexWARCField
	for {
		line, rest = nextLine(rest)
		if line == nil || line[len(line)-1] != '\n' {
			return nil, false
		}
		if isBlank(line) {
			break
		}
		f.hb.add(line)
	}
	f.rec = Record{Format: WARC}
	setWARCFields(&f.rec, f.hb.appendTo(nil, nil))
	return &f.rec, true
}

// nextLine cuts the first line (with its '\n', if any) from b; nil if b is
// empty.
func nextLine(b []byte) (line, rest []byte) {
	if len(b) == 0 {
		return nil, nil
	}
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i+1], b[i+1:]
	}
	return b, nil
}

// rangeStart is what a record's own fields say about starting a range with
// it.
type rangeStart int

const (
	refuse      rangeStart = iota
	standsAlone            // names no neighbour: a split point if its chain holds
	opensPair              // a split point if the next record names it back
)

// startsRange applies the rules of the file comment to the first record of
// a candidate.
func startsRange(rec *Record) rangeStart {
	switch {
	case rec.Type != "request" && rec.ConcurrentTo == "":
		return standsAlone
	case rec.RecordID != "" && rec.ConcurrentTo != rec.RecordID:
		return opensPair
	}
	return refuse
}

// namesBack reports whether next, the record right after the record with
// WARC-Record-ID id and WARC-Concurrent-To ct, closes the pair that record
// opens: next names it, and it names nothing or next.
func namesBack(id, ct string, next *Record) bool {
	return next.Format == WARC && next.ConcurrentTo == id && (ct == "" || ct == next.RecordID)
}

// confirmSplitPoint reads records from c on: see the file comment. If c is
// not a split point, bad is the offset of the member at which the chain
// broke (c when c itself does not start a clean member).
func confirmSplitPoint(r io.ReaderAt, size, c int64) (ok bool, bad int64, err error) {
	damaged := false
	it, err := NewIterator(io.NewSectionReader(r, c, size-c), "", func(s Skip) {
		switch s.Kind {
		case KindGarbage, KindBadGzip, KindTruncatedGzip, KindMultiRecord, KindTruncatedRecord, KindEmptyFile:
			damaged = true
		}
	})
	if err != nil {
		return false, c, err
	}
	var (
		next    int64 // where the next member must start
		first   *Record
		kind    rangeStart
		chained bool // the chain holds ConfirmBytes or reaches the end
	)
	for {
		rec, err := it.Next()
		if err == io.EOF {
			if damaged || first == nil {
				return false, c + next, nil
			}
			return kind == standsAlone, c + next, nil
		}
		if err != nil {
			return false, c, fmt.Errorf("confirming a split point at offset %d: %w", c, err)
		}
		if damaged || rec.Offset != next {
			return false, c + next, nil
		}
		if first == nil {
			first, kind = rec, startsRange(rec)
			if kind == refuse {
				return false, c, nil
			}
		} else if kind == opensPair {
			if !namesBack(first.RecordID, first.ConcurrentTo, rec) {
				return false, c, nil
			}
			kind = standsAlone // the pair is whole: the chain decides
		}
		if err := it.Finish(); err != nil {
			return false, c, fmt.Errorf("confirming a split point at offset %d: %w", c, err)
		}
		if damaged || rec.Damage != nil || it.s.Continuous {
			// The chain breaks at this member: a damaged member (its
			// gzip CRC-32 failing, found by Finish) is itself no split
			// point, and the member after it may be one.
			return false, c + rec.Offset, nil
		}
		next = rec.Offset + rec.Length
		chained = chained || next >= ConfirmBytes
		if chained && kind == standsAlone {
			return true, c, nil
		}
	}
}

// window is a cached part of a file read through ReadAt: the candidates of
// a search read the same bytes as the scan for gzip headers, and each byte
// is read from the file about once.
type window struct {
	r    io.ReaderAt
	size int64
	buf  []byte
	off  int64 // file offset of buf[0]
	err  error // the error of the read that filled buf
	// mark is the lowest offset the search may come back to: a move
	// forward keeps the bytes from mark on (up to windowKeep of them).
	mark int64
}

// bytesAt returns the window's bytes from off on, moving the window there
// if it does not hold off.
func (w *window) bytesAt(off int64) ([]byte, error) {
	end := w.off + int64(len(w.buf))
	if off >= w.off && off < end {
		return w.buf[off-w.off:], nil
	}
	if off >= w.size {
		return nil, io.EOF
	}
	if off == end && w.err != nil && w.err != io.EOF {
		return nil, w.err
	}
	start := off
	if w.mark < off && w.mark >= w.off && off-w.mark <= windowKeep {
		start = w.mark
	}
	if cap(w.buf) < windowBytes {
		w.buf = make([]byte, windowBytes)
	}
	n, err := w.r.ReadAt(w.buf[:windowBytes], start)
	w.buf, w.off, w.err = w.buf[:n], start, err
	if off >= start+int64(n) {
		if err == nil {
			err = io.EOF
		}
		return nil, err
	}
	return w.buf[off-start:], nil
}

// ReadAt reads through the window; reads as large as the window go to the
// file directly.
func (w *window) ReadAt(p []byte, off int64) (int, error) {
	if len(p) >= windowBytes && !(off >= w.off && off+int64(len(p)) <= w.off+int64(len(w.buf))) {
		return w.r.ReadAt(p, off)
	}
	n := 0
	for n < len(p) {
		b, err := w.bytesAt(off + int64(n))
		k := copy(p[n:], b)
		n += k
		if k == 0 {
			if err == nil {
				err = io.EOF
			}
			return n, err
		}
	}
	return n, nil
}

// windowReader reads a window from off on.
type windowReader struct {
	w   *window
	off int64
}

func (r *windowReader) Read(p []byte) (int, error) {
	b, err := r.w.bytesAt(r.off)
	n := copy(p, b)
	r.off += int64(n)
	if n == 0 {
		if err == nil {
			err = io.EOF
		}
		return 0, err
	}
	return n, nil
}
