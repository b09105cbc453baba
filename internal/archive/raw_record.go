package archive

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
)

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
