package cdxj

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
)

// wgetLayout tells wgetArchive how each capture's two records name each
// other.
type wgetLayout int

const (
	// bothNamed: request then response, each with WARC-Concurrent-To
	// naming the other (wget since 1.14).
	bothNamed wgetLayout = iota
	// responseNames: request then response; only the response has
	// WARC-Concurrent-To (older wget, as in ../shared/conformance/ukwa).
	responseNames
	// responsesOnly: responses only, each naming a request that is not in
	// the file: no record can start a range.
	responsesOnly
	// responseFirst: response then request, each naming the other.
	responseFirst
)

// wgetArchive writes a WARC of n captures, one gzip member per record, the
// way wget writes it: a warcinfo record, then a request and a response per
// capture (every seventh a POST with a form body, some URLs captured
// twice), then wget's metadata and resource records, which name the
// warcinfo record. Bodies are random text, about 3 KB compressed.
func wgetArchive(t testing.TB, n int, layout wgetLayout) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := writeWgetArchive(&out, n, layout); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// writeWgetArchive writes wgetArchive's file to out.
func writeWgetArchive(out io.Writer, n int, layout wgetLayout) error {
	rnd := rand.New(rand.NewPCG(7, uint64(layout)))
	zw, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed)
	var werr error
	id := 0
	newID := func() string {
		id++
		return fmt.Sprintf("<urn:uuid:00000000-0000-4000-8000-%012d>", id)
	}
	write := func(fields [][2]string, block string) {
		var rec bytes.Buffer
		rec.WriteString("WARC/1.0\r\n")
		for _, f := range fields {
			if f[1] != "" {
				fmt.Fprintf(&rec, "%s: %s\r\n", f[0], f[1])
			}
		}
		fmt.Fprintf(&rec, "Content-Length: %d\r\n\r\n%s\r\n\r\n", len(block), block)
		zw.Reset(out)
		if _, err := zw.Write(rec.Bytes()); err != nil && werr == nil {
			werr = err
		}
		if err := zw.Close(); err != nil && werr == nil {
			werr = err
		}
	}
	date := func(i int) string { return fmt.Sprintf("2024-05-%02dT10:%02d:%02dZ", 1+i%28, i/60%60, i%60) }
	info := newID()
	write([][2]string{{"WARC-Type", "warcinfo"}, {"WARC-Date", date(0)}, {"WARC-Record-ID", info},
		{"WARC-Filename", "wget.warc.gz"}, {"Content-Type", "application/warc-fields"}}, "software: Wget/1.21.3\r\nformat: WARC File Format 1.0\r\n")
	const letters = "abcdefghijklmnopqrstuvwxyz      \n"
	body := make([]byte, 5000)
	for i := range n {
		url := fmt.Sprintf("http://example.org/page/%d", i%(n-n/10))
		reqID, respID := newID(), newID()
		method, reqBody := "GET", ""
		if i%7 == 3 {
			method, reqBody = "POST", fmt.Sprintf("q=term%d&page=%d", i, i%5)
		}
		request := fmt.Sprintf("%s /page/%d HTTP/1.1\r\nHost: example.org\r\nUser-Agent: Wget/1.21.3\r\n", method, i%(n-n/10))
		if reqBody != "" {
			request += fmt.Sprintf("Content-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n", len(reqBody))
		}
		request += "\r\n" + reqBody
		for j := range body {
			body[j] = letters[rnd.IntN(len(letters))]
		}
		response := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: %d\r\n\r\n<html><body>%s</body></html>", len(body)+26, body)
		reqTo, respTo := respID, reqID
		switch layout {
		case responseNames:
			reqTo = ""
		case responsesOnly:
			respTo = fmt.Sprintf("<urn:uuid:ffffffff-0000-4000-8000-%012d>", i)
		}
		writeRequest := func() {
			write([][2]string{{"WARC-Type", "request"}, {"WARC-Target-URI", url}, {"WARC-Date", date(i)},
				{"WARC-Record-ID", reqID}, {"WARC-Concurrent-To", reqTo}, {"Content-Type", "application/http;msgtype=request"}}, request)
		}
		if layout != responsesOnly && layout != responseFirst {
			writeRequest()
		}
		write([][2]string{{"WARC-Type", "response"}, {"WARC-Target-URI", url}, {"WARC-Date", date(i)},
			{"WARC-Record-ID", respID}, {"WARC-Concurrent-To", respTo}, {"Content-Type", "application/http;msgtype=response"}}, response)
		if layout == responseFirst {
			writeRequest()
		}
	}
	write([][2]string{{"WARC-Type", "metadata"}, {"WARC-Target-URI", "metadata://gnu.org/software/wget/warc/MANIFEST.txt"},
		{"WARC-Date", date(n)}, {"WARC-Record-ID", newID()}, {"WARC-Concurrent-To", info}, {"Content-Type", "text/plain"}}, "<urn:uuid:x>\n")
	write([][2]string{{"WARC-Type", "resource"}, {"WARC-Target-URI", "metadata://gnu.org/software/wget/warc/wget_arguments.txt"},
		{"WARC-Date", date(n)}, {"WARC-Record-ID", newID()}, {"WARC-Concurrent-To", info}, {"Content-Type", "text/plain"}}, "\"--warc-file=wget\"\n")
	return werr
}

// BenchmarkIndexWgetVsWarcio indexes a generated wget-layout archive
// (RECRAWL_BENCH_WGET_CAPTURES captures, default 40,000: about 150 MB) in
// ranges of 64 MB, the index pipeline's default, on one core, and runs
// `warcio index` on the same file; it reports the CPU seconds of both and
// their ratio. warcio is taken from RECRAWL_WARCIO or pywb's virtualenv in
// ~/.cache/recrawl (scripts/install-test-deps.sh); without it the benchmark
// is skipped.
func BenchmarkIndexWgetVsWarcio(b *testing.B) {
	warcio := os.Getenv("RECRAWL_WARCIO")
	if warcio == "" {
		home, _ := os.UserHomeDir()
		found, _ := filepath.Glob(filepath.Join(home, ".cache/recrawl/pywb-*/bin/warcio"))
		if len(found) == 0 {
			b.Skip("no warcio: set RECRAWL_WARCIO or run scripts/install-test-deps.sh")
		}
		warcio = found[len(found)-1]
	}
	captures := 40_000
	if v := os.Getenv("RECRAWL_BENCH_WGET_CAPTURES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			b.Fatalf("RECRAWL_BENCH_WGET_CAPTURES=%q: %v", v, err)
		}
		captures = n
	}
	path := filepath.Join(b.TempDir(), "wget.warc.gz")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := writeWgetArchive(w, captures, bothNamed); err != nil {
		b.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	b.ResetTimer()
	var ours, theirs time.Duration
	for range b.N {
		start := cpuTime()
		func() {
			in, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			defer in.Close()
			lines := 0
			for _, rng := range Split(path, st.Size(), 64<<20) {
				_, err := IndexRange(in, "wget.warc.gz", rng, IndexOptions{}, func(c Capture) error {
					lines += len(c.Line())
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
		}()
		ours += cpuTime() - start
		cmd := exec.Command(warcio, "index", path)
		cmd.Stdout = io.Discard
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			b.Fatalf("%s index %s: %v: %s", warcio, path, err, stderr.Bytes())
		}
		theirs += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(ours.Seconds()/n, "recrawl-cpu-s")
	b.ReportMetric(theirs.Seconds()/n, "warcio-cpu-s")
	b.ReportMetric(ours.Seconds()/theirs.Seconds(), "recrawl/warcio")
	b.ReportMetric(float64(st.Size())/1e6, "MB")
	fmt.Fprintf(os.Stderr, "wget layout, %d captures, %.1f MB, one core: recrawl %.2f CPU-s, warcio index %.2f CPU-s, ratio %.2f\n",
		captures, float64(st.Size())/1e6, ours.Seconds()/n, theirs.Seconds()/n, ours.Seconds()/theirs.Seconds())
}
