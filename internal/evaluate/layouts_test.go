package evaluate

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/recrawl/recrawl/internal/collection"
)

// writeEvaluation writes an evaluation.json with an options comparison of
// the rows given as name → (P@R, R@200, per-template P@R).
func writeEvaluation(t *testing.T, dir, event string, rows []optRowJSON) string {
	t.Helper()
	path := filepath.Join(dir, event+".json")
	b, err := json.Marshal(map[string]any{"options": optSummary{Spec: event, R: 100, N: 200, Rows: rows}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func row(name string, p, r float64, cells ...TemplateScore) optRowJSON {
	return optRowJSON{Name: name, PrecisionAtR: p, RecallAtN: r, ByTemplate: cells}
}

// ts is a template's cell of a row: R relevant labels, precision p at R.
func ts(template string, r int, p float64) TemplateScore {
	return TemplateScore{Template: template, R: r, PrecisionAtR: p}
}

func TestSummarizeLayouts(t *testing.T) {
	dir := t.TempDir()
	// Event b: default passes everywhere. Event a: its "aside" cell is
	// below 2× unfocused, its "tiny" cell (R 2) below ctf; the event
	// itself below ctf.
	a := writeEvaluation(t, dir, "a", []optRowJSON{
		row("ctf", 0.5, 0.5, ts("aside", 20, 0.1), ts("tiny", 2, 0.5)),
		row("unfocused", 0.1, 0.2, ts("aside", 20, 0.3), ts("tiny", 2, 0)),
		row("default", 0.4, 0.6, ts("aside", 20, 0.5), ts("tiny", 2, 0)),
		row("oracle", 0.8, 0.8, ts("aside", 20, 1), ts("tiny", 2, 1)),
	})
	b := writeEvaluation(t, dir, "b", []optRowJSON{
		row("ctf", 0.2, 0.3, ts("aside", 10, 0.1), ts("tiny", 3, 0)),
		row("unfocused", 0.1, 0.1, ts("aside", 10, 0.1), ts("tiny", 3, 0)),
		row("default", 0.6, 0.7, ts("aside", 10, 0.5), ts("tiny", 3, 0.4)),
		row("oracle", 0.9, 0.9, ts("aside", 10, 0.5), ts("tiny", 3, 1)),
	})
	var runs []LayoutRun
	for _, p := range []string{b, a} { // any order: events are sorted
		r, err := ReadLayoutRun("templates", p)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	s, err := SummarizeLayouts(runs)
	if err != nil {
		t.Fatal(err)
	}
	f := s.Families[0]
	if !slices.Equal(f.Events, []string{"a", "b"}) || !slices.Equal(f.Templates, []string{"aside", "tiny"}) || len(f.Cells) != 4 {
		t.Fatalf("events %v templates %v cells %d", f.Events, f.Templates, len(f.Cells))
	}
	def := f.Variants[2]
	near := func(x, y float64) bool { return math.Abs(x-y) < 1e-9 }
	if def.Name != "default" || !near(def.MeanP, 0.5) || !near(def.MeanR, 0.65) || !near(def.VsOracle, 0.5/0.85) {
		t.Errorf("default %+v", def)
	}
	// Cells with R ≥ 10: a/aside 0.5/1, b/aside 0.5/0.5.
	if !near(def.CellsVsOracle, 0.75) {
		t.Errorf("cells vs oracle %v, want 0.75", def.CellsVsOracle)
	}
	if !slices.Equal(def.CellsBelow2xUnfocused, []string{"aside/a"}) || !slices.Equal(def.CellsBelowPaper, []string{"tiny/a"}) ||
		!slices.Equal(def.EventsBelowPaper, []string{"a"}) {
		t.Errorf("checks: 2x %v, paper %v, events %v", def.CellsBelow2xUnfocused, def.CellsBelowPaper, def.EventsBelowPaper)
	}
	if f.Variants[1].CellsBelow2xUnfocused != nil { // baselines are not checked
		t.Error("unfocused checked against itself")
	}
	checkWritten(t, s,
		"| default | 0.400 (0.600) | 0.600 (0.700) | 0.500 (0.650) | 0.59 |",
		"| aside | a | 20 | 0.100 | 0.300 | 0.500 | 1.000 | default -/ok |",
		"- default: mean P@R 0.500 = 0.59 of the oracle (0.75 over the cells with R_t ≥ 10); below 2× unfocused in 1 of 4 cells (aside/a); below ctf in 1 cells (tiny/a); below ctf on 1 of 2 events (a)",
	)
	// Events with different --options cannot be summarised together.
	c := writeEvaluation(t, dir, "c", []optRowJSON{row("ctf", 0.5, 0.5), row("unfocused", 0.1, 0.1)})
	rc, err := ReadLayoutRun("templates", c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := SummarizeLayouts(append(runs, rc)); err == nil || !strings.Contains(err.Error(), `no row "default"`) {
		t.Errorf("mismatched rows: %v", err)
	}
	// A file without an options comparison is an error naming it.
	os.WriteFile(filepath.Join(dir, "plain.json"), []byte(`{"runs":[]}`), 0o644)
	if _, err := ReadLayoutRun("x", filepath.Join(dir, "plain.json")); err == nil || !strings.Contains(err.Error(), "plain.json") {
		t.Errorf("plain evaluation: %v", err)
	}
}

// TestSummarizeLayoutsListings: with the unfocused+listings row (listing
// pages counted) every cell is checked against
// 2× both baselines, each reported on its own; the row "unfocused" keeps
// its own check.
func TestSummarizeLayoutsListings(t *testing.T) {
	dir := t.TempDir()
	// aside/a fails 2× unfocused (0.5 < 0.6) but passes 2× unfocused+listings
	// (0.5 ≥ 0.4); teasers/a passes 2× unfocused (0.5 ≥ 0.4)
	// but not 2× unfocused+listings (0.5 < 0.6): the checks are kept
	// apart, whichever baseline is the larger.
	a := writeEvaluation(t, dir, "a", []optRowJSON{
		row("ctf", 0.1, 0.1, ts("aside", 20, 0.1), ts("teasers", 20, 0.1)),
		row("unfocused", 0.2, 0.2, ts("aside", 20, 0.3), ts("teasers", 20, 0.2)),
		row(UnfocusedListingsVariant, 0.1, 0.2, ts("aside", 20, 0.2), ts("teasers", 20, 0.3)),
		row("default", 0.5, 0.6, ts("aside", 20, 0.5), ts("teasers", 20, 0.5)),
		row("oracle", 0.9, 0.9, ts("aside", 20, 1), ts("teasers", 20, 1)),
	})
	r, err := ReadLayoutRun("templates", a)
	if err != nil {
		t.Fatal(err)
	}
	s, err := SummarizeLayouts([]LayoutRun{r})
	if err != nil {
		t.Fatal(err)
	}
	f := s.Families[0]
	if !f.Listings {
		t.Fatal("the unfocused+listings row was not recognised")
	}
	var def VariantSummary
	for _, v := range f.Variants {
		if v.Name == UnfocusedListingsVariant && (v.CellsBelow2xUnfocused != nil || v.CellsBelow2xUnfocusedListings != nil) {
			t.Errorf("the baseline %s was checked: %+v", v.Name, v)
		}
		if v.Name == "default" {
			def = v
		}
	}
	if !slices.Equal(def.CellsBelow2xUnfocused, []string{"aside/a"}) || !slices.Equal(def.CellsBelow2xUnfocusedListings, []string{"teasers/a"}) {
		t.Errorf("2× unfocused %v, 2× unfocused+listings %v", def.CellsBelow2xUnfocused, def.CellsBelow2xUnfocusedListings)
	}
	checkWritten(t, s,
		"≥ 2× unfocused, ≥ 2× unfocused+listings (listing pages counted), ≥ ctf",
		"| aside | a | 20 | 0.100 | 0.300 | 0.200 | 0.500 | 1.000 | default -/ok/ok |",
		"| teasers | a | 20 | 0.100 | 0.200 | 0.300 | 0.500 | 1.000 | default ok/-/ok |",
		"below 2× unfocused in 1 of 2 cells (aside/a); below 2× unfocused+listings in 1 of 2 cells (teasers/a); below ctf in 0 cells",
	)
	// Without the row the output keeps its one 2× check (TestSummarizeLayouts).
}

// checkWritten writes the summary and checks that its output holds each of wants.
func checkWritten(t *testing.T, s *LayoutSummary, wants ...string) {
	t.Helper()
	var out strings.Builder
	if err := s.Write(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range wants {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestSummarizeResearcher: the simulated researcher's rows are compared
// with the default and the oracle, in crawl order and in the ranked view,
// and an event below the default by more than LabelNoise is named.
func TestSummarizeResearcher(t *testing.T) {
	dir := t.TempDir()
	ranked := func(r optRowJSON, p float64) optRowJSON {
		r.RankedPrecisionAtR, r.RankedRecallAtN = p, r.RecallAtN
		return r
	}
	a := writeEvaluation(t, dir, "a", []optRowJSON{
		row("ctf", 0.2, 0.2), row("unfocused", 0.1, 0.1),
		ranked(row("default", 0.6, 0.7), 0.65), ranked(row("labels-20@100", 0.7, 0.75), 0.72), ranked(row("oracle", 0.8, 0.8), 0.8),
	})
	b := writeEvaluation(t, dir, "b", []optRowJSON{
		row("ctf", 0.2, 0.2), row("unfocused", 0.1, 0.1),
		ranked(row("default", 0.6, 0.7), 0.6), ranked(row("labels-20@100", 0.55, 0.7), 0.61), ranked(row("oracle", 0.8, 0.8), 0.8),
	})
	var runs []LayoutRun
	for _, p := range []string{a, b} {
		r, err := ReadLayoutRun("classic", p)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	s, err := SummarizeLayouts(runs)
	if err != nil {
		t.Fatal(err)
	}
	v := s.Families[0].Variants[3]
	if v.Name != "labels-20@100" || math.Abs(v.VsDefault-0.625/0.6) > 1e-9 || math.Abs(v.VsOracle-0.625/0.8) > 1e-9 ||
		!slices.Equal(v.EventsBelowDefault, []string{"b"}) || math.Abs(v.RankedMeanP-0.665) > 1e-9 {
		t.Errorf("researcher row %+v: want 1.04 of the default, 0.78 of the oracle, below the default on b, ranked mean 0.665", v)
	}
	var out strings.Builder
	if err := s.Write(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Simulated researcher", "| labels-20@100 | crawl | 0.700 (0.750) | 0.550 (0.700) | 0.625 (0.725) | 1.04 | 0.78 | b |",
		"| labels-20@100 | ranked | 0.720 (0.750) | 0.610 (0.700) | 0.665 (0.725) | 1.06 | 0.83 |  |"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
}

// TestResearcherLabels: the simulated researcher labels the documents of
// highest relevance (ties in collection order) with their true grades, 0
// for a page without a label.
func TestResearcherLabels(t *testing.T) {
	labels, err := NewLabels([]Label{{URL: "http://a.example/1", Grade: 2}, {URL: "http://a.example/3", Grade: 0}})
	if err != nil {
		t.Fatal(err)
	}
	docs := []collection.Document{
		{URL: "http://a.example/1", SURT: "example,a)/1", Relevance: 0.5},
		{URL: "http://a.example/2", SURT: "example,a)/2", Relevance: 0.9},
		{URL: "http://a.example/3", SURT: "example,a)/3", Relevance: 0.5},
		{URL: "http://a.example/4", SURT: "example,a)/4", Relevance: 0.1},
	}
	path := filepath.Join(t.TempDir(), ResearcherLabelsFile)
	pos, neg, err := writeResearcherLabels(context.Background(), path, researcherPicks(docs, PickTop, 3), labels)
	if err != nil || pos != 1 || neg != 2 {
		t.Fatalf("labels written: %d relevant, %d not, %v; want 1 and 2", pos, neg, err)
	}
	data, _ := os.ReadFile(path)
	if want := "url\tgrade\nhttp://a.example/2\t0\nhttp://a.example/1\t2\nhttp://a.example/3\t0\n"; string(data) != want {
		t.Errorf("labels file:\n%s\nwant:\n%s", data, want)
	}
	read, err := ReadLabels(path, "")
	if err != nil || len(read.Items) != 3 {
		t.Errorf("the file does not read back as labels: %v, %v", read, err)
	}
}

// TestResearcherPicks: labels-L@N picks the top of the ranking by
// relevance, labels-low-L@N its bottom, labels-spread-L@N the middle of
// each of L equal slices of it; each has its own row name.
func TestResearcherPicks(t *testing.T) {
	var docs []collection.Document
	for i := range 10 {
		// Collection order 0..9, relevance rank 9..0 (document 9 first).
		docs = append(docs, collection.Document{URL: fmt.Sprintf("http://a.example/%d", i), Relevance: float64(i) / 10})
	}
	urls := func(ds []collection.Document) string {
		var xs []string
		for _, d := range ds {
			xs = append(xs, strings.TrimPrefix(d.URL, "http://a.example/"))
		}
		return strings.Join(xs, ",")
	}
	for _, c := range []struct {
		pick      ResearcherPick
		n         int
		want, row string
	}{
		{PickTop, 3, "9,8,7", "labels-3@50"},
		{PickLow, 3, "2,1,0", "labels-low-3@50"},
		{PickSpread, 3, "8,4,1", "labels-spread-3@50"},
		{PickSpread, 5, "8,6,4,2,0", "labels-spread-5@50"},
		{PickLow, 20, "9,8,7,6,5,4,3,2,1,0", "labels-low-20@50"},
	} {
		if got := urls(researcherPicks(docs, c.pick, c.n)); got != c.want {
			t.Errorf("pick %q of %d: documents %s, want %s", c.pick, c.n, got, c.want)
		}
		if got := researcherVariant(Researcher{After: 50, Labels: c.n, Pick: c.pick}).Name; got != c.row {
			t.Errorf("pick %q of %d: row %s, want %s", c.pick, c.n, got, c.row)
		}
	}
	for _, name := range []string{"labels-low-20@100", "labels-spread-20@100"} {
		if v, ok := FocusVariantByName(name); !ok || v.Researcher.After != 100 || v.Researcher.Labels != 20 {
			t.Errorf("variant %s: %+v, %v", name, v.Researcher, ok)
		}
	}
}

// TestResearcherRowResumes: a researcher row stopped during its refresh
// (the labels file written) goes on with the refresh when run again,
// instead of running the default to N documents into the refreshed work
// directory, which refuses it.
func TestResearcherRowResumes(t *testing.T) {
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, ResearcherLabelsFile), []byte("url\tgrade\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var calls []Overrides
	extract := func(_ context.Context, _ string, ov Overrides, _ string) error {
		calls = append(calls, ov)
		return nil
	}
	v := researcherVariant(Researcher{Labels: 20, After: 100})
	if err := runResearcher(context.Background(), extract, "spec.yaml", nil, out, v); err != nil {
		t.Fatal(err)
	}
	if len(calls) != 1 || !calls[0].Refresh || calls[0].LabelsFile != filepath.Join(out, ResearcherLabelsFile) {
		t.Errorf("extractions run: %+v; want the refresh with the labels file only", calls)
	}
}
