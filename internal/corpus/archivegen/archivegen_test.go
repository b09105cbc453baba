package archivegen

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha1"
	"encoding/base32"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/nlnwa/gowarc"
	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/records"
	"golang.org/x/text/encoding/charmap"
	"gopkg.in/yaml.v3"
)

const testPages = 400

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func generate(t testing.TB, dir string, cfg Config) *Summary {
	t.Helper()
	cfg.OutDir = dir
	if cfg.Logger == nil {
		cfg.Logger = quiet
	}
	sum, err := Generate(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	return sum
}

// testArchive is generated once and shared by the tests that only read it.
var testArchive = sync.OnceValues(func() (*archive, error) {
	dir, err := os.MkdirTemp("", "archivegen-test-")
	if err != nil {
		return nil, err
	}
	sum, err := Generate(context.Background(), Config{OutDir: dir, Pages: testPages, Seed: 7, MaxFileSize: 2 << 20, Logger: quiet})
	if err != nil {
		return nil, err
	}
	return readArchive(dir, sum)
})

func TestMain(m *testing.M) {
	code := m.Run()
	if a, err := testArchive(); err == nil {
		os.RemoveAll(a.dir)
	}
	os.Exit(code)
}

func loadArchive(t *testing.T) *archive {
	t.Helper()
	a, err := testArchive()
	if err != nil {
		t.Fatalf("generate test archive: %v", err)
	}
	return a
}

// rec is one record as read back with gowarc.
type rec struct {
	file, typ, uri, date, id string
	offset                   int64
	header                   *gowarc.WarcFields
	status                   int
	http                     http.Header
	payload                  []byte // entity body as transferred (responses only)
}

type label struct {
	url, event, grade, alias, published, sources, lang, host, topic string
}

type archive struct {
	dir     string
	sum     *Summary
	recs    []rec
	byURI   map[string][]*rec // 200/301/404 responses and revisits by target URI
	labels  []label
	byLabel map[string]*label
}

func readArchive(dir string, sum *Summary) (*archive, error) {
	a := &archive{dir: dir, sum: sum, byURI: map[string][]*rec{}, byLabel: map[string]*label{}}
	files, _ := filepath.Glob(filepath.Join(dir, "*.warc.gz"))
	sort.Strings(files)
	for _, f := range files {
		r, err := gowarc.NewWarcFileReader(f, 0, gowarc.WithStrictValidation())
		if err != nil {
			return nil, err
		}
		for {
			wr, off, val, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, err
			}
			if !val.Valid() {
				return nil, &recordError{f, off, val.String()}
			}
			x := rec{file: filepath.Base(f), offset: off, typ: wr.Type().String(), header: wr.WarcHeader(),
				uri: wr.WarcHeader().Get(gowarc.WarcTargetURI), date: wr.WarcHeader().Get(gowarc.WarcDate), id: wr.RecordId()}
			raw, err := wr.Block().RawBytes()
			if err != nil {
				return nil, err
			}
			block, err := io.ReadAll(raw)
			if err != nil {
				return nil, err
			}
			sum := sha1.Sum(block)
			if got, want := "sha1:"+base32.StdEncoding.EncodeToString(sum[:]), wr.WarcHeader().Get(gowarc.WarcBlockDigest); got != want {
				return nil, &recordError{f, off, "block digest " + want + ", computed " + got}
			}
			if x.typ != "warcinfo" {
				resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(block)), nil)
				if err != nil {
					return nil, &recordError{f, off, err.Error()}
				}
				x.status, x.http = resp.StatusCode, resp.Header
				x.payload, _ = io.ReadAll(resp.Body)
			}
			a.recs = append(a.recs, x)
		}
		r.Close()
	}
	for i := range a.recs {
		if a.recs[i].uri != "" {
			a.byURI[a.recs[i].uri] = append(a.byURI[a.recs[i].uri], &a.recs[i])
		}
	}
	lb, err := os.ReadFile(filepath.Join(dir, LabelsFile))
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(strings.TrimSuffix(string(lb), "\n"), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 9 {
			return nil, &recordError{LabelsFile, 0, "bad line " + line}
		}
		a.labels = append(a.labels, label{f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8]})
	}
	for i := range a.labels {
		a.byLabel[a.labels[i].url] = &a.labels[i]
	}
	return a, nil
}

type recordError struct {
	file   string
	offset int64
	msg    string
}

func (e *recordError) Error() string {
	return e.file + ": record at " + strconv.FormatInt(e.offset, 10) + ": " + e.msg
}

// ok200 returns the 200 responses (and revisits of them) of a URI.
func (a *archive) ok200(uri string) []*rec {
	var out []*rec
	for _, r := range a.byURI[uri] {
		if r.status == 200 {
			out = append(out, r)
		}
	}
	return out
}

func TestDeterministic(t *testing.T) {
	d1, d2 := t.TempDir(), t.TempDir()
	generate(t, d1, Config{Pages: 150, Seed: 3, MaxFileSize: 1 << 20, Workers: 1})
	generate(t, d2, Config{Pages: 150, Seed: 3, MaxFileSize: 1 << 20, Workers: 3})
	if f1 := sameFiles(t, d1, d2); len(f1) < 4 {
		t.Fatalf("too few files: %v", f1)
	}
	// Another seed gives another archive.
	d3 := t.TempDir()
	generate(t, d3, Config{Pages: 150, Seed: 4, MaxFileSize: 1 << 20})
	l1, _ := os.ReadFile(filepath.Join(d1, LabelsFile))
	l3, _ := os.ReadFile(filepath.Join(d3, LabelsFile))
	if bytes.Equal(l1, l3) {
		t.Error("seeds 3 and 4 gave the same labels")
	}
}

// sameFiles checks that directories d1 and d2 hold the same files with the
// same bytes, and returns their paths relative to d1.
func sameFiles(t *testing.T, d1, d2 string) []string {
	t.Helper()
	files := func(dir string) []string {
		var out []string
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(dir, p)
				out = append(out, rel)
			}
			return nil
		})
		return out
	}
	f1, f2 := files(d1), files(d2)
	if !slices.Equal(f1, f2) {
		t.Fatalf("file lists differ:\n%v\n%v", f1, f2)
	}
	for _, f := range f1 {
		b1, _ := os.ReadFile(filepath.Join(d1, f))
		b2, _ := os.ReadFile(filepath.Join(d2, f))
		if !bytes.Equal(b1, b2) {
			t.Errorf("%s differs between runs", f)
		}
	}
	return f1
}

func TestRecords(t *testing.T) {
	a := loadArchive(t)
	if len(a.sum.Files) < 2 {
		t.Errorf("expected several files with a 2 MiB limit, got %d", len(a.sum.Files))
	}
	counts := map[string]int{}
	digests := map[string]string{} // uri + date → payload digest of responses
	for _, r := range a.recs {
		counts[r.typ]++
		if r.typ == "response" {
			sum := sha1.Sum(r.payload)
			if got, want := "sha1:"+base32.StdEncoding.EncodeToString(sum[:]), r.header.Get(gowarc.WarcPayloadDigest); got != want {
				t.Errorf("%s %s: payload digest %s, computed %s", r.file, r.uri, want, got)
			}
			digests[r.uri+" "+r.date] = r.header.Get(gowarc.WarcPayloadDigest)
		}
	}
	for _, f := range a.sum.Files {
		if !regexp.MustCompile(`^DEMO-\d{14}-\d{5}\.warc\.gz$`).MatchString(f.Name) {
			t.Errorf("file name %q", f.Name)
		}
	}
	if counts["warcinfo"] != len(a.sum.Files) || counts["response"] == 0 || counts["revisit"] == 0 {
		t.Errorf("record types: %v", counts)
	}
	if int64(len(a.recs)) != a.sum.Records {
		t.Errorf("read %d records, summary says %d", len(a.recs), a.sum.Records)
	}
	for _, r := range a.recs {
		if r.typ != "revisit" {
			continue
		}
		if p := r.header.Get(gowarc.WarcProfile); !strings.HasSuffix(p, "/revisit/identical-payload-digest") {
			t.Errorf("revisit %s: profile %q", r.uri, p)
		}
		ref := r.header.Get(gowarc.WarcRefersToTargetURI) + " " + r.header.Get(gowarc.WarcRefersToDate)
		d, ok := digests[ref]
		if !ok {
			t.Errorf("revisit %s %s refers to %s, which is not in the archive", r.uri, r.date, ref)
		} else if d != r.header.Get(gowarc.WarcPayloadDigest) {
			t.Errorf("revisit %s: payload digest differs from the original's", r.uri)
		}
		if r.date <= r.header.Get(gowarc.WarcRefersToDate) {
			t.Errorf("revisit %s at %s is not later than its original", r.uri, r.date)
		}
	}
}

// TestRecordOffsets checks that every record is its own gzip member, so that
// a reader can start at any record's offset.
func TestRecordOffsets(t *testing.T) {
	a := loadArchive(t)
	f := a.sum.Files[0]
	data, err := os.ReadFile(filepath.Join(a.dir, f.Name))
	if err != nil {
		t.Fatal(err)
	}
	var offsets []int64
	br := bytes.NewReader(data)
	for br.Len() > 0 {
		offsets = append(offsets, int64(len(data)-br.Len()))
		zr, err := gzip.NewReader(br)
		if err != nil {
			t.Fatal(err)
		}
		zr.Multistream(false)
		member, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(member, []byte("WARC/1.1\r\n")) || !bytes.HasSuffix(member, []byte("\r\n\r\n")) {
			t.Fatalf("member at %d is not one record", offsets[len(offsets)-1])
		}
	}
	if int64(len(offsets)) != f.Records {
		t.Fatalf("%d gzip members, %d records", len(offsets), f.Records)
	}
	for _, off := range offsets[len(offsets)-5:] {
		r, err := gowarc.NewWarcFileReader(filepath.Join(a.dir, f.Name), off)
		if err != nil {
			t.Fatal(err)
		}
		wr, _, _, err := r.Next()
		if err != nil {
			t.Fatalf("read record at offset %d: %v", off, err)
		}
		if wr.Type() != gowarc.Response && wr.Type() != gowarc.Revisit {
			t.Errorf("record at %d: type %v", off, wr.Type())
		}
		r.Close()
	}
}

// TestCaptures checks the kinds of captures a real archive has.
func TestCaptures(t *testing.T) {
	a := loadArchive(t)
	var gz, redirects, notFound, css, images, multi int
	for _, r := range a.recs {
		if r.typ != "response" {
			continue
		}
		switch r.status {
		case 301:
			redirects++
			loc := r.http.Get("Location")
			if len(a.ok200(loc)) == 0 {
				t.Errorf("redirect %s → %s: target has no 200 capture", r.uri, loc)
			}
			if !slices.ContainsFunc(a.ok200(loc), func(o *rec) bool { return o.date >= r.date }) {
				t.Errorf("redirect %s at %s: no capture of the target at or after it", r.uri, r.date)
			}
		case 404:
			notFound++
		}
		if r.http.Get("Content-Encoding") == "gzip" {
			gz++
			zr, err := gzip.NewReader(bytes.NewReader(r.payload))
			if err != nil {
				t.Fatalf("%s: gzip body: %v", r.uri, err)
			}
			body, err := io.ReadAll(zr)
			if err != nil || !bytes.Contains(body, []byte("</html>")) {
				t.Errorf("%s: gzip body does not decode to HTML: %v", r.uri, err)
			}
		}
		switch ct := r.http.Get("Content-Type"); {
		case ct == "text/css":
			css++
		case ct == "image/jpeg":
			images++
		}
	}
	for _, l := range a.labels {
		if len(a.byURI[l.url]) > 1 {
			multi++
		}
	}
	if gz == 0 || redirects == 0 || notFound == 0 || css == 0 || images == 0 {
		t.Errorf("gzip %d, redirects %d, 404s %d, css %d, images %d: want all > 0", gz, redirects, notFound, css, images)
	}
	if multi < len(a.labels)/3 {
		t.Errorf("only %d of %d articles captured more than once", multi, len(a.labels))
	}
}

var hrefRE = regexp.MustCompile(`<a href="([^"]*)"`)
var baseRE = regexp.MustCompile(`<base href="([^"]*)"`)

// canonical is a minimal SURT-style canonicalisation for the tests: lower-case
// host without www and default port, sorted query, no fragment.
func canonical(u *url.URL) string {
	host := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	q := strings.Split(u.RawQuery, "&")
	sort.Strings(q)
	s := host + u.EscapedPath()
	if u.RawQuery != "" {
		s += "?" + strings.Join(q, "&")
	}
	return s
}

// links returns the links of a page, resolved against its URL or <base>.
func links(pageURL string, body []byte) []string {
	base, _ := url.Parse(pageURL)
	if m := baseRE.FindSubmatch(body); m != nil {
		base, _ = url.Parse(string(m[1]))
	}
	var out []string
	for _, m := range hrefRE.FindAllSubmatch(body, -1) {
		h := strings.ReplaceAll(string(m[1]), "&amp;", "&")
		u, err := base.Parse(h)
		if err != nil {
			continue
		}
		out = append(out, u.String())
	}
	return out
}

func TestLinkGraph(t *testing.T) {
	a := loadArchive(t)
	archived := map[string]string{} // canonical → URI, for URIs with any capture
	for uri := range a.byURI {
		u, _ := url.Parse(uri)
		archived[canonical(u)] = uri
	}
	labelByCanon := map[string]*label{}
	for i := range a.labels {
		u, _ := url.Parse(a.labels[i].url)
		labelByCanon[canonical(u)] = &a.labels[i]
		if a.labels[i].alias != "-" {
			u, _ := url.Parse(a.labels[i].alias)
			labelByCanon[canonical(u)] = &a.labels[i]
		}
	}
	var sameEvent, otherArticle, missing, total, variants, relative, protoRel int
	for _, r := range a.recs {
		l := a.byLabel[r.uri]
		if r.typ != "response" || r.status != 200 || l == nil || r.http.Get("Content-Encoding") != "" {
			continue
		}
		body := decodeBody(t, r)
		for _, m := range hrefRE.FindAllSubmatch(body, -1) {
			h := string(m[1])
			switch {
			case strings.HasPrefix(h, "//"):
				protoRel++
			case !strings.HasPrefix(h, "http"):
				relative++
			}
		}
		// The main content: from the text to the tags (includes "related").
		main := body
		if i := bytes.Index(body, []byte(`<div class="entry-content">`)); i >= 0 {
			main = body[i:]
			if j := bytes.Index(main, []byte(`<div class="tags">`)); j >= 0 {
				main = main[:j]
			}
		}
		inMain := map[string]bool{}
		for _, link := range links(r.uri, main) {
			inMain[link] = true
		}
		for _, link := range links(r.uri, body) {
			u, err := url.Parse(link)
			if err != nil {
				t.Fatal(err)
			}
			c := canonical(u)
			total++
			uri, ok := archived[c]
			if !ok {
				missing++
				continue
			}
			if uri != strings.SplitN(link, "#", 2)[0] {
				variants++ // matches only after canonicalisation
			}
			if l.grade == "2" && inMain[link] {
				if tl := labelByCanon[c]; tl != nil && tl.url != l.url {
					if tl.event == l.event {
						sameEvent++
					} else {
						otherArticle++
					}
				}
			}
		}
	}
	t.Logf("links %d, to unarchived URLs %d, SURT-only matches %d, relative %d, protocol-relative %d, main content of event articles → same event %d, → other articles %d",
		total, missing, variants, relative, protoRel, sameEvent, otherArticle)
	if missing == 0 || variants == 0 || relative == 0 || protoRel == 0 {
		t.Error("want links to unarchived URLs, SURT variants, relative and protocol-relative links")
	}
	if sameEvent < 3*otherArticle {
		t.Errorf("the text of event articles links to %d articles of the same event and %d others: want mostly the same event", sameEvent, otherArticle)
	}
}

// decodeBody returns the payload as UTF-8.
func decodeBody(t *testing.T, r rec) []byte {
	if strings.Contains(strings.ToLower(r.http.Get("Content-Type")), "iso-8859-1") || bytes.Contains(r.payload, []byte("charset=iso-8859-1")) {
		b, err := charmap.ISO8859_1.NewDecoder().Bytes(r.payload)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	return r.payload
}

func TestLatin1(t *testing.T) {
	a := loadArchive(t)
	var header, meta int
	for _, r := range a.recs {
		if r.typ != "response" || r.status != 200 || r.http.Get("Content-Encoding") != "" || !strings.HasPrefix(r.http.Get("Content-Type"), "text/html") {
			continue
		}
		inHeader := strings.Contains(r.http.Get("Content-Type"), "ISO-8859-1")
		inMeta := bytes.Contains(r.payload, []byte(`content="text/html; charset=iso-8859-1"`))
		if !inHeader && !inMeta {
			if !utf8.Valid(r.payload) {
				t.Errorf("%s: declared UTF-8 but is not", r.uri)
			}
			continue
		}
		if inHeader && inMeta {
			t.Errorf("%s: Latin-1 declared twice", r.uri)
		}
		if inHeader {
			header++
		} else {
			meta++
		}
		if bytes.ContainsAny(r.payload, "äöüß") || utf8.Valid(r.payload) && bytes.ContainsFunc(r.payload, func(c rune) bool { return c > 127 }) {
			t.Errorf("%s: declared ISO-8859-1 but contains UTF-8", r.uri)
		}
		dec, _ := charmap.ISO8859_1.NewDecoder().Bytes(r.payload)
		if !bytes.ContainsAny(dec, "äöüÄÖÜß") {
			t.Errorf("%s: no German letters after decoding as Latin-1", r.uri)
		}
	}
	if header == 0 || meta == 0 {
		t.Errorf("Latin-1 pages declared in the header %d, only in meta %d: want both", header, meta)
	}
}

func TestLabels(t *testing.T) {
	a := loadArchive(t)
	if int64(len(a.labels)) != a.sum.Pages || a.sum.Pages != testPages {
		t.Fatalf("%d labels, summary %d pages, want %d", len(a.labels), a.sum.Pages, testPages)
	}
	grades := map[string]int{}
	for _, l := range a.labels {
		grades[l.grade]++
		if (l.grade == "0") != (l.event == "-") {
			t.Errorf("%s: grade %s with event %s", l.url, l.grade, l.event)
		}
		caps := a.ok200(l.url)
		if len(caps) == 0 {
			t.Errorf("%s: labelled but no 200 capture", l.url)
			continue
		}
		for _, c := range caps {
			if c.date < l.published {
				t.Errorf("%s: captured %s before publication %s", l.url, c.date, l.published)
			}
		}
		if l.alias != "-" && len(a.byURI[l.alias]) == 0 {
			t.Errorf("%s: alias %s never captured", l.url, l.alias)
		}
	}
	if grades["2"] == 0 || grades["1"] == 0 || grades["0"] < grades["2"] {
		t.Errorf("grades %v: want event articles, mentions and more background", grades)
	}
	for _, e := range a.sum.Events {
		if e.Articles == 0 {
			t.Errorf("event %s has no articles", e.Slug)
		}
	}
}

// TestDates checks that each page states its publication date exactly where
// the labels say.
func TestDates(t *testing.T) {
	a := loadArchive(t)
	seen := map[string]int{}
	for _, l := range a.labels {
		caps := a.ok200(l.url)
		var body []byte
		for _, c := range caps {
			if c.typ == "response" && c.http.Get("Content-Encoding") == "" {
				body = decodeBody(t, *c)
				break
			}
		}
		if body == nil {
			continue
		}
		day := l.published[:10]
		for _, s := range []struct {
			name string
			has  bool
		}{
			{"meta", bytes.Contains(body, []byte(`<meta property="article:published_time" content="`+day))},
			{"jsonld", bytes.Contains(body, []byte(`"datePublished":"`+day))},
			{"time", bytes.Contains(body, []byte(`<time datetime="`+day))},
			{"url", strings.Contains(l.url, "/"+strings.ReplaceAll(day, "-", "/")+"/")},
		} {
			if want := strings.Contains(l.sources, s.name); want != s.has {
				t.Errorf("%s: sources %q, %s present: %v", l.url, l.sources, s.name, s.has)
			}
		}
		seen[l.sources]++
	}
	for _, s := range []string{"none", "dateline"} {
		if seen[s] == 0 {
			t.Errorf("no page with date source %q (seen %v)", s, seen)
		}
	}
}

func TestSpecs(t *testing.T) {
	a := loadArchive(t)
	files, _ := filepath.Glob(filepath.Join(a.dir, SpecsDir, "*.yaml"))
	if len(files) != len(a.sum.Events) || len(files) != DefaultEvents {
		t.Fatalf("%d spec files for %d events", len(files), len(a.sum.Events))
	}
	var articles [][]byte
	for _, l := range a.labels {
		for _, c := range a.ok200(l.url) {
			if c.typ == "response" {
				articles = append(articles, decodeBody(t, *c))
				break
			}
		}
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var s SpecDoc
		if err := yaml.Unmarshal(b, &s); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if s.Name+".yaml" != filepath.Base(f) || s.Event.Start == "" || s.Event.End < s.Event.Start || s.Strategy != "ctf" {
			t.Errorf("%s: %+v", f, s)
		}
		if len(s.Keywords["en"]) == 0 || len(s.Keywords["de"]) == 0 || len(s.ReferenceDocuments) < 2 {
			t.Errorf("%s: keywords %v, %d reference documents", f, s.Keywords, len(s.ReferenceDocuments))
		}
		langs := map[string]bool{}
		for _, d := range s.ReferenceDocuments {
			langs[d.Language] = true
			words := len(strings.Fields(d.Text))
			if words < 200 {
				t.Errorf("%s: reference document of %d words", f, words)
			}
			// Not a copy of an archived page: its second sentence appears nowhere.
			sentences := strings.SplitAfter(d.Text, ". ")
			for _, body := range articles {
				if bytes.Contains(body, []byte(strings.TrimSpace(sentences[1])+" "+strings.TrimSpace(sentences[2]))) {
					t.Errorf("%s: reference text copies an archived page", f)
				}
			}
		}
		if !langs["en"] || !langs["de"] {
			t.Errorf("%s: reference languages %v", f, langs)
		}
		var articleSeeds int
		for _, seed := range s.Seeds {
			if len(a.ok200(seed)) == 0 {
				t.Errorf("%s: seed %s has no 200 capture", f, seed)
			}
			if l := a.byLabel[seed]; l != nil {
				articleSeeds++
				if l.event != s.Name || l.grade != "2" {
					t.Errorf("%s: seed article %s is labelled %s/%s", f, seed, l.event, l.grade)
				}
			}
		}
		if articleSeeds == 0 || len(s.Seeds) < 4 {
			t.Errorf("%s: seeds %v", f, s.Seeds)
		}
	}
}

func TestWARC10(t *testing.T) {
	dir := t.TempDir()
	sum := generate(t, dir, Config{Pages: 60, Seed: 2, WARCVersion: "1.0", Events: 2})
	a, err := readArchive(dir, sum)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range a.recs {
		if r.typ == "revisit" && !strings.Contains(r.header.Get(gowarc.WarcProfile), "/warc/1.0/") {
			t.Errorf("WARC/1.0 revisit with profile %s", r.header.Get(gowarc.WarcProfile))
		}
	}
	if len(a.sum.Events) != 2 {
		t.Errorf("%d events, want 2", len(a.sum.Events))
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	if _, err := Generate(ctx, Config{OutDir: dir, Pages: 100, Logger: quiet}); err == nil {
		t.Fatal("Generate with a cancelled context succeeded")
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*.open")); len(left) > 0 {
		t.Errorf("left temporary files: %v", left)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []Config{
		{Pages: 10},
		{OutDir: "x"},
		{OutDir: "x", Pages: 10, Events: MaxEvents + 1},
		{OutDir: "x", Pages: 10, WARCVersion: "2.0"},
		{OutDir: "x", Pages: 10, CompressionLevel: 12},
		{OutDir: "x", Pages: 10, TargetCaptures: 10},
		{OutDir: "x", TargetBytes: 1 << 20, TargetCaptures: 10},
		{OutDir: "x", TargetCaptures: -1},
	} {
		if _, err := Generate(context.Background(), c); err == nil {
			t.Errorf("Generate(%+v) succeeded", c)
		}
	}
}

func TestTargetBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("estimates and generates a 4 MB archive")
	}
	const target = 4 << 20
	sum := generate(t, t.TempDir(), Config{TargetBytes: target, Seed: 1})
	if sum.Bytes < target || sum.Bytes > target*13/10 {
		t.Errorf("target %d bytes, wrote %d", target, sum.Bytes)
	}
	for _, k := range sum.Kinds {
		if k.Kind == "home" && k.URLs != int64(sum.Hosts) {
			t.Errorf("%d home pages for %d hosts", k.URLs, sum.Hosts)
		}
	}
}

// TestTargetCaptures generates an archive of 3,000 captures twice (1 and 2
// workers): it holds 3,000 captures as the project's indexer counts them, or
// up to 7 more (the rest of the article that completes the target), all
// its listing pages, and the same bytes both times.
func TestTargetCaptures(t *testing.T) {
	const target = 3000
	d1, d2 := t.TempDir(), t.TempDir()
	sum := generate(t, d1, Config{TargetCaptures: target, Seed: 1, Workers: 1})
	generate(t, d2, Config{TargetCaptures: target, Seed: 1, Workers: 2})
	files, _ := filepath.Glob(filepath.Join(d1, "*.warc.gz"))
	if len(files) == 0 {
		t.Fatalf("no WARC files in %s", d1)
	}
	var indexed int64
	for _, f := range files {
		r, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		_, err = cdxj.IndexFile(r, filepath.Base(f), cdxj.IndexOptions{OnSkip: func(s records.Skip) { t.Errorf("index %s: %v", f, s) }},
			func(cdxj.Capture) error { indexed++; return nil })
		r.Close()
		if err != nil {
			t.Fatalf("index %s: %v", f, err)
		}
	}
	if indexed < target || indexed > target+7 {
		t.Errorf("target %d captures, the index has %d", target, indexed)
	}
	if sum.Captures != indexed {
		t.Errorf("summary says %d captures, the index has %d", sum.Captures, indexed)
	}
	for _, k := range sum.Kinds {
		if k.Kind == "home" && k.URLs != int64(sum.Hosts) {
			t.Errorf("%d home pages for %d hosts", k.URLs, sum.Hosts)
		}
	}
	sameFiles(t, d1, d2)
}
