package archive

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// randomReader gives deterministic bytes that do not compress.
type randomReader struct{ r *rand.ChaCha8 }

func (r randomReader) Read(p []byte) (int, error) { return r.r.Read(p) }

// bigRecord is a WARC resource record with a body of n incompressible bytes.
func bigRecord(n int64) io.Reader {
	head := fmt.Sprintf("WARC/1.0\r\nWARC-Type: resource\r\nWARC-Target-URI: http://big.example/\r\nWARC-Date: 2009-09-27T10:00:00Z\r\nWARC-Record-ID: <urn:uuid:big>\r\nContent-Type: application/octet-stream\r\nContent-Length: %d\r\n\r\n", n)
	return io.MultiReader(bytes.NewReader([]byte(head)), io.LimitReader(randomReader{rand.NewChaCha8([32]byte{1})}, n), bytes.NewReader([]byte("\r\n\r\n")))
}

// TestCopyRawRecordStreams copies a 48 MiB record out of a plain WARC, a
// per-record-gzip WARC and a whole-file-gzip WARC: the copy is the record
// (as one gzip member), and the heap never holds it.
func TestCopyRawRecordStreams(t *testing.T) {
	const body = 48 << 20
	dir := t.TempDir()
	// The record's bytes and their hash.
	h := sha256.New()
	recLen, _ := io.Copy(h, bigRecord(body))
	want := h.Sum(nil)
	write := func(name string, gz bool) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		var w io.Writer = f
		var zw *gzip.Writer
		if gz {
			zw, _ = gzip.NewWriterLevel(f, gzip.BestSpeed)
			w = zw
		}
		if _, err := io.Copy(w, bigRecord(body)); err != nil {
			t.Fatal(err)
		}
		if zw != nil {
			zw.Close()
		}
		f.Close()
	}
	write("plain.warc", false)
	write("member.warc.gz", true) // one record in one member: both per-record and whole-file gzip
	st, _ := os.Stat(filepath.Join(dir, "member.warc.gz"))
	f := NewFetcher([]string{dir})
	defer f.Close()
	for _, c := range []struct {
		name           string
		offset, length int64
	}{
		{"plain.warc", 0, recLen},
		{"member.warc.gz", 0, st.Size()}, // a per-record member: copied unchanged
	} {
		sum, alloc, err := copyRecord(f, c.name, c.offset, c.length)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !bytes.Equal(sum, want) {
			t.Errorf("%s: the copied record differs from the original", c.name)
		}
		// The reader goroutine's allocations count too; both stay small.
		if alloc > 12<<20 {
			t.Errorf("%s: copying a %d MiB record allocated %d MiB; want < 12 MiB (streamed)", c.name, body>>20, alloc>>20)
		}
	}
}

// copyRecord copies one record with CopyRawRecord into a gzip reader and
// returns the SHA-256 of what it inflates to, and the bytes allocated
// meanwhile (the reader goroutine's included).
func copyRecord(f *Fetcher, name string, offset, length int64) (sum []byte, alloc uint64, err error) {
	out := sha256.New()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		zr, err := gzip.NewReader(pr)
		if err == nil {
			_, err = io.Copy(out, zr)
		}
		io.Copy(io.Discard, pr)
		done <- err
	}()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err = f.CopyRawRecord(context.Background(), pw, "", name, offset, length)
	pw.CloseWithError(err)
	if err == nil {
		if err = <-done; err != nil {
			err = fmt.Errorf("the copy is not one gzip stream: %w", err)
		}
	}
	runtime.ReadMemStats(&after)
	return out.Sum(nil), after.TotalAlloc - before.TotalAlloc, err
}

// TestCopyRawRecordWholeFileGzip: a record inside a whole-file gzip (offsets
// in the decompressed stream) is streamed too; an ARC record is refused
// before anything is written.
func TestCopyRawRecordWholeFileGzip(t *testing.T) {
	dir := t.TempDir()
	const body = 48 << 20
	var rec bytes.Buffer
	io.Copy(&rec, bigRecord(1000))
	small := rec.Len()
	// file: a small record, then the big one, in one gzip stream.
	f0, _ := os.Create(filepath.Join(dir, "whole.warc.gz"))
	zw, _ := gzip.NewWriterLevel(f0, gzip.BestSpeed)
	zw.Write(rec.Bytes())
	h := sha256.New()
	n, _ := io.Copy(io.MultiWriter(zw, h), bigRecord(body))
	zw.Write([]byte("filedesc://x.arc 0.0.0.0 20090927100000 text/plain 10\n0123456789\n"))
	zw.Close()
	f0.Close()
	f := NewFetcher([]string{dir})
	defer f.Close()
	sum, alloc, err := copyRecord(f, "whole.warc.gz", int64(small), n)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(sum, h.Sum(nil)) {
		t.Error("the copied record differs from the original")
	}
	if alloc > 12<<20 {
		t.Errorf("copying a %d MiB record from a whole-file gzip allocated %d MiB; want < 12 MiB", body>>20, alloc>>20)
	}
	var sink bytes.Buffer
	err = f.CopyRawRecord(context.Background(), &sink, "", "whole.warc.gz", int64(small)+n, 10)
	if !errors.Is(err, ErrNotWARCRecord) || sink.Len() != 0 {
		t.Errorf("ARC record: %v, %d bytes written; want ErrNotWARCRecord and nothing written", err, sink.Len())
	}
}

// TestRawRecordHostileLength: an index length the file cannot hold is an
// error, not an allocation of that many bytes.
func TestRawRecordHostileLength(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string][]byte{"a.warc": []byte("WARC/1.0\r\n\r\n"), "b.warc.gz": {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0}} {
		os.WriteFile(filepath.Join(dir, name), data, 0o644)
		f := NewFetcher([]string{dir})
		if err := f.CopyRawRecord(context.Background(), io.Discard, "", name, 0, 1<<50); err == nil || !strings.Contains(err.Error(), "outside the file") {
			t.Errorf("%s with a length of 2^50: %v", name, err)
		}
		f.Close()
	}
}
