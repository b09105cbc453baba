package replaytest

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/evaluate"
	"github.com/recrawl/recrawl/internal/records"
	"github.com/recrawl/recrawl/internal/wacz"
)

const testTitle = "Replay check"

// viewer is one Chromium with ReplayWeb.page served beside the WACZ files.
type viewer struct {
	srv *Server
	px  *RefusingProxy
	b   *Browser
}

func newViewer(t *testing.T, files map[string]string) *viewer {
	t.Helper()
	rwp := ReplayWebPageDir(t)
	bin := Chromium(t)
	srv, err := Serve(rwp, files)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	px, err := NewRefusingProxy()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { px.Close() })
	b, err := Launch(BrowserOptions{Binary: bin, Proxy: px.Addr, DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		b.Close()
		if seen := px.Seen(); len(seen) > 0 {
			t.Logf("requests Chromium tried beyond loopback (refused): %d, first %q", len(seen), seen[0])
		}
	})
	return &viewer{srv: srv, px: px, b: b}
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
	if err != nil {
		return 0, "", fmt.Errorf("%s %s %s: %w", ck.Kind, ck.Open.Timestamp, ck.Open.URL, err)
	}
	took := time.Since(start)
	rec, err := records.ReadRecordAt(warc, ck.Want.Offset, ck.Want.Length, evaluate.WARCFile)
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
	if collTitle != testTitle {
		return 0, "", fmt.Errorf("%s: the viewer names the collection %q, want %q (datapackage.json metadata.title)", waczName, collTitle, testTitle)
	}
	return took, got.Coll, nil
}

// TestReplayWebPage opens a generated collection in ReplayWeb.page, once
// with a flat index and once with a ZipNum index, and checks several pages,
// a revisit and a redirect: each replays with the archived title and text;
// the viewer lists every document and shows the collection's title.
func TestReplayWebPage(t *testing.T) {
	ReplayWebPageDir(t)
	Chromium(t)
	dir := t.TempDir()
	c, err := BuildCollection(dir, 300, 3, wacz.Options{Title: testTitle, ZipNumThreshold: -1})
	if err != nil {
		t.Fatal(err)
	}
	flat := filepath.Join(t.TempDir(), "flat.wacz")
	if err := os.Rename(c.WACZPath(), flat); err != nil {
		t.Fatal(err)
	}
	// The same collection over the ZipNum threshold, with several blocks.
	if err := wacz.Package(dir, wacz.Options{Title: testTitle, Created: time.Date(2013, 6, 1, 0, 0, 0, 0, time.UTC),
		ZipNumThreshold: len(c.Captures) / 2}); err != nil {
		t.Fatal(err)
	}
	zipnumPath := filepath.Join(t.TempDir(), "zipnum.wacz")
	if err := os.Rename(c.WACZPath(), zipnumPath); err != nil {
		t.Fatal(err)
	}
	if !zipHas(t, zipnumPath, wacz.IDXEntry) || !zipHas(t, flat, wacz.IndexEntry) {
		t.Fatal("the two packages do not have the two index forms")
	}
	checks, err := c.Checks(4)
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
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			p, err := v.b.NewPage(ctx, v.srv.PageURL(name, checks[0].Open.URL, checks[0].Open.Timestamp))
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close(context.Background())
			if _, err := p.WaitReplay(ctx); err != nil {
				t.Fatal(err)
			}
			title, pages, err := p.Collection(ctx, coll)
			if err != nil {
				t.Fatal(err)
			}
			if title != testTitle {
				t.Errorf("collection title %q, want %q (datapackage metadata.title)", title, testTitle)
			}
			var want, got []string
			for _, d := range c.Docs {
				want = append(want, d.URL+" "+d.Title)
			}
			for _, pg := range pages {
				got = append(got, pg.URL+" "+pg.Title)
			}
			sort.Strings(want)
			sort.Strings(got)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("the viewer lists %d pages, the collection has %d documents (or titles differ)", len(got), len(want))
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
	checks, err := c.Checks(2)
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

// TestReplayTimeToFirstPage measures, for a collection of
// $RECRAWL_REPLAY_BENCH_PAGES generated article pages (not run without it:
// scripts/bench.sh replay runs it), how long ReplayWeb.page takes from
// opening the viewer on a fresh browser profile to the first replayed page,
// and the slowest of the checked pages, with a flat and with a ZipNum
// index. Every checked page must replay correctly; the times are printed as
// "replay-bench" lines for bench.sh to judge against its target.
// $RECRAWL_REPLAY_BENCH_FORMS ("flat", "zipnum"; default both) limits the
// forms measured.
func TestReplayTimeToFirstPage(t *testing.T) {
	n := os.Getenv("RECRAWL_REPLAY_BENCH_PAGES")
	if n == "" {
		t.Skip("a measurement: set RECRAWL_REPLAY_BENCH_PAGES (scripts/bench.sh replay)")
	}
	pages, err := strconv.ParseInt(n, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	c, err := BuildCollection(dir, pages, 1, wacz.Options{Title: testTitle, ZipNumThreshold: -1})
	if err != nil {
		t.Fatal(err)
	}
	flat := filepath.Join(dir, "flat.wacz")
	if err := os.Rename(c.WACZPath(), flat); err != nil {
		t.Fatal(err)
	}
	if err := wacz.Package(dir, wacz.Options{Title: testTitle, Created: time.Date(2013, 6, 1, 0, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	dflt := filepath.Join(dir, "default.wacz")
	if err := os.Rename(c.WACZPath(), dflt); err != nil {
		t.Fatal(err)
	}
	if err := wacz.Package(dir, wacz.Options{Title: testTitle, Created: time.Date(2013, 6, 1, 0, 0, 0, 0, time.UTC), ZipNumThreshold: 1}); err != nil {
		t.Fatal(err)
	}
	zn := filepath.Join(dir, "zipnum.wacz")
	if err := os.Rename(c.WACZPath(), zn); err != nil {
		t.Fatal(err)
	}
	checks, err := c.Checks(4)
	if err != nil {
		t.Fatal(err)
	}
	warc, err := os.Open(c.WARCPath())
	if err != nil {
		t.Fatal(err)
	}
	defer warc.Close()
	st, _ := os.Stat(flat)
	t.Logf("collection: %d generated pages, %d documents, %d index lines, WACZ %.1f MB; default index: %s",
		pages, len(c.Docs), len(c.Captures), float64(st.Size())/1e6, map[bool]string{true: "ZipNum", false: "flat"}[zipHas(t, dflt, wacz.IDXEntry)])
	for _, form := range []struct{ name, path string }{{"flat", flat}, {"zipnum", zn}} {
		if f := os.Getenv("RECRAWL_REPLAY_BENCH_FORMS"); f != "" && !strings.Contains(f, form.name) {
			continue
		}
		// A fresh browser and server per form: no cached index.
		v := newViewer(t, map[string]string{form.name + ".wacz": form.path})
		var first, slowest time.Duration
		failed := ""
		for i, ck := range checks {
			// 10 minutes: far beyond the target, to measure the flat
			// index of a large collection rather than give up on it.
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			took, _, err := v.replayCheck(ctx, form.name+".wacz", warc, ck)
			cancel()
			if err != nil {
				failed = err.Error()
				break
			}
			if i == 0 {
				first = took
			}
			slowest = max(slowest, took)
		}
		fs := v.srv.Stats(form.name + ".wacz")
		if failed != "" {
			// The package's default form must replay; the other is
			// measured for comparison only.
			fmt.Printf("replay-bench docs=%d lines=%d index=%s failed=%q requests=%d mb_asked=%.1f\n",
				len(c.Docs), len(c.Captures), form.name, failed, fs.Requests, float64(fs.Bytes)/1e6)
			if zipHas(t, dflt, wacz.IDXEntry) == (form.name == "zipnum") {
				t.Errorf("%s (the default form): %s", form.name, failed)
			}
		} else {
			fmt.Printf("replay-bench docs=%d lines=%d index=%s first_s=%.1f slowest_s=%.1f requests=%d mb_asked=%.1f\n",
				len(c.Docs), len(c.Captures), form.name, first.Seconds(), slowest.Seconds(), fs.Requests, float64(fs.Bytes)/1e6)
		}
		v.b.Close()
	}
}
