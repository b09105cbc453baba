package archive

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// warcResponse is a WARC response record of an HTML page at url.
func warcResponse(url, body string) string {
	http := "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: " + fmt.Sprint(len(body)) + "\r\n\r\n" + body
	return fmt.Sprintf("WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: %s\r\nWARC-Date: 2009-09-27T10:00:00Z\r\nWARC-Record-ID: <urn:uuid:%s>\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n",
		url, strings.TrimPrefix(url, "http://"), len(http), http)
}

// gzipMember compresses s into one gzip member.
func gzipMember(s string) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	return b.Bytes()
}

// TestWriteCollection: the records are copied in the order given, each
// once (a record listed twice, like the payload of two revisits, is
// written once), gzip members unchanged, a plain record compressed; an ARC
// capture becomes a WARC record; collection.cdxj indexes what was written. A record
// that cannot be read is an error naming its URL, and leaves no
// collection.warc.gz behind.
func TestWriteCollection(t *testing.T) {
	ctx := context.Background()
	dir, out := t.TempDir(), t.TempDir()
	a, b := gzipMember(warcResponse("http://a.example/", "<p>a</p>")), gzipMember(warcResponse("http://b.example/", "<p>b</p>"))
	os.WriteFile(filepath.Join(dir, "ab.warc.gz"), append(append([]byte{}, a...), b...), 0o644)
	plain := warcResponse("http://c.example/", "<p>c</p>")
	os.WriteFile(filepath.Join(dir, "c.warc"), []byte(plain), 0o644)
	arcHTTP := "HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n<p/>"
	arc := fmt.Sprintf("http://d.example/ 1.2.3.4 20090927100000 text/html %d\n%s\n", len(arcHTTP), arcHTTP)
	os.WriteFile(filepath.Join(dir, "d.arc"), []byte(arc), 0o644)
	f := NewFetcher([]string{dir})
	defer f.Close()
	recA := Record{URL: "http://a.example/", File: "ab.warc.gz", Offset: 0, Length: int64(len(a))}
	recB := Record{URL: "http://b.example/", File: "ab.warc.gz", Offset: int64(len(a)), Length: int64(len(b))}
	recC := Record{URL: "http://c.example/", File: "c.warc", Offset: 0, Length: int64(len(plain))}
	recD := Record{URL: "http://d.example/", File: "d.arc", Offset: 0, Length: int64(len(arc))}
	if err := WriteCollection(ctx, out, []Record{recB, recA, recB, recD, recC}, f); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(out, CollectionWARC))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(got, append(append([]byte{}, b...), a...)) {
		t.Error("collection.warc.gz does not start with b's member, then a's, unchanged")
	}
	zr, err := gzip.NewReader(bytes.NewReader(got[len(a)+len(b):]))
	if err != nil {
		t.Fatalf("the plain record is not a gzip member: %v", err)
	}
	var rest bytes.Buffer
	rest.ReadFrom(zr)
	// The ARC capture's WARC record, then the plain record's member.
	if !strings.HasPrefix(rest.String(), "WARC/1.0\r\nWARC-Type: response\r\n") || !strings.Contains(rest.String(), "\r\n\r\n"+arcHTTP+"\r\n\r\n") || !strings.HasSuffix(rest.String(), plain) {
		t.Errorf("the members after a and b inflate to %q, want the ARC capture as a WARC response, then the plain record", rest.String())
	}
	cdx, err := os.ReadFile(filepath.Join(out, CollectionCDXJ))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(cdx), "\n"), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "example,a)/ ") || !strings.HasPrefix(lines[1], "example,b)/ ") ||
		!strings.HasPrefix(lines[2], "example,c)/ ") || !strings.HasPrefix(lines[3], "example,d)/ 20090927100000 ") ||
		!strings.Contains(lines[3], `"mime": "text/html", "status": "200"`) || !strings.Contains(lines[0], CollectionWARC) {
		t.Errorf("collection.cdxj:\n%s\nwant a, b, c and the ARC capture d, sorted, in %s", cdx, CollectionWARC)
	}

	bad := t.TempDir()
	err = WriteCollection(ctx, bad, []Record{recA, {URL: "http://gone.example/", File: "gone.warc.gz", Length: 10}}, f)
	if err == nil || !strings.Contains(err.Error(), "http://gone.example/") || !strings.Contains(err.Error(), "gone.warc.gz") {
		t.Errorf("a missing file: %v; want an error naming the URL and the file", err)
	}
	if left, _ := os.ReadDir(bad); len(left) != 0 {
		t.Errorf("after the error the output holds %d files, want none", len(left))
	}
}
