package extract

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recrawl/recrawl/internal/testkit/extracttest"
)

// focusSpec writes the fixture's event spec with focusing options added.
// focusArgs gives the flags of an extraction of spec on a into out, with
// extra flags.
func focusArgs(a *extracttest.Archive, spec string) func(out string, extra ...string) []string {
	return func(out string, extra ...string) []string {
		return append([]string{"--spec", spec, "--archive", a.WARCDir, "--index", a.IndexSpec(), "--output", out, "--quiet"}, extra...)
	}
}

// k1EnginesAgree runs 40 documents with K = 1 on the sequential engine
// (into dir/sequential) and on Beam (dir/beam) and checks that they give the
// same outputs.
func k1EnginesAgree(t *testing.T, args func(out string, extra ...string) []string, dir string) (seq, beam string) {
	t.Helper()
	seq, beam = filepath.Join(dir, "sequential"), filepath.Join(dir, "beam")
	mustRun(t, nil, args(seq, "--engine=sequential", "--batch_size=1", "--target_size=40")...)
	mustRun(t, nil, args(beam, "--engine=beam", "--batch_size=1", "--target_size=40")...)
	sameOutputs(t, seq, beam, true)
	return seq, beam
}

func focusSpec(t *testing.T, a *extracttest.Archive, options string) string {
	t.Helper()
	data, err := os.ReadFile(a.Spec(testEvent))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), testEvent+"-focus.yaml")
	if err := os.WriteFile(p, append(data, []byte("\n"+options)...), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// allFocusOptions switches on every option that changes how the engines
// treat outlinks and results (discount_template_links, off in the default,
// included). The pre-event discount of the default is off:
// with it, every one of the first 40 documents passes the follow_threshold
// gate, so the check of the gate below would see nothing
// (TestBeamK1EqualsSequential covers the discount).
const allFocusOptions = `link_priority: {parent: 0.3, anchor: 0.5, context: 0.2}
link_dates: true
combine: average
temporal_intent: {months: {2009-09: 10, 2009-10: 4, 2009-08: 2}}
follow_threshold: auto
max_depth: 4
count_listing_pages: false
discount_template_links: true
discount_pre_event_links: false
`

// TestFocusOptionsEngines: with the focusing options (link priority,
// link dates, combination, intent, gate, depth, template links) the Beam
// rounds with K = 1 still equal the sequential engine, and a Beam run with
// K > 1 does not depend on the runner (the average combination sums
// fixed-point values, so merge order cannot change it).
func TestFocusOptionsEngines(t *testing.T) {
	a := fixture(t)
	spec := focusSpec(t, a, allFocusOptions)
	dir := t.TempDir()
	args := focusArgs(a, spec)
	seq, beam := k1EnginesAgree(t, args, dir)
	for _, f := range []string{"listings.jsonl"} {
		a, _ := os.ReadFile(filepath.Join(seq, f))
		b, err := os.ReadFile(filepath.Join(beam, f))
		if err != nil || string(a) != string(b) {
			t.Errorf("%s differs between the engines (or is missing: %v)", f, err)
		}
	}

	// What the options did, visible in the outputs.
	var run struct {
		Gate *struct {
			Threshold float64 `json:"threshold"`
			Splits    []struct {
				Seed uint64 `json:"seed"`
			} `json:"splits"`
		} `json:"follow_threshold_calibration"`
		Totals struct {
			Collected int `json:"collected"`
			Listings  int `json:"listings"`
		} `json:"totals"`
	}
	data, err := os.ReadFile(filepath.Join(beam, "run.json"))
	if err != nil || json.Unmarshal(data, &run) != nil {
		t.Fatalf("run.json: %v", err)
	}
	if run.Gate == nil || len(run.Gate.Splits) != 10 || run.Gate.Splits[9].Seed != 10 || run.Gate.Threshold <= 0 {
		t.Errorf("run.json lacks the calibration of follow_threshold: %s", data)
	}
	if run.Totals.Collected != 40 || run.Totals.Listings == 0 {
		t.Errorf("totals: %+v; want 40 documents and some listing pages followed", run.Totals)
	}
	listings := readJSONL[struct {
		Listing bool `json:"listing"`
	}](t, filepath.Join(beam, "listings.jsonl"))
	if len(listings) != run.Totals.Listings {
		t.Errorf("listings.jsonl has %d lines, run.json counts %d", len(listings), run.Totals.Listings)
	}
	docs := readJSONL[struct {
		Listing     bool   `json:"listing"`
		Depth       int    `json:"depth"`
		NotFollowed string `json:"not_followed"`
	}](t, filepath.Join(beam, "documents.jsonl"))
	gated := 0
	for _, d := range docs {
		if d.Listing || d.Depth > 4 {
			t.Errorf("document %+v: a listing page or deeper than max_depth 4", d)
		}
		if strings.Contains(d.NotFollowed, "follow_threshold") {
			gated++
		}
	}
	if gated == 0 {
		t.Error("the follow_threshold gate stopped no document's outlinks")
	}

	k := []string{"--engine=beam", "--batch_size=15", "--target_size=60"}
	prism, direct := filepath.Join(dir, "prism"), filepath.Join(dir, "direct")
	mustRun(t, nil, args(prism, append(k, "--runner=prism")...)...)
	mustRun(t, nil, args(direct, append(k, "--runner=direct")...)...)
	sameOutputs(t, prism, direct, true)
}

// TestEvalOptions: `extract eval --options` runs the variants and puts the
// comparison into report.html and evaluation.json.
func TestEvalOptions(t *testing.T) {
	a := fixture(t)
	dir := t.TempDir()
	ctf := filepath.Join(dir, "ctf")
	mustRun(t, nil, extractArgs(a, testEvent, ctf, "--target_size=60", "--batch_size=20")...)
	report := filepath.Join(dir, "report")
	mustRun(t, nil, "eval", "--runs", ctf, "--labels", a.Labels, "--event", testEvent, "--report", report,
		"--options", "anchor,no-listings,unfocused+listings,oracle", "--spec", a.Spec(testEvent), "--index", a.IndexSpec(), "--archive", a.WARCDir,
		"--target_size=60", "--batch_size=20")
	html, err := os.ReadFile(filepath.Join(report, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Focusing beyond the paper", "<td>anchor</td>", "<td>no-listings</td>", "<td>unfocused</td>", "link_priority {parent: 0.4, anchor: 0.6}"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	var ev struct {
		Options struct {
			R    int `json:"r"`
			Rows []struct {
				Name      string   `json:"name"`
				Documents int      `json:"documents"`
				Listings  int      `json:"listings"`
				PAtR      float64  `json:"precision_at_r"`
				VsCTF     *float64 `json:"precision_at_r_vs_ctf"`
			} `json:"rows"`
		} `json:"options"`
	}
	data, _ := os.ReadFile(filepath.Join(report, "evaluation.json"))
	if err := json.Unmarshal(data, &ev); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range ev.Options.Rows {
		names = append(names, r.Name)
		if r.Documents != 60 {
			t.Errorf("variant %s: %d documents, want 60", r.Name, r.Documents)
		}
	}
	if strings.Join(names, ",") != "ctf,unfocused,unfocused+listings,anchor,no-listings,oracle" || ev.Options.R == 0 {
		t.Fatalf("options rows %v, R %d", names, ev.Options.R)
	}
	// unfocused+listings is the same breadth-first
	// crawl with the listing pages counted: "unfocused" follows them
	// without counting them, and its first R documents hold at least as
	// many relevant ones (the other's first R, listing pages removed, are
	// a prefix of them).
	un, unListings := ev.Options.Rows[1], ev.Options.Rows[2]
	if un.Listings == 0 || unListings.Listings != 0 || unListings.PAtR > un.PAtR {
		t.Errorf("unfocused: %d listing pages not counted, P@R %.3f; unfocused+listings: %d, P@R %.3f",
			un.Listings, un.PAtR, unListings.Listings, unListings.PAtR)
	}
	// The label oracle knows the labels: no variant may beat it.
	oracle := ev.Options.Rows[len(ev.Options.Rows)-1]
	for _, r := range ev.Options.Rows {
		if r.PAtR > oracle.PAtR {
			t.Errorf("variant %s: precision at R %.3f above the oracle's %.3f", r.Name, r.PAtR, oracle.PAtR)
		}
	}
	if r := ev.Options.Rows[0]; r.VsCTF == nil || *r.VsCTF != 1 {
		t.Errorf("ctf against itself: %v", r.VsCTF)
	}
	res := runBin(t, nil, "eval", "--runs", ctf, "--report", report, "--options", "anchr", "--spec", a.Spec(testEvent))
	if res.err == nil || !strings.Contains(res.stderr, "unknown variant") || !strings.Contains(res.stderr, "anchr") {
		t.Errorf("unknown variant: %v\n%s", res.err, tail(res.stderr, 5))
	}
}

// TestPaperPresetK1EqualsSequential: the paper's preset (focus: paper, the
// default before it) keeps the guarantee of the default: Beam rounds with
// K = 1 equal the sequential engine.
func TestPaperPresetK1EqualsSequential(t *testing.T) {
	a := fixture(t)
	dir := t.TempDir()
	seq, beam := filepath.Join(dir, "sequential"), filepath.Join(dir, "beam")
	mustRun(t, nil, extractArgs(a, testEvent, seq, "--engine=sequential", "--focus=paper", "--batch_size=1", "--target_size=40")...)
	mustRun(t, nil, extractArgs(a, testEvent, beam, "--engine=beam", "--focus=paper", "--batch_size=1", "--target_size=40")...)
	sameOutputs(t, seq, beam, true)
	var run struct {
		Spec struct {
			Focus    string `json:"focus"`
			Outlinks string `json:"outlinks"`
		} `json:"spec"`
	}
	data, _ := os.ReadFile(filepath.Join(beam, "run.json"))
	if err := json.Unmarshal(data, &run); err != nil || run.Spec.Focus != "paper" || run.Spec.Outlinks != "main" {
		t.Errorf("run.json does not record the paper's preset: %+v (%v)", run.Spec, err)
	}
	if res := runBin(t, nil, extractArgs(a, testEvent, filepath.Join(dir, "bad"), "--focus=papers")...); res.err == nil || !strings.Contains(res.stderr, "--focus=papers") {
		t.Errorf("--focus=papers: %v\n%s", res.err, tail(res.stderr, 5))
	}
}

// TestStarvation: a run whose frontier empties before target_size says so
// in its log and run.json, and rounds.jsonl and run.json count its pages'
// links and why they were not followed, in both engines.
func TestStarvation(t *testing.T) {
	a := fixture(t)
	spec := focusSpec(t, a, "max_depth: 1\n")
	dir := t.TempDir()
	args := func(out string, extra ...string) []string {
		return append([]string{"--spec", spec, "--archive", a.WARCDir, "--index", a.IndexSpec(), "--output", out, "--quiet", "--target_size=5000"}, extra...)
	}
	seq, beam := filepath.Join(dir, "sequential"), filepath.Join(dir, "beam")
	res := mustRun(t, nil, args(seq, "--engine=sequential", "--batch_size=10")...)
	mustRun(t, nil, args(beam, "--engine=beam", "--batch_size=10")...)
	if !strings.Contains(res.stderr, "starved") || !strings.Contains(res.stderr, "ran dry") {
		t.Errorf("the log does not say the run starved:\n%s", tail(res.stderr, 5))
	}
	type linkStats struct {
		Links       int            `json:"links"`
		New         int            `json:"new"`
		NotFollowed map[string]int `json:"not_followed"`
	}
	for _, out := range []string{seq, beam} {
		var run struct {
			Totals struct {
				StopReason string    `json:"stop_reason"`
				Starvation string    `json:"starvation"`
				Links      linkStats `json:"links"`
			} `json:"totals"`
		}
		data, _ := os.ReadFile(filepath.Join(out, "run.json"))
		if err := json.Unmarshal(data, &run); err != nil {
			t.Fatal(err)
		}
		tot := run.Totals
		if tot.StopReason != "frontier empty" || !strings.Contains(tot.Starvation, "of 5000 documents") ||
			tot.Links.NotFollowed["max-depth"] == 0 || tot.Links.New == 0 || tot.Links.Links <= tot.Links.New {
			t.Errorf("%s: run.json totals %+v", out, tot)
		}
		sum := 0
		for _, r := range readJSONL[struct {
			Links linkStats `json:"links"`
		}](t, filepath.Join(out, "rounds.jsonl")) {
			sum += r.Links.Links
		}
		if sum != tot.Links.Links {
			t.Errorf("%s: rounds.jsonl counts %d links, run.json %d", out, sum, tot.Links.Links)
		}
	}
}

// TestLearnLinksEngines: with learn_links the link model of each round is a
// function of the committed results before it, so the Beam rounds with
// K = 1 equal the sequential engine, runners give the same bytes, a run
// killed after a committed round resumes to the uninterrupted run's outputs,
// and the model changes the priorities; several rounds per job are refused.
func TestLearnLinksEngines(t *testing.T) { learningEngines(t, "learn_links: true\n", "learn_links") }

// TestFeedbackEngines: relevance feedback (feedback: Rocchio into the
// reference vector that scores the links) holds the same guarantees as
// learn_links: sequential = Beam at K = 1, prism = direct, SIGKILL and
// resume = uninterrupted, it changes priorities, rounds_per_job 2 refused;
// and the documents' own scores stay those without feedback.
func TestFeedbackEngines(t *testing.T) {
	learningEngines(t, "feedback: {documents: 5, beta: 0.5, gamma: 0.1}\n", "feedback")
}

// learningEngines checks an option that learns between rounds (extra, a
// spec fragment; name, its field in the rounds_per_job refusal).
func learningEngines(t *testing.T, extra, name string) {
	a := fixture(t)
	spec := focusSpec(t, a, extra)
	dir := t.TempDir()
	args := focusArgs(a, spec)
	k1EnginesAgree(t, args, dir)

	k := []string{"--engine=beam", "--batch_size=10", "--target_size=60"}
	prism, direct := filepath.Join(dir, "prism"), filepath.Join(dir, "direct")
	mustRun(t, nil, args(prism, append(k, "--runner=prism")...)...)
	mustRun(t, nil, args(direct, append(k, "--runner=direct")...)...)
	sameOutputs(t, prism, direct, true)

	// Without learning the same run ranks its outlinks otherwise.
	plain := filepath.Join(dir, "plain")
	mustRun(t, nil, append([]string{"--spec", a.Spec(testEvent), "--archive", a.WARCDir, "--index", a.IndexSpec(), "--output", plain, "--quiet", "--runner=direct"}, k[:3]...)...)
	priorities := func(dir string) map[string]float64 {
		out := map[string]float64{}
		for _, d := range readJSONL[struct {
			URL      string  `json:"url"`
			Priority float64 `json:"priority"`
		}](t, filepath.Join(dir, "documents.jsonl")) {
			out[d.URL] = d.Priority
		}
		return out
	}
	learned, unlearned := priorities(direct), priorities(plain)
	changed := 0
	for u, p := range learned {
		if q, ok := unlearned[u]; ok && q != p {
			changed++
		}
	}
	if changed == 0 {
		t.Errorf("%s changed no document's priority", name)
	}
	if name == "feedback" { // the documents' scores are against the spec's own reference vector
		scores := func(dir string) map[string][3]float64 {
			out := map[string][3]float64{}
			for _, d := range readJSONL[struct {
				URL       string  `json:"url"`
				TopicR    float64 `json:"topic_r"`
				TTR       float64 `json:"ttr"`
				Relevance float64 `json:"relevance"`
			}](t, filepath.Join(dir, "documents.jsonl")) {
				out[d.URL] = [3]float64{d.TopicR, d.TTR, d.Relevance}
			}
			return out
		}
		with, without := scores(direct), scores(plain)
		for u, sc := range with {
			if w, ok := without[u]; ok && w != sc {
				t.Errorf("%s: scores %v with feedback, %v without", u, sc, w)
			}
		}
	}

	// Killed after round 2 was committed, resumed: the same outputs.
	resumed := filepath.Join(dir, "resumed")
	killAt(t, args(resumed, append(k, "--runner=direct")...), doneFileOf(filepath.Join(resumed, ".work"), 2), 0)
	mustRun(t, nil, args(resumed, append(k, "--runner=direct")...)...)
	sameOutputs(t, direct, resumed, false)

	res := runBin(t, nil, args(filepath.Join(dir, "perjob"), append(k, "--rounds_per_job=2")...)...)
	if res.err == nil || !strings.Contains(res.stderr, "rounds_per_job=1") || !strings.Contains(res.stderr, name) {
		t.Errorf("%s with --rounds_per_job=2: %v\n%s", name, res.err, tail(res.stderr, 5))
	}
}
