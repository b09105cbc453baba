// Package wacz packages an extraction run as a WACZ 1.1.1 file
// (webrecorder/specs, wacz/1.1.1), OUT/collection.wacz, which
// ReplayWeb.page and pywb open directly.
//
// The zip holds the run's collection.warc.gz unchanged and stored (replay
// reads records by offset through range requests), its index (a flat
// indexes/index.cdxj below DefaultZipNumThreshold lines, else a ZipNum
// index.cdx.gz + index.idx as py-wacz writes it, so a viewer reads only the
// blocks it needs), pages/pages.jsonl with the first DefaultMaxPages
// documents in collection order and pages/extraPages.jsonl with the others,
// each page with its scores, and datapackage.json with
// datapackage-digest.json. The collection's name and description come from
// the specification. Every index line is checked against the WARC.
//
// The output is deterministic (the caller passes the creation time) and
// written under a temporary name, then renamed. The layout and the reasons
// for it: docs/formats.md.
package wacz

import (
	"archive/zip"
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/collection"
	"github.com/recrawl/recrawl/internal/zipnum"
)

// DefaultZipNumThreshold is the number of index lines from which the index
// is written as ZipNum (index.cdx.gz + index.idx) instead of a flat
// index.cdxj. Measured in ReplayWeb.page 2.5.3 (internal/testkit/replaytest,
// scripts/bench.sh replay): see docs/benchmarks.md, "Replay".
const DefaultZipNumThreshold = 3000

// DefaultMaxPages is how many documents pages.jsonl lists; the others
// are in pages/extraPages.jsonl. Measured in ReplayWeb.page 2.5.3: see
// docs/benchmarks.md, "Replay".
const DefaultMaxPages = 1000

// ZipNumLinesPerBlock is the number of index lines per gzip block of a
// ZipNum index inside the package. ReplayWeb.page reads up to seven blocks
// for one look-up; smaller blocks than pywb's 3000 keep that read small.
const ZipNumLinesPerBlock = 1000

// Options describe the package to write.
type Options struct {
	Title       string    // the collection's name (empty: "Collection")
	Description string    // one paragraph about it (empty: a count of its documents)
	Created     time.Time // creation time: created, modified, zip entry times
	// ZipNumThreshold: from this many index lines on, the index is ZipNum;
	// 0 means DefaultZipNumThreshold, a negative value never.
	ZipNumThreshold int
	// MaxPages: how many documents pages.jsonl lists, the rest going to
	// extraPages.jsonl; 0 means DefaultMaxPages, a negative value all.
	MaxPages int
}

// Metadata is datapackage.json's "metadata" object, read by ReplayWeb.page.
type Metadata struct {
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
}

// Names inside the package and of the output.
const (
	FileName      = collection.WACZFile
	Version       = "1.1.1"
	WARCEntry     = "archive/collection.warc.gz"
	IndexEntry    = "indexes/index.cdxj"
	ZipNumEntry   = "indexes/index.cdx.gz"
	IDXEntry      = "indexes/index.idx"
	PagesEntry    = "pages/pages.jsonl"
	ExtraEntry    = "pages/extraPages.jsonl"
	PackageEntry  = "datapackage.json"
	DigestEntry   = "datapackage-digest.json"
	Software      = "recrawl (github.com/recrawl/recrawl)"
	pagesHeader   = `{"format": "json-pages-1.0", "id": "pages", "title": "All Pages"}`
	extraHeader   = `{"format": "json-pages-1.0", "id": "extra-pages", "title": "Extra Pages"}`
	warcEntryBase = "collection.warc.gz"
)

// Resource is one file of the package in datapackage.json.
type Resource struct {
	Name  string `json:"name"`
	Path  string `json:"path"`
	Hash  string `json:"hash"`
	Bytes int64  `json:"bytes"`
}

// DataPackage is datapackage.json.
type DataPackage struct {
	Profile      string     `json:"profile"`
	WACZVersion  string     `json:"wacz_version"`
	Title        string     `json:"title"`
	Description  string     `json:"description,omitempty"`
	Metadata     Metadata   `json:"metadata"`
	Created      string     `json:"created"`
	Modified     string     `json:"modified"`
	Software     string     `json:"software"`
	MainPageURL  string     `json:"mainPageUrl,omitempty"`
	MainPageDate string     `json:"mainPageDate,omitempty"`
	Resources    []Resource `json:"resources"`
}

// Digest is datapackage-digest.json.
type Digest struct {
	Path string `json:"path"`
	Hash string `json:"hash"`
}

// Page is one line of pages.jsonl after the header.
type Page struct {
	ID            string  `json:"id"`
	URL           string  `json:"url"`
	TS            string  `json:"ts"`
	Title         string  `json:"title,omitempty"`
	TopicR        float64 `json:"topic_r"`
	TempR         float64 `json:"temp_r"`
	TTR           float64 `json:"ttr"`
	Relevance     float64 `json:"relevance"`
	DocTime       string  `json:"doc_time,omitempty"`
	DocTimeSource string  `json:"doc_time_source,omitempty"`
	Depth         int     `json:"depth"`
	Path          string  `json:"path,omitempty"`
	Round         int     `json:"round"`
	Rank          int     `json:"rank"`
}

// Package writes outDir/collection.wacz from outDir's documents.jsonl,
// collection.warc.gz and collection.cdxj.
func Package(outDir string, o Options) error {
	docs, err := collection.ReadDocuments(filepath.Join(outDir, collection.DocumentsFile))
	if err != nil {
		return fmt.Errorf("wacz: %w", err)
	}
	warcPath := filepath.Join(outDir, collection.WARCFile)
	st, err := os.Stat(warcPath)
	if err != nil {
		return fmt.Errorf("wacz: %w", err)
	}
	index, err := readIndex(filepath.Join(outDir, collection.CDXJFile), st.Size())
	if err != nil {
		return fmt.Errorf("wacz: %w", err)
	}
	indexEntries, err := indexFiles(index, o.ZipNumThreshold)
	if err != nil {
		return fmt.Errorf("wacz: %w", err)
	}
	maxPages := o.MaxPages
	if maxPages == 0 {
		maxPages = DefaultMaxPages
	}
	if maxPages < 0 || maxPages > len(docs) {
		maxPages = len(docs)
	}
	pages, err := pagesJSONL(pagesHeader, docs[:maxPages], 0)
	if err != nil {
		return fmt.Errorf("wacz: %w", err)
	}
	entries := append(indexEntries, entry{PagesEntry, zip.Deflate, pages})
	if maxPages < len(docs) {
		extra, err := pagesJSONL(extraHeader, docs[maxPages:], maxPages)
		if err != nil {
			return fmt.Errorf("wacz: %w", err)
		}
		entries = append(entries, entry{ExtraEntry, zip.Deflate, extra})
	}
	title, desc := o.Title, o.Description
	if title == "" {
		title = "Collection"
	}
	if desc == "" {
		desc = fmt.Sprintf("%d documents extracted by recrawl.", len(docs))
	}
	created := o.Created.UTC().Truncate(time.Second)

	final := filepath.Join(outDir, FileName)
	tmp, err := os.CreateTemp(outDir, ".collection-*.wacz")
	if err != nil {
		return fmt.Errorf("wacz: %w", err)
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	// CreateTemp makes the file 0600; the package is an output like the
	// others (documents.jsonl, the WARC), readable by all.
	if err := tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("wacz: %w", err)
	}
	bw := bufio.NewWriterSize(tmp, 1<<20)
	zw := zip.NewWriter(bw)

	dp := DataPackage{Profile: "data-package", WACZVersion: Version, Title: title, Description: desc,
		Metadata: Metadata{Title: title, Description: desc},
		Created:  created.Format(time.RFC3339), Modified: created.Format(time.RFC3339), Software: Software}
	if len(docs) > 0 {
		if ts, err := tsRFC3339(docs[0].Timestamp); err == nil {
			dp.MainPageURL, dp.MainPageDate = docs[0].URL, ts
		}
	}

	// The WARC, streamed and hashed.
	f, err := os.Open(warcPath)
	if err != nil {
		return fmt.Errorf("wacz: %w", err)
	}
	res, err := addEntry(zw, WARCEntry, zip.Store, created, f)
	f.Close()
	if err != nil {
		return fmt.Errorf("wacz: %s: %w", warcPath, err)
	}
	if res.Bytes != st.Size() {
		return fmt.Errorf("wacz: %s changed while packaging (%d bytes, then %d)", warcPath, st.Size(), res.Bytes)
	}
	dp.Resources = append(dp.Resources, res)
	for _, e := range entries {
		res, err := addEntry(zw, e.name, e.method, created, bytes.NewReader(e.data))
		if err != nil {
			return fmt.Errorf("wacz: %w", err)
		}
		dp.Resources = append(dp.Resources, res)
	}
	pkg, err := json.MarshalIndent(dp, "", "  ")
	if err != nil {
		return fmt.Errorf("wacz: %w", err)
	}
	pkg = append(pkg, '\n')
	if _, err := addEntry(zw, PackageEntry, zip.Deflate, created, bytes.NewReader(pkg)); err != nil {
		return fmt.Errorf("wacz: %w", err)
	}
	sum := sha256.Sum256(pkg)
	dig, _ := json.MarshalIndent(Digest{Path: PackageEntry, Hash: "sha256:" + hex.EncodeToString(sum[:])}, "", "  ")
	if _, err := addEntry(zw, DigestEntry, zip.Deflate, created, bytes.NewReader(append(dig, '\n'))); err != nil {
		return fmt.Errorf("wacz: %w", err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("wacz: close %s: %w", tmp.Name(), err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("wacz: write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("wacz: close %s: %w", tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), final); err != nil {
		return fmt.Errorf("wacz: %w", err)
	}
	return nil
}

// entry is one zip entry to write.
type entry struct {
	name   string
	method uint16
	data   []byte
}

// idxMeta is the first line of a py-wacz secondary index.
type idxMeta struct {
	Format   string `json:"format"`
	Filename string `json:"filename"`
}

// idxBlock is the JSON part of a py-wacz secondary index line.
type idxBlock struct {
	Offset int64  `json:"offset"`
	Length int64  `json:"length"`
	Digest string `json:"digest"`
}

// indexFiles returns the index entries of the package for the sorted index
// lines: a flat index.cdxj below the threshold, else index.cdx.gz and
// index.idx.
func indexFiles(index []string, threshold int) ([]entry, error) {
	if threshold == 0 {
		threshold = DefaultZipNumThreshold
	}
	if threshold < 0 || len(index) < threshold {
		var b bytes.Buffer
		for _, l := range index {
			b.WriteString(l)
			b.WriteByte('\n')
		}
		return []entry{{IndexEntry, zip.Store, b.Bytes()}}, nil
	}
	var gz bytes.Buffer
	shard := filepath.Base(ZipNumEntry)
	sw := zipnum.NewShardWriter(&gz, shard, ZipNumLinesPerBlock)
	for _, l := range index {
		if err := sw.WriteLine(l); err != nil {
			return nil, err
		}
	}
	blocks, err := sw.Close()
	if err != nil {
		return nil, err
	}
	var idx bytes.Buffer
	meta, _ := json.Marshal(idxMeta{Format: "cdxj-gzip-1.0", Filename: shard})
	idx.WriteString("!meta 0 ")
	idx.Write(meta)
	idx.WriteByte('\n')
	for _, e := range blocks {
		sum := sha256.Sum256(gz.Bytes()[e.Offset : e.Offset+e.Length])
		js, _ := json.Marshal(idxBlock{Offset: e.Offset, Length: e.Length, Digest: "sha256:" + hex.EncodeToString(sum[:])})
		idx.WriteString(e.Key)
		idx.WriteByte(' ')
		idx.Write(js)
		idx.WriteByte('\n')
	}
	return []entry{{ZipNumEntry, zip.Store, gz.Bytes()}, {IDXEntry, zip.Deflate, idx.Bytes()}}, nil
}

// addEntry copies r into a new zip entry and returns its resource record.
func addEntry(zw *zip.Writer, name string, method uint16, mod time.Time, r io.Reader) (Resource, error) {
	w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: method, Modified: mod})
	if err != nil {
		return Resource{}, fmt.Errorf("zip entry %s: %w", name, err)
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(w, h), r)
	if err != nil {
		return Resource{}, fmt.Errorf("zip entry %s: %w", name, err)
	}
	return Resource{Name: resourceName(name), Path: name, Hash: "sha256:" + hex.EncodeToString(h.Sum(nil)), Bytes: n}, nil
}

// resourceName is the datapackage.json name of the entry at path: its base
// name in lower case, as py-wacz writes it. A Data Package resource name
// must match ^([-a-z0-9._/])+$, so "extraPages.jsonl" is "extrapages.jsonl"
// (its path keeps the spec's pages/extraPages.jsonl).
func resourceName(path string) string { return strings.ToLower(filepath.Base(path)) }

// readIndex reads collection.cdxj, checks every line against the WARC's
// size, points its filename at the packaged WARC and returns the sorted
// index lines. Errors name the line.
func readIndex(path string, warcSize int64) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var caps []cdxj.Capture
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "!") {
			continue
		}
		c, err := cdxj.Parse(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, i+1, err)
		}
		if c.Offset < 0 || c.Length <= 0 || c.Offset+c.Length > warcSize {
			return nil, fmt.Errorf("%s:%d: field offset/length: %d+%d is outside %s (%d bytes)", path, i+1, c.Offset, c.Length, collection.WARCFile, warcSize)
		}
		if base := filepath.Base(c.Filename); c.Filename != "" && base != warcEntryBase {
			return nil, fmt.Errorf("%s:%d: field filename: %q is not %s", path, i+1, c.Filename, warcEntryBase)
		}
		c.Filename = warcEntryBase
		caps = append(caps, c)
	}
	// No captures is an empty collection (an extraction that found 0
	// documents): its WACZ is valid and empty.
	if !slices.IsSortedFunc(caps, cdxj.Compare) {
		cdxj.Sort(caps)
	}
	lines := make([]string, len(caps))
	for i, c := range caps {
		lines[i] = c.Line()
	}
	return lines, nil
}

// pagesJSONL is a pages file: the header line, then one page per document;
// first is the line number of docs[0] in documents.jsonl, less one.
func pagesJSONL(header string, docs []collection.Document, first int) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(header + "\n")
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for i, d := range docs {
		ts, err := tsRFC3339(d.Timestamp)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: field timestamp: %w", collection.DocumentsFile, first+i+1, err)
		}
		sum := sha256.Sum256([]byte(d.Timestamp + " " + d.URL))
		p := Page{ID: hex.EncodeToString(sum[:8]), URL: d.URL, TS: ts, Title: d.Title, TopicR: d.TopicR, TempR: d.TempR,
			TTR: d.TTR, Relevance: d.Relevance, DocTime: d.DocTime, DocTimeSource: d.DocTimeSource, Depth: d.Depth,
			Path: d.Path, Round: d.Round, Rank: d.Rank}
		if err := enc.Encode(&p); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", collection.DocumentsFile, first+i+1, err)
		}
	}
	return b.Bytes(), nil
}

func tsRFC3339(ts14 string) (string, error) {
	t, err := time.Parse("20060102150405", ts14)
	if err != nil {
		return "", fmt.Errorf("%q is not a 14-digit timestamp", ts14)
	}
	return t.UTC().Format(time.RFC3339), nil
}
