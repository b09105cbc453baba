// Package hostile makes the hostile inputs the tests of recrawl feed to its
// pipelines (compressed bombs: WARC records whose block, or whose HTTP
// body's content coding, inflates to gigabytes; a file swapped for a
// symbolic link while it is loaded: SwapFile) and measures what a run costs
// and touches: its peak RSS (PeakRSS) and the files it opened in a folder it
// must not read (Watch), so a test can hold the bounds. Its test
// TestHostileSuite is the hostile-input suite that scripts/hostile.sh runs.
package hostile

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/klauspost/compress/gzip"
)

// BombKind is the layer at which a bomb inflates.
type BombKind int

const (
	// BlockBomb: the WARC record's gzip member inflates to the full size
	// (an HTTP response whose body is that many zero bytes).
	BlockBomb BombKind = iota
	// BodyBomb: a small WARC record whose HTTP body has Content-Encoding:
	// gzip and inflates to the full size.
	BodyBomb
)

func (k BombKind) String() string {
	if k == BodyBomb {
		return "content-encoding"
	}
	return "warc-block"
}

// Bomb is one record of a bomb file.
type Bomb struct {
	URL  string
	Date time.Time
	Kind BombKind
	Size int64 // inflated bytes
}

type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	if z.n == 0 {
		return 0, io.EOF
	}
	k := min(int64(len(p)), z.n)
	clear(p[:k])
	z.n -= k
	return int(k), nil
}

// GzipMember writes head, n zero bytes and tail as one gzip member: the
// shape of every bomb (a few KB that inflate to n bytes).
func GzipMember(w io.Writer, head []byte, n int64, tail []byte) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestSpeed)
	if err != nil {
		return err
	}
	zw.Write(head)
	if _, err := io.Copy(zw, &zeros{n}); err != nil {
		return err
	}
	zw.Write(tail)
	return zw.Close()
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// WriteRecord writes b as one gzip member: a WARC response record with a
// payload digest (so an indexer need not hash the inflated bytes).
func (b Bomb) WriteRecord(w io.Writer) error {
	httpHead := "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
	var body []byte
	var zeroBytes int64
	switch b.Kind {
	case BodyBomb:
		var buf bufferWriter
		if err := GzipMember(&buf, []byte("<html><head><title>bomb</title></head><body><p>"), b.Size, nil); err != nil {
			return err
		}
		body = buf.b
		httpHead += "Content-Encoding: gzip\r\n"
	default:
		zeroBytes = b.Size
	}
	httpHead += fmt.Sprintf("Content-Length: %d\r\n\r\n", int64(len(body))+zeroBytes)
	blockLen := int64(len(httpHead)+len(body)) + zeroBytes
	warcHead := fmt.Sprintf("WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: %s\r\nWARC-Date: %s\r\n"+
		"WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-%012d>\r\nWARC-Payload-Digest: sha1:BOMB%028d\r\n"+
		"Content-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n",
		b.URL, b.Date.UTC().Format(time.RFC3339), b.Size%1e12, b.Kind, blockLen)
	return GzipMember(w, append([]byte(warcHead+httpHead), body...), zeroBytes, []byte("\r\n\r\n"))
}

type bufferWriter struct{ b []byte }

func (w *bufferWriter) Write(p []byte) (int, error) { w.b = append(w.b, p...); return len(p), nil }

// WriteBombFile writes the bombs as a per-record gzip WARC file and returns
// its size.
func WriteBombFile(path string, bombs ...Bomb) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	c := &countWriter{}
	w := bufio.NewWriterSize(io.MultiWriter(f, c), 1<<20)
	for _, b := range bombs {
		if err := b.WriteRecord(w); err != nil {
			f.Close()
			return 0, fmt.Errorf("write %s: %w", path, err)
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return 0, err
	}
	return c.n, f.Close()
}
