// Package stream reads an archive file (WARC or ARC, plain or gzip) as lines
// and blocks while keeping track of where everything is, which is what an
// index needs and what general-purpose readers hide:
//
//   - for a plain file, the byte position of every line;
//   - for a gzip file, the compressed offset at which each gzip member starts
//     and ends, and the decompressed position inside the file's stream.
//
// Gzip members are read one at a time (internal/inflate: pure Go, or ISA-L
// with -tags isal) from a counting *bufio.Reader; the inflater never takes a
// byte past the end of a member from it, so the count is the exact member
// boundary. After a damaged member, Resync looks for the next gzip header
// after the bytes known to belong to the damaged member (see Resync).
package stream

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/recrawl/recrawl/internal/inflate"
)

// MaxLine is the longest line ReadLine returns whole; longer lines are
// returned truncated with ErrLineTooLong (the rest is consumed).
const MaxLine = 1 << 20

// ErrLineTooLong reports a line longer than MaxLine.
var ErrLineTooLong = errors.New("line too long")

// EndOfMember is returned by reads at the end of a gzip member (in member
// mode); call NextMember to go on.
var EndOfMember = errors.New("end of gzip member")

// SourceError wraps an error of the underlying reader (not a format problem).
type SourceError struct{ Err error }

func (e *SourceError) Error() string { return "reading input: " + e.Err.Error() }
func (e *SourceError) Unwrap() error { return e.Err }

// counter counts the bytes read from the source. The bytes consumed are
// n minus what the bufio.Reader above it still holds; the inflater reads that
// *bufio.Reader directly and never consumes past a member's end (package
// inflate).
type counter struct {
	r   io.Reader
	n   int64
	err error // first non-EOF error of the source
}

func (c *counter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if err != nil && err != io.EOF && c.err == nil {
		c.err = err
	}
	return n, err
}

// Reader reads lines and blocks from a plain or gzip archive file.
type Reader struct {
	raw     io.Reader
	cnt     *counter
	src     *bufio.Reader // over cnt; the compressed (or plain) bytes
	gz      inflate.Member
	in      *bufio.Reader
	gzipped bool

	// Continuous makes a gzip file read as one stream: reads go on into the
	// next member instead of returning EndOfMember (whole-file gzip).
	Continuous bool

	// Base is the offset in the file of the input's first byte, when the
	// input is a part of a file: it is added to the offsets in error
	// messages (the offsets returned stay relative to the input).
	Base int64

	memberStart int64 // compressed offset of the current member
	memberPos   int64 // decompressed position where the current member starts
	memberEnd   int64 // compressed offset after it, once its end was reached
	atEnd       bool  // the current member has been read to its end
	memberErr   error // damage found in the current member
	pos         int64 // decompressed position
	line        []byte
	eof         bool // no more members
}

// DefaultBufferSize is the size of the buffer New reads the source through.
const DefaultBufferSize = 64 << 10

// New starts reading r. It returns an error only if r cannot be read.
func New(r io.Reader) (*Reader, error) { return NewSize(r, DefaultBufferSize) }

// NewSize is New with a buffer of size bytes for the source (the compressed
// bytes of a gzip file): larger for storage where every read is a request,
// instead of a second buffer in front of r, which would cost a copy of every
// byte.
func NewSize(r io.Reader, size int) (*Reader, error) {
	s := &Reader{raw: r, cnt: &counter{r: r}}
	s.src = bufio.NewReaderSize(s.cnt, max(size, DefaultBufferSize))
	head, err := s.src.Peek(2)
	if err != nil && err != io.EOF {
		return nil, &SourceError{err}
	}
	if len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		s.gzipped = true
		s.gz = inflate.New()
		s.in = bufio.NewReaderSize(nil, 64<<10)
		s.startMember()
		return s, nil
	}
	s.in = s.src
	if len(head) == 0 {
		s.eof = true
	}
	return s, nil
}

// Gzipped reports whether the file is gzip-compressed.
func (s *Reader) Gzipped() bool { return s.gzipped }

// Empty reports whether the file had no bytes at all.
func (s *Reader) Empty() bool { return !s.gzipped && s.eof && s.consumed() == 0 }

// consumed is the number of source bytes consumed.
func (s *Reader) consumed() int64 { return s.cnt.n - int64(s.src.Buffered()) }

// Pos is the position in the (decompressed) stream.
func (s *Reader) Pos() int64 { return s.pos }

// MemberStart is the compressed offset of the current gzip member.
func (s *Reader) MemberStart() int64 { return s.memberStart }

// MemberEnd is the compressed offset after the current member; valid once a
// read has returned EndOfMember.
func (s *Reader) MemberEnd() int64 { return s.memberEnd }

// MemberErr is the damage found in the current member, if any.
func (s *Reader) MemberErr() error { return s.memberErr }

// SourceErr is the first error of the underlying reader, if any.
func (s *Reader) SourceErr() error {
	if s.cnt.err != nil {
		return &SourceError{s.cnt.err}
	}
	return nil
}

// AtEOF reports whether there is nothing more to read at all.
func (s *Reader) AtEOF() bool { return s.eof }

// startMember reads the next gzip header at the current compressed position.
func (s *Reader) startMember() {
	s.memberStart = s.consumed()
	s.memberPos = s.pos
	s.atEnd, s.memberErr = false, nil
	if _, err := s.src.Peek(1); err != nil {
		s.eof, s.atEnd = true, true
		s.memberEnd = s.consumed()
		return
	}
	if err := s.gz.Reset(s.src); err != nil {
		s.atEnd = true
		s.memberEnd = s.consumed()
		s.memberErr = fmt.Errorf("gzip header at offset %d: %w", s.Base+s.memberStart, err)
		return
	}
	s.in.Reset(s.gz)
}

// fill handles the end of the buffered data of a member: it records the end
// or the damage and, in continuous mode, moves on to the next member.
// It reports whether reading may go on.
func (s *Reader) endOfData(err error) error {
	if !s.gzipped {
		if err == io.EOF {
			s.eof = true
		}
		if s.cnt.err != nil {
			return &SourceError{s.cnt.err}
		}
		return err
	}
	if !s.atEnd {
		s.atEnd = true
		s.memberEnd = s.consumed()
		if err != io.EOF && err != nil {
			if s.cnt.err != nil {
				return &SourceError{s.cnt.err}
			}
			s.memberErr = fmt.Errorf("gzip member at offset %d: %w", s.Base+s.memberStart, err)
		}
	}
	if s.memberErr != nil {
		return s.memberErr
	}
	if s.Continuous {
		s.startMember()
		if s.eof {
			return io.EOF
		}
		return nil
	}
	return EndOfMember
}

// ReadLine returns the next line including its '\n' (the last line of the
// data may lack it). The slice is valid until the next call.
func (s *Reader) ReadLine() ([]byte, error) {
	s.line = s.line[:0]
	for {
		if s.atEnd && !s.Continuous || s.eof {
			if line, more, err := s.lineAtEnd(); !more {
				return line, err
			}
			continue
		}
		frag, err := s.in.ReadSlice('\n')
		s.pos += int64(len(frag))
		if len(s.line)+len(frag) <= MaxLine {
			s.line = append(s.line, frag...)
		}
		switch err {
		case nil:
			if len(s.line) < MaxLine || s.line[len(s.line)-1] == '\n' {
				return s.line, nil
			}
			return s.line, ErrLineTooLong
		case bufio.ErrBufferFull:
			continue
		}
		if e := s.endOfData(err); e != nil && e != io.EOF && e != EndOfMember {
			return s.line, e
		}
		if len(s.line) > 0 {
			return s.line, nil
		}
	}
}

// lineAtEnd is where a line read meets the end of the data (of the input,
// or of the member outside continuous mode). A line read so far is
// returned as it is; with none, the read ends with io.EOF or the error
// that ends the data, unless the data goes on (more: the next member of a
// continuous stream).
func (s *Reader) lineAtEnd() (line []byte, more bool, err error) {
	if len(s.line) > 0 {
		return s.line, false, nil
	}
	if s.eof && !s.gzipped {
		return nil, false, io.EOF
	}
	if err := s.endOfData(io.EOF); err != nil {
		return nil, false, err
	}
	return nil, true, nil
}

// Read reads block data.
func (s *Reader) Read(p []byte) (int, error) {
	for {
		if s.eof && !s.gzipped {
			return 0, io.EOF
		}
		if s.atEnd && !s.Continuous || s.eof {
			if err := s.endOfData(io.EOF); err != nil {
				return 0, err
			}
			continue
		}
		n, err := s.in.Read(p)
		s.pos += int64(n)
		if err == nil || n > 0 {
			return n, nil
		}
		if e := s.endOfData(err); e != nil {
			return 0, e
		}
	}
}

// Discard skips n bytes of block data and returns how many were skipped.
func (s *Reader) Discard(n int64) (int64, error) {
	var done int64
	for done < n {
		chunk := n - done
		if chunk > 1<<30 {
			chunk = 1 << 30
		}
		if s.eof && !s.gzipped {
			return done, io.EOF
		}
		if s.atEnd && !s.Continuous || s.eof {
			if err := s.endOfData(io.EOF); err != nil {
				return done, err
			}
			continue
		}
		k, err := s.in.Discard(int(chunk))
		s.pos += int64(k)
		done += int64(k)
		if err != nil {
			if e := s.endOfData(err); e != nil {
				return done, e
			}
		}
	}
	return done, nil
}

// Peek returns the next n bytes of data without consuming them (fewer at the
// end of the data or member).
func (s *Reader) Peek(n int) []byte {
	if s.atEnd || s.eof {
		return nil
	}
	b, _ := s.in.Peek(n)
	return b
}

// NextMember moves to the next gzip member after the current one was read to
// its end (plain files: io.EOF). It returns io.EOF when there is none.
func (s *Reader) NextMember() error {
	if !s.gzipped || s.eof {
		return io.EOF
	}
	if !s.atEnd {
		k, err := s.in.Discard(1 << 62)
		s.pos += int64(k)
		if err != nil {
			if e := s.endOfData(err); e != nil && e != EndOfMember && e != io.EOF {
				return e
			}
		}
	}
	if s.memberErr != nil {
		return s.memberErr
	}
	s.startMember()
	if s.eof {
		return io.EOF
	}
	return nil
}

var gzipMagic = []byte{0x1f, 0x8b, 0x08}

// Resync looks for the next gzip member after a damaged one. It returns the
// compressed offset of the member found and the offset from which the
// search started; io.EOF if none is left.
//
// The search never enters the bytes known to belong to the damaged member:
// a gzip file stored inside a record (a crawled .warc.gz) lies verbatim in
// its member's stored deflate blocks, and its members are not records of
// this file. When the input can seek, the search starts at
//
//   - the end of the damaged member, when its deflate data inflated to the
//     end and only the trailer's CRC-32 failed, its length field (ISIZE)
//     matching what was inflated: the deflate structure is intact, so the
//     member's compressed length is known;
//   - else after the member's leading stored blocks whose lengths check
//     (LEN and its complement NLEN), up to the first damaged or compressed
//     block; with no such block, the byte after the member's start. The
//     inflater's own stopping point is not trusted: a flipped bit in
//     compressed data can make it run on through the members after the
//     damaged one (and how far it reads ahead differs between engines), so
//     the bytes after the last known block are searched again.
//
// An input that cannot seek is searched from where the inflater stopped.
func (s *Reader) Resync() (found, from int64, err error) {
	from = s.consumed()
	if sk, ok := s.raw.(io.ReadSeeker); ok {
		// Offsets are relative to where reading started.
		cur, serr := sk.Seek(0, io.SeekCurrent)
		if serr == nil {
			base := cur - s.cnt.n
			restart := s.damagedExtent(sk, base)
			if _, serr := sk.Seek(base+restart, io.SeekStart); serr == nil {
				s.src.Reset(s.cnt)
				s.cnt.n = restart
				from = restart
			}
		}
	}
	for {
		b, perr := s.src.Peek(3)
		if len(b) < 3 {
			s.src.Discard(len(b))
			s.eof, s.atEnd = true, true
			s.memberErr = nil
			if perr != nil && perr != io.EOF {
				return 0, from, &SourceError{perr}
			}
			return 0, from, io.EOF
		}
		if bytes.Equal(b, gzipMagic) {
			s.startMember()
			if s.memberErr == nil {
				return s.memberStart, from, nil
			}
			// A false header: go on one byte after it.
			continue
		}
		i := bytes.Index(peekAll(s.src), gzipMagic)
		if i <= 0 {
			i = 1
			if k := len(peekAll(s.src)); k > 3 {
				i = k - 2
			}
		}
		s.src.Discard(i)
	}
}

// damagedExtent is where the search for the next member starts after the
// damaged current member (see Resync), relative to the input's start; base
// is the input's start in sk.
func (s *Reader) damagedExtent(sk io.ReadSeeker, base int64) int64 {
	at := func(off int64, p []byte) bool {
		if _, err := sk.Seek(base+off, io.SeekStart); err != nil {
			return false
		}
		_, err := io.ReadFull(sk, p)
		return err == nil
	}
	if errors.Is(s.memberErr, inflate.ErrChecksum) && s.memberEnd-s.memberStart >= 18 {
		var isize [4]byte
		if at(s.memberEnd-4, isize[:]) && binary.LittleEndian.Uint32(isize[:]) == uint32(s.pos-s.memberPos) {
			return s.memberEnd
		}
	}
	return max(storedBlocksEnd(at, s.memberStart), s.memberStart+1)
}

// storedBlocksEnd walks the deflate blocks of the gzip member at start while
// they are stored blocks whose LEN and NLEN agree, and returns the offset
// after the last of them (after the trailer if the final block is one of
// them); 0 if the first block is none.
func storedBlocksEnd(at func(off int64, p []byte) bool, start int64) int64 {
	var h [10]byte
	if !at(start, h[:]) || h[0] != 0x1f || h[1] != 0x8b || h[2] != 8 {
		return 0
	}
	pos := start + 10
	flags := h[3]
	if flags&0x04 != 0 { // FEXTRA
		var n [2]byte
		if !at(pos, n[:]) {
			return 0
		}
		pos += 2 + int64(binary.LittleEndian.Uint16(n[:]))
	}
	for _, bit := range []byte{0x08, 0x10} { // FNAME, FCOMMENT: NUL-terminated
		if flags&bit == 0 {
			continue
		}
		var c [1]byte
		for i := 0; ; i++ {
			if i > 1<<16 || !at(pos, c[:]) {
				return 0
			}
			pos++
			if c[0] == 0 {
				break
			}
		}
	}
	if flags&0x02 != 0 { // FHCRC
		pos += 2
	}
	end := int64(0)
	for {
		var b [5]byte
		if !at(pos, b[:]) || b[0]&0x06 != 0 { // BTYPE 00: stored
			return end
		}
		n := binary.LittleEndian.Uint16(b[1:3])
		if n != ^binary.LittleEndian.Uint16(b[3:5]) {
			return end
		}
		var last [1]byte
		if n > 0 && !at(pos+5+int64(n)-1, last[:]) {
			return end // cut off by the end of the input
		}
		pos += 5 + int64(n)
		end = pos
		if b[0]&1 != 0 { // BFINAL: the trailer follows
			return pos + 8
		}
	}
}

func peekAll(br *bufio.Reader) []byte {
	b, _ := br.Peek(br.Buffered())
	return b
}

// ReadLineLimit is ReadLine for a line inside a block of which only limit
// bytes remain: it never returns more than limit bytes.
func (s *Reader) ReadLineLimit(limit int64) ([]byte, error) {
	if limit <= 0 {
		return nil, io.EOF
	}
	s.line = s.line[:0]
	for int64(len(s.line)) < limit {
		if s.atEnd && !s.Continuous || s.eof {
			if line, more, err := s.lineAtEnd(); !more {
				return line, err
			}
			continue
		}
		if s.in.Buffered() == 0 {
			if _, err := s.in.Peek(1); err != nil {
				if e := s.endOfData(err); e != nil && e != io.EOF && e != EndOfMember {
					return s.line, e
				}
				continue
			}
		}
		n := s.in.Buffered()
		if rest := limit - int64(len(s.line)); int64(n) > rest {
			n = int(rest)
		}
		if room := MaxLine - len(s.line); n > room {
			n = room
		}
		buf, _ := s.in.Peek(n)
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			buf = buf[:i+1]
		}
		s.line = append(s.line, buf...)
		s.in.Discard(len(buf))
		s.pos += int64(len(buf))
		if s.line[len(s.line)-1] == '\n' {
			return s.line, nil
		}
		if len(s.line) >= MaxLine {
			return s.line, ErrLineTooLong
		}
	}
	return s.line, nil
}
