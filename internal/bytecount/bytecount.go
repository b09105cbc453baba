// Package bytecount counts the bytes that pass through an io.Writer, an
// io.Reader or an io.ReaderAt: the size of what was written to a file
// still being appended to, how much of a file a reader consumed, what a
// connection downloaded. Counts are atomic, so one goroutine may read a
// count while another is still reading or writing.
package bytecount

import (
	"io"
	"sync/atomic"
)

// Writer passes writes on to an io.Writer and counts the bytes it took.
type Writer struct {
	w io.Writer
	n atomic.Int64
}

// NewWriter returns a Writer to w that counts from zero.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes p to the underlying writer and counts the bytes it took,
// also when it returns an error.
func (c *Writer) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(int64(n))
	return n, err
}

// N is the number of bytes written so far.
func (c *Writer) N() int64 { return c.n.Load() }

// Reader passes reads on to an io.Reader and counts the bytes read.
type Reader struct {
	r io.Reader
	n atomic.Int64
}

// NewReader returns a Reader of r that counts from zero.
func NewReader(r io.Reader) *Reader { return &Reader{r: r} }

// Read reads from the underlying reader and counts the bytes it returned.
func (c *Reader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// N is the number of bytes read so far.
func (c *Reader) N() int64 { return c.n.Load() }

// ReaderAt passes positioned reads on to an io.ReaderAt and counts the
// bytes read, wherever they were read from (a byte read twice counts twice).
type ReaderAt struct {
	r io.ReaderAt
	n atomic.Int64
}

// NewReaderAt returns a ReaderAt of r that counts from zero.
func NewReaderAt(r io.ReaderAt) *ReaderAt { return &ReaderAt{r: r} }

// ReadAt reads from the underlying reader and counts the bytes it returned.
func (c *ReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

// N is the number of bytes read so far.
func (c *ReaderAt) N() int64 { return c.n.Load() }
