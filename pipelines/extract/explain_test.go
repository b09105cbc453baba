package extract

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recrawl/recrawl/internal/archive"
	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/testkit/sharedtest"
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
	f := archive.NewFetcher([]string{a.WARCDir})
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
		"--capture_time", d.Timestamp, "--content_type", rec.HTTP.Header.Get("Content-Type"), "--index", a.IndexSpec()}
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
		t.Errorf("explain without --capture_time succeeded: %s", r)
	}
}

// explainPage is a German news page about a flood, for explain without an
// index.
const explainPage = `<!DOCTYPE html><html lang="de"><head><meta charset="utf-8"><title>Hochwasser an der Elbe</title>
<meta property="article:published_time" content="2013-06-04T23:30:00+02:00"></head><body><article><h1>Hochwasser an der Elbe</h1>
<p>Das Hochwasser an der Elbe steigt weiter. In Dresden wurden Stadtteile evakuiert, die Feuerwehr und das Technische Hilfswerk
sichern die Deiche mit Sandsäcken. Die Bundesregierung hat Hilfe für die Opfer der Flut zugesagt.</p>
<p>Auch in Bayern und Thüringen sind viele Orte überflutet; der Pegel in Passau erreichte den höchsten Stand seit 500 Jahren.</p>
</article></body></html>`

// TestExplainOriginalSpecsWithoutIndex: explain works on every original
// specification of ../shared/specs/archive-recrawling without an index: it
// scores with the specs' referenceVectors as given, says in one line that
// normalisation is off, and the output shows it.
func TestExplainOriginalSpecsWithoutIndex(t *testing.T) {
	dir := sharedtest.Path(t, "specs/archive-recrawling")
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 32 {
		t.Fatalf("%s: %d specifications, want the 32 originals", dir, len(files))
	}
	html := filepath.Join(t.TempDir(), "page.html")
	if err := os.WriteFile(html, []byte(explainPage), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		r := mustRun(t, nil, "explain", "--spec", f, "--html", html, "--url", "http://www.example.de/2013/06/05/hochwasser.html",
			"--capture_time", "20130606120000")
		var ex Explanation
		if err := json.Unmarshal([]byte(r.stdout), &ex); err != nil {
			t.Fatalf("%s: output is not the Explanation JSON: %v\n%s", filepath.Base(f), err, r.stdout)
		}
		if !strings.HasPrefix(ex.Normalization, "off: ") || ex.Normalizer != 1 {
			t.Errorf("%s: normalization %q, normalizer %v: want off and 1", filepath.Base(f), ex.Normalization, ex.Normalizer)
		}
		if n := strings.Count(r.stderr, "explain: normalisation off: "); n != 1 || !strings.Contains(r.stderr, "given by URL cannot be read without --index") {
			t.Errorf("%s: stderr %q: want one line saying normalisation is off and why", filepath.Base(f), r.stderr)
		}
		if ex.TopicR != math.Min(1, ex.Cosine) || ex.Language != "de" || ex.DocumentTime != "2013-06-04T21:30:00Z" || ex.DocumentDate != "2013-06-04" {
			t.Errorf("%s: topic_r %v cosine %v language %s time %s date %s: want raw cosine, de, 2013-06-04T21:30:00Z, 2013-06-04",
				filepath.Base(f), ex.TopicR, ex.Cosine, ex.Language, ex.DocumentTime, ex.DocumentDate)
		}
		if base := filepath.Base(f); base == "flood.json" && ex.Cosine <= 0 {
			t.Errorf("flood.json: cosine %v for a flood page: want the reference vector to match", ex.Cosine)
		}
	}
}

// TestExplainTextReferenceWithoutSeeds: a project-format spec whose only
// reference documents are texts and that has no seeds explains a page, with
// normalisation on (the texts can be read: the normaliser, their mean cosine
// to their sum, is below 1 and raises TopicR above the cosine).
func TestExplainTextReferenceWithoutSeeds(t *testing.T) {
	tmp := t.TempDir()
	spec := filepath.Join(tmp, "flood.yaml")
	if err := os.WriteFile(spec, []byte(`name: flood-text
reference_documents:
  - language: de
    text: Hochwasser an Elbe und Donau, Deiche brechen, Dresden und Passau überflutet, Evakuierung, Sandsäcke, Pegel, Flut.
  - language: de
    text: Die Flut in Sachsen und Bayern, Feuerwehr und Technisches Hilfswerk im Einsatz, Hilfe für die Opfer des Hochwassers.
event:
  start: 2013-05-30
  end: 2013-06-20
lead_time: P7D
cooldown_time: P30D
`), 0o644); err != nil {
		t.Fatal(err)
	}
	html := filepath.Join(tmp, "page.html")
	if err := os.WriteFile(html, []byte(explainPage), 0o644); err != nil {
		t.Fatal(err)
	}
	// The old spelling --capture-time still works (a hidden alias), with a warning.
	r := mustRun(t, nil, "explain", "--spec", spec, "--html", html, "--url", "http://www.example.de/hochwasser.html", "--capture-time", "20130606120000")
	if !strings.Contains(r.stderr, "--capture-time is deprecated: use --capture_time") {
		t.Errorf("--capture-time: no deprecation warning on stderr: %q", r.stderr)
	}
	var ex Explanation
	if err := json.Unmarshal([]byte(r.stdout), &ex); err != nil {
		t.Fatalf("output is not the Explanation JSON: %v\n%s", err, r.stdout)
	}
	if ex.Normalization != "on" || ex.Cosine <= 0 || ex.Normalizer >= 1 || ex.TopicR <= ex.Cosine || strings.Contains(r.stderr, "normalisation off") {
		t.Errorf("normalization %q cosine %v normalizer %v topic_r %v stderr %q: want on, a positive cosine normalised upwards, no note",
			ex.Normalization, ex.Cosine, ex.Normalizer, ex.TopicR, r.stderr)
	}
}
