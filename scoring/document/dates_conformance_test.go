package document

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/markusmobius/go-htmldate"
	"golang.org/x/net/html"

	"github.com/recrawl/recrawl/internal/sharedtest"
)

// conformanceCapture is the capture time assumed for the real pages of
// ../shared/conformance/dates (they carry none): after the last labelled
// date, the same bound for every extractor.
var conformanceCapture = time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)

// maxPagesBehindLibrary is how many pages fewer than go-htmldate's extensive
// search this package may get right on the development set (below 1 %).
const maxPagesBehindLibrary = 3

// datedPage is one row of ../shared/conformance/dates/labels.tsv.
type datedPage struct {
	url, file, date string
}

func readDatedPages(t testing.TB, dir string) []datedPage {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "labels.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var pages []datedPage
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		if line == 1 {
			continue // header
		}
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) != 3 {
			t.Fatalf("labels.tsv line %d: %d columns, want 3", line, len(cols))
		}
		pages = append(pages, datedPage{cols[0], cols[1], cols[2]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return pages
}

func gunzipFile(t testing.TB, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return b
}

// TestDateConformance measures, in one run on the 324 real labelled pages of
// ../shared/conformance/dates, the publication day of this package (per
// source), of go-htmldate in extensive mode and of go-htmldate in fast mode,
// and prints the table quoted in the package documentation. A page counts as
// right when the extracted day, in the page's own time zone, is the labelled
// day. It fails when this package is less accurate than go-htmldate's
// extensive search in the same run.
func TestDateConformance(t *testing.T) {
	dir := sharedtest.Path(t, "conformance/dates")
	pages := readDatedPages(t, dir)
	if len(pages) < 300 {
		t.Fatalf("%s: %d labelled pages, want the 324 of the development set", dir, len(pages))
	}
	type tally struct{ n, right, extRight int }
	perSource := map[string]*tally{}
	var own, fast, ext, ownAlone, ownUTC, ownFast int
	var tParse, tOwn, tFast, tExt time.Duration
	var misses strings.Builder
	for _, dp := range pages {
		body := gunzipFile(t, filepath.Join(dir, "pages", dp.file))
		decoded, _ := Decode(body, "text/html")
		u, err := url.Parse(dp.url)
		if err != nil {
			t.Fatalf("labels.tsv: url %q: %v", dp.url, err)
		}

		start := time.Now()
		root, err := html.Parse(bytes.NewReader(decoded))
		tParse += time.Since(start)
		if err != nil {
			t.Fatalf("%s: %v", dp.file, err)
		}

		// This package: the date step after the shared analysis, as in Parse.
		p := analyze(root, len(decoded))
		p.selectMain()
		text := p.mainText()
		start = time.Now()
		_, day, src := p.publication(u, conformanceCapture, text)
		tOwn += time.Since(start)
		if src == "" {
			src = "(none)"
		}
		ts := perSource[src]
		if ts == nil {
			ts = &tally{}
			perSource[src] = ts
		}
		ts.n++
		if day == dp.date {
			own++
			ts.right++
		}
		// The alternatives the choice was made between: our sources alone,
		// with the fast library search behind them, and with the UTC day.
		alone, _ := p.published(u, conformanceCapture, text)
		aloneDay, utcDay, fastFallback := "", "", ""
		if !alone.IsZero() {
			aloneDay, utcDay, fastFallback = alone.Format(time.DateOnly), alone.UTC().Format(time.DateOnly), alone.Format(time.DateOnly)
		} else if f := p.libraryDate(u, conformanceCapture, true); !f.IsZero() {
			fastFallback = f.Format(time.DateOnly)
		}
		for _, v := range []struct {
			got string
			n   *int
		}{{aloneDay, &ownAlone}, {utcDay, &ownUTC}, {fastFallback, &ownFast}} {
			if v.got == dp.date {
				*v.n++
			}
		}

		opts := htmldate.Options{URL: dp.url, UseOriginalDate: true, MinDate: minPlausible,
			MaxDate: conformanceCapture.Add(24 * time.Hour), SkipExtensiveSearch: true}
		start = time.Now()
		rf, _ := htmldate.FromDocument(root, opts)
		tFast += time.Since(start)
		opts.SkipExtensiveSearch = false
		start = time.Now()
		re, _ := htmldate.FromDocument(root, opts)
		tExt += time.Since(start)
		fDay, eDay := "", ""
		if !rf.DateTime.IsZero() {
			fDay = rf.DateTime.Format(time.DateOnly)
		}
		if !re.DateTime.IsZero() {
			eDay = re.DateTime.Format(time.DateOnly)
		}
		if fDay == dp.date {
			fast++
		}
		if eDay == dp.date {
			ext++
			ts.extRight++
		}
		if day != dp.date {
			fmt.Fprintf(&misses, "%-60.60s label %s ours %-10s %-34s extensive %s\n", dp.url, dp.date, day, src, eDay)
		}
	}
	n := len(pages)
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(n) }
	var table strings.Builder
	fmt.Fprintf(&table, "publication day on %d real pages (%s)\n", n, dir)
	fmt.Fprintf(&table, "| extractor | right | accuracy | ms/page |\n|---|---|---|---|\n")
	fmt.Fprintf(&table, "| this package (our sources, then go-htmldate extensive) | %d | %.3f | %.3f |\n", own, float64(own)/float64(n), per(tOwn))
	fmt.Fprintf(&table, "| our sources alone, day in the page's zone | %d | %.3f | |\n", ownAlone, float64(ownAlone)/float64(n))
	fmt.Fprintf(&table, "| our sources alone, day in UTC (before) | %d | %.3f | |\n", ownUTC, float64(ownUTC)/float64(n))
	fmt.Fprintf(&table, "| our sources, then go-htmldate fast | %d | %.3f | |\n", ownFast, float64(ownFast)/float64(n))
	fmt.Fprintf(&table, "| go-htmldate extensive | %d | %.3f | %.3f |\n", ext, float64(ext)/float64(n), per(tExt))
	fmt.Fprintf(&table, "| go-htmldate fast | %d | %.3f | %.3f |\n", fast, float64(fast)/float64(n), per(tFast))
	fmt.Fprintf(&table, "| (bare html.Parse) | | | %.3f |\n", per(tParse))
	fmt.Fprintf(&table, "\nthis package per source:\n| source | pages | right | accuracy | go-htmldate extensive right on these pages |\n|---|---|---|---|---|\n")
	var sources []string
	for s := range perSource {
		sources = append(sources, s)
	}
	sort.Slice(sources, func(i, j int) bool {
		a, b := perSource[sources[i]], perSource[sources[j]]
		if a.n != b.n {
			return a.n > b.n
		}
		return sources[i] < sources[j]
	})
	for _, s := range sources {
		ts := perSource[s]
		fmt.Fprintf(&table, "| %s | %d | %d | %.3f | %d |\n", s, ts.n, ts.right, float64(ts.right)/float64(ts.n), ts.extRight)
	}
	t.Log("\n" + table.String())
	if testing.Verbose() {
		t.Log("misses:\n" + misses.String())
	}
	// The target is go-htmldate's extensive accuracy; measured 287 against
	// 290 pages (see the package doc). Fail when we fall further behind.
	if own < ext-maxPagesBehindLibrary {
		t.Errorf("this package is right on %d pages, go-htmldate extensive on %d: more than %d behind the library", own, ext, maxPagesBehindLibrary)
	}
}
