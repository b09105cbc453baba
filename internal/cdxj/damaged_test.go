package cdxj

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recrawl/recrawl/internal/records"
	"github.com/recrawl/recrawl/internal/surt"
	"github.com/recrawl/recrawl/internal/testkit/sharedtest"
)

// damagedInputs are the conformance archives whose damaged copies are
// indexed.
var damagedInputs = []string{
	"conformance/pywb/example.warc.gz", "conformance/pywb/example.warc", "conformance/pywb/example.arc",
	"conformance/pywb/example.arc.gz", "conformance/pywb/dupes.warc.gz", "conformance/pywb/example-extra.warc",
	"conformance/pywb/example-url-agnostic-orig.warc.gz", "conformance/pywb/example-url-agnostic-revisit.warc.gz",
	"conformance/pywb/example-wget-1-14.warc.gz", "conformance/pywb/example-wpull.warc.gz",
	"conformance/pywb/example2.warc.gz", "conformance/pywb/httpbin-resource.warc.gz",
	"conformance/pywb/missing-status-text.warc", "conformance/pywb/bad.arc",
	"conformance/commoncrawl/whirlwind.warc.gz",
}

func indexLines(t *testing.T, data []byte, name string) (lines []string, skips []records.Skip) {
	t.Helper()
	_, err := IndexFile(bytes.NewReader(data), name, IndexOptions{OnSkip: func(s records.Skip) { skips = append(skips, s) }},
		func(c Capture) error { lines = append(lines, c.Line()); return nil })
	if err != nil && !errors.Is(err, records.ErrNoRecords) {
		t.Fatalf("%s: %v", name, err)
	}
	return lines, skips
}

// TestDamagedCopiesIndexOnlyCleanLines indexes byte-flipped and truncated
// copies of every conformance archive: each line the index keeps must be a
// line of the clean copy's index, identical (a damaged record is left out,
// never indexed with a wrong length, mime or digest), or a response of a
// non-GET pair whose request was damaged, under its plain key.
func TestDamagedCopiesIndexOnlyCleanLines(t *testing.T) {
	for _, rel := range damagedInputs {
		data, err := os.ReadFile(sharedtest.Path(t, rel))
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(rel)
		clean, _ := indexLines(t, data, name)
		want := map[string]bool{}
		for _, l := range clean {
			want[l] = true
			// A response paired with a non-GET request has the method in
			// its key; when the damage falls into the request, which is
			// then left out, the intact response is indexed unpaired,
			// under its own URL's key.
			if c, err := Parse(l); err == nil && strings.Contains(c.Key, "__wb_method=") {
				if k, err := surt.Key(c.URL); err == nil {
					c.Key = k
					want[c.Line()] = true
				}
			}
		}
		check := func(what string, copy []byte) {
			got, _ := indexLines(t, copy, name)
			for _, l := range got {
				if !want[l] {
					t.Errorf("%s %s: the index holds a line the clean copy does not have:\n%s", name, what, l)
				}
			}
		}
		// Flipped bytes are only detectable in gzip files (the member's
		// CRC-32); a plain file has no checksum over its headers.
		for _, pos := range spread(len(data), 97) {
			if data[0] != 0x1f {
				break
			}
			copy := bytes.Clone(data)
			copy[pos] ^= 0x55
			check(fmt.Sprintf("byte %d flipped", pos), copy)
		}
		for _, n := range spread(len(data), 61) {
			check(fmt.Sprintf("cut at %d", n), data[:n])
		}
	}
}

// spread returns about n positions in [0, size): evenly spaced, plus the last
// 16 (a gzip member's trailer, a record's last bytes).
func spread(size, n int) []int {
	seen := map[int]bool{}
	var ps []int
	add := func(p int) {
		if p >= 0 && p < size && !seen[p] {
			seen[p] = true
			ps = append(ps, p)
		}
	}
	for i := range n {
		add(i * size / n)
	}
	for p := size - 16; p < size; p++ {
		add(p)
	}
	return ps
}

// TestWholeFileGzipChecksum: a whole-file gzip whose one CRC-32 fails (a
// byte flipped in a stored block decodes without error, so only the
// checksum finds it) has every record left out, and the skip says so; the
// same file whole is indexed in full.
func TestWholeFileGzipChecksum(t *testing.T) {
	var plain bytes.Buffer
	for i := range 3 {
		body := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>page %d</p>", i)
		fmt.Fprintf(&plain, "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://example.com/%d\r\nWARC-Date: 2009-09-27T10:00:00Z\r\n"+
			"WARC-Record-ID: <urn:uuid:%d>\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n", i, i, len(body), body)
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.NoCompression)
	zw.Write(plain.Bytes())
	zw.Close()
	data := gz.Bytes()
	if lines, _ := indexLines(t, data, "whole.warc.gz"); len(lines) != 3 {
		t.Fatalf("the clean file: %d lines, want 3", len(lines))
	}
	flipped := bytes.Clone(data)
	i := bytes.LastIndex(flipped, []byte("text/html"))
	flipped[i+3] = 'X' // text/hXml in the last record's HTTP head
	var skips []records.Skip
	st, err := IndexFile(bytes.NewReader(flipped), "whole.warc.gz", IndexOptions{OnSkip: func(s records.Skip) { skips = append(skips, s) }},
		func(c Capture) error { t.Errorf("indexed from a file failing its checksum: %s", c.Line()); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if st.Damaged != 3 || st.Captures != 0 || len(skips) != 1 || skips[0].Kind != records.KindBadGzip ||
		!strings.Contains(skips[0].Error(), "its 3 records are left out") {
		t.Errorf("stats %+v, skips %v; want the 3 records left out, saying so", st, skips)
	}
}
