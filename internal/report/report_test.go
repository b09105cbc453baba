package report_test

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recrawl/recrawl/internal/collection"
	"github.com/recrawl/recrawl/internal/evaluate"
	"github.com/recrawl/recrawl/internal/evaluate/evaltest"
	"github.com/recrawl/recrawl/internal/report"
)

// makeReport writes four synthetic runs and labels and runs the eval
// command on them; it returns the report directory.
func makeReport(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	var dirs []string
	for i, st := range []string{"ctf", "cf", "tf", "unfocused"} {
		d := filepath.Join(root, "OUT_"+st)
		evaltest.WriteRun(t, d, evaltest.RunSpec{Strategy: st, Docs: 150, Pool: 600, Focus: 0.9 - 0.3*float64(i), Seed: 11,
			OrderSeed: uint64(i + 1), URLsConsidered: 900 - 100*i, Missing: 60 + i, Keywords: []string{"flood", "Hochwasser"}})
		dirs = append(dirs, d)
	}
	labels := filepath.Join(root, "labels.tsv")
	evaltest.WriteLabels(t, labels, 11, 600, "test-event")
	rep := filepath.Join(root, "report")
	err := evaluate.EvalCommand(context.Background(), []string{"--runs", strings.Join(dirs, ","), "--labels", labels,
		"--event", "test-event", "--report", rep}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// makeReportHTML is makeReport and the text of its report.html.
func makeReportHTML(t *testing.T) (rep, html string) {
	t.Helper()
	rep = makeReport(t)
	b, err := os.ReadFile(filepath.Join(rep, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	return rep, string(b)
}

func TestReportContents(t *testing.T) {
	rep, html := makeReportHTML(t)
	for _, want := range []string{
		"<!DOCTYPE html>", "How to read this report",
		"test-event", "A synthetic event for tests", "2013-06-01 to 2013-06-10", "P7D", "P30D", "flood", "Hochwasser",
		"<dt>Seeds</dt><dd>3</dd>", "ctf, cf, tf, unfocused",
		// runs table: ratio vs unfocused of ctf is 900/600.
		"<td>ctf</td><td>ctf</td><td class=\"n\">150</td>", "<td class=\"n\">1.50</td>", "<td class=\"n\">1.00</td>",
		"P@10", "R@R=", "nDCG@500",
		"<svg", "Accumulated relevance", "Relevant URLs found",
		"its top 20 by topic_r and its top 20 by relevance</h3>", "Article", "&lt;about&gt; the event &amp; more",
		"62 missing URLs", "not-in-index", "synthetic reason no-usable-capture", "The 50 of highest priority are shown.",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if n := strings.Count(html, "<svg"); n != 2 {
		t.Errorf("%d inline SVG plots, want 2", n)
	}
	if strings.Contains(html, "<?xml") {
		t.Error("an XML prolog was left inside the HTML")
	}
	// Self-contained: nothing is loaded from anywhere. The one inline
	// script asks only the server that serves the page, by the relative
	// address "labels".
	script := regexp.MustCompile(`(?s)<script>\n(.*?)\n</script>`).FindAllStringSubmatch(html, -1)
	if len(script) != 1 {
		t.Fatalf("%d inline scripts, want 1", len(script))
	}
	for _, m := range regexp.MustCompile(`fetch\(("[^"]*"|[^"][^,)]*)`).FindAllStringSubmatch(script[0][1], -1) {
		if m[1] != `"labels"` {
			t.Errorf("the script fetches %s, not \"labels\"", m[1])
		}
	}
	if m := regexp.MustCompile(`(?i)https?:|//|import|XMLHttpRequest|WebSocket|sendBeacon|src`).FindString(script[0][1]); m != "" {
		t.Errorf("the script names %q", m)
	}
	markup := strings.Replace(html, script[0][0], "", 1)
	for _, re := range []string{`(?i)<(script|link|img|iframe|object)\b`, `(?i)\b(src|href)\s*=`, `(?i)url\(`, `@import`} {
		if m := regexp.MustCompile(re).FindString(markup); m != "" {
			t.Errorf("report references a resource: %q", m)
		}
	}
	// Top documents are sorted by topic_r: the first row's value is the
	// largest of the ctf run.
	docs, _ := collection.ReadDocuments(filepath.Join(filepath.Dir(rep), "OUT_ctf", "documents.jsonl"))
	best := evaluate.TopDocuments(docs, 1)[0]
	if i := strings.Index(html, best.URL); i < 0 || i > strings.Index(html, "id=\"run-cf\"") {
		t.Errorf("best ctf document %s not in the ctf section", best.URL)
	}
}

// TestRankedViewBeginsWithHighestRelevance: by relevance, each run's
// table begins with the run's 20 (--top) documents of highest relevance
// score, its collection's ranked view, and it lists its 20 documents of
// highest topic_r too.
func TestRankedViewBeginsWithHighestRelevance(t *testing.T) {
	rep, html := makeReportHTML(t)
	for _, run := range []string{"ctf", "cf", "tf"} {
		docs, err := collection.ReadDocuments(filepath.Join(filepath.Dir(rep), "OUT_"+run, "documents.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		byRelevance := slices.Clone(docs)
		slices.SortStableFunc(byRelevance, func(a, b collection.Document) int {
			return cmp.Or(cmp.Compare(b.Relevance, a.Relevance), cmp.Compare(b.TopicR, a.TopicR))
		})
		table := html[strings.Index(html, `<table class="top" data-run="`+run+`">`):]
		table = table[:strings.Index(table, "</table>")]
		ranked := map[int]string{}
		listed := map[string]bool{}
		for _, m := range regexp.MustCompile(`<tr data-url="([^"]+)" data-crawl="\d+" data-ranked="(\d+)">`).FindAllStringSubmatch(table, -1) {
			var pos int
			fmt.Sscan(m[2], &pos)
			ranked[pos] = m[1]
			listed[m[1]] = true
		}
		for i, d := range byRelevance[:20] {
			if ranked[i+1] != d.URL {
				t.Errorf("%s: by relevance, row %d is %q, the run's document %d by relevance is %s (relevance %.3f)", run, i+1, ranked[i+1], i+1, d.URL, d.Relevance)
			}
		}
		for _, d := range evaluate.TopDocuments(docs, 20) {
			if !listed[d.URL] {
				t.Errorf("%s: %s, of the 20 of highest topic_r, is not listed", run, d.URL)
			}
		}
	}
}

func TestRenderUndefinedNumbersAndEscaping(t *testing.T) {
	p := &report.Page{Title: `<T&>`, Spec: report.Spec{Name: "n"}, Runs: []report.Run{{Name: "x", RatioVsUnfocused: nan()}},
		Plots: []report.Plot{{SVG: []byte(`<?xml version="1.0"?><!-- c --><svg width="1pt"></svg>`)}}}
	var buf bytes.Buffer
	if err := report.Render(&buf, p); err != nil {
		t.Fatal(err)
	}
	s := buf.String()
	if !strings.Contains(s, "<title>&lt;T&amp;&gt;</title>") || !strings.Contains(s, `<td class="n">–</td>`) || !strings.Contains(s, "<svg width=\"1pt\"></svg>") {
		t.Errorf("render: %s", s)
	}
	p.Plots[0].SVG = []byte("not a plot")
	if err := report.Render(&buf, p); err == nil {
		t.Error("a non-SVG plot was accepted")
	}
}

func nan() float64 {
	var z float64
	return z / z
}

// chromium returns the Chromium binary, or fails (CI) / skips the test.
func chromium(t *testing.T) string {
	t.Helper()
	for _, c := range []string{os.Getenv("CHROMIUM"), "/usr/bin/chromium", "/usr/bin/chromium-browser"} {
		if c == "" {
			continue
		}
		if _, err := os.Stat(c); err == nil {
			return c
		}
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is missing (CI is set, so this fails instead of skipping): run scripts/install-test-deps.sh")
	}
	t.Skip("chromium is missing; run scripts/install-test-deps.sh")
	return ""
}

// headless runs Chromium on a file and returns its stderr. mode is
// "--dump-dom" or "--screenshot=PATH".
func headless(t *testing.T, bin, mode, url string) (stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--enable-logging=stderr", "--vmodule=file_url_loader_factory=1",
		"--window-size=1280,3600", "--hide-scrollbars", mode, url)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", mode, err, errb.String())
	}
	return out.String(), errb.String()
}

var (
	consoleLine = regexp.MustCompile(`:CONSOLE[:(]`)
	fileLoad    = regexp.MustCompile(`FileURLLoader::Start: (\S+)`)
)

// problems lists console messages and loads of anything but page.
func problems(stderr, page string) []string {
	var out []string
	for _, line := range strings.Split(stderr, "\n") {
		if consoleLine.MatchString(line) {
			out = append(out, line)
		}
		if m := fileLoad.FindStringSubmatch(line); m != nil && strings.SplitN(m[1], "#", 2)[0] != page {
			out = append(out, "loads "+m[1])
		}
	}
	return out
}

func TestReportInChromium(t *testing.T) {
	bin := chromium(t)
	if testing.Short() {
		t.Skip("short mode")
	}
	// The checks must be able to fail: a page with a script error and a
	// missing image must be caught.
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.html")
	os.WriteFile(bad, []byte(`<!DOCTYPE html><html><body><p>x</p><script>undefinedFn();</script><img src="missing.png"></body></html>`), 0o644)
	_, stderr := headless(t, bin, "--dump-dom", "file://"+bad)
	if p := problems(stderr, "file://"+bad); len(p) < 2 {
		t.Fatalf("the console/resource check missed the errors of a bad page: %v\n%s", p, stderr)
	}

	rep := makeReport(t)
	page := "file://" + filepath.Join(rep, "report.html")
	dom, stderr := headless(t, bin, "--dump-dom", page)
	if p := problems(stderr, page); len(p) > 0 {
		t.Errorf("report.html: console messages or resource loads: %v", p)
	}
	for _, want := range []string{"<svg", "Accumulated relevance", "How to read this report", "</html>"} {
		if !strings.Contains(dom, want) {
			t.Errorf("rendered DOM lacks %q", want)
		}
	}
	// Screenshot of a tall window that reaches the plots: the first
	// curve's colour (plotutil's first soft colour, rgb(241, 90, 96)),
	// used nowhere else on the page, must be on screen.
	shot := filepath.Join(dir, "shot.png")
	_, stderr = headless(t, bin, "--screenshot="+shot, page)
	if p := problems(stderr, page); len(p) > 0 {
		t.Errorf("report.html#plots: %v", p)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if n := countNear(img, 241, 90, 96, 40); n < 200 {
		t.Errorf("only %d pixels of the first curve's colour in the screenshot of the plots", n)
	}
}

func countNear(img image.Image, r, g, b, tol int) int {
	n := 0
	bd := img.Bounds()
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			R, G, B, _ := img.At(x, y).RGBA()
			if abs(int(R>>8)-r) <= tol && abs(int(G>>8)-g) <= tol && abs(int(B>>8)-b) <= tol {
				n++
			}
		}
	}
	return n
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// TestReplayLinks: with a replay base, each top document links to its
// capture in pywb's URL scheme; without, no link.
func TestReplayLinks(t *testing.T) {
	for _, c := range []struct{ base, ts, url, want string }{
		{"http://localhost:8080/coll/", "20130601120000", "http://example.com/a?b=1", "http://localhost:8080/coll/20130601120000/http://example.com/a?b=1"},
		{"http://localhost:8080/coll", "20130601120000", "http://example.com/", "http://localhost:8080/coll/20130601120000/http://example.com/"},
		{"", "20130601120000", "http://example.com/", ""},
	} {
		if got := report.WaybackURL(c.base, c.ts, c.url); got != c.want {
			t.Errorf("WaybackURL(%q, %q, %q) = %q, want %q", c.base, c.ts, c.url, got, c.want)
		}
	}
	p := &report.Page{Spec: report.Spec{Name: "n"}, Details: []report.Detail{{Name: "ctf", Top: []report.TopDocument{
		{Document: collection.Document{URL: "http://example.com/a?b=1&c=2", Timestamp: "20130601120000"},
			ReplayURL: report.WaybackURL("http://localhost:8080/coll/", "20130601120000", "http://example.com/a?b=1&c=2")},
		{Document: collection.Document{URL: "http://example.com/nolink", Timestamp: "20130601120000"}},
	}}}}
	var buf bytes.Buffer
	if err := report.Render(&buf, p); err != nil {
		t.Fatal(err)
	}
	s := buf.String()
	if !strings.Contains(s, `<a href="http://localhost:8080/coll/20130601120000/http://example.com/a?b=1&amp;c=2"`) {
		t.Errorf("no replay link in:\n%s", s)
	}
	if strings.Contains(s, `<a href="http://localhost:8080/coll/20130601120000/http://example.com/nolink"`) || !strings.Contains(s, `<td class="url">http://example.com/nolink</td>`) {
		t.Error("a document without a replay URL got a link")
	}
}

// TestRowsCrawlAndRelevanceOrder: a run's listed documents render in crawl
// order (round, then rank), each row carrying its position by relevance
// (ties by topic_r, then crawl order) and the two mark buttons.
func TestRowsCrawlAndRelevanceOrder(t *testing.T) {
	doc := func(url string, round, rank int, relevance, topicR float64) report.TopDocument {
		return report.TopDocument{Document: collection.Document{URL: url, Round: round, Rank: rank, Relevance: relevance, TopicR: topicR}}
	}
	// As evaluate lists them: by topic_r.
	d := report.Detail{Name: "ctf", Top: []report.TopDocument{
		doc("http://a/r2-1", 2, 1, 0.5, 0.9),
		doc("http://a/r1-3", 1, 3, 0.7, 0.8),
		doc("http://a/r0-1", 0, 1, 0.5, 0.7),
		doc("http://a/r1-1", 1, 1, 0.5, 0.7),
	}}
	type pos struct {
		url           string
		crawl, ranked int
	}
	want := []pos{{"http://a/r0-1", 1, 3}, {"http://a/r1-1", 2, 4}, {"http://a/r1-3", 3, 1}, {"http://a/r2-1", 4, 2}}
	rows := d.Rows()
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for i, r := range rows {
		if got := (pos{r.URL, r.Crawl, r.Ranked}); got != want[i] {
			t.Errorf("row %d: %+v, want %+v", i, got, want[i])
		}
	}
	var buf bytes.Buffer
	if err := report.Render(&buf, &report.Page{Spec: report.Spec{Name: "n"}, Details: []report.Detail{d}}); err != nil {
		t.Fatal(err)
	}
	got := regexp.MustCompile(`<tr data-url="([^"]+)" data-crawl="(\d+)" data-ranked="(\d+)">`).FindAllStringSubmatch(buf.String(), -1)
	if len(got) != len(want) {
		t.Fatalf("%d document rows rendered, want %d", len(got), len(want))
	}
	for i, m := range got {
		if w := want[i]; m[1] != w.url || m[2] != fmt.Sprint(w.crawl) || m[3] != fmt.Sprint(w.ranked) {
			t.Errorf("rendered row %d: %v, want %+v", i, m[1:], w)
		}
	}
	if n := strings.Count(buf.String(), `<button type="button" class="mark" data-grade="1"`); n != len(want) {
		t.Errorf("%d relevant buttons, want one a row", n)
	}
	if n := strings.Count(buf.String(), `<button type="button" class="mark" data-grade="0"`); n != len(want) {
		t.Errorf("%d not-relevant buttons, want one a row", n)
	}
}
