package extract

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recrawl/recrawl/internal/collection"
	"github.com/recrawl/recrawl/internal/evaluate"
	"github.com/recrawl/recrawl/internal/testkit/extracttest"
)

var strategies = []string{"ctf", "cf", "tf", "unfocused"}

// strategyRuns extracts testEvent once per strategy (cached) with the
// paper's method (--focus=paper): 150 documents each with the sequential
// engine, i.e. Algorithm 1 with K = 1 as in the
// paper (TestBeamK1EqualsSequential checks that the Beam rounds give the
// same with K = 1). A large K makes every strategy closer to breadth-first:
// with K = 25 the four areas of this archive lie within 12 % of each other.
func strategyRuns(t *testing.T, a *extracttest.Archive) map[string]string {
	t.Helper()
	runs := map[string]string{}
	for _, s := range strategies {
		runs[s] = cachedRun(t, "strategy-"+s, func(out string) []string {
			return extractArgs(a, testEvent, out, "--engine=sequential", "--strategy="+s, "--focus=paper", "--target_size=150")
		})
	}
	return runs
}

// TestStrategiesOrdering: the focused strategies accumulate relevance
// faster than breadth-first crawling (the paper's Figure 1), measured by
// the area under the accumulated C-F relevance curve (internal/evaluate).
//
// What is asserted, and why: on archives generated with seeds 11-14, for
// this event, ctf, cf and tf each beat unfocused by 12-60 % and ctf beats tf
// by 4-48 %, every time. The paper's stronger claim, min(ctf, cf) >
// max(tf, unfocused), holds on this archive (seed 11: by 40 %) but failed
// once in those four archives (cf equal to tf within 0.03 %), and failed
// for other events of the generator: it is logged, not asserted.
func TestStrategiesOrdering(t *testing.T) {
	a := fixture(t)
	runs := strategyRuns(t, a)
	area := map[string]float64{}
	for _, s := range strategies {
		docs, err := collection.ReadDocuments(filepath.Join(runs[s], "documents.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if len(docs) != 150 {
			t.Fatalf("%s: %d documents, want 150", s, len(docs))
		}
		area[s] = evaluate.AccumulatedRelevance(docs).Area()
	}
	t.Logf("areas under the accumulated relevance curves: ctf %.1f, cf %.1f, tf %.1f, unfocused %.1f",
		area["ctf"], area["cf"], area["tf"], area["unfocused"])
	for _, s := range []string{"ctf", "cf", "tf"} {
		if area[s] <= area["unfocused"] {
			t.Errorf("%s (%.1f) does not accumulate relevance faster than unfocused (%.1f)", s, area[s], area["unfocused"])
		}
	}
	if area["ctf"] < area["tf"] {
		t.Errorf("ctf (%.1f) accumulates relevance slower than tf (%.1f)", area["ctf"], area["tf"])
	}
	if strong := min(area["ctf"], area["cf"]) > max(area["tf"], area["unfocused"]); !strong {
		t.Logf("note: min(ctf, cf) > max(tf, unfocused) does not hold on this archive")
	}
}

// TestEval: `extract eval` over the four strategy runs with the labels
// writes report.html and evaluation.json, the same bytes every time, with
// the metrics of each run.
func TestEval(t *testing.T) {
	a := fixture(t)
	runs := strategyRuns(t, a)
	var list []string
	for _, s := range strategies {
		list = append(list, runs[s])
	}
	dir := t.TempDir()
	var reports [2][2][]byte
	for i := range reports {
		report := filepath.Join(dir, []string{"report", "again"}[i])
		mustRun(t, nil, "eval", "--runs", strings.Join(list, ","), "--labels", a.Labels, "--event", testEvent, "--report", report)
		for j, name := range []string{evaluate.ReportFile, evaluate.SummaryFile} {
			data, err := os.ReadFile(filepath.Join(report, name))
			if err != nil {
				t.Fatalf("eval wrote no %s: %v", name, err)
			}
			reports[i][j] = data
		}
	}
	if !bytes.Equal(reports[0][0], reports[1][0]) || !bytes.Equal(reports[0][1], reports[1][1]) {
		t.Errorf("eval gives different report.html or evaluation.json for the same runs")
	}
	html := string(reports[0][0])
	if !strings.Contains(strings.ToLower(html), "<html") {
		t.Errorf("report.html is not an HTML page: %.200q", html)
	}
	for _, s := range strategies {
		if !strings.Contains(html, s) {
			t.Errorf("report.html does not mention the run %s", s)
		}
	}

	var ev struct {
		Labels struct {
			Event    string `json:"event"`
			Relevant int    `json:"relevant"`
		} `json:"labels"`
		Runs []struct {
			Name      string  `json:"name"`
			Strategy  string  `json:"strategy"`
			Documents int     `json:"documents"`
			Area      float64 `json:"area"`
			AtN       []struct {
				N         int     `json:"n"`
				Found     int     `json:"found"`
				Precision float64 `json:"precision"`
				Recall    float64 `json:"recall"`
			} `json:"at_n"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(reports[0][1], &ev); err != nil {
		t.Fatalf("evaluation.json: %v", err)
	}
	if ev.Labels.Event != testEvent || ev.Labels.Relevant == 0 {
		t.Errorf("evaluation.json labels: event %q with %d relevant URLs", ev.Labels.Event, ev.Labels.Relevant)
	}
	if len(ev.Runs) != len(strategies) {
		t.Fatalf("evaluation.json has %d runs, want %d", len(ev.Runs), len(strategies))
	}
	for i, r := range ev.Runs {
		if r.Name != strategies[i] || r.Strategy != strategies[i] || r.Documents != 150 {
			t.Errorf("run %d: name %q strategy %q with %d documents; want %s with 150", i, r.Name, r.Strategy, r.Documents, strategies[i])
		}
		docs, err := collection.ReadDocuments(filepath.Join(runs[strategies[i]], "documents.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if want := evaluate.AccumulatedRelevance(docs).Area(); r.Area != want {
			t.Errorf("%s: area %v in evaluation.json, %v from documents.jsonl", r.Name, r.Area, want)
		}
		if len(r.AtN) == 0 {
			t.Errorf("%s: no precision/recall at n", r.Name)
		}
		for _, x := range r.AtN {
			if x.Found < 0 || x.Precision < 0 || x.Precision > 1 || x.Recall < 0 || x.Recall > 1 {
				t.Errorf("%s at %d: found %d, precision %v, recall %v", r.Name, x.N, x.Found, x.Precision, x.Recall)
			}
		}
	}
}
