package replaytest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recrawl/recrawl/internal/evaluate"
	"github.com/recrawl/recrawl/internal/evaluate/evaltest"
	"github.com/recrawl/recrawl/internal/replay"
	"github.com/recrawl/recrawl/internal/wacz"
)

// TestReportLabels is the researcher labelling a collection: eval writes
// report.html for a run with a collection.wacz, "recrawl serve" serves it,
// and in Chromium a mouse click on "relevant" of one document and on "not
// relevant" of another writes exactly those two lines to labels.tsv in the
// report folder, which evaluate.ReadLabels reads; after a reload the page
// shows both marks, and a click on the active mark clears it. The toggle
// orders the documents by relevance. Opened as a file, the same clicks
// are kept in the browser and offered as a labels.tsv download.
//
// About 10 s on 2 busy cores, most of it Chromium's start and its four page
// loads; one run of 30 documents keeps eval and the WACZ small.
func TestReportLabels(t *testing.T) {
	viewer := ReplayWebPageDir(t)
	Chromium(t)
	base := t.TempDir()
	run := filepath.Join(base, "out_ctf")
	docs := evaltest.WriteRun(t, run, evaltest.RunSpec{Strategy: "ctf", Docs: 30, WARC: true, URLsConsidered: 60, Seed: 7, OrderSeed: 1, Focus: 0.5})
	if err := wacz.Package(run, wacz.Options{Title: "ctf", Created: time.Date(2013, 6, 1, 0, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	rep := filepath.Join(base, "report")
	ctx, b, p := serveReportForLabels(t, viewer, run, rep)
	urls := rowURLs(t, ctx, p)
	// The run's 8 documents of highest topic_r and its 8 of highest
	// relevance, in crawl order.
	var listed []string
	for _, d := range evaluate.ReportDocuments(docs, 8) {
		listed = append(listed, d.URL)
	}
	if !slices.Equal(urls, listed) {
		t.Fatalf("documents listed %v, want %v", urls, listed)
	}
	relevant, notRelevant := urls[0], urls[3]
	click(t, ctx, p, relevant, "1")
	waitStatus(t, ctx, p, "Saved in")
	click(t, ctx, p, notRelevant, "0")
	waitStatus(t, ctx, p, notRelevant+" not relevant")

	path := filepath.Join(rep, "labels.tsv")
	want := fmt.Sprintf("url\tevent\tgrade\n%s\t-\t1\n%s\t-\t0\n", relevant, notRelevant)
	if got, err := os.ReadFile(path); err != nil || string(got) != want {
		t.Fatalf("labels file: %q (%v), want %q", got, err, want)
	}
	labels, err := evaluate.ReadLabels(path, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(labels.Items) != 2 || labels.Relevant() != 1 || labels.Items[0].URL != relevant || labels.Items[0].Grade != 1 ||
		labels.Items[1].URL != notRelevant || labels.Items[1].Grade != 0 {
		t.Errorf("ReadLabels: %+v", labels.Items)
	}

	// The marks survive a reload: the page reads them from the server.
	if err := p.Eval(ctx, `location.reload()`, nil); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, ctx, p, "Marks are written to")
	if got := pressed(t, ctx, p); len(got) != 2 || got[relevant] != "1" || got[notRelevant] != "0" {
		t.Errorf("marks shown after a reload: %v, want %s relevant and %s not relevant", got, relevant, notRelevant)
	}
	// A click on the active mark clears it, on the page and in the file.
	click(t, ctx, p, notRelevant, "0")
	waitStatus(t, ctx, p, notRelevant+" unmarked")
	if got, _ := os.ReadFile(path); string(got) != fmt.Sprintf("url\tevent\tgrade\n%s\t-\t1\n", relevant) {
		t.Errorf("labels file after clearing: %q", got)
	}

	// By relevance: the rows follow the run's relevance score.
	if err := p.Eval(ctx, `document.querySelector("input[name=order][value=ranked]").click()`, nil); err != nil {
		t.Fatal(err)
	}
	var ranked []int
	if err := p.Eval(ctx, `[...document.querySelectorAll("table.top tr[data-url]")].map(tr => +tr.dataset.ranked)`, &ranked); err != nil {
		t.Fatal(err)
	}
	for i, r := range ranked {
		if r != i+1 {
			t.Fatalf("rows by relevance in the order %v", ranked)
		}
	}

	// Opened as a file: the marks stay in the browser and download.
	fp, err := b.NewPage(ctx, "file://"+filepath.Join(rep, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	defer fp.Close(context.Background())
	waitStatus(t, ctx, fp, "not served by recrawl serve")
	click(t, ctx, fp, notRelevant, "0")
	click(t, ctx, fp, relevant, "1")
	// The status line reads the same before and after the reload: a
	// mark on the old document tells them apart.
	if err := fp.Eval(ctx, `window.beforeReload = true; location.reload()`, nil); err != nil {
		t.Fatal(err)
	}
	waitReloaded(t, ctx, fp)
	waitStatus(t, ctx, fp, "not served by recrawl serve")
	if got := pressed(t, ctx, fp); len(got) != 2 || got[relevant] != "1" || got[notRelevant] != "0" {
		t.Errorf("file page: marks shown after a reload: %v", got)
	}
	var tsv string
	if err := fp.Eval(ctx, `(async () => {
	  const a = document.getElementById("labels-download");
	  if (a.hidden || a.getAttribute("download") !== "labels.tsv") return "no download link";
	  return await (await fetch(a.href)).text();
	})()`, &tsv); err != nil {
		t.Fatal(err)
	}
	first, second := relevant, notRelevant
	if second < first {
		first, second = second, first
	}
	wantTSV := fmt.Sprintf("url\tevent\tgrade\n%s\t-\t%s\n%s\t-\t%s\n", first, grade(first, relevant), second, grade(second, relevant))
	if tsv != wantTSV {
		t.Errorf("file page: downloaded %q, want %q", tsv, wantTSV)
	}
	if got, _ := os.ReadFile(path); string(got) != fmt.Sprintf("url\tevent\tgrade\n%s\t-\t1\n", relevant) {
		t.Errorf("the file page changed the served labels file: %q", got)
	}
}

// serveReportForLabels makes the report of the run folder run in rep
// (eval --top 8), serves it as recrawl serve does, with its labels file,
// and opens it in Chromium once the page says where the marks go.
func serveReportForLabels(t *testing.T, viewer, run, rep string) (context.Context, *Browser, *Page) {
	t.Helper()
	if err := evaluate.EvalCommand(context.Background(), []string{"--runs", run, "--report", rep, "--top", "8"}, nil); err != nil {
		t.Fatal(err)
	}
	colls, err := replay.ReportCollections(rep)
	if err != nil {
		t.Fatal(err)
	}
	labelsOpts, err := replay.ReportLabels(rep, "", "")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := replay.Start(replay.Options{ViewerDir: viewer, ReportDir: rep, WACZ: colls, Labels: labelsOpts})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	ctx, b, p := browse(t, srv.URL+"/report.html", "", 60*time.Second)
	waitStatus(t, ctx, p, "Marks are written to")
	return ctx, b, p
}

func grade(url, relevant string) string {
	if url == relevant {
		return "1"
	}
	return "0"
}

// waitStatus waits until the page's labels status line contains text.
func waitStatus(t *testing.T, ctx context.Context, p *Page, text string) {
	t.Helper()
	var status string
	for {
		err := p.Eval(ctx, `(() => { const s = document.getElementById("labels-status"); return s ? s.textContent : ""; })()`, &status)
		if err == nil && strings.Contains(status, text) {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the labels status line says %q (%v), not %q", status, err, text)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// waitReloaded waits until p shows a new document: one without the
// window.beforeReload mark set on the old one, fully loaded.
func waitReloaded(t *testing.T, ctx context.Context, p *Page) {
	t.Helper()
	for {
		var reloaded bool
		err := p.Eval(ctx, `window.beforeReload === undefined && document.readyState === "complete"`, &reloaded)
		if err == nil && reloaded {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the page did not reload (%v)", err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// rowURLs returns the documents of the page's tables, in page order.
func rowURLs(t *testing.T, ctx context.Context, p *Page) []string {
	t.Helper()
	var urls []string
	if err := p.Eval(ctx, `[...document.querySelectorAll("table.top tr[data-url]")].map(tr => tr.dataset.url)`, &urls); err != nil {
		t.Fatal(err)
	}
	return urls
}

// click presses and releases the mouse on the mark button of grade g in
// the row of url, as a researcher does.
func click(t *testing.T, ctx context.Context, p *Page, url, g string) {
	t.Helper()
	var at struct{ X, Y float64 }
	err := p.Eval(ctx, fmt.Sprintf(`(() => {
	  const tr = [...document.querySelectorAll("table.top tr[data-url]")].find(tr => tr.dataset.url === %q);
	  const b = tr.querySelector("button.mark[data-grade='%s']");
	  b.scrollIntoView({block: "center"});
	  const r = b.getBoundingClientRect();
	  return {X: r.x + r.width / 2, Y: r.y + r.height / 2};
	})()`, url, g), &at)
	if err != nil {
		t.Fatal(err)
	}
	for _, typ := range []string{"mousePressed", "mouseReleased"} {
		if err := p.b.Call(ctx, p.Session, "Input.dispatchMouseEvent",
			map[string]any{"type": typ, "x": at.X, "y": at.Y, "button": "left", "clickCount": 1}, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// pressed returns the grade of the pressed mark button of each row that
// has one.
func pressed(t *testing.T, ctx context.Context, p *Page) map[string]string {
	t.Helper()
	out := map[string]string{}
	if err := p.Eval(ctx, `Object.fromEntries([...document.querySelectorAll("table.top tr[data-url]")].flatMap(tr =>
	  [...tr.querySelectorAll("button.mark[aria-pressed=true]")].map(b => [tr.dataset.url, b.dataset.grade])))`, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
