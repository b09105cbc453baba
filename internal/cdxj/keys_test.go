package cdxj

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/recrawl/recrawl/internal/surt"
)

// keysArchive is n response records of URLs long enough that their keys
// fill many chunks; with full, every third URL goes through SURT's full
// pipeline (a percent-escape), the others take its fast path.
func keysArchive(n int, full bool) []byte {
	var data []byte
	for i := range n {
		url := fmt.Sprintf("http://www.Example.com/%s/page-%d?b=2&a=%d", strings.Repeat("x", i%300), i, i)
		if full && i%3 == 0 {
			url = fmt.Sprintf("http://example.com/caf%%C3%%A9/%d", i)
		}
		data = append(data, fmt.Sprintf("WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: %s\r\n"+
			"WARC-Date: 2020-01-02T03:04:05Z\r\nWARC-Record-ID: <urn:uuid:%d>\r\nWARC-Payload-Digest: sha1:AAAA\r\n"+
			"Content-Type: application/http; msgtype=response\r\n"+
			"Content-Length: 49\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\nhello\r\n\r\n", url, i)...)
	}
	return data
}

// TestKeysStayValid keeps every capture of a file whose keys fill many
// chunks: each key is still its URL's key once the file is read.
func TestKeysStayValid(t *testing.T) {
	caps, st, skips := indexBytes(t, keysArchive(3000, true), "keys.warc")
	if len(skips) > 0 || st.Captures != 3000 {
		t.Fatalf("%+v, skips %v", st, skips)
	}
	for _, c := range caps {
		want, err := surt.Key(c.URL)
		if err != nil || c.Key != want {
			t.Fatalf("key of %q = %q; want %q, %v", c.URL, c.Key, want, err)
		}
	}
}

// TestIndexAllocations: an index line costs no allocation per record (the
// header fields, the timestamp and the key are made in shared chunks).
func TestIndexAllocations(t *testing.T) {
	data := keysArchive(600, false)
	var line []byte
	allocs := testing.AllocsPerRun(5, func() {
		if _, err := IndexFile(bytes.NewReader(data), "keys.warc", IndexOptions{}, func(c Capture) error {
			line = c.AppendLine(line[:0])
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%.0f allocations for 600 records", allocs)
	if allocs > 100 {
		t.Errorf("%.0f allocations for 600 records; want none per record of the fast path", allocs)
	}
}
