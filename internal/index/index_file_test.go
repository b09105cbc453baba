package index

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/records"
)

// TestIndexRangeLogsWhatHappens: a record whose Content-Length is not a
// number is indexed (as pywb indexes it), and the log says so instead of
// calling it skipped; the garbage after it is logged as skipped.
func TestIndexRangeLogsWhatHappens(t *testing.T) {
	http := "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 8\r\n\r\n<p>a</p>"
	rec := fmt.Sprintf("WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://a.example/\r\nWARC-Date: 2009-09-27T10:00:00Z\r\n"+
		"WARC-Record-ID: <urn:uuid:a>\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n", len(http), http)
	bad := strings.Replace(rec, "msgtype=response\r\nContent-Length: ", "msgtype=response\r\nContent-Length: x", 1)
	if bad == rec {
		t.Fatal("no Content-Length replaced")
	}
	var member bytes.Buffer
	zw := gzip.NewWriter(&member)
	zw.Write([]byte(bad))
	zw.Close()
	data := member.Bytes()
	path := filepath.Join(t.TempDir(), "bad.warc.gz")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&log, nil)))
	defer slog.SetDefault(old)
	var caps []cdxj.Capture
	var kinds []string
	_, err := IndexRange(context.Background(), cdxj.Range{File: path, End: int64(len(data)), Size: int64(len(data))},
		func(c cdxj.Capture) { caps = append(caps, c) }, func(s records.Skip) { kinds = append(kinds, s.Kind) })
	if err != nil {
		t.Fatal(err)
	}
	if len(caps) != 1 || caps[0].Offset != 0 || caps[0].URL != "http://a.example/" {
		t.Fatalf("captures %+v, want the record at offset 0", caps)
	}
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if len(lines) != 2 || len(kinds) != 2 {
		t.Fatalf("log:\n%s\nskips %v; want two lines", log.String(), kinds)
	}
	for _, l := range lines {
		switch {
		case strings.Contains(l, "kind="+records.KindBadContentLength):
			if strings.Contains(l, "skipped") || !strings.Contains(l, "indexed") || !strings.Contains(l, "empty payload") {
				t.Errorf("the indexed record is logged as %q; want it said to be indexed with an empty payload", l)
			}
		case strings.Contains(l, "kind="+records.KindGarbage):
			if !strings.Contains(l, "skipped") {
				t.Errorf("the garbage is logged as %q; want it said to be skipped", l)
			}
		default:
			t.Errorf("unexpected log line %q", l)
		}
	}
}
