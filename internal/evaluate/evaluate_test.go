package evaluate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recrawl/recrawl/internal/collection"
	"github.com/recrawl/recrawl/internal/evaluate"
	"github.com/recrawl/recrawl/internal/evaluate/evaltest"
)

func TestCurve(t *testing.T) {
	docs := []collection.Document{{TopicR: 0.5}, {TopicR: 0.25}, {TopicR: 1}}
	c := evaluate.AccumulatedRelevance(docs)
	want := evaluate.Curve{0.5, 0.75, 1.75}
	for i := range want {
		if c[i] != want[i] {
			t.Fatalf("curve %v, want %v", c, want)
		}
	}
	if c.At(0) != 0 || c.At(2) != 0.75 || c.At(10) != 1.75 || c.Final() != 1.75 {
		t.Errorf("At: %v %v %v", c.At(0), c.At(2), c.At(10))
	}
	if a := c.Area(); a != 3 {
		t.Errorf("area %v, want 3", a)
	}
	if a := c.AreaAt(4); a != 4.75 {
		t.Errorf("area at 4 %v, want 4.75 (the curve stays at its final value)", a)
	}
}

func TestReadRunErrors(t *testing.T) {
	dir := t.TempDir()
	evaltest.WriteRun(t, dir, evaltest.RunSpec{Strategy: "ctf", Docs: 5, URLsConsidered: 20})
	path := filepath.Join(dir, collection.DocumentsFile)
	orig, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(orig), "\n")
	for _, tc := range []struct {
		name, line, want string
	}{
		{"type", `{"url":"http://a/","timestamp":"20130101000000","topic_r":"high"}` + "\n", "documents.jsonl:3: field topic_r"},
		{"timestamp", `{"url":"http://a/","timestamp":"2013"}` + "\n", "documents.jsonl:3: field timestamp"},
		{"url", `{"timestamp":"20130101000000"}` + "\n", "documents.jsonl:3: field url"},
		{"syntax", `{"url":` + "\n", "documents.jsonl:3: invalid JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := strings.Join(lines[:2], "") + tc.line + strings.Join(lines[3:], "")
			os.WriteFile(path, []byte(bad), 0o644)
			_, err := evaluate.ReadRun(dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
	os.WriteFile(path, orig, 0o644)
	os.WriteFile(filepath.Join(dir, collection.RunFile), []byte(`{"strategy": 3}`), 0o644)
	if _, err := evaluate.ReadRun(dir); err == nil || !strings.Contains(err.Error(), "run.json: field strategy") {
		t.Errorf("run.json error %v", err)
	}
	os.Remove(filepath.Join(dir, collection.RunFile))
	if _, err := evaluate.ReadRun(dir); err == nil || !strings.Contains(err.Error(), "run.json") {
		t.Errorf("missing run.json error %v", err)
	}
}

func TestReadRunOptionalFiles(t *testing.T) {
	dir := t.TempDir()
	evaltest.WriteRun(t, dir, evaltest.RunSpec{Strategy: "cf", Docs: 8, Missing: 4, URLsConsidered: 30})
	r, err := evaluate.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r.Name != "cf" || len(r.Documents) != 8 || len(r.Missing) != 4 || len(r.Rounds) != 1 || !r.HasMissing {
		t.Fatalf("run %q: %d docs, %d missing, %d rounds", r.Name, len(r.Documents), len(r.Missing), len(r.Rounds))
	}
	if r.Spec.Name != "test-event" || r.Spec.LeadTime != "P7D" || len(r.Spec.Seeds) != 3 {
		t.Errorf("spec summary %+v", r.Spec)
	}
	os.Remove(filepath.Join(dir, collection.MissingFile))
	os.Remove(filepath.Join(dir, collection.RoundsFile))
	r, err = evaluate.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := evaluate.Evaluate([]*evaluate.Run{r}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Metrics[0].Missing != 4 {
		t.Errorf("missing from totals: %d, want 4", ev.Metrics[0].Missing)
	}
}

func TestKeywordList(t *testing.T) {
	for raw, want := range map[string]string{
		`["a","b"]`:                  "a|b",
		`{"de":["x"],"*":["y","z"]}`: "all languages: y, z|de: x",
		`null`:                       "",
	} {
		s := evaluate.SpecSummary{Keywords: json.RawMessage(raw)}
		if got := strings.Join(s.KeywordList(), "|"); got != want {
			t.Errorf("%s: %q, want %q", raw, got, want)
		}
	}
}

func readRuns(t *testing.T, dirs ...string) []*evaluate.Run {
	t.Helper()
	var runs []*evaluate.Run
	for _, d := range dirs {
		r, err := evaluate.ReadRun(d)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	return runs
}

func TestEvaluateFocusedBeatsUnfocused(t *testing.T) {
	root := t.TempDir()
	good, bad := filepath.Join(root, "good"), filepath.Join(root, "bad")
	evaltest.WriteRun(t, good, evaltest.RunSpec{Strategy: "ctf", Docs: 300, Pool: 1000, Focus: 0.9, Seed: 1, OrderSeed: 2, URLsConsidered: 1500, Missing: 10})
	evaltest.WriteRun(t, bad, evaltest.RunSpec{Strategy: "unfocused", Docs: 200, Pool: 1000, Focus: 0, Seed: 1, OrderSeed: 3, URLsConsidered: 1000, Missing: 30})
	ev, err := evaluate.Evaluate(readRuns(t, good, bad), nil)
	if err != nil {
		t.Fatal(err)
	}
	g, b := ev.Metrics[0], ev.Metrics[1]
	if ev.CommonN != 200 || ev.Unfocused != 1 {
		t.Fatalf("common n %d, unfocused %d", ev.CommonN, ev.Unfocused)
	}
	if g.Accumulated.At(200) <= 2*b.Accumulated.At(200) || g.AreaCommon <= 2*b.AreaCommon {
		t.Errorf("focused run not clearly better: %v vs %v, area %v vs %v", g.Accumulated.At(200), b.Accumulated.At(200), g.AreaCommon, b.AreaCommon)
	}
	if g.RatioVsUnfocused != 1.5 || b.RatioVsUnfocused != 1 {
		t.Errorf("ratios %v %v, want 1.5 1", g.RatioVsUnfocused, b.RatioVsUnfocused)
	}
	if g.Missing != 10 || len(g.MissingByReason) != 3 || g.MissingByReason[0].Count != 4 || g.MissingByReason[0].Code != "not-in-index" {
		t.Errorf("missing %d by reason %v", g.Missing, g.MissingByReason)
	}
	// Without an unfocused run there is no ratio.
	ev2, _ := evaluate.Evaluate(readRuns(t, good), nil)
	if !math.IsNaN(ev2.Metrics[0].RatioVsUnfocused) {
		t.Errorf("ratio without unfocused run: %v", ev2.Metrics[0].RatioVsUnfocused)
	}
	if _, err := evaluate.Evaluate(readRuns(t, good, good), nil); err == nil {
		t.Error("duplicate run names accepted")
	}
}

func TestScoreLabelsByHand(t *testing.T) {
	l, err := evaluate.NewLabels([]evaluate.Label{
		{URL: "http://a.example/1", Grade: 2},
		{URL: "http://a.example/2", Grade: 1, Alias: "http://a.example/old2"},
		{URL: "http://a.example/3", Grade: 1},
		{URL: "http://a.example/4", Grade: 0},
	})
	if err != nil {
		t.Fatal(err)
	}
	docs := []collection.Document{
		{URL: "https://a.example/1"},   // relevant (scheme variant)
		{URL: "http://a.example/4"},    // judged not relevant
		{URL: "http://a.example/old2"}, // relevant through the alias
		{URL: "http://a.example/2"},    // the same label again: not counted twice
		{URL: "http://a.example/5"},    // unjudged
	}
	m := evaluate.ScoreLabels(docs, l)
	if m.R != 3 || m.Labelled != 4 {
		t.Fatalf("R %d labelled %d", m.R, m.Labelled)
	}
	if got := fmt.Sprint(m.Found); got != "[1 1 2 2 2]" {
		t.Errorf("found curve %s", got)
	}
	last := m.At[len(m.At)-1]
	if last.Label != "R=3" || last.Found != 2 || math.Abs(last.Precision-2.0/3) > 1e-12 || math.Abs(last.Recall-2.0/3) > 1e-12 {
		t.Errorf("at R: %+v", last)
	}
	at10 := m.At[0]
	if at10.N != 10 || at10.Precision != 0.2 || !at10.Short {
		t.Errorf("at 10: %+v", at10)
	}
	// DCG: 2/log2(2) + 1/log2(4) = 2.5; ideal 2 + 1/log2(3) + 1/log2(4).
	ideal := 2 + 1/math.Log2(3) + 0.5
	if math.Abs(at10.NDCG-2.5/ideal) > 1e-12 {
		t.Errorf("nDCG@10 %v, want %v", at10.NDCG, 2.5/ideal)
	}
}

func TestReadLabelsFormats(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(s), 0o644)
		return p
	}
	l, err := evaluate.ReadLabels(write("a.tsv", "http://x.org/1\nhttp://x.org/2\n\n"), "")
	if err != nil || l.Relevant() != 2 {
		t.Fatalf("url only: %v %v", l, err)
	}
	l, err = evaluate.ReadLabels(write("b.tsv", "http://x.org/1\t0\nhttp://x.org/2\t3\n"), "")
	if err != nil || l.Relevant() != 1 {
		t.Fatalf("url grade: %v", err)
	}
	l, err = evaluate.ReadLabels(write("c.tsv", "http://x.org/1\tev\t1\nhttp://x.org/2\tother\t2\n"), "ev")
	if err != nil || l.Relevant() != 1 || len(l.Items) != 2 {
		t.Fatalf("url event grade: %v", err)
	}
	if _, err := evaluate.ReadLabels(write("d.tsv", "http://x.org/1\tbad\n"), ""); err == nil || !strings.Contains(err.Error(), "d.tsv:1: field grade") {
		t.Errorf("bad grade error: %v", err)
	}
	if _, err := evaluate.ReadLabels(write("e.tsv", "http://x.org/1\t1\n"), "ev"); err == nil || !strings.Contains(err.Error(), "no event column") {
		t.Errorf("event without column: %v", err)
	}
	if _, err := evaluate.ReadLabels(write("f.tsv", "http://x.org/1\tev\t1\n"), "nope"); err == nil || !strings.Contains(err.Error(), "no relevant label") {
		t.Errorf("unknown event: %v", err)
	}
	// The synthetic archive's layout, header included.
	p := filepath.Join(dir, "labels.tsv")
	r := evaltest.WriteLabels(t, p, 5, 400, "flood-2013")
	l, err = evaluate.ReadLabels(p, "flood-2013")
	if err != nil {
		t.Fatal(err)
	}
	if l.Relevant() != r || len(l.Items) != 401 {
		t.Errorf("R %d (want %d), %d items", l.Relevant(), r, len(l.Items))
	}
	if i, _ := l.Lookup(&collection.Document{URL: "http://www.example.org/old/0"}); i != 0 {
		t.Errorf("alias lookup %d", i)
	}
	all, _ := evaluate.ReadLabels(p, "")
	if all.Relevant() != r+1 {
		t.Errorf("without --event R = %d, want %d", all.Relevant(), r+1)
	}
}

func TestChartSVGDeterministic(t *testing.T) {
	root := t.TempDir()
	evaltest.WriteRun(t, filepath.Join(root, "a"), evaltest.RunSpec{Strategy: "ctf", Docs: 3000, Focus: 0.8, URLsConsidered: 9000})
	evaltest.WriteRun(t, filepath.Join(root, "b"), evaltest.RunSpec{Strategy: "unfocused", Docs: 50, URLsConsidered: 90})
	ev, err := evaluate.Evaluate(readRuns(t, filepath.Join(root, "a"), filepath.Join(root, "b")), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := ev.AccumulatedChart("Accumulated relevance")
	s1, err := c.Render("svg")
	if err != nil {
		t.Fatal(err)
	}
	s2, _ := c.Render("svg")
	if !bytes.Equal(s1, s2) {
		t.Fatal("two SVG renders differ")
	}
	for _, want := range []string{"<svg", "Accumulated relevance", "documents extracted", ">ctf<", ">unfocused<"} {
		if !bytes.Contains(s1, []byte(want)) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if len(s1) > 400<<10 {
		t.Errorf("SVG of a 3000-document run is %d bytes: curves not sampled", len(s1))
	}
	png, err := c.Render("png")
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Errorf("png: %v", err)
	}
	if _, ok := ev.FoundChart("x"); ok {
		t.Error("found chart without labels")
	}
}

func TestCompare(t *testing.T) {
	with := &evaluate.Run{Info: collection.RunInfo{Strategy: "ctf"}, Documents: []collection.Document{{TopicR: 1}, {TopicR: 1}, {TopicR: 1}}}
	without := &evaluate.Run{Documents: []collection.Document{{TopicR: 0.5}, {TopicR: 0.5}}}
	c := evaluate.Compare("time", with, without)
	if c.Ratio != 3 || c.RatioCommon != 2 || c.CommonN != 2 || c.Strategy != "ctf" {
		t.Errorf("%+v", c)
	}
	if c := evaluate.Compare("time", with, &evaluate.Run{}); !math.IsNaN(c.Ratio) {
		t.Errorf("ratio against an empty run: %v", c.Ratio)
	}
}

// fakeExtractor writes a synthetic run whose quality depends on the
// overrides: fixed decay and no keywords make the crawl less focused.
func fakeExtractor(t *testing.T, calls *[]string) evaluate.Extractor {
	return func(ctx context.Context, specPath string, o evaluate.Overrides, outDir string) error {
		*calls = append(*calls, filepath.Base(specPath)+":"+o.String())
		focus := 0.9
		if o.FixedHalfLife > 0 {
			focus = 0.5
		}
		if o.NoKeywords {
			focus = 0.3
		}
		kw := []string{"flood"}
		if o.NoKeywords {
			kw = nil
		}
		evaltest.WriteRun(t, outDir, evaltest.RunSpec{Strategy: o.Strategy, Docs: 100, Pool: 400, Focus: focus,
			Seed: 9, OrderSeed: 4, URLsConsidered: 500, Keywords: kw, SpecName: strings.TrimSuffix(filepath.Base(specPath), ".yaml")})
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return nil
	}
}

func TestEvalCommand(t *testing.T) {
	root := t.TempDir()
	var dirs []string
	for i, st := range []string{"ctf", "cf", "tf", "unfocused"} {
		d := filepath.Join(root, "OUT_"+st)
		evaltest.WriteRun(t, d, evaltest.RunSpec{Strategy: st, Docs: 120, Pool: 500, Focus: 0.9 - 0.3*float64(i), Seed: 3,
			OrderSeed: uint64(i), URLsConsidered: 600 - 50*i, Missing: 5 + i, Keywords: []string{"flood"}})
		dirs = append(dirs, d)
	}
	labels := filepath.Join(root, "labels.tsv")
	evaltest.WriteLabels(t, labels, 3, 500, "test-event")
	var calls []string
	rep := filepath.Join(root, "report")
	args := []string{"--runs", strings.Join(dirs, ","), "--labels", labels, "--event", "test-event", "--report", rep,
		"--table3", "--spec", "/specs/floods.yaml,/specs/election.yaml", "--fixed_half_life", "P14D"}
	if err := evaluate.EvalCommand(context.Background(), args, fakeExtractor(t, &calls)); err != nil {
		t.Fatal(err)
	}
	if len(calls) != 14 {
		t.Errorf("%d extractions, want 7 per spec: %v", len(calls), calls)
	}
	for _, f := range []string{"report.html", "evaluation.json", "accumulated_relevance.svg", "accumulated_relevance.png", "relevant_found.svg", "relevant_found.png"} {
		if st, err := os.Stat(filepath.Join(rep, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	var sum struct {
		Runs []struct {
			Name  string
			Ratio *float64                 `json:"ratio_vs_unfocused"`
			AtN   []struct{ Label string } `json:"at_n"`
		}
		Table3 struct {
			Rows []struct {
				Event string
				Cells []struct{ Ratio *float64 }
			}
			Average []*float64
		}
	}
	b, _ := os.ReadFile(filepath.Join(rep, "evaluation.json"))
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	if len(sum.Runs) != 4 || sum.Runs[0].Name != "ctf" || sum.Runs[3].Ratio == nil || *sum.Runs[3].Ratio != 1 || *sum.Runs[0].Ratio != 600.0/450 {
		t.Errorf("runs %s", b)
	}
	if len(sum.Runs[0].AtN) != 7 || !strings.HasPrefix(sum.Runs[0].AtN[6].Label, "R=") {
		t.Errorf("at n: %+v", sum.Runs[0].AtN)
	}
	if len(sum.Table3.Rows) != 2 || sum.Table3.Rows[0].Event != "floods" || len(sum.Table3.Average) != 4 {
		t.Fatalf("table 3: %s", b)
	}
	for j, a := range sum.Table3.Average {
		if a == nil || *a <= 1 {
			t.Errorf("table 3 column %d average %v: the parameters should help in the fake runs", j, a)
		}
	}
	// Same input, same report (and the old spelling --fixed-half-life is an alias).
	html1, _ := os.ReadFile(filepath.Join(rep, "report.html"))
	rep2 := filepath.Join(root, "report2")
	if err := evaluate.EvalCommand(context.Background(), []string{"--runs", strings.Join(dirs, ","), "--labels", labels,
		"--event", "test-event", "--report", rep2, "--table3", "--spec", "/specs/floods.yaml,/specs/election.yaml",
		"--fixed-half-life", "P14D"}, fakeExtractor(t, &calls)); err != nil {
		t.Fatal(err)
	}
	html2, _ := os.ReadFile(filepath.Join(rep2, "report.html"))
	if !bytes.Equal(html1, html2) {
		t.Error("report.html differs between two identical evaluations")
	}
}

func TestEvalCommandFlagErrors(t *testing.T) {
	dir := t.TempDir()
	evaltest.WriteRun(t, dir, evaltest.RunSpec{Strategy: "ctf", Docs: 3, URLsConsidered: 5})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--report", dir}, "flag --runs"},
		{[]string{"--runs", dir}, "flag --report"},
		{[]string{"--runs", dir, "--report", dir, "--event", "x"}, "flag --event"},
		{[]string{"--runs", dir, "--report", dir, "--table3"}, "flag --table3"},
		{[]string{"--runs", dir, "--report", dir, "--spec", "s.yaml"}, "flag --spec"},
		{[]string{"--runs", dir, "--report", dir, "--table3", "--spec", "s", "--fixed_half_life", "soon"}, "flag --fixed_half_life"},
		{[]string{"--runs", dir + "/nope", "--report", dir}, "flag --runs"},
		{[]string{"--runs", "a=" + dir + ",a=" + dir, "--report", dir}, `name "a" given twice`},
		{[]string{"--bogus"}, "bogus"},
	} {
		err := evaluate.EvalCommand(context.Background(), tc.args, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.want)
		}
	}
	// The same strategy twice gets the directory appended.
	d2 := filepath.Join(t.TempDir(), "second")
	evaltest.WriteRun(t, d2, evaltest.RunSpec{Strategy: "ctf", Docs: 3, URLsConsidered: 5})
	rep := t.TempDir()
	if err := evaluate.EvalCommand(context.Background(), []string{"--runs", dir + "," + d2, "--report", rep}, nil); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(rep, "evaluation.json"))
	if !bytes.Contains(b, []byte(`"ctf (second)"`)) {
		t.Errorf("no disambiguated name in %s", b)
	}
}

func TestTable3ExtractorError(t *testing.T) {
	failing := func(ctx context.Context, specPath string, o evaluate.Overrides, outDir string) error {
		if o.FixedHalfLife > 0 {
			return fmt.Errorf("archive unreachable")
		}
		evaltest.WriteRun(t, outDir, evaltest.RunSpec{Strategy: o.Strategy, Docs: 5, URLsConsidered: 9})
		return nil
	}
	_, err := evaluate.RunTable3(context.Background(), failing, []string{"/s/a.yaml"}, t.TempDir(), 24*time.Hour)
	if err == nil || !strings.Contains(err.Error(), "/s/a.yaml (tf-fixed-decay): archive unreachable") {
		t.Errorf("error %v", err)
	}
	// A spec without keywords gets no keyword runs and NaN cells.
	var calls []string
	noKW := func(ctx context.Context, specPath string, o evaluate.Overrides, outDir string) error {
		calls = append(calls, o.String())
		evaltest.WriteRun(t, outDir, evaltest.RunSpec{Strategy: o.Strategy, Docs: 5, URLsConsidered: 9})
		return nil
	}
	t3, err := evaluate.RunTable3(context.Background(), noKW, []string{"/s/a.yaml"}, t.TempDir(), 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 5 || !math.IsNaN(t3.Rows[0].Cells[2].Ratio) || t3.Rows[0].Cells[2].Note == "" || !math.IsNaN(t3.Average[3]) {
		t.Errorf("calls %v, row %+v", calls, t3.Rows[0])
	}
}

// TestEvalOptionsWithoutRuns: with --options and no --runs the report
// evaluates the variants' own runs, and evaluation.json has the options
// comparison the layout summary reads.
func TestEvalOptionsWithoutRuns(t *testing.T) {
	root := t.TempDir()
	labels := filepath.Join(root, "labels.tsv")
	evaltest.WriteLabels(t, labels, 3, 500, "test-event")
	var calls []string
	extract := func(ctx context.Context, specPath string, o evaluate.Overrides, outDir string) error {
		calls = append(calls, o.Variant)
		evaltest.WriteRun(t, outDir, evaltest.RunSpec{Strategy: "ctf", Docs: 60, Pool: 500, Focus: 0.8, Seed: 3, URLsConsidered: 90})
		return nil
	}
	rep := filepath.Join(root, "report")
	args := []string{"--labels", labels, "--event", "test-event", "--report", rep, "--options", "default", "--spec", "/specs/a.yaml"}
	if err := evaluate.EvalCommand(context.Background(), args, extract); err != nil {
		t.Fatal(err)
	}
	if strings.Join(calls, ",") != "ctf,unfocused,default" {
		t.Errorf("variants run: %v", calls)
	}
	lr, err := evaluate.ReadLayoutRun("f", filepath.Join(rep, "evaluation.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(lr.Rows) != 3 || lr.Rows[2].Name != "default" {
		t.Errorf("rows %+v", lr.Rows)
	}
	var sum struct {
		Runs []struct{ Name string } `json:"runs"`
	}
	b, _ := os.ReadFile(filepath.Join(rep, "evaluation.json"))
	if err := json.Unmarshal(b, &sum); err != nil || len(sum.Runs) != 3 {
		t.Errorf("runs of the report: %+v %v", sum.Runs, err)
	}
	// Without --options, --runs stays required.
	err = evaluate.EvalCommand(context.Background(), []string{"--report", rep}, extract)
	if err == nil || !strings.Contains(err.Error(), "flag --runs") {
		t.Errorf("no runs: %v", err)
	}
}
