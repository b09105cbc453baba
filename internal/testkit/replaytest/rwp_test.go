package replaytest

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/collection"
	"github.com/recrawl/recrawl/internal/records"
	"github.com/recrawl/recrawl/internal/replay"
	"github.com/recrawl/recrawl/internal/wacz"
)

const testTitle = "Replay check"

// viewer is one Chromium with ReplayWeb.page served beside the WACZ files.
type viewer struct {
	srv *replay.Server
	b   *Browser
	// shots, when set, is the path prefix of a screenshot taken of a tab
	// whose page did not replay.
	shots string
	// title is the collection's name the viewer must show (the packaged
	// datapackage.json metadata.title).
	title string
}

func newViewer(t *testing.T, files map[string]string) *viewer {
	t.Helper()
	return newViewerLog(t, files, "")
}

// newViewerLog is newViewer with Chromium's log written to logFile (none
// when empty).
func newViewerLog(t *testing.T, files map[string]string, logFile string) *viewer {
	t.Helper()
	rwp := ReplayWebPageDir(t)
	srv, err := replay.Start(replay.Options{ViewerDir: rwp, WACZ: files})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	b := launchBehindProxy(t, logFile)
	return &viewer{srv: srv, b: b, title: testTitle}
}

// replayCheck opens one check in a fresh tab and compares the replayed page
// with the archived record, and the collection's name with the one
// packaged. It returns the time from opening the tab to the
// replayed page and the collection id.
func (v *viewer) replayCheck(ctx context.Context, waczName string, warc *os.File, ck Check) (time.Duration, string, error) {
	start := time.Now()
	p, err := v.b.NewPage(ctx, v.srv.PageURL(waczName, ck.Open.URL, ck.Open.Timestamp))
	if err != nil {
		return 0, "", err
	}
	defer p.Close(context.Background())
	got, err := p.WaitReplay(ctx)
	if err != nil && v.shots != "" {
		shot := fmt.Sprintf("%s-%s-%s.png", v.shots, ck.Kind, ck.Open.Timestamp)
		sctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		if serr := p.Screenshot(sctx, shot); serr != nil {
			err = fmt.Errorf("%w (no screenshot: %v)", err, serr)
		} else {
			err = fmt.Errorf("%w (screenshot: %s)", err, shot)
		}
		cancel()
	}
	if err != nil {
		return 0, "", fmt.Errorf("%s %s %s: %w", ck.Kind, ck.Open.Timestamp, ck.Open.URL, err)
	}
	took := time.Since(start)
	rec, err := records.ReadRecordAt(warc, ck.Want.Offset, ck.Want.Length, collection.WARCFile)
	if err != nil {
		return 0, "", err
	}
	title, text, err := p.Expected(ctx, ArchivedHTML(rec))
	if err != nil {
		return 0, "", err
	}
	if got.Title != title {
		return 0, "", fmt.Errorf("%s %s %s: replayed title %q, archived %q", ck.Kind, ck.Open.Timestamp, ck.Open.URL, got.Title, title)
	}
	if got.Text != text {
		return 0, "", fmt.Errorf("%s %s %s: replayed text differs from the archived record's:\n replayed %.300q\n archived %.300q",
			ck.Kind, ck.Open.Timestamp, ck.Open.URL, got.Text, text)
	}
	if !strings.Contains(got.FrameURL, "mp_/"+ck.Want.URL) {
		return 0, "", fmt.Errorf("%s %s: the viewer replayed %s, want %s", ck.Kind, ck.Open.URL, got.FrameURL, ck.Want.URL)
	}
	// The viewer must have read the package's manifest: it names the
	// collection.
	collTitle, _, err := p.Collection(ctx, got.Coll)
	if err != nil {
		return 0, "", err
	}
	if collTitle != v.title {
		return 0, "", fmt.Errorf("%s: the viewer names the collection %q, want %q (datapackage.json metadata.title)", waczName, collTitle, v.title)
	}
	return took, got.Coll, nil
}

// openReplayed opens the viewer on one check and waits until it shows the
// replayed page; the caller closes the page.
func (v *viewer) openReplayed(ctx context.Context, waczName string, ck Check) (*Page, error) {
	p, err := v.b.NewPage(ctx, v.srv.PageURL(waczName, ck.Open.URL, ck.Open.Timestamp))
	if err != nil {
		return nil, err
	}
	if _, err := p.WaitReplay(ctx); err != nil {
		p.Close(context.Background())
		return nil, err
	}
	return p, nil
}

// checkPages opens the viewer on one check and compares the collection's
// name and its pages list (URL and title, in any order) with docs.
func (v *viewer) checkPages(coll, waczName string, ck Check, docs []collection.Document) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p, err := v.openReplayed(ctx, waczName, ck)
	if err != nil {
		return err
	}
	defer p.Close(context.Background())
	title, pages, err := p.Collection(ctx, coll)
	if err != nil {
		return err
	}
	if title != v.title {
		return fmt.Errorf("%s: collection title %q, want %q (datapackage metadata.title)", waczName, title, v.title)
	}
	var want, got []string
	for _, d := range docs {
		want = append(want, d.URL+" "+d.Title)
	}
	for _, pg := range pages {
		got = append(got, pg.URL+" "+pg.Title)
	}
	sort.Strings(want)
	sort.Strings(got)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		return fmt.Errorf("%s: the viewer lists %d pages, want %d documents (or titles differ)", waczName, len(got), len(want))
	}
	return nil
}

// checkTextIndex opens the viewer on one check and compares the URLs of
// its text index (the viewer's search over extraPages.jsonl, up to its
// first MiB) with docs.
func (v *viewer) checkTextIndex(coll, waczName string, ck Check, docs []collection.Document) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p, err := v.openReplayed(ctx, waczName, ck)
	if err != nil {
		return err
	}
	defer p.Close(context.Background())
	var text string
	if err := p.Eval(ctx, swFetch+`("/replay/w/api/c/`+coll+`/textIndex", "text")`, &text); err != nil {
		return err
	}
	var got, want []string
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		var pg APIPage
		if err := json.Unmarshal([]byte(line), &pg); err != nil {
			return fmt.Errorf("%s: text index line %.100q: %w", waczName, line, err)
		}
		if pg.URL != "" {
			got = append(got, pg.URL)
		}
	}
	for _, d := range docs {
		want = append(want, d.URL)
	}
	if !slices.Equal(got, want) {
		return fmt.Errorf("%s: the viewer's text index has %d pages, want the %d of extraPages.jsonl", waczName, len(got), len(want))
	}
	return nil
}

// TestReplayWebPage opens a generated collection in ReplayWeb.page, once
// with a flat index and every document in pages.jsonl, and once packaged
// as large collections are (a ZipNum index, and only the first quarter of
// the documents in pages.jsonl, the rest in extraPages.jsonl). It checks
// several pages spread over the index (so some of them only in
// extraPages.jsonl), a revisit and a redirect: each replays with the
// archived title and text; the viewer lists the documents of pages.jsonl,
// has the others in its text index, and shows the collection's title.
func TestReplayWebPage(t *testing.T) {
	ReplayWebPageDir(t)
	Chromium(t)
	dir := t.TempDir()
	c, err := BuildCollection(dir, 300, 3, wacz.Options{Title: testTitle, ZipNumThreshold: -1})
	if err != nil {
		t.Fatal(err)
	}
	ValidateWACZ(t, c.WACZPath())
	flat := filepath.Join(t.TempDir(), "flat.wacz")
	if err := os.Rename(c.WACZPath(), flat); err != nil {
		t.Fatal(err)
	}
	// The same collection over the ZipNum threshold, with several blocks,
	// and over the pages.jsonl limit.
	listed := len(c.Docs) / 4
	if err := wacz.Package(dir, wacz.Options{Title: testTitle, Created: time.Date(2013, 6, 1, 0, 0, 0, 0, time.UTC),
		ZipNumThreshold: len(c.Captures) / 2, MaxPages: listed}); err != nil {
		t.Fatal(err)
	}
	ValidateWACZ(t, c.WACZPath())
	zipnumPath := filepath.Join(t.TempDir(), "zipnum.wacz")
	if err := os.Rename(c.WACZPath(), zipnumPath); err != nil {
		t.Fatal(err)
	}
	if !zipHas(t, zipnumPath, wacz.IDXEntry) || !zipHas(t, flat, wacz.IndexEntry) || !zipHas(t, zipnumPath, wacz.ExtraEntry) {
		t.Fatal("the two packages do not have the two index forms and page lists")
	}
	checks, err := c.Checks(4, "revisit", "redirect")
	if err != nil {
		t.Fatal(err)
	}
	warc, err := os.Open(c.WARCPath())
	if err != nil {
		t.Fatal(err)
	}
	defer warc.Close()
	t.Logf("collection: %d captures, %d documents, %d checks", len(c.Captures), len(c.Docs), len(checks))

	v := newViewer(t, map[string]string{"flat.wacz": flat, "zipnum.wacz": zipnumPath})
	for _, name := range []string{"flat.wacz", "zipnum.wacz"} {
		t.Run(name, func(t *testing.T) {
			coll := ""
			for i, ck := range checks {
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				took, id, err := v.replayCheck(ctx, name, warc, ck)
				cancel()
				if err != nil {
					t.Fatal(err)
				}
				coll = id
				t.Logf("%s %s: replayed in %v (first=%v)", ck.Kind, ck.Open.URL, took.Round(time.Millisecond), i == 0)
			}
			docs := c.Docs
			if name == "zipnum.wacz" {
				docs = c.Docs[:listed]
				if err := v.checkTextIndex(coll, name, checks[0], c.Docs[listed:]); err != nil {
					t.Error(err)
				}
			}
			if err := v.checkPages(coll, name, checks[0], docs); err != nil {
				t.Error(err)
			}
			st := v.srv.Stats(name)
			t.Logf("%s: %d requests, %d bytes asked for", name, st.Requests, st.Bytes)
		})
	}
}

func zipHas(t *testing.T, path, name string) bool {
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		if f.Name == name {
			return true
		}
	}
	return false
}

// rewriteZip copies a zip, passing each entry's bytes through edit (nil
// drops the entry).
func rewriteZip(t *testing.T, src, dst string, edit func(name string, data []byte) []byte) {
	t.Helper()
	zr, err := zip.OpenReader(src)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		data = edit(f.Name, data)
		if data == nil {
			continue
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f.Name, Method: f.Method, Modified: f.Modified})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReplayWebPageBrokenWACZ shows that the check fails on broken
// packages: a WARC cut inside the checked record, index offsets shifted by
// a few bytes, and a package without datapackage.json.
func TestReplayWebPageBrokenWACZ(t *testing.T) {
	ReplayWebPageDir(t)
	Chromium(t)
	dir := t.TempDir()
	c, err := BuildCollection(dir, 60, 5, wacz.Options{Title: testTitle})
	if err != nil {
		t.Fatal(err)
	}
	ValidateWACZ(t, c.WACZPath())
	checks, err := c.Checks(2, "revisit", "redirect")
	if err != nil {
		t.Fatal(err)
	}
	ck := checks[1]
	warc, err := os.Open(c.WARCPath())
	if err != nil {
		t.Fatal(err)
	}
	defer warc.Close()

	broken := map[string]func(name string, data []byte) []byte{
		"truncated-warc.wacz": func(name string, data []byte) []byte {
			if name == wacz.WARCEntry {
				return data[:ck.Want.Offset+ck.Want.Length/2]
			}
			return data
		},
		"wrong-offsets.wacz": func(name string, data []byte) []byte {
			if name != wacz.IndexEntry {
				return data
			}
			var b strings.Builder
			for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
				cp, err := cdxj.Parse(line)
				if err != nil {
					t.Fatal(err)
				}
				cp.Offset += 11
				b.WriteString(cp.Line() + "\n")
			}
			return []byte(b.String())
		},
		"no-datapackage.wacz": func(name string, data []byte) []byte {
			if name == wacz.PackageEntry || name == wacz.DigestEntry {
				return nil
			}
			return data
		},
	}
	files := map[string]string{"good.wacz": c.WACZPath()}
	for name, edit := range broken {
		p := filepath.Join(t.TempDir(), name)
		rewriteZip(t, c.WACZPath(), p, edit)
		files[name] = p
	}
	v := newViewer(t, files)

	// The negative control: the intact package passes the same check.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	_, _, err = v.replayCheck(ctx, "good.wacz", warc, ck)
	cancel()
	if err != nil {
		t.Fatalf("the intact package fails: %v", err)
	}
	for name := range broken {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
			defer cancel()
			_, _, err := v.replayCheck(ctx, name, warc, ck)
			if err == nil {
				t.Fatalf("%s: the check passed on a broken package", name)
			}
			t.Logf("fails as it must: %.300v", err)
		})
	}
}

// benchCollection builds a collection of pages generated article pages
// (seed 1). With $RECRAWL_REPLAY_BENCH_DIR set, it is built once into
// DIR/pages-N (a .complete marker says it is whole) and reused by later
// runs: a 20,000-document collection takes a minute or more to generate
// and index. The packages are written by each run (see benchForms).
func benchCollection(t *testing.T, pages int64) *Collection {
	dir := t.TempDir()
	cache := os.Getenv("RECRAWL_REPLAY_BENCH_DIR")
	if cache != "" {
		dir = filepath.Join(cache, fmt.Sprintf("pages-%d", pages))
	}
	marker := filepath.Join(dir, ".complete")
	if _, err := os.Stat(marker); err == nil {
		c, err := LoadCollection(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("collection reused from %s", dir)
		return c
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	c, err := BuildCollection(dir, pages, 1, wacz.Options{Title: testTitle})
	if err != nil {
		t.Fatal(err)
	}
	if cache != "" {
		if err := os.WriteFile(marker, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("collection built in %v", time.Since(start).Round(time.Second))
	ValidateWACZ(t, c.WACZPath())
	return c
}

// benchForms are the packages TestReplayTimeToFirstPage compares: what
// wacz.Package writes by default, and two earlier forms for reference.
var benchForms = []struct {
	name string
	opts wacz.Options
}{
	{"default", wacz.Options{}},
	{"zipnum-allpages", wacz.Options{ZipNumThreshold: 1, MaxPages: -1}}, // every document in pages.jsonl
	{"flat-allpages", wacz.Options{ZipNumThreshold: -1, MaxPages: -1}},  // and a flat index.cdxj as well
}

// TestReplayTimeToFirstPage measures how long ReplayWeb.page takes from
// opening the viewer on a fresh browser profile to the first replayed page,
// and to the slowest of the checked pages (4 documents spread over the
// index, and a revisit and a redirect where the collection has them). Every
// checked page must replay correctly; the times are printed as
// "replay-bench" lines for scripts/bench.sh replay to judge against its
// target. It is a measurement, not run without one of:
//
//   - $RECRAWL_REPLAY_BENCH_OUTPUT: the output folder of `recrawl extract`
//     (collection.wacz, collection.warc.gz, collection.cdxj,
//     documents.jsonl), its package measured as it is (form "output");
//   - $RECRAWL_REPLAY_BENCH_PAGES: a collection of that many generated
//     article pages, packaged as wacz.Package does by default and in two
//     earlier forms ($RECRAWL_REPLAY_BENCH_FORMS limits them: "default",
//     "zipnum-allpages", "flat-allpages").
//
// $RECRAWL_REPLAY_BENCH_TIMEOUT (a Go duration, default 10m) bounds each
// check. Chromium's log and, for a check that fails, a screenshot of the
// tab are kept in $RECRAWL_REPLAY_BENCH_DIR (or the test's temporary
// folder).
func TestReplayTimeToFirstPage(t *testing.T) {
	output := os.Getenv("RECRAWL_REPLAY_BENCH_OUTPUT")
	n := os.Getenv("RECRAWL_REPLAY_BENCH_PAGES")
	if output == "" && n == "" {
		t.Skip("a measurement: set RECRAWL_REPLAY_BENCH_OUTPUT or RECRAWL_REPLAY_BENCH_PAGES (scripts/bench.sh replay)")
	}
	// 10 minutes: far beyond the target, to measure the flat index of a
	// large collection rather than give up on it.
	timeout := 10 * time.Minute
	if s := os.Getenv("RECRAWL_REPLAY_BENCH_TIMEOUT"); s != "" {
		var err error
		if timeout, err = time.ParseDuration(s); err != nil {
			t.Fatal(err)
		}
	}
	debugDir := os.Getenv("RECRAWL_REPLAY_BENCH_DIR")
	if debugDir == "" {
		debugDir = t.TempDir()
	}
	if output != "" {
		c, err := LoadCollection(output)
		if err != nil {
			t.Fatal(err)
		}
		checks, err := c.Checks(4)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("extraction output %s: %d documents, %d index lines, checks %v", output, len(c.Docs), len(c.Captures), kinds(checks))
		// The package is not written again: the output folder is the
		// user's, and its package is what is measured.
		measureReplay(t, c, checks, benchRun{form: "output", path: c.WACZPath(), title: packagedTitle(t, c.WACZPath()),
			listed: min(len(c.Docs), wacz.DefaultMaxPages), timeout: timeout, logPrefix: filepath.Join(debugDir, "output")})
		return
	}
	pages, err := strconv.ParseInt(n, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	c := benchCollection(t, pages)
	checks, err := c.Checks(4, "revisit", "redirect")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("collection: %d generated pages, %d documents, %d index lines", pages, len(c.Docs), len(c.Captures))
	for _, form := range benchForms {
		if f := os.Getenv("RECRAWL_REPLAY_BENCH_FORMS"); f != "" && !slices.Contains(strings.Fields(f), form.name) {
			continue
		}
		o := form.opts
		o.Title, o.Created = testTitle, time.Date(2013, 6, 1, 0, 0, 0, 0, time.UTC)
		if err := wacz.Package(c.Dir, o); err != nil {
			t.Fatal(err)
		}
		ValidateWACZ(t, c.WACZPath())
		path := filepath.Join(t.TempDir(), form.name+".wacz")
		if err := os.Rename(c.WACZPath(), path); err != nil {
			t.Fatal(err)
		}
		listed := len(c.Docs)
		if o.MaxPages == 0 {
			listed = min(listed, wacz.DefaultMaxPages)
		}
		measureReplay(t, c, checks, benchRun{form: form.name, path: path, title: testTitle, listed: listed, timeout: timeout,
			logPrefix: filepath.Join(debugDir, fmt.Sprintf("pages-%d-%s", pages, form.name))})
	}
}

// benchRun is one package TestReplayTimeToFirstPage measures.
type benchRun struct {
	form      string        // the name in the replay-bench line
	path      string        // the WACZ
	title     string        // the collection's name the viewer must show
	listed    int           // the documents pages.jsonl lists, the first in collection order
	timeout   time.Duration // for each check
	logPrefix string        // of Chromium's log, the screenshots and the ranges asked for
}

// measureReplay opens run's package in a fresh browser and server (no
// cached index), replays the checks in order and prints a replay-bench
// line: the seconds to the first and to the slowest page, or why a check
// failed. The package recrawl writes ("default", "output") must replay;
// the others are measured for comparison only.
func measureReplay(t *testing.T, c *Collection, checks []Check, run benchRun) {
	warc, err := os.Open(c.WARCPath())
	if err != nil {
		t.Fatal(err)
	}
	defer warc.Close()
	st, err := os.Stat(run.path)
	if err != nil {
		t.Fatal(err)
	}
	name := run.form + ".wacz"
	v := newViewerLog(t, map[string]string{name: run.path}, run.logPrefix+"-chromium.log")
	defer v.b.Close()
	v.shots, v.title = run.logPrefix, run.title
	var first, slowest time.Duration
	failed := ""
	coll := ""
	for i, ck := range checks {
		ctx, cancel := context.WithTimeout(context.Background(), run.timeout)
		took, id, err := v.replayCheck(ctx, name, warc, ck)
		cancel()
		if err != nil {
			failed = err.Error()
			break
		}
		coll = id
		if i == 0 {
			first = took
		}
		slowest = max(slowest, took)
	}
	if failed == "" {
		// The viewer lists the pages of pages.jsonl: the first
		// documents in collection order.
		if err := v.checkPages(coll, name, checks[0], c.Docs[:run.listed]); err != nil {
			failed = err.Error()
		}
	}
	fs := v.srv.Stats(name)
	t.Logf("%s: viewer frames the service worker did not control yet (served /replay/): %d", run.form, v.srv.Stats(replay.ViewerIndexStat).Requests)
	if err := os.WriteFile(run.logPrefix+"-requests.txt", []byte(strings.Join(fs.Ranges, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if failed != "" {
		fmt.Printf("replay-bench docs=%d lines=%d wacz_mb=%.1f listed=%d form=%s failed=%q requests=%d mb_asked=%.1f\n",
			len(c.Docs), len(c.Captures), float64(st.Size())/1e6, run.listed, run.form, failed, fs.Requests, float64(fs.Bytes)/1e6)
		if run.form == "default" || run.form == "output" {
			t.Errorf("%s: %s (Chromium's log: %s-chromium.log)", run.form, failed, run.logPrefix)
		}
		return
	}
	fmt.Printf("replay-bench docs=%d lines=%d wacz_mb=%.1f listed=%d form=%s first_s=%.1f slowest_s=%.1f requests=%d mb_asked=%.1f\n",
		len(c.Docs), len(c.Captures), float64(st.Size())/1e6, run.listed, run.form, first.Seconds(), slowest.Seconds(), fs.Requests, float64(fs.Bytes)/1e6)
}

// packagedTitle is the collection's name in a WACZ's datapackage.json
// (metadata.title, what the viewer shows).
func packagedTitle(t *testing.T, path string) string {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	f, err := zr.Open(wacz.PackageEntry)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer f.Close()
	var dp wacz.DataPackage
	if err := json.NewDecoder(f).Decode(&dp); err != nil {
		t.Fatalf("%s: %s: %v", path, wacz.PackageEntry, err)
	}
	return dp.Metadata.Title
}
