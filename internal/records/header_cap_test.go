package records

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
)

// warcRecord is a WARC response record with extra WARC header lines and
// extra HTTP header lines.
func warcRecord(uri string, warcExtra, httpExtra string) []byte {
	http := "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n" + httpExtra + "\r\n<p>hello</p>"
	return []byte(fmt.Sprintf("WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: %s\r\nWARC-Date: 2009-09-27T10:00:00Z\r\n"+
		"WARC-Record-ID: <urn:uuid:x>\r\nContent-Type: application/http; msgtype=response\r\n%sContent-Length: %d\r\n\r\n%s\r\n\r\n",
		uri, warcExtra, len(http), http))
}

func manyLines(n int, name string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%s-%d: v\r\n", name, i)
	}
	return b.String()
}

// TestHeaderLineCap: a record whose WARC header or HTTP head has more than
// MaxHeaderLines lines (or MaxHeaderBytes bytes) is left out with a
// header-too-long skip naming the file, the offset and the field where it
// was cut; the records after it are read, in plain and in gzip files.
func TestHeaderLineCap(t *testing.T) {
	long := strings.Repeat("x", 600<<10)
	huge := strings.Repeat("y", 1100<<10)
	cases := []struct {
		name, warc, http, want string
	}{
		{"warc-lines", manyLines(MaxHeaderLines+5, "X-Warc"), "", fmt.Sprintf(`the WARC header has more than %d lines (cut at line %d, field "X-Warc-%d")`, MaxHeaderLines, MaxHeaderLines+1, MaxHeaderLines-5)},
		{"http-lines", "", manyLines(MaxHeaderLines+5, "X-Http"), fmt.Sprintf(`the HTTP head has more than %d lines (cut at line %d, field "X-Http-%d")`, MaxHeaderLines, MaxHeaderLines+1, MaxHeaderLines-1)},
		{"warc-bytes", "X-A: " + long + "\r\nX-B: " + long + "\r\n", "", fmt.Sprintf(`the WARC header has more than %d bytes (cut at line 7, field "X-B")`, MaxHeaderBytes)},
		{"http-bytes", "", "X-A: " + long + "\r\n " + long + "\r\n", fmt.Sprintf(`the HTTP head has more than %d bytes (cut at line 3, field " xxxxx`, MaxHeaderBytes)},
		{"warc-line", "X-L: " + huge + "\r\n", "", `the WARC header has a line longer than 1048576 bytes (line 6, field "X-L")`},
		{"http-line", "", "X-L: " + huge + "\r\nX-After: 1\r\n", `the HTTP head has a line longer than 1048576 bytes (line 2, field "X-L")`},
	}
	for _, c := range cases {
		bad := warcRecord("http://bad.example/", c.warc, c.http)
		good := warcRecord("http://good.example/", "", "")
		for _, gz := range []bool{false, true} {
			var file []byte
			name := c.name + ".warc"
			if gz {
				file = append(gzipMember(bad), gzipMember(good)...)
				name += ".gz"
			} else {
				file = append(append([]byte(nil), bad...), good...)
			}
			spans, skips, err := iterate(t, file, name)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			var kept []string
			for _, s := range spans {
				kept = append(kept, s.uri)
			}
			if len(skips) != 1 || skips[0].Kind != KindHeaderTooLong || skips[0].Offset != 0 ||
				!strings.Contains(skips[0].Error(), name+" offset 0: header-too-long: "+c.want) {
				t.Errorf("%s: skips %v; want one %s at offset 0: %s", name, skips, KindHeaderTooLong, c.want)
			}
			// The iterator returns the damaged record (Damage set); what
			// matters is that the next one is found and whole.
			if len(spans) != 2 || spans[1].uri != "http://good.example/" || spans[1].offset != int64(len(file)-len(good)) && !gz {
				t.Errorf("%s: records %v; want the bad one, then http://good.example/ at %d", name, spans, len(bad))
			}
			rec, err := ReadRecordAt(bytes.NewReader(file), 0, int64(len(file)), name)
			if err == nil || !strings.Contains(err.Error(), "damaged record") {
				t.Errorf("%s: ReadRecordAt of the bad record: %v, %v; want a damaged-record error", name, rec, err)
			}
		}
	}
}

// TestHeaderLineBomb: a gzip member whose WARC header inflates to 128 MiB
// of short lines is read with bounded memory, and the file goes on.
func TestHeaderLineBomb(t *testing.T) {
	const lines = 128 << 20 / 8
	var buf bytes.Buffer
	// "X-B: 1\r\n" is 8 bytes; the Content-Length after them is still honoured.
	head := []byte("WARC/1.0\r\nWARC-Type: resource\r\nWARC-Target-URI: http://bomb.example/\r\nWARC-Date: 2009-09-27T10:00:00Z\r\n")
	var lineBuf bytes.Buffer
	for range 1 << 16 {
		lineBuf.WriteString("X-B: 1\r\n")
	}
	pr, pw := io.Pipe()
	go func() {
		for range lines / (1 << 16) {
			pw.Write(lineBuf.Bytes())
		}
		pw.Close()
	}()
	rest, _ := io.ReadAll(io.MultiReader(bytes.NewReader(head), pr, strings.NewReader("Content-Length: 3\r\n\r\nabc\r\n\r\n")))
	buf.Write(gzipMember(rest))
	rest = nil
	good := warcRecord("http://good.example/", "", "")
	buf.Write(gzipMember(good))
	file := buf.Bytes()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	spans, skips, err := iterate(t, file, "bomb.warc.gz")
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(skips) != 1 || skips[0].Kind != KindHeaderTooLong || len(spans) != 2 || spans[1].uri != "http://good.example/" {
		t.Errorf("records %v, skips %v; want the bomb left out (%s) and the next record read", spans, skips, KindHeaderTooLong)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("reading a header of %d lines allocated %d MiB; want < 16 MiB", lines, alloc>>20)
	}
}
