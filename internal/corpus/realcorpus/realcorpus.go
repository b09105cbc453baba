// Package realcorpus writes a benchmark corpus of WARC files whose captures
// are real web pages: the pages of a directory laid out like
// ../shared/conformance/dates (labels.tsv with url and file columns, the
// gzip-compressed HTML in pages/), captured again and again under their own
// URLs at later and later times until the files reach their size.
//
// The index benchmarks need it because cost per byte depends on record size.
// Our generator's pages (cmd/genarchive) are small: 1 GB of them holds about
// 210,000 captures, while 1 GB of real news, blog and shop pages holds about
// 35,000. What an indexer spends per record beyond inflating weighs six times
// more on the first than on an archive of real pages.
//
// Each capture is laid out as web crawlers write it (Heritrix, wget,
// warcio): a response record, then its request record, each its own gzip
// member at zlib's default level 6, with SHA-1 block and payload digests.
// The same seed, pages and sizes give byte-identical files.
package realcorpus

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"encoding/base32"
	"encoding/csv"
	"fmt"
	"io"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sync/errgroup"
)

// Config says what to write.
type Config struct {
	Pages       string // directory with labels.tsv and pages/
	OutDir      string
	Files       int   // number of WARC files
	FileBytes   int64 // each file is written until it reaches this many bytes
	Seed        uint64
	Prefix      string // file name prefix (default "REAL")
	Parallelism int    // files written at once (0: one per file)
}

// FileSummary describes one written file.
type FileSummary struct {
	Name     string
	Captures int64
	Records  int64
	Bytes    int64
}

// page is one real page and the URL it was captured from.
type page struct {
	url  *url.URL
	html []byte
}

// Write writes cfg.Files WARC files into cfg.OutDir and returns what each holds.
func Write(cfg Config) ([]FileSummary, error) {
	if cfg.Files < 1 || cfg.FileBytes < 1 {
		return nil, fmt.Errorf("realcorpus: files (%d) and bytes per file (%d) must be positive", cfg.Files, cfg.FileBytes)
	}
	if cfg.Prefix == "" {
		cfg.Prefix = "REAL"
	}
	pages, err := readPages(cfg.Pages)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.OutDir, 0o755); err != nil {
		return nil, fmt.Errorf("realcorpus: %w", err)
	}
	sums := make([]FileSummary, cfg.Files)
	var g errgroup.Group
	if cfg.Parallelism > 0 {
		g.SetLimit(cfg.Parallelism)
	}
	for i := range cfg.Files {
		g.Go(func() error {
			s, err := writeFile(cfg, i, pages)
			sums[i] = s
			return err
		})
	}
	return sums, g.Wait()
}

// readPages reads labels.tsv (columns url and file) and the pages it names.
func readPages(dir string) ([]page, error) {
	name := filepath.Join(dir, "labels.tsv")
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("realcorpus: %w", err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comma, r.LazyQuotes, r.FieldsPerRecord = '\t', true, -1
	rows, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("realcorpus: %s: %w", name, err)
	}
	if len(rows) < 2 {
		return nil, fmt.Errorf("realcorpus: %s: no pages", name)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	ui, ok1 := col["url"]
	fi, ok2 := col["file"]
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("realcorpus: %s: the header has no url and file columns: %q", name, rows[0])
	}
	var pages []page
	for n, row := range rows[1:] {
		if len(row) <= max(ui, fi) {
			return nil, fmt.Errorf("realcorpus: %s line %d: %d fields", name, n+2, len(row))
		}
		u, err := url.Parse(row[ui])
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("realcorpus: %s line %d: url %q is not absolute", name, n+2, row[ui])
		}
		html, err := readGzip(filepath.Join(dir, "pages", row[fi]))
		if err != nil {
			return nil, fmt.Errorf("realcorpus: %s line %d: %w", name, n+2, err)
		}
		pages = append(pages, page{url: u, html: html})
	}
	return pages, nil
}

func readGzip(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return b, nil
}

// start is the time of the first capture of file 0; file i starts i years later.
var start = time.Date(2019, 1, 7, 6, 0, 0, 0, time.UTC)

// writeFile writes file i: a warcinfo record, then the pages in a new
// shuffled order on every pass, until the file reaches cfg.FileBytes.
func writeFile(cfg Config, i int, pages []page) (FileSummary, error) {
	t := start.AddDate(i, 0, 0)
	sum := FileSummary{Name: fmt.Sprintf("%s-%s-%05d.warc.gz", cfg.Prefix, t.Format("20060102150405"), i)}
	final := filepath.Join(cfg.OutDir, sum.Name)
	tmp := final + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return sum, fmt.Errorf("realcorpus: %w", err)
	}
	defer f.Close()
	w := &recordWriter{out: bufio.NewWriterSize(f, 1<<20), rng: rand.New(rand.NewPCG(cfg.Seed, uint64(i)))}
	if w.gz, err = gzip.NewWriterLevel(io.Discard, gzip.DefaultCompression); err != nil {
		return sum, err
	}
	info := "software: recrawl realcorpus\r\nformat: WARC File Format 1.1\r\nconformsTo: http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n"
	if err := w.record(warcRecord{typ: "warcinfo", id: w.uuid(), date: t, contentType: "application/warc-fields", payload: []byte(info)}); err != nil {
		return sum, fmt.Errorf("realcorpus: %s: %w", sum.Name, err)
	}
	order := make([]int, len(pages))
	for i := range order {
		order[i] = i
	}
	for w.bytes < cfg.FileBytes {
		w.rng.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		for _, k := range order {
			if w.bytes >= cfg.FileBytes {
				break
			}
			t = t.Add(time.Duration(1+w.rng.IntN(20)) * time.Second)
			if err := w.capture(pages[k], t); err != nil {
				return sum, fmt.Errorf("realcorpus: %s: %w", sum.Name, err)
			}
			sum.Captures++
		}
	}
	sum.Records, sum.Bytes = w.records, w.bytes
	if err := w.out.Flush(); err != nil {
		return sum, fmt.Errorf("realcorpus: %s: %w", sum.Name, err)
	}
	if err := f.Close(); err != nil {
		return sum, fmt.Errorf("realcorpus: %s: %w", sum.Name, err)
	}
	return sum, os.Rename(tmp, final)
}

// recordWriter writes gzip members, one per record.
type recordWriter struct {
	out            *bufio.Writer
	gz             *gzip.Writer
	member, header bytes.Buffer
	rng            *rand.Rand
	records, bytes int64
}

// servers are what real sites send as Server; a capture takes one at random.
var servers = []string{"nginx", "Apache", "cloudflare", "Microsoft-IIS/10.0", "nginx/1.18.0 (Ubuntu)", "Apache/2.4.41 (Ubuntu)"}

// capture writes a page's response record and its request record.
func (w *recordWriter) capture(p page, t time.Time) error {
	date := t.Format(time.RFC1123)
	date = date[:len(date)-3] + "GMT"
	var http bytes.Buffer
	fmt.Fprintf(&http, "HTTP/1.1 200 OK\r\nDate: %s\r\nServer: %s\r\nContent-Type: text/html; charset=utf-8\r\n", date, servers[w.rng.IntN(len(servers))])
	fmt.Fprintf(&http, "Content-Length: %d\r\nConnection: close\r\nVary: Accept-Encoding\r\nCache-Control: max-age=%d, public\r\n", len(p.html), 60*(1+w.rng.IntN(30)))
	fmt.Fprintf(&http, "X-Frame-Options: SAMEORIGIN\r\nX-Content-Type-Options: nosniff\r\nSet-Cookie: session=%016x; Path=/; HttpOnly\r\n\r\n", w.rng.Uint64())
	responseID := w.uuid()
	ip := fmt.Sprintf("%d.%d.%d.%d", 93+w.rng.IntN(100), w.rng.IntN(256), w.rng.IntN(256), 1+w.rng.IntN(254))
	response := warcRecord{typ: "response", id: responseID, target: p.url.String(), date: t, contentType: "application/http; msgtype=response", ip: ip, head: http.Bytes(), payload: p.html}
	if err := w.record(response); err != nil {
		return err
	}
	path := p.url.RequestURI()
	request := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: Mozilla/5.0 (compatible; recrawl-bench/1.0)\r\nAccept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8\r\nAccept-Language: en-US,en;q=0.5\r\nConnection: close\r\n\r\n", path, p.url.Host)
	return w.record(warcRecord{typ: "request", id: w.uuid(), concurrentTo: responseID, target: p.url.String(), date: t, contentType: "application/http; msgtype=request", head: []byte(request)})
}

// uuid returns a random (seeded) urn:uuid in angle brackets.
func (w *recordWriter) uuid() string {
	a, b := w.rng.Uint64(), w.rng.Uint64()
	a = a&^0xF000 | 0x4000
	b = b&^(0xC<<60) | 0x8<<60
	return fmt.Sprintf("<urn:uuid:%08x-%04x-%04x-%04x-%012x>", a>>32, a>>16&0xFFFF, a&0xFFFF, b>>48, b&0xFFFFFFFFFFFF)
}

// warcRecord is one record to write. Its block is head followed by payload;
// a response's payload digest is its payload's.
type warcRecord struct {
	typ, id, target, concurrentTo, contentType, ip string
	date                                           time.Time
	head, payload                                  []byte
}

// record writes one record as its own gzip member.
func (w *recordWriter) record(r warcRecord) error {
	h := &w.header
	h.Reset()
	fmt.Fprintf(h, "WARC/1.1\r\nWARC-Type: %s\r\nWARC-Record-ID: %s\r\nWARC-Date: %s\r\n", r.typ, r.id, r.date.Format("2006-01-02T15:04:05Z"))
	if r.target != "" {
		fmt.Fprintf(h, "WARC-Target-URI: %s\r\n", r.target)
	}
	if r.ip != "" {
		fmt.Fprintf(h, "WARC-IP-Address: %s\r\n", r.ip)
	}
	if r.concurrentTo != "" {
		fmt.Fprintf(h, "WARC-Concurrent-To: %s\r\n", r.concurrentTo)
	}
	fmt.Fprintf(h, "Content-Type: %s\r\n", r.contentType)
	block := sha1.New()
	block.Write(r.head)
	block.Write(r.payload)
	if r.typ == "response" {
		fmt.Fprintf(h, "WARC-Payload-Digest: %s\r\n", digest(sha1.Sum(r.payload)))
	}
	var bs [sha1.Size]byte
	fmt.Fprintf(h, "WARC-Block-Digest: %s\r\nContent-Length: %d\r\n\r\n", digest([sha1.Size]byte(block.Sum(bs[:0]))), len(r.head)+len(r.payload))

	w.member.Reset()
	w.gz.Reset(&w.member)
	for _, part := range [][]byte{h.Bytes(), r.head, r.payload, []byte("\r\n\r\n")} {
		if _, err := w.gz.Write(part); err != nil {
			return err
		}
	}
	if err := w.gz.Close(); err != nil {
		return err
	}
	n, err := w.out.Write(w.member.Bytes())
	w.bytes += int64(n)
	w.records++
	return err
}

func digest(sum [sha1.Size]byte) string {
	return "sha1:" + base32.StdEncoding.EncodeToString(sum[:])
}
