package replaytest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/collection"
	"github.com/recrawl/recrawl/internal/corpus/archivegen"
	"github.com/recrawl/recrawl/internal/records"
	"github.com/recrawl/recrawl/internal/wacz"
	"github.com/recrawl/recrawl/scoring/document"
)

// Collection is an extraction-like output folder: collection.warc.gz,
// collection.cdxj, documents.jsonl and collection.wacz, built from a
// generated archive (internal/corpus/archivegen), with its index lines.
type Collection struct {
	Dir      string
	Captures []cdxj.Capture // sorted, as in collection.cdxj
	Docs     []collection.Document
}

// WARCPath is the collection's WARC.
func (c *Collection) WARCPath() string { return filepath.Join(c.Dir, collection.WARCFile) }

// WACZPath is the collection's WACZ.
func (c *Collection) WACZPath() string { return filepath.Join(c.Dir, wacz.FileName) }

// BuildCollection generates an archive of about pages article pages (with
// their listings, redirects, revisits and 404s) into dir, concatenates its
// WARC files into collection.warc.gz, indexes it with the index pipeline's
// indexer (cdxj.IndexFile), lists every 200 text/html response with its
// title as a document, and packages it all with wacz.Package.
func BuildCollection(dir string, pages int64, seed int64, o wacz.Options) (*Collection, error) {
	gen := filepath.Join(dir, "generated")
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	sum, err := archivegen.Generate(context.Background(), archivegen.Config{OutDir: gen, Pages: pages, Seed: seed,
		MaxFileSize: 1 << 40, Logger: quiet})
	if err != nil {
		return nil, fmt.Errorf("generate: %w", err)
	}
	c := &Collection{Dir: dir}
	out, err := os.Create(c.WARCPath())
	if err != nil {
		return nil, err
	}
	for _, f := range sum.Files {
		in, err := os.Open(filepath.Join(gen, f.Name))
		if err != nil {
			out.Close()
			return nil, err
		}
		_, err = io.Copy(out, in)
		in.Close()
		if err != nil {
			out.Close()
			return nil, err
		}
	}
	if err := out.Close(); err != nil {
		return nil, err
	}
	if err := os.RemoveAll(gen); err != nil {
		return nil, err
	}

	in, err := os.Open(c.WARCPath())
	if err != nil {
		return nil, err
	}
	defer in.Close()
	_, err = cdxj.IndexFile(bufio.NewReaderSize(in, 1<<20), collection.WARCFile, cdxj.IndexOptions{}, func(cp cdxj.Capture) error {
		c.Captures = append(c.Captures, cp)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", c.WARCPath(), err)
	}
	cdxj.Sort(c.Captures)
	if err := writeLines(filepath.Join(dir, collection.CDXJFile), c.Captures); err != nil {
		return nil, err
	}

	// Documents: the 200 text/html responses, in index order, with the
	// title the extraction would record.
	for _, cp := range c.Captures {
		if cp.Status != "200" || cp.Mime != "text/html" {
			continue
		}
		rec, err := records.ReadRecordAt(in, cp.Offset, cp.Length, collection.WARCFile)
		if err != nil {
			return nil, err
		}
		title, _ := ArchivedTitle(rec)
		c.Docs = append(c.Docs, collection.Document{URL: cp.URL, Timestamp: cp.Timestamp, Title: title, Rank: len(c.Docs) + 1})
	}
	if err := packageCollection(dir, c.Docs, o); err != nil {
		return nil, err
	}
	return c, nil
}

// packageCollection writes docs as dir/documents.jsonl and packages dir
// (its collection.warc.gz and collection.cdxj) with wacz.Package, created
// on 1 June 2013 unless o says otherwise.
func packageCollection(dir string, docs []collection.Document, o wacz.Options) error {
	path := filepath.Join(dir, collection.DocumentsFile)
	df, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(df)
	enc := json.NewEncoder(bw)
	for _, d := range docs {
		if err := enc.Encode(d); err != nil {
			df.Close()
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	if err := bw.Flush(); err != nil {
		df.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := df.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if o.Created.IsZero() {
		o.Created = time.Date(2013, 6, 1, 0, 0, 0, 0, time.UTC)
	}
	return wacz.Package(dir, o)
}

func writeLines(path string, caps []cdxj.Capture) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	for _, c := range caps {
		bw.WriteString(c.Line())
		bw.WriteByte('\n')
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

var titleRE = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)

// ArchivedHTML returns a record's HTML entity decoded to UTF-8.
func ArchivedHTML(rec *records.Record) string {
	ct := ""
	if rec.HTTP != nil {
		ct = rec.HTTP.Header.Get("Content-Type")
	}
	b, _ := document.Decode(rec.Body, ct)
	return string(b)
}

// ArchivedTitle returns the <title> of a record's HTML, unescaped and with
// whitespace collapsed, as a browser shows it.
func ArchivedTitle(rec *records.Record) (string, bool) {
	m := titleRE.FindStringSubmatch(ArchivedHTML(rec))
	if m == nil {
		return "", false
	}
	return strings.Join(strings.Fields(html.UnescapeString(m[1])), " "), true
}

// Check is one page to open in a viewer and the archived record whose
// payload it must show.
type Check struct {
	Kind string       // "page", "revisit" or "redirect"
	Open cdxj.Capture // the capture the viewer opens (URL, timestamp)
	Want cdxj.Capture // the response whose payload the viewer must show
}

// Checks returns n documents spread over the index, then the first revisit
// and the first redirect of an HTML page whose target is archived, where the
// collection has them (an extraction output may have neither); require
// names the kinds ("revisit", "redirect") it must have, an error otherwise.
// A revisit shows the payload of the response it revisits (same URL and
// digest); a redirect is followed to the target's capture closest in time.
func (c *Collection) Checks(n int, require ...string) ([]Check, error) {
	in, err := os.Open(c.WARCPath())
	if err != nil {
		return nil, err
	}
	defer in.Close()
	var html []cdxj.Capture
	byURL := map[string][]cdxj.Capture{}
	for _, cp := range c.Captures {
		if cp.Status == "200" && cp.Mime == "text/html" {
			html = append(html, cp)
			byURL[cp.URL] = append(byURL[cp.URL], cp)
		}
	}
	var checks []Check
	for i := 0; i < n && len(html) > 0; i++ {
		cp := html[i*len(html)/n]
		checks = append(checks, Check{Kind: "page", Open: cp, Want: cp})
	}
	var revisit, redirect bool
	for _, cp := range c.Captures {
		if !revisit && cp.IsRevisit() {
			for _, orig := range byURL[cp.URL] {
				if orig.Digest == cp.Digest && orig.Timestamp < cp.Timestamp {
					checks = append(checks, Check{Kind: "revisit", Open: cp, Want: orig})
					revisit = true
					break
				}
			}
		}
		if !redirect && (cp.Status == "301" || cp.Status == "302") {
			rec, err := records.ReadRecordAt(in, cp.Offset, cp.Length, collection.WARCFile)
			if err != nil {
				return nil, err
			}
			loc := ""
			if rec.HTTP != nil {
				loc = rec.HTTP.Header.Get("Location")
			}
			base, err1 := url.Parse(cp.URL)
			ref, err2 := url.Parse(loc)
			if loc == "" || err1 != nil || err2 != nil {
				continue
			}
			target := base.ResolveReference(ref).String()
			if cands := byURL[target]; len(cands) > 0 {
				best := cands[0]
				for _, t := range cands {
					if tsDistance(t.Timestamp, cp.Timestamp) < tsDistance(best.Timestamp, cp.Timestamp) {
						best = t
					}
				}
				checks = append(checks, Check{Kind: "redirect", Open: cp, Want: best})
				redirect = true
			}
		}
	}
	for _, kind := range require {
		if !slices.ContainsFunc(checks, func(ck Check) bool { return ck.Kind == kind }) {
			return nil, fmt.Errorf("%s: no %s of an archived HTML page", c.WARCPath(), kind)
		}
	}
	return checks, nil
}

func tsDistance(a, b string) time.Duration {
	ta, _ := time.Parse("20060102150405", a)
	tb, _ := time.Parse("20060102150405", b)
	d := ta.Sub(tb)
	return max(d, -d)
}

// LoadCollection reads a collection BuildCollection wrote into dir, or the
// output folder of `recrawl extract`: its index lines (collection.cdxj) and
// documents (documents.jsonl).
func LoadCollection(dir string) (*Collection, error) {
	c := &Collection{Dir: dir}
	f, err := os.Open(filepath.Join(dir, collection.CDXJFile))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for n := 1; sc.Scan(); n++ {
		cp, err := cdxj.Parse(sc.Text())
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", f.Name(), n, err)
		}
		c.Captures = append(c.Captures, cp)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name(), err)
	}
	if c.Docs, err = collection.ReadDocuments(filepath.Join(dir, collection.DocumentsFile)); err != nil {
		return nil, err
	}
	return c, nil
}
