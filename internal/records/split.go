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
//   - the record there is not a request and has no WARC-Concurrent-To: pywb
//     pairs a request with its neighbouring response (POST keys), and only
//     a record that names no neighbour can start a range without looking at
//     the record before it. (The one exception is a request record without
//     WARC-Record-ID, invalid WARC, followed by a response without
//     WARC-Concurrent-To: unsplit, they pair.)
//
// Whole-file gzip (several records in the first member) and plain files are
// never split: in a plain file a line "WARC/1.0" can as well be the start of
// a record as a line inside a crawled WARC file, and only reading from the
// start tells which (a record's Content-Length is what skips over it).

import (
	"bytes"
	"fmt"
	"io"
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
	layout, err := FileLayout(r, size)
	if err != nil {
		return 0, err
	}
	if layout != LayoutGzipPerRecord {
		return size, nil
	}
	buf := make([]byte, 64<<10)
	pos := from
scan:
	for pos < size {
		n, err := r.ReadAt(buf, pos)
		if n == 0 {
			if err == nil || err == io.EOF {
				break
			}
			return 0, err
		}
		chunk := buf[:n]
		for i := 0; i < len(chunk); {
			j := bytes.IndexByte(chunk[i:], 0x1f)
			if j < 0 {
				break
			}
			c := pos + int64(i+j)
			if plausibleGzipHeader(r, c) {
				ok, bad, err := confirmSplitPoint(r, size, c)
				if err != nil {
					return 0, err
				}
				if ok {
					return c, nil
				}
				if bad > c {
					// Every member start up to the damage has a chain
					// through it: go on after it.
					pos = bad + 1
					continue scan
				}
			}
			i += j + 1
		}
		pos += int64(n)
		if err == io.EOF {
			break
		}
	}
	return size, nil
}

// plausibleGzipHeader checks the fixed bytes of a gzip header at off: magic,
// deflate, no reserved flag bits.
func plausibleGzipHeader(r io.ReaderAt, off int64) bool {
	var h [4]byte
	if n, _ := r.ReadAt(h[:], off); n < 4 {
		return false
	}
	return h[0] == 0x1f && h[1] == 0x8b && h[2] == 0x08 && h[3]&0xe0 == 0
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
	var next int64 // where the next member must start
	for first := true; ; first = false {
		rec, err := it.Next()
		if err == io.EOF {
			return !damaged && !first, c + next, nil
		}
		if err != nil {
			return false, c, fmt.Errorf("confirming a split point at offset %d: %w", c, err)
		}
		if damaged || rec.Offset != next {
			return false, c + next, nil
		}
		if first && (rec.Type == "request" || rec.ConcurrentTo != "") {
			return false, c, nil
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
		if next >= ConfirmBytes {
			return true, c, nil
		}
	}
}
