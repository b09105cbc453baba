package records

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"

	"github.com/recrawl/recrawl/internal/testkit/hostile"
)

// gzipOf compresses the head followed by n zero bytes and the tail.
func gzipOf(t testing.TB, head []byte, n int64, tail []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := hostile.GzipMember(&buf, head, n, tail); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// BombRecord is a gzip WARC record whose block inflates to blockBytes: an
// HTTP response of blockBytes-ish zero bytes (a compressed bomb at the WARC
// layer). When bodyGzip is set, the HTTP body is instead a Content-Encoding:
// gzip body inflating to blockBytes (a bomb at the HTTP layer).
func bombRecord(t testing.TB, uri string, blockBytes int64, bodyGzip bool) []byte {
	t.Helper()
	httpHead := "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
	var body []byte
	var zeroBytes int64
	if bodyGzip {
		body = gzipOf(t, []byte("<html><body><p>"), blockBytes, nil)
		httpHead += "Content-Encoding: gzip\r\n"
	} else {
		zeroBytes = blockBytes
	}
	httpHead += fmt.Sprintf("Content-Length: %d\r\n\r\n", int64(len(body))+zeroBytes)
	blockLen := int64(len(httpHead)+len(body)) + zeroBytes
	warcHead := fmt.Sprintf("WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: %s\r\nWARC-Date: 2009-09-27T10:00:00Z\r\nWARC-Record-ID: <urn:uuid:bomb>\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n", uri, blockLen)
	return gzipOf(t, append([]byte(warcHead+httpHead), body...), zeroBytes, []byte("\r\n\r\n"))
}

// TestReadRecordBombsBounded reads a record whose block inflates to 256 MiB
// and one whose gzip body does: the body is cut at the limit, flagged, and
// the heap never holds the inflated bytes.
func TestReadRecordBombsBounded(t *testing.T) {
	const inflated = 256 << 20
	const limit = 1 << 20
	for _, bodyGzip := range []bool{false, true} {
		rec := bombRecord(t, "http://bomb.example/", inflated, bodyGzip)
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		got, err := ReadRecordAtLimit(bytes.NewReader(rec), 0, int64(len(rec)), "bomb.warc.gz", limit)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatalf("gzip body %v: %v", bodyGzip, err)
		}
		if len(got.Body) != limit || !got.BodyTruncated || got.BodyDecodeErr != nil {
			t.Errorf("gzip body %v: body %d bytes, truncated %v, decode error %v; want %d bytes, truncated", bodyGzip, len(got.Body), got.BodyTruncated, got.BodyDecodeErr, limit)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
			t.Errorf("gzip body %v: reading a %d MiB bomb allocated %d MiB; want < 32 MiB", bodyGzip, inflated>>20, alloc>>20)
		}
	}
}

// TestReadRecordUnderLimitWhole: a body at the limit is whole, not flagged.
func TestReadRecordUnderLimitWhole(t *testing.T) {
	rec := bombRecord(t, "http://small.example/", 1000, true)
	got, err := ReadRecordAtLimit(bytes.NewReader(rec), 0, int64(len(rec)), "small.warc.gz", 1015)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Body) != 1015 || got.BodyTruncated {
		t.Errorf("body %d bytes, truncated %v; want 1015 bytes, whole", len(got.Body), got.BodyTruncated)
	}
}

// TestReadRecordChecksCRC: a record whose gzip member fails its CRC-32 is
// an error, not a record with possibly wrong bytes.
func TestReadRecordChecksCRC(t *testing.T) {
	rec := bombRecord(t, "http://small.example/", 1000, false)
	rec[len(rec)-6] ^= 0x01 // inside the CRC-32 of the trailer
	if _, err := ReadRecordAt(bytes.NewReader(rec), 0, int64(len(rec)), "crc.warc.gz"); err == nil {
		t.Error("a member failing its CRC-32 was read without error")
	}
}
