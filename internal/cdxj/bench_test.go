package cdxj

import (
	"bytes"
	"crypto/sha1"
	"encoding/base32"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// benchWARC is a generated WARC of about 20 MB compressed: warcinfo, then
// response/request pairs with HTML-like payloads of 5-50 KB, one gzip member
// per record, with WARC-Payload-Digest headers as crawlers write them.
var benchWARC = sync.OnceValue(func() []byte { return generateWARC(20<<20, true) })

var words = strings.Fields(`the of and to in a is that for it as was with be by on not he this are or his from at which but
have an they you were her she there been one all we their has would when if so no what up out said who into about them
can more other some time could these two may then do first any my now such like our over man me even most made after
also did many before must through back years where much your way well down should because each just those people
election parliament minister government crisis summit treaty market storm flood olympic games refugees protest`)

func generateWARC(target int, digests bool) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	var out bytes.Buffer
	zw, _ := gzip.NewWriterLevel(nil, gzip.DefaultCompression)
	member := func(rec []byte) {
		zw.Reset(&out)
		zw.Write(rec)
		zw.Close()
	}
	member([]byte("WARC/1.0\r\nWARC-Type: warcinfo\r\nWARC-Date: 2017-03-01T00:00:00Z\r\nWARC-Record-ID: <urn:uuid:0>\r\nContent-Type: application/warc-fields\r\nContent-Length: 24\r\n\r\nsoftware: recrawl-bench\n\r\n\r\n"))
	var body bytes.Buffer
	for i := 0; out.Len() < target; i++ {
		body.Reset()
		fmt.Fprintf(&body, "<!doctype html>\n<html><head><title>Page %d</title></head>\n<body>\n", i)
		size := 5<<10 + rng.IntN(45<<10)
		for body.Len() < size {
			body.WriteString("<p>")
			for range 20 + rng.IntN(60) {
				body.WriteString(words[rng.IntN(len(words))])
				body.WriteByte(' ')
			}
			fmt.Fprintf(&body, "<a href=\"/news/%d/%d.html\">more</a></p>\n", rng.IntN(1000), rng.IntN(100000))
		}
		body.WriteString("</body></html>\n")
		http := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: %d\r\nServer: bench\r\n\r\n", body.Len())
		url := fmt.Sprintf("http://www.example%d.com/news/%d/article-%d.html?id=%d", i%97, i%1000, i, i)
		date := fmt.Sprintf("2017-03-%02dT%02d:%02d:%02dZ", 1+i%28, i%24, i%60, (i*7)%60)
		id := fmt.Sprintf("<urn:uuid:%08d-0000-4000-8000-000000000000>", i)
		digest := ""
		if digests {
			sum := sha1.Sum(body.Bytes())
			digest = "WARC-Payload-Digest: sha1:" + base32.StdEncoding.EncodeToString(sum[:]) + "\r\n"
		}
		hdr := fmt.Sprintf("WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: %s\r\nWARC-Date: %s\r\nWARC-Target-URI: %s\r\nWARC-IP-Address: 192.0.2.1\r\nContent-Type: application/http; msgtype=response\r\n%sContent-Length: %d\r\n\r\n",
			id, date, url, digest, len(http)+body.Len())
		member([]byte(hdr + http + body.String() + "\r\n\r\n"))
		req := fmt.Sprintf("GET /news/%d/article-%d.html?id=%d HTTP/1.1\r\nHost: www.example%d.com\r\nUser-Agent: bench\r\n\r\n", i%1000, i, i, i%97)
		member([]byte(fmt.Sprintf("WARC/1.0\r\nWARC-Type: request\r\nWARC-Record-ID: <urn:uuid:r%d>\r\nWARC-Concurrent-To: %s\r\nWARC-Date: %s\r\nWARC-Target-URI: %s\r\nContent-Type: application/http; msgtype=request\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n",
			i, id, date, url, len(req), req)))
	}
	return out.Bytes()
}

func BenchmarkIndexFile(b *testing.B) {
	data := benchWARC()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	n := 0
	for range b.N {
		st, err := IndexFile(bytes.NewReader(data), "bench.warc.gz", IndexOptions{}, func(Capture) error { return nil })
		if err != nil || st.Skips > 0 {
			b.Fatal(err, st)
		}
		n = st.Captures
	}
	b.ReportMetric(float64(n), "captures")
}

// BenchmarkIndexFileNoDigests indexes the same kind of file without
// WARC-Payload-Digest headers, so every payload is hashed.
func BenchmarkIndexFileNoDigests(b *testing.B) {
	data := generateWARC(20<<20, false)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		if _, err := IndexFile(bytes.NewReader(data), "bench.warc.gz", IndexOptions{}, func(Capture) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScanCeiling is the fastest possible pass over the same file:
// inflate every gzip member and find the WARC header lines, nothing else.
// IndexFile cannot beat it, since a gzip member's end is only known once it
// has been inflated.
func BenchmarkScanCeiling(b *testing.B) {
	data := benchWARC()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	sc := newCeilingScanner()
	for range b.N {
		_, headers, err := sc.scan(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		if headers == 0 {
			b.Fatal("no headers")
		}
	}
}
