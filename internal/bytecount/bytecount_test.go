package bytecount

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// shortWriter takes at most max bytes a write and then fails.
type shortWriter struct{ max int }

func (s shortWriter) Write(p []byte) (int, error) {
	if len(p) > s.max {
		return s.max, io.ErrShortWrite
	}
	return len(p), nil
}

// TestWriterCountsWhatTheWriterTook: the count is the bytes the underlying
// writer took, a short write's included.
func TestWriterCountsWhatTheWriterTook(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	io.WriteString(w, "hello, ")
	io.WriteString(w, "world")
	if w.N() != 12 || buf.String() != "hello, world" {
		t.Fatalf("N() = %d, buffer %q; want 12, %q", w.N(), buf.String(), "hello, world")
	}
	short := NewWriter(shortWriter{max: 3})
	if _, err := short.Write([]byte("abcdef")); !errors.Is(err, io.ErrShortWrite) {
		t.Fatalf("short write: err = %v, want io.ErrShortWrite", err)
	}
	if short.N() != 3 {
		t.Fatalf("short write: N() = %d, want 3", short.N())
	}
}

// TestReaderCountsBytesRead: the count is what Read returned, not what
// was asked for.
func TestReaderCountsBytesRead(t *testing.T) {
	r := NewReader(strings.NewReader("0123456789"))
	buf := make([]byte, 4)
	r.Read(buf)
	if r.N() != 4 {
		t.Fatalf("after one read: N() = %d, want 4", r.N())
	}
	rest, err := io.ReadAll(r)
	if err != nil || string(rest) != "456789" || r.N() != 10 {
		t.Fatalf("ReadAll: %q, %v, N() = %d; want %q, nil, 10", rest, err, r.N(), "456789")
	}
}

// TestReaderAtCountsEveryRead: bytes read twice count twice; a read past
// the end counts only what it returned.
func TestReaderAtCountsEveryRead(t *testing.T) {
	r := NewReaderAt(strings.NewReader("0123456789"))
	buf := make([]byte, 4)
	r.ReadAt(buf, 0)
	r.ReadAt(buf, 2)
	if n, err := r.ReadAt(buf, 8); n != 2 || err != io.EOF {
		t.Fatalf("read past the end: %d, %v; want 2, io.EOF", n, err)
	}
	if r.N() != 10 {
		t.Fatalf("N() = %d, want 10", r.N())
	}
}
