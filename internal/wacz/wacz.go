// Package wacz packages an extraction run as a WACZ 1.1.1 file
// (webrecorder/specs, wacz/1.1.1), OUT/collection.wacz, which
// ReplayWeb.page and pywb open directly.
//
// Layout of the zip, in this order:
//
//	archive/collection.warc.gz   the run's collection.warc.gz, unchanged, STORE
//	indexes/index.cdxj           collection.cdxj, sorted, filenames pointing
//	                             at archive/collection.warc.gz, DEFLATE
//	pages/pages.jsonl            header line, then one page per document, DEFLATE
//	datapackage.json             manifest: profile, wacz_version, title,
//	                             created, modified, software, mainPageUrl/Date,
//	                             resources (name, path, hash "sha256:…", bytes)
//	datapackage-digest.json      {"path": "datapackage.json", "hash": "sha256:…"}
//
// Choices:
//   - The WARC is STORED, not deflated: it is already gzip-compressed per
//     record, and replay reads records by offset through HTTP range requests
//     into the zip (spec §Zip Compression).
//   - The index is written uncompressed as index.cdxj (the spec allows CDXJ
//     plain or gzipped; for a collection of this size a plain index needs no
//     secondary .idx). Its lines are checked: each must parse, and its
//     offset+length must lie inside the WARC; the filename field is set to
//     the archive entry's name, whatever the run's index said.
//   - pages.jsonl lists every collected document in collection order with
//     the required url and ts (RFC 3339 of the capture timestamp), the title,
//     an id (the first 16 hex digits of SHA-256 of "timestamp url"), and the
//     scores as extra properties (allowed by the spec): topic_r, temp_r,
//     ttr, relevance, doc_time, doc_time_source, depth, path, round, rank.
//   - Deterministic: the caller passes the creation time, which is used for
//     created, modified and every zip entry's modification time, so the same
//     run and time give the same bytes.
//   - The file is written to a temporary name and renamed, so a reader never
//     sees a half-written package.
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
	"github.com/recrawl/recrawl/internal/evaluate"
)

// Names inside the package and of the output.
const (
	FileName      = "collection.wacz"
	Version       = "1.1.1"
	WARCEntry     = "archive/collection.warc.gz"
	IndexEntry    = "indexes/index.cdxj"
	PagesEntry    = "pages/pages.jsonl"
	PackageEntry  = "datapackage.json"
	DigestEntry   = "datapackage-digest.json"
	Software      = "recrawl (github.com/recrawl/recrawl)"
	pagesHeader   = `{"format": "json-pages-1.0", "id": "pages", "title": "All Pages"}`
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
// collection.warc.gz and collection.cdxj. title names the collection
// (empty: "Collection"); created is the package's creation time.
func Package(outDir string, title string, created time.Time) error {
	docs, err := evaluate.ReadDocuments(filepath.Join(outDir, evaluate.DocumentsFile))
	if err != nil {
		return fmt.Errorf("wacz: %w", err)
	}
	warcPath := filepath.Join(outDir, evaluate.WARCFile)
	st, err := os.Stat(warcPath)
	if err != nil {
		return fmt.Errorf("wacz: %w", err)
	}
	index, err := readIndex(filepath.Join(outDir, evaluate.CDXJFile), st.Size())
	if err != nil {
		return fmt.Errorf("wacz: %w", err)
	}
	pages, err := pagesJSONL(docs)
	if err != nil {
		return fmt.Errorf("wacz: %w", err)
	}
	if title == "" {
		title = "Collection"
	}
	created = created.UTC().Truncate(time.Second)

	final := filepath.Join(outDir, FileName)
	tmp, err := os.CreateTemp(outDir, ".collection-*.wacz")
	if err != nil {
		return fmt.Errorf("wacz: %w", err)
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	bw := bufio.NewWriterSize(tmp, 1<<20)
	zw := zip.NewWriter(bw)

	dp := DataPackage{Profile: "data-package", WACZVersion: Version, Title: title,
		Description: fmt.Sprintf("%d documents extracted by recrawl.", len(docs)),
		Created:     created.Format(time.RFC3339), Modified: created.Format(time.RFC3339), Software: Software}
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
	for _, e := range []struct {
		name string
		data []byte
	}{{IndexEntry, index}, {PagesEntry, pages}} {
		res, err := addEntry(zw, e.name, zip.Deflate, created, bytes.NewReader(e.data))
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
	return Resource{Name: filepath.Base(name), Path: name, Hash: "sha256:" + hex.EncodeToString(h.Sum(nil)), Bytes: n}, nil
}

// readIndex reads collection.cdxj, checks every line against the WARC's
// size, points its filename at the packaged WARC and returns the sorted
// index. Errors name the line.
func readIndex(path string, warcSize int64) ([]byte, error) {
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
			return nil, fmt.Errorf("%s:%d: field offset/length: %d+%d is outside %s (%d bytes)", path, i+1, c.Offset, c.Length, evaluate.WARCFile, warcSize)
		}
		if base := filepath.Base(c.Filename); c.Filename != "" && base != warcEntryBase {
			return nil, fmt.Errorf("%s:%d: field filename: %q is not %s", path, i+1, c.Filename, warcEntryBase)
		}
		c.Filename = warcEntryBase
		caps = append(caps, c)
	}
	if len(caps) == 0 {
		return nil, fmt.Errorf("%s: no captures", path)
	}
	if !slices.IsSortedFunc(caps, cdxj.Compare) {
		cdxj.Sort(caps)
	}
	var b bytes.Buffer
	for _, c := range caps {
		b.WriteString(c.Line())
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

func pagesJSONL(docs []evaluate.Document) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(pagesHeader + "\n")
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for i, d := range docs {
		ts, err := tsRFC3339(d.Timestamp)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: field timestamp: %w", evaluate.DocumentsFile, i+1, err)
		}
		sum := sha256.Sum256([]byte(d.Timestamp + " " + d.URL))
		p := Page{ID: hex.EncodeToString(sum[:8]), URL: d.URL, TS: ts, Title: d.Title, TopicR: d.TopicR, TempR: d.TempR,
			TTR: d.TTR, Relevance: d.Relevance, DocTime: d.DocTime, DocTimeSource: d.DocTimeSource, Depth: d.Depth,
			Path: d.Path, Round: d.Round, Rank: d.Rank}
		if err := enc.Encode(&p); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", evaluate.DocumentsFile, i+1, err)
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
