package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/extract"
)

// TestExplain: `extract explain` on an HTML page of the archive prints the
// Explanation JSON with the scores the extraction gave the same page, at
// most 20 top terms, and the same bytes on every run.
func TestExplain(t *testing.T) {
	a := fixture(t)
	var d doc
	for _, x := range readDocs(t, referenceRun(t, a)) {
		if !x.Revisit && x.ScoreReason == "" && x.TopicR > 0 && x.DocTimeSource != "capture" {
			d = x
			break
		}
	}
	if d.URL == "" {
		t.Fatal("no scored article in the reference run")
	}
	var c cdxj.Capture
	for _, l := range a.Lines {
		if x, err := cdxj.Parse(l); err == nil && at(x, d) {
			c = x
		}
	}
	f := extract.NewFetcher([]string{a.WARCDir})
	defer f.Close()
	rec, err := f.Read(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	html := filepath.Join(t.TempDir(), "page.html")
	if err := os.WriteFile(html, rec.Body, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"explain", "--spec", a.Spec(testEvent), "--html", html, "--url", d.URL,
		"--capture-time", d.Timestamp, "--content-type", rec.HTTP.Header.Get("Content-Type"), "--index", a.IndexSpec()}
	first := mustRun(t, nil, args...)
	if again := mustRun(t, nil, args...); again.stdout != first.stdout {
		t.Errorf("explain prints different output for the same page:\n%s\n---\n%s", first.stdout, again.stdout)
	}

	var ex Explanation
	if err := json.Unmarshal([]byte(first.stdout), &ex); err != nil {
		t.Fatalf("explain output is not the Explanation JSON: %v\n%s", err, first.stdout)
	}
	var fields map[string]any
	if err := json.Unmarshal([]byte(first.stdout), &fields); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"url", "language", "language_source", "document_time", "document_time_source", "temp_r",
		"topic_r", "ttr", "alpha", "strategy", "relevance", "cosine", "normalizer", "title", "main_text_chars", "outlinks", "top_terms"} {
		if _, ok := fields[k]; !ok {
			t.Errorf("explain output has no %q", k)
		}
	}
	// The extraction scored the same page: the same scores.
	near := func(x, y float64) bool { return math.Abs(x-y) < 1e-9 }
	if ex.URL != d.URL || ex.Language != d.Language || ex.DocumentTime != d.DocTime || ex.DocumentTimeFrom != d.DocTimeSource ||
		!near(ex.TopicR, d.TopicR) || !near(ex.TempR, d.TempR) || ex.Strategy != "ctf" || ex.Alpha != 0.5 {
		t.Errorf("explain says %s %s %s (%s) topic_r %v temp_r %v %s α=%v; the extraction: %s %s %s (%s) topic_r %v temp_r %v ctf α=0.5",
			ex.URL, ex.Language, ex.DocumentTime, ex.DocumentTimeFrom, ex.TopicR, ex.TempR, ex.Strategy, ex.Alpha,
			d.URL, d.Language, d.DocTime, d.DocTimeSource, d.TopicR, d.TempR)
	}
	if !near(ex.TTR, ex.Alpha*ex.TopicR+(1-ex.Alpha)*ex.TempR) || !near(ex.Relevance, ex.TTR) {
		t.Errorf("ttr %v, relevance %v: want α·topic_r + (1-α)·temp_r = %v", ex.TTR, ex.Relevance, ex.Alpha*ex.TopicR+(1-ex.Alpha)*ex.TempR)
	}
	if n := len(ex.Terms); n == 0 || n > 20 {
		t.Errorf("%d top terms, want 1 to 20", n)
	}
	for i, term := range ex.Terms {
		if term.Term == "" || term.Contribution <= 0 || i > 0 && term.Contribution > ex.Terms[i-1].Contribution {
			t.Errorf("top term %d: %+v (want positive contributions, largest first)", i, term)
		}
	}
	if ex.Title == "" || ex.MainTextChars == 0 || ex.Outlinks == 0 {
		t.Errorf("title %q, %d main text characters, %d outlinks: want a parsed article", ex.Title, ex.MainTextChars, ex.Outlinks)
	}

	// Without a required flag it fails and says which.
	if r := runBin(t, nil, "explain", "--spec", a.Spec(testEvent), "--html", html, "--url", d.URL); r.err == nil {
		t.Errorf("explain without --capture-time succeeded: %s", r)
	}
}
