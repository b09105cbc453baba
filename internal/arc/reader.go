package arc

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/recrawl/recrawl/internal/records/stream"
)

// Record is one ARC record. Body reads its Archive-length bytes (for the
// filedesc record: what follows the version and field-name lines) and is
// valid until the next call to Next.
type Record struct {
	Header
	Offset int64 // offset in the file (compressed member start for per-record gzip)
	Length int64 // length in the file; set when the record has been read through (see Reader.Next)
	// Version and Fields are the filedesc record's second and third lines.
	Version, Fields string
	Body            io.Reader
}

// Reader reads the records of one ARC file.
type Reader struct {
	s       *stream.Reader
	name    string
	cur     *Record
	body    io.LimitedReader
	pending []byte // a header line read ahead (plain and whole-file gzip)
	pendPos int64
	started bool

	// Skipped counts the bytes skipped as garbage or damage; Problems lists
	// what was skipped, with file offsets.
	Skipped  int64
	Problems []error
}

// NewReader starts reading an ARC file; name is used in error messages.
func NewReader(r io.Reader, name string) (*Reader, error) {
	s, err := stream.New(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &Reader{s: s, name: name}, nil
}

func (r *Reader) problem(off, n int64, format string, args ...any) {
	r.Skipped += n
	r.Problems = append(r.Problems, fmt.Errorf("%s offset %d: %s", r.name, off, fmt.Sprintf(format, args...)))
}

// Next returns the next record, after reading the previous one through and
// setting its Length. It returns io.EOF after the last record.
func (r *Reader) Next() (*Record, error) {
	if r.cur != nil {
		if err := r.finish(); err != nil {
			return nil, err
		}
	}
	for {
		line, off, err := r.nextLine()
		if err != nil {
			return nil, err
		}
		h, perr := ParseHeader(line)
		if perr != nil {
			r.problem(off, int64(len(line)), "garbage: %v", perr)
			continue
		}
		rec := &Record{Header: h, Offset: off}
		if r.s.Gzipped() && !r.s.Continuous {
			rec.Offset = r.s.MemberStart()
		}
		n := h.Length
		if n < 0 {
			r.problem(off, 0, "invalid Archive-length %q, read as 0", h.LengthField)
			n = 0
		}
		if h.IsFiledesc() {
			for _, dst := range []*string{&rec.Version, &rec.Fields} {
				l, err := r.s.ReadLine()
				if err != nil && len(l) == 0 {
					break
				}
				*dst = string(bytes.TrimRight(l, "\r\n"))
				n -= int64(len(l))
			}
			if n < 0 {
				n = 0
			}
		}
		r.body = io.LimitedReader{R: r.s, N: n}
		rec.Body = &r.body
		r.cur = rec
		r.started = true
		return rec, nil
	}
}

// nextLine returns the next non-blank line and its offset, moving across
// gzip members and resynchronising after damaged ones.
func (r *Reader) nextLine() ([]byte, int64, error) {
	if r.pending != nil {
		l, off := r.pending, r.pendPos
		r.pending = nil
		return l, off, nil
	}
	for {
		off := r.s.Pos()
		line, err := r.s.ReadLine()
		switch {
		case err == nil:
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			return append([]byte{}, line...), off, nil
		case err == io.EOF:
			if r.s.Empty() && !r.started {
				return nil, 0, fmt.Errorf("%s: empty file", r.name)
			}
			return nil, 0, io.EOF
		case errors.Is(err, stream.EndOfMember):
			if err := r.s.NextMember(); err != nil {
				if err == io.EOF {
					return nil, 0, io.EOF
				}
				if e := r.resync(err); e != nil {
					return nil, 0, e
				}
			}
		case errors.Is(err, stream.ErrLineTooLong):
			r.problem(off, int64(len(line)), "garbage: %v", err)
		default:
			var se *stream.SourceError
			if errors.As(err, &se) {
				return nil, 0, fmt.Errorf("%s: %w", r.name, err)
			}
			if e := r.resync(err); e != nil {
				return nil, 0, e
			}
		}
	}
}

func (r *Reader) resync(cause error) error {
	start := r.s.MemberStart()
	found, _, err := r.s.Resync()
	if err == io.EOF {
		r.problem(start, 0, "damaged gzip member, nothing readable after it: %v", cause)
		return io.EOF
	}
	if err != nil {
		return fmt.Errorf("%s: %w", r.name, err)
	}
	r.problem(start, found-start, "damaged gzip member, skipped to offset %d: %v", found, cause)
	return nil
}

// finish reads the current record through and sets its Length.
func (r *Reader) finish() error {
	rec := r.cur
	r.cur = nil
	if _, err := io.Copy(io.Discard, &r.body); err != nil {
		var se *stream.SourceError
		if errors.As(err, &se) {
			return fmt.Errorf("%s: %w", r.name, err)
		}
	}
	if r.body.N > 0 {
		r.problem(rec.Offset, 0, "record truncated: %d of its bytes missing", r.body.N)
	}
	if r.s.Gzipped() && !r.s.Continuous {
		// The rest of the member: blank lines, or a second record (whole-file gzip).
		for {
			off := r.s.Pos()
			line, err := r.s.ReadLine()
			if err != nil {
				break
			}
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			if _, perr := ParseHeader(line); perr == nil && rec.Offset == 0 {
				// Whole-file gzip: from now on offsets are stream positions.
				r.s.Continuous = true
				r.pending, r.pendPos = append([]byte{}, line...), off
				rec.Length = r.s.Pos() - int64(len(line)) - rec.Offset
				return nil
			}
			r.problem(rec.Offset, int64(len(line)), "garbage inside gzip member: %q", clip(line))
		}
		if r.s.MemberErr() == nil {
			rec.Length = r.s.MemberEnd() - rec.Offset
		}
		return nil
	}
	rec.Length = r.s.Pos() - rec.Offset
	return nil
}
