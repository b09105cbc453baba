// Package evaltest writes synthetic extraction output directories
// (documents.jsonl, missing.jsonl, rounds.jsonl, run.json, links.tsv and,
// on request, collection.warc.gz with its collection.cdxj) for the tests of
// internal/evaluate, internal/report, internal/wacz and internal/linkgraph.
//
// The data is a pure function of the RunSpec: a run of N documents over a
// pool of URLs, whose topic_r values are drawn from a seeded PCG generator
// and ordered so that Focus in [0, 1] controls how early the relevant ones
// come (1: best first, 0: random order). Tests can so build a "good" and a
// "bad" run and check that the metrics tell them apart.
package evaltest

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/collection"
	"github.com/recrawl/recrawl/internal/surt"
)

// RunSpec describes a synthetic run.
type RunSpec struct {
	Strategy       string
	Docs           int     // documents collected
	Pool           int     // URLs to draw from (>= Docs); default 2*Docs
	Focus          float64 // 0 random order … 1 most relevant first
	Seed           uint64  // the topic_r values of the pool (same seed: same pool)
	OrderSeed      uint64  // the order of a run
	Missing        int
	URLsConsidered int
	WARC           bool // also write collection.warc.gz and collection.cdxj
	SpecName       string
	Keywords       []string
}

// URL returns the i-th URL of the pool.
func URL(i int) string { return fmt.Sprintf("http://www.example.org/news/2013/article-%04d.html", i) }

// PoolRelevance returns the topic_r of every pool URL for seed.
func PoolRelevance(seed uint64, pool int) []float64 {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	r := make([]float64, pool)
	for i := range r {
		x := rng.Float64()
		r[i] = x * x * x // mostly low, a few high, like real collections
	}
	return r
}

// WriteRun writes a run directory and returns its documents.
func WriteRun(t testing.TB, dir string, rs RunSpec) []collection.Document {
	t.Helper()
	if rs.Pool == 0 {
		rs.Pool = 2 * rs.Docs
	}
	if rs.SpecName == "" {
		rs.SpecName = "test-event"
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	rel := PoolRelevance(rs.Seed, rs.Pool)
	rng := rand.New(rand.NewPCG(rs.OrderSeed, 7))
	order := rng.Perm(rs.Pool)
	// Sort by a score mixing relevance and noise: Focus 1 sorts by
	// relevance, 0 keeps the random permutation.
	score := make([]float64, rs.Pool)
	for _, i := range order {
		score[i] = rs.Focus*rel[i] + (1-rs.Focus)*rng.Float64()
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case score[a] > score[b]:
			return -1
		case score[a] < score[b]:
			return 1
		}
		return 0
	})
	base := time.Date(2013, 6, 1, 0, 0, 0, 0, time.UTC)
	var docs []collection.Document
	for n, i := range order[:rs.Docs] {
		u := URL(i)
		key, err := surt.Key(u)
		if err != nil {
			t.Fatal(err)
		}
		ts := base.Add(time.Duration(i) * time.Hour)
		d := collection.Document{
			URL: u, SURT: key, Timestamp: ts.Format("20060102150405"), Filename: "source-00001.warc.gz",
			Title: fmt.Sprintf("Article %d <about> the event & more", i), DocTime: ts.Format(time.RFC3339),
			DocTimeSource: []string{"meta", "capture", "url"}[i%3], Language: "en",
			TopicR: rel[i], TempR: 1 - float64(i%10)/10, Round: n/10 + 1, Rank: n % 10, Depth: n % 4,
			Path: "S" + strings.Repeat("L", n%4), Outlinks: 3,
		}
		d.TTR = 0.5*d.TopicR + 0.5*d.TempR
		d.Relevance = d.TTR
		d.Priority = d.TTR
		if n > 0 {
			d.Parent = docs[(n-1)/2].URL
		}
		docs = append(docs, d)
	}
	if rs.WARC {
		writeWARC(t, dir, docs)
	}
	writeJSONL(t, filepath.Join(dir, collection.DocumentsFile), docs)

	var missing []collection.Missing
	codes := []string{"not-in-index", "no-usable-capture", "not-html"}
	for m := 0; m < rs.Missing; m++ {
		u := fmt.Sprintf("http://gone.example.net/page-%d.html", m)
		key, _ := surt.Key(u)
		missing = append(missing, collection.Missing{URL: u, SURT: key, Path: "SL", Priority: float64(m%7) / 7,
			Round: m%3 + 1, ReasonCode: codes[m%len(codes)], Reason: "synthetic reason " + codes[m%len(codes)]})
	}
	writeJSONL(t, filepath.Join(dir, collection.MissingFile), missing)

	var rounds []collection.Round
	acc := 0.0
	for r := 0; r*10 < len(docs); r++ {
		sel := docs[r*10 : min(len(docs), r*10+10)]
		for _, d := range sel {
			acc += d.TopicR
		}
		rounds = append(rounds, collection.Round{Round: r + 1, FrontierSize: 100 - r, Selected: len(sel), Collected: len(sel),
			AccumulatedRelevance: acc, URLsConsidered: 10 * (r + 1), Seconds: 0.5})
	}
	writeJSONL(t, filepath.Join(dir, collection.RoundsFile), rounds)

	// links.tsv: each document links to two pool URLs (one collected, one
	// not, when possible) and to its parent.
	var lb strings.Builder
	lb.WriteString("source\ttarget\tanchor\tin_collection\n")
	in := map[string]bool{}
	for _, d := range docs {
		in[d.URL] = true
	}
	for n, d := range docs {
		targets := []string{docs[(n+1)%len(docs)].URL, URL((n*7 + 3) % rs.Pool), "http://external.example.com/x?id=" + fmt.Sprint(n%5)}
		for j, tg := range targets {
			fmt.Fprintf(&lb, "%s\t%s\tanchor %d-%d \"quoted\"\t%v\n", d.URL, tg, n, j, in[tg])
		}
	}
	if err := os.WriteFile(filepath.Join(dir, collection.LinksFile), []byte(lb.String()), 0o644); err != nil {
		t.Fatal(err)
	}

	spec := map[string]any{
		"name": rs.SpecName, "description": "A synthetic event for tests",
		"event":     map[string]string{"start": "2013-06-01", "end": "2013-06-10"},
		"lead_time": "P7D", "cooldown_time": "P30D",
		"seeds":    []string{URL(0), URL(1), URL(2)},
		"strategy": rs.Strategy, "alpha": 0.5, "target_size": rs.Docs, "batch_size": 10,
		"reference_documents": []map[string]string{{"text": "flood", "language": "en"}},
	}
	if rs.Keywords != nil {
		spec["keywords"] = rs.Keywords
	}
	info := map[string]any{
		"spec": spec, "strategy": rs.Strategy, "flags": map[string]any{"archive": "/tmp/x"},
		"versions": map[string]string{"recrawl": "test"},
		"totals": map[string]any{"collected": len(docs), "missing": rs.Missing, "urls_considered": rs.URLsConsidered,
			"frontier": rs.URLsConsidered - len(docs) - rs.Missing, "rounds": len(rounds),
			"counters": map[string]int{"redirects": 1}},
	}
	b, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, collection.RunFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return docs
}

func writeJSONL[T any](t testing.TB, path string, items []T) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for i := range items {
		if err := enc.Encode(&items[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeWARC writes one gzip member per document (a WARC/1.1 response
// record with a small HTML page), indexes the file with internal/cdxj and
// writes collection.cdxj. The documents' offsets and lengths are not
// changed: they point into the source archive, as in a real run.
func writeWARC(t testing.TB, dir string, docs []collection.Document) {
	t.Helper()
	var file bytes.Buffer
	for i, d := range docs {
		body := fmt.Sprintf("<!DOCTYPE html><html><head><title>%s</title></head><body><p>Document %d.</p></body></html>", "Article", i)
		httpBlock := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
		ts, _ := time.Parse("20060102150405", d.Timestamp)
		rec := fmt.Sprintf("WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-%012d>\r\n"+
			"WARC-Date: %s\r\nWARC-Target-URI: %s\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n",
			i, ts.Format(time.RFC3339), d.URL, len(httpBlock), httpBlock)
		zw, _ := gzip.NewWriterLevel(&file, gzip.BestSpeed)
		zw.Write([]byte(rec))
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, collection.WARCFile), file.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var caps []cdxj.Capture
	if _, err := cdxj.IndexFile(bytes.NewReader(file.Bytes()), collection.WARCFile, cdxj.IndexOptions{}, func(c cdxj.Capture) error {
		caps = append(caps, c)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	cdxj.Sort(caps)
	var idx strings.Builder
	for _, c := range caps {
		idx.WriteString(c.Line())
		idx.WriteByte('\n')
	}
	if err := os.WriteFile(filepath.Join(dir, collection.CDXJFile), []byte(idx.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// WriteLabels writes a labels file in the synthetic archive's layout
// (internal/corpus/archivegen.LabelsHeader) for the pool of seed: URLs with
// topic_r >= 0.5 get grade 2 for event, >= 0.25 grade 1, the others grade
// 0 with event "-"; every tenth relevant URL is written as its https
// variant to test SURT matching, and pool URL 0 gets an alias. It returns R.
func WriteLabels(t testing.TB, path string, seed uint64, pool int, event string) int {
	t.Helper()
	rel := PoolRelevance(seed, pool)
	var b strings.Builder
	b.WriteString("#url\tevent\tgrade\talias\tpublished\tdate_sources\tlanguage\thost\ttopic\n")
	r := 0
	for i, x := range rel {
		grade, ev := 0, "-"
		switch {
		case x >= 0.5:
			grade, ev = 2, event
		case x >= 0.25:
			grade, ev = 1, event
		}
		u := URL(i)
		if grade > 0 {
			r++
			if r%10 == 0 {
				u = strings.Replace(u, "http://www.", "https://", 1)
			}
		}
		alias := "-"
		if i == 0 {
			alias = "http://www.example.org/old/0"
		}
		fmt.Fprintf(&b, "%s\t%s\t%d\t%s\t2013-06-02T00:00:00Z\tmeta\ten\twww.example.org\tnews\n", u, ev, grade, alias)
	}
	// A line of another event: not relevant to this one.
	fmt.Fprintf(&b, "http://other.example.org/x\tother-event\t2\t-\t2013-06-02T00:00:00Z\tmeta\ten\tother.example.org\tnews\n")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return r
}
