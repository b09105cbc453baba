package replaytest

import (
	"bufio"
	"context"
	neturl "net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/collection"
	"github.com/recrawl/recrawl/internal/evaluate"
	"github.com/recrawl/recrawl/internal/evaluate/evaltest"
	"github.com/recrawl/recrawl/internal/records"
	"github.com/recrawl/recrawl/internal/replay"
	"github.com/recrawl/recrawl/internal/wacz"
)

// TestReportOpensReplay is the path from a score to the archived page:
// eval without --replay_base writes report.html for two runs with a
// collection.wacz each; "extract serve" (replay.Command's server) serves
// it; in Chromium, every top document of both runs has a link, and the
// link of a document of the second run, resolved by the browser against
// the served report, replays that document from that run's WACZ in
// ReplayWeb.page with the archived title and text.
func TestReportOpensReplay(t *testing.T) {
	viewer := ReplayWebPageDir(t)
	Chromium(t)
	if replay.CollectionFile != wacz.FileName {
		t.Fatalf("replay.CollectionFile %q is not wacz.FileName %q", replay.CollectionFile, wacz.FileName)
	}
	base := t.TempDir()
	var runs []string
	docs := map[string][]collection.Document{}
	for i, strategy := range []string{"ctf", "cf"} {
		dir := filepath.Join(base, "out_"+strategy)
		docs[strategy] = evaltest.WriteRun(t, dir, evaltest.RunSpec{Strategy: strategy, Docs: 30, WARC: true,
			URLsConsidered: 60, Seed: 7, OrderSeed: uint64(i + 1), Focus: 0.5})
		if err := wacz.Package(dir, wacz.Options{Title: strategy, Created: time.Date(2013, 6, 1, 0, 0, 0, 0, time.UTC)}); err != nil {
			t.Fatal(err)
		}
		ValidateWACZ(t, filepath.Join(dir, wacz.FileName))
		runs = append(runs, dir)
	}
	rep := filepath.Join(base, "report")
	if err := evaluate.EvalCommand(context.Background(), []string{"--runs", strings.Join(runs, ","), "--report", rep, "--top", "5"}, nil); err != nil {
		t.Fatal(err)
	}
	colls, err := replay.ReportCollections(rep)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := replay.Start(replay.Options{ViewerDir: viewer, ReportDir: rep, WACZ: colls})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	logDir := t.TempDir()
	if d := os.Getenv("RECRAWL_REPLAY_DEBUG_DIR"); d != "" {
		logDir = d
	}
	// The report, as the server serves it at "/".
	ctx, b, p := browse(t, srv.URL+"/", filepath.Join(logDir, "serve-chromium.log"), 90*time.Second)
	var links map[string][]string
	for {
		err = p.Eval(ctx, `(() => {
		  if (document.readyState !== "complete" || !location.pathname.endsWith("/report.html")) return null;
		  const out = {};
		  for (const h of document.querySelectorAll("h3[id^=run-]")) {
		    const table = h.nextElementSibling;
		    out[h.id.slice(4)] = [...table.querySelectorAll("td.url a")].map(a => a.href);
		  }
		  return out;
		})()`, &links)
		if err != nil {
			t.Fatal(err)
		}
		if links != nil {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("the served report did not load")
		case <-time.After(200 * time.Millisecond):
		}
	}
	p.Close(ctx)
	for _, run := range []string{"ctf", "cf"} {
		if want := len(evaluate.ReportDocuments(docs[run], 5)); len(links[run]) != want {
			t.Fatalf("run %s: %d linked documents in the report, want %d: %v", run, len(links[run]), want, links)
		}
	}

	// The top document of the second run, opened through its link (the
	// report lists the documents in crawl order).
	top := evaluate.TopDocuments(docs["cf"], 5)[0]
	var link string
	for _, l := range links["cf"] {
		if u, err := neturl.Parse(l); err == nil && u.Query().Get("url") == top.URL {
			link = l
		}
	}
	if !strings.HasPrefix(link, srv.URL+"/view?") {
		t.Fatalf("link %s is not the served view page", link)
	}
	p, err = b.NewPage(ctx, link)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	got, err := p.WaitReplay(ctx)
	if err != nil {
		shot := filepath.Join(logDir, "serve-failed.png")
		sctx, scancel := context.WithTimeout(context.Background(), 20*time.Second)
		p.Screenshot(sctx, shot)
		scancel()
		t.Fatalf("%s: %v (Chromium's log and a screenshot in %s)", link, err, logDir)
	}
	rec := archivedRecord(t, runs[1], top)
	title, text, err := p.Expected(ctx, ArchivedHTML(rec))
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != title || got.Text != text || !strings.Contains(got.FrameURL, "mp_/"+top.URL) {
		t.Errorf("%s replays %q %q (%s), the archived record has %q %q (%s)", link, got.Title, got.Text, got.FrameURL, title, text, top.URL)
	}
	t.Logf("frames the service worker did not control yet (served /replay/): %d", srv.Stats(replay.ViewerIndexStat).Requests)
	if n := srv.Stats(replay.WACZName("cf")).Requests; n == 0 {
		t.Errorf("the viewer did not read cf's collection")
	}
	if n := srv.Stats(replay.WACZName("ctf")).Requests; n != 0 {
		t.Errorf("the viewer read ctf's collection (%d requests) for a document of cf", n)
	}
}

// archivedRecord reads a document's record from its run's collection,
// looked up in collection.cdxj by URL and timestamp.
func archivedRecord(t *testing.T, dir string, d collection.Document) *records.Record {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, collection.CDXJFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		c, err := cdxj.Parse(sc.Text())
		if err != nil {
			t.Fatal(err)
		}
		if c.URL == d.URL && c.Timestamp == d.Timestamp {
			w, err := os.Open(filepath.Join(dir, collection.WARCFile))
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			rec, err := records.ReadRecordAt(w, c.Offset, c.Length, collection.WARCFile)
			if err != nil {
				t.Fatal(err)
			}
			return rec
		}
	}
	t.Fatalf("%s %s is not in %s's index", d.URL, d.Timestamp, dir)
	return nil
}
