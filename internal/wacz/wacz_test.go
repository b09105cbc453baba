package wacz_test

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/evaluate/evaltest"
	"github.com/recrawl/recrawl/internal/testkit/replaytest"
	"github.com/recrawl/recrawl/internal/testkit/sharedtest"
	"github.com/recrawl/recrawl/internal/wacz"
)

var created = time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)

func readZip(t *testing.T, path string) (*zip.ReadCloser, map[string][]byte) {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { zr.Close() })
	files := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		files[f.Name] = b
	}
	return zr, files
}

// validate checks dir's package with webrecorder's validator (py-wacz).
func validate(t *testing.T, dir string) {
	t.Helper()
	replaytest.ValidateWACZ(t, filepath.Join(dir, wacz.FileName))
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

func TestPackage(t *testing.T) {
	dir := t.TempDir()
	docs := evaltest.WriteRun(t, dir, evaltest.RunSpec{Strategy: "ctf", Docs: 12, WARC: true, URLsConsidered: 40})
	if err := wacz.Package(dir, wacz.Options{Title: "Floods 2013", Description: "The 2013 floods.", Created: created}); err != nil {
		t.Fatal(err)
	}
	validate(t, dir)
	path := filepath.Join(dir, wacz.FileName)
	zr, files := readZip(t, path)

	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		wantStore := f.Name == wacz.WARCEntry || f.Name == wacz.IndexEntry
		if (f.Method == zip.Store) != wantStore {
			t.Errorf("%s: method %d", f.Name, f.Method)
		}
		if !f.Modified.Equal(created) {
			t.Errorf("%s: modified %v", f.Name, f.Modified)
		}
	}
	want := []string{wacz.WARCEntry, wacz.IndexEntry, wacz.PagesEntry, wacz.PackageEntry, wacz.DigestEntry}
	if !slices.Equal(names, want) {
		t.Fatalf("entries %v, want %v", names, want)
	}
	warc, _ := os.ReadFile(filepath.Join(dir, "collection.warc.gz"))
	if !bytes.Equal(files[wacz.WARCEntry], warc) {
		t.Error("the packaged WARC differs from collection.warc.gz")
	}

	var dp wacz.DataPackage
	if err := json.Unmarshal(files[wacz.PackageEntry], &dp); err != nil {
		t.Fatal(err)
	}
	if dp.Profile != "data-package" || dp.WACZVersion != "1.1.1" || dp.Title != "Floods 2013" ||
		dp.Created != "2024-05-06T07:08:09Z" || dp.Software == "" || dp.MainPageURL != docs[0].URL {
		t.Errorf("datapackage %+v", dp)
	}
	if dp.Description != "The 2013 floods." || dp.Metadata != (wacz.Metadata{Title: "Floods 2013", Description: "The 2013 floods."}) {
		t.Errorf("description %q, metadata %+v", dp.Description, dp.Metadata)
	}
	if len(dp.Resources) != 3 {
		t.Fatalf("%d resources", len(dp.Resources))
	}
	for _, r := range dp.Resources {
		b, ok := files[r.Path]
		if !ok {
			t.Errorf("resource %s not in the zip", r.Path)
			continue
		}
		if r.Hash != sha(b) || r.Bytes != int64(len(b)) || r.Name != filepath.Base(r.Path) {
			t.Errorf("resource %+v: zip entry has %s, %d bytes", r, sha(b), len(b))
		}
	}
	var dg wacz.Digest
	if err := json.Unmarshal(files[wacz.DigestEntry], &dg); err != nil {
		t.Fatal(err)
	}
	if dg.Path != "datapackage.json" || dg.Hash != sha(files[wacz.PackageEntry]) {
		t.Errorf("digest %+v", dg)
	}

	// pages.jsonl: the header, then one page per document in crawl order,
	// each with the scores it can be sorted by (relevance, topic_r).
	lines := strings.Split(strings.TrimSuffix(string(files[wacz.PagesEntry]), "\n"), "\n")
	if lines[0] != `{"format": "json-pages-1.0", "id": "pages", "title": "All Pages"}` || len(lines) != len(docs)+1 {
		t.Fatalf("pages header %q, %d lines", lines[0], len(lines))
	}
	for i, l := range lines[1:] {
		var p map[string]any
		if err := json.Unmarshal([]byte(l), &p); err != nil {
			t.Fatal(err)
		}
		ts, _ := time.Parse("20060102150405", docs[i].Timestamp)
		if p["url"] != docs[i].URL || p["ts"] != ts.Format(time.RFC3339) || p["title"] != docs[i].Title || p["topic_r"] != docs[i].TopicR || p["path"] != docs[i].Path ||
			p["relevance"] != docs[i].Relevance || p["round"] != float64(docs[i].Round) || p["rank"] != float64(docs[i].Rank) {
			t.Errorf("page %d: %s", i, l)
		}
	}

	// The index points into the packaged WARC: every capture's record is a
	// gzip member at its offset holding a WARC record of its URL.
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(files[wacz.IndexEntry])), "\n") {
		c, err := cdxj.Parse(line)
		if err != nil {
			t.Fatal(err)
		}
		if c.Filename != "collection.warc.gz" {
			t.Errorf("filename %q", c.Filename)
		}
		zr, err := gzip.NewReader(bytes.NewReader(warc[c.Offset : c.Offset+c.Length]))
		if err != nil {
			t.Fatalf("%s: %v", c.URL, err)
		}
		zr.Multistream(false)
		rec, _ := io.ReadAll(zr)
		if !bytes.HasPrefix(rec, []byte("WARC/1.1")) || !bytes.Contains(rec, []byte("WARC-Target-URI: "+c.URL)) {
			t.Errorf("record at %d is not %s", c.Offset, c.URL)
		}
		n++
	}
	if n != len(docs) {
		t.Errorf("%d captures indexed, want %d", n, len(docs))
	}

	// Deterministic: packaging again gives the same bytes.
	first, _ := os.ReadFile(path)
	if err := wacz.Package(dir, wacz.Options{Title: "Floods 2013", Description: "The 2013 floods.", Created: created}); err != nil {
		t.Fatal(err)
	}
	second, _ := os.ReadFile(path)
	if !bytes.Equal(first, second) {
		t.Error("two packages of the same run differ")
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".collection-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestZipNumIndex packages the same run with a flat and with a ZipNum
// index: the ZipNum blocks hold exactly the flat index's lines, each block
// is where index.idx says, with the digest it says, and its first line's
// "key timestamp" is the idx line's prefix.
// TestExtraPages: beyond MaxPages documents, pages.jsonl lists the first
// ones in collection order and extraPages.jsonl the others, each file with
// its header; together they are every document once, and both are
// resources of the package.
func TestExtraPages(t *testing.T) {
	dir := t.TempDir()
	docs := evaltest.WriteRun(t, dir, evaltest.RunSpec{Strategy: "ctf", Docs: 12, WARC: true, URLsConsidered: 40})
	for _, max := range []int{5, 12, -1} {
		if err := wacz.Package(dir, wacz.Options{Title: "split", Created: created, MaxPages: max}); err != nil {
			t.Fatal(err)
		}
		validate(t, dir)
		_, files := readZip(t, filepath.Join(dir, wacz.FileName))
		pages := strings.Split(strings.TrimSuffix(string(files[wacz.PagesEntry]), "\n"), "\n")
		extra, hasExtra := files[wacz.ExtraEntry]
		listed := max
		if max < 0 {
			listed = len(docs)
		}
		if len(pages) != listed+1 || hasExtra != (listed < len(docs)) {
			t.Fatalf("MaxPages %d: pages.jsonl has %d lines, extraPages.jsonl present: %v", max, len(pages), hasExtra)
		}
		all := pages[1:]
		if hasExtra {
			lines := strings.Split(strings.TrimSuffix(string(extra), "\n"), "\n")
			if lines[0] != `{"format": "json-pages-1.0", "id": "extra-pages", "title": "Extra Pages"}` {
				t.Errorf("extraPages header %q", lines[0])
			}
			all = append(all, lines[1:]...)
			var dp wacz.DataPackage
			if err := json.Unmarshal(files[wacz.PackageEntry], &dp); err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(dp.Resources, func(r wacz.Resource) bool { return r.Path == wacz.ExtraEntry && r.Hash == sha(extra) }) {
				t.Errorf("extraPages.jsonl is not a resource of datapackage.json: %+v", dp.Resources)
			}
		}
		if len(all) != len(docs) {
			t.Fatalf("MaxPages %d: %d pages in all, %d documents", max, len(all), len(docs))
		}
		for i, l := range all {
			var p wacz.Page
			if err := json.Unmarshal([]byte(l), &p); err != nil {
				t.Fatal(err)
			}
			if p.URL != docs[i].URL || p.Rank != docs[i].Rank {
				t.Errorf("MaxPages %d, page %d: %s, want %s", max, i, p.URL, docs[i].URL)
			}
		}
	}
}

func TestZipNumIndex(t *testing.T) {
	dir := t.TempDir()
	evaltest.WriteRun(t, dir, evaltest.RunSpec{Strategy: "ctf", Docs: 2500, WARC: true, URLsConsidered: 2600})
	if err := wacz.Package(dir, wacz.Options{Title: "flat", Created: created, ZipNumThreshold: -1}); err != nil {
		t.Fatal(err)
	}
	validate(t, dir)
	_, flat := readZip(t, filepath.Join(dir, wacz.FileName))
	want := strings.Split(strings.TrimSuffix(string(flat[wacz.IndexEntry]), "\n"), "\n")
	if len(want) < 2*wacz.ZipNumLinesPerBlock {
		t.Fatalf("only %d index lines: too few for several blocks", len(want))
	}

	if err := wacz.Package(dir, wacz.Options{Title: "zipnum", Created: created, ZipNumThreshold: len(want), MaxPages: -1}); err != nil {
		t.Fatal(err)
	}
	validate(t, dir)
	zr, files := readZip(t, filepath.Join(dir, wacz.FileName))
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		if f.Name == wacz.ZipNumEntry && f.Method != zip.Store {
			t.Errorf("%s is not stored: a viewer could not read its blocks by range", f.Name)
		}
	}
	wantNames := []string{wacz.WARCEntry, wacz.ZipNumEntry, wacz.IDXEntry, wacz.PagesEntry, wacz.PackageEntry, wacz.DigestEntry}
	if !slices.Equal(names, wantNames) {
		t.Fatalf("entries %v, want %v", names, wantNames)
	}
	var dp wacz.DataPackage
	json.Unmarshal(files[wacz.PackageEntry], &dp)
	for _, r := range dp.Resources {
		if r.Hash != sha(files[r.Path]) {
			t.Errorf("resource %s: hash %s", r.Path, r.Hash)
		}
	}

	idx := strings.Split(strings.TrimSuffix(string(files[wacz.IDXEntry]), "\n"), "\n")
	if idx[0] != `!meta 0 {"format":"cdxj-gzip-1.0","filename":"index.cdx.gz"}` {
		t.Errorf("idx meta line %q", idx[0])
	}
	gz := files[wacz.ZipNumEntry]
	var got []string
	next := int64(0)
	for _, l := range idx[1:] {
		prefix, js, ok := strings.Cut(l, " {")
		if !ok {
			t.Fatalf("idx line %q", l)
		}
		var b struct {
			Offset, Length int64
			Digest         string
		}
		if err := json.Unmarshal([]byte("{"+js), &b); err != nil {
			t.Fatalf("idx line %q: %v", l, err)
		}
		if b.Offset != next {
			t.Errorf("block at %d, want %d (blocks are contiguous)", b.Offset, next)
		}
		next = b.Offset + b.Length
		block := gz[b.Offset:next]
		if b.Digest != sha(block) {
			t.Errorf("block %d: digest %s, want %s", b.Offset, b.Digest, sha(block))
		}
		r, err := gzip.NewReader(bytes.NewReader(block))
		if err != nil {
			t.Fatal(err)
		}
		r.Multistream(false)
		text, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
		if len(lines) > wacz.ZipNumLinesPerBlock {
			t.Errorf("block of %d lines", len(lines))
		}
		if cdxj.LineSortKey(lines[0]) != prefix {
			t.Errorf("idx prefix %q, block starts with %q", prefix, lines[0])
		}
		got = append(got, lines...)
	}
	if next != int64(len(gz)) {
		t.Errorf("blocks end at %d of %d bytes", next, len(gz))
	}
	if !slices.Equal(got, want) {
		t.Errorf("ZipNum blocks hold %d lines, the flat index %d (or they differ)", len(got), len(want))
	}

	// The default threshold keeps a small collection flat.
	if err := wacz.Package(dir, wacz.Options{Created: created, ZipNumThreshold: len(want) + 1}); err != nil {
		t.Fatal(err)
	}
	validate(t, dir)
	if _, files := readZip(t, filepath.Join(dir, wacz.FileName)); files[wacz.IndexEntry] == nil {
		t.Error("below the threshold, no flat index")
	}
}

func TestPackageErrors(t *testing.T) {
	dir := t.TempDir()
	evaltest.WriteRun(t, dir, evaltest.RunSpec{Strategy: "ctf", Docs: 3, WARC: true, URLsConsidered: 5})
	idx := filepath.Join(dir, "collection.cdxj")
	orig, _ := os.ReadFile(idx)
	os.WriteFile(idx, append(orig, []byte(`org,example)/x 20130101000000 {"url": "http://example.org/x", "offset": "999999", "length": "10", "filename": "collection.warc.gz"}`+"\n")...), 0o644)
	if err := wacz.Package(dir, wacz.Options{Title: "", Created: created}); err == nil || !strings.Contains(err.Error(), "collection.cdxj:4: field offset/length") {
		t.Errorf("out-of-range index line: %v", err)
	}
	os.WriteFile(idx, append(orig, []byte(`org,example)/x 20130101000000 {"url": "http://example.org/x", "offset": "0", "length": "10", "filename": "other.warc.gz"}`+"\n")...), 0o644)
	if err := wacz.Package(dir, wacz.Options{Title: "", Created: created}); err == nil || !strings.Contains(err.Error(), "field filename") {
		t.Errorf("foreign filename: %v", err)
	}
	os.WriteFile(idx, orig, 0o644)
	os.Remove(filepath.Join(dir, "collection.warc.gz"))
	if err := wacz.Package(dir, wacz.Options{Title: "", Created: created}); err == nil || !strings.Contains(err.Error(), "collection.warc.gz") {
		t.Errorf("missing WARC: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, wacz.FileName)); err == nil {
		t.Error("a package was written despite the error")
	}
}

// TestLayoutLikeExample compares the structure with a real WACZ (pywb's
// test data): the same top-level layout, the same manifest fields (in the
// 1.1 form: name/path/hash/bytes instead of 1.0's stats/hashing), and the
// same zip modes for archive and pages.
func TestLayoutLikeExample(t *testing.T) {
	example := sharedtest.Path(t, "conformance/pywb/valid_example_1.wacz")
	ezr, efiles := readZip(t, example)
	dir := t.TempDir()
	evaltest.WriteRun(t, dir, evaltest.RunSpec{Strategy: "cf", Docs: 4, WARC: true, URLsConsidered: 9})
	if err := wacz.Package(dir, wacz.Options{Title: "x", Created: created}); err != nil {
		t.Fatal(err)
	}
	validate(t, dir)
	ozr, ofiles := readZip(t, filepath.Join(dir, wacz.FileName))

	top := func(zr *zip.ReadCloser) []string {
		var s []string
		for _, f := range zr.File {
			first, _, _ := strings.Cut(f.Name, "/")
			if !slices.Contains(s, first) {
				s = append(s, first)
			}
		}
		slices.Sort(s)
		return s
	}
	et, ot := top(ezr), top(ozr)
	for _, name := range et {
		if !slices.Contains(ot, name) {
			t.Errorf("example has top-level %q, ours has %v", name, ot)
		}
	}
	method := func(zr *zip.ReadCloser, prefix string) uint16 {
		for _, f := range zr.File {
			if strings.HasPrefix(f.Name, prefix) {
				return f.Method
			}
		}
		t.Fatalf("no entry under %s", prefix)
		return 0
	}
	if method(ezr, "archive/") != zip.Store || method(ozr, "archive/") != zip.Store {
		t.Error("archive entries are not stored")
	}

	var ep, op map[string]json.RawMessage
	json.Unmarshal(efiles["datapackage.json"], &ep)
	json.Unmarshal(ofiles["datapackage.json"], &op)
	for k := range ep {
		if k == "metadata" { // 1.0 kept the title here; 1.1 at the top level
			if _, ok := op["title"]; !ok {
				t.Error("no title")
			}
			continue
		}
		if _, ok := op[k]; !ok {
			t.Errorf("example datapackage has %q, ours does not", k)
		}
	}
	if string(ep["profile"]) != string(op["profile"]) {
		t.Errorf("profile %s vs %s", op["profile"], ep["profile"])
	}
	var eres []struct {
		Path  string
		Stats struct {
			Hash  string
			Bytes int64
		}
	}
	json.Unmarshal(ep["resources"], &eres)
	for _, r := range eres {
		// The example's hashes are right, so the same check is a check of
		// the check.
		if sha(efiles[r.Path]) != "sha256:"+r.Stats.Hash || int64(len(efiles[r.Path])) != r.Stats.Bytes {
			t.Errorf("example resource %s does not verify", r.Path)
		}
		dirName, _, _ := strings.Cut(r.Path, "/")
		found := false
		for name := range ofiles {
			found = found || strings.HasPrefix(name, dirName+"/")
		}
		if !found {
			t.Errorf("example has a resource under %s/, ours none", dirName)
		}
	}
	eh, _, _ := strings.Cut(string(efiles["pages/pages.jsonl"]), "\n")
	oh, _, _ := strings.Cut(string(ofiles["pages/pages.jsonl"]), "\n")
	if eh != oh {
		t.Errorf("pages header %q, example %q", oh, eh)
	}
	// Every page line has the example's page fields.
	el := strings.Split(strings.TrimSpace(string(efiles["pages/pages.jsonl"])), "\n")[1]
	var epage map[string]any
	json.Unmarshal([]byte(el), &epage)
	for _, l := range strings.Split(strings.TrimSpace(string(ofiles["pages/pages.jsonl"])), "\n")[1:] {
		var p map[string]any
		json.Unmarshal([]byte(l), &p)
		for k := range epage {
			if _, ok := p[k]; !ok {
				t.Errorf("page lacks %q: %s", k, l)
			}
		}
	}
}
