package round

import (
	"fmt"
	"maps"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/extract/roundstate"
	"github.com/recrawl/recrawl/internal/storage"
	"github.com/recrawl/recrawl/scoring"
)

// The composites run in process on prism (ptest's default runner; -runner
// picks another).
func TestMain(m *testing.M) {
	ptest.Main(m)
}

func init() {
	beam.RegisterFunction(batchKeys)
	beam.RegisterFunction(discoveryOf)
	beam.RegisterType(reflect.TypeOf(testDiscovery{}))
	beam.RegisterFunction(planLine)
}

// entries makes n frontier entries over a few hosts, with priorities that
// tie now and then (the ranking breaks ties by depth, then key).
func entries(n int, seed int64) []extract.Entry {
	r := rand.New(rand.NewSource(seed))
	out := make([]extract.Entry, n)
	for i := range out {
		host := fmt.Sprintf("h%d.example", r.Intn(7))
		out[i] = extract.Entry{
			Key: fmt.Sprintf("example,%s)/p%05d", host, i), URL: fmt.Sprintf("https://%s/p%05d", host, i),
			Priority: float64(r.Intn(20)) / 20, Depth: r.Intn(3), Order: extract.Order(i), Host: host,
		}
	}
	return out
}

// writeParts writes es as several frontier part files in dir.
func writeParts(t *testing.T, dir string, es []extract.Entry, parts int) []string {
	t.Helper()
	var files []string
	for p := 0; p < parts; p++ {
		var part []extract.Entry
		for i := p; i < len(es); i += parts {
			part = append(part, es[i])
		}
		f := filepath.Join(dir, fmt.Sprintf("part-%d.gob", p))
		if err := roundstate.WritePart(t.Context(), f, part); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// batchKeys renders a batch as "rank key" lines.
func batchKeys(batch []extract.Entry, emit func(string)) {
	for i, e := range batch {
		emit(fmt.Sprintf("%d %s", i, e.Key))
	}
}

// TestReadFrontierSelectBatch: the batch read from part files is the TopK
// of the whole frontier, in ranking order, per-host cap included.
func TestReadFrontierSelectBatch(t *testing.T) {
	es := entries(500, 1)
	files := writeParts(t, t.TempDir(), es, 4)
	for _, c := range []struct{ k, perHost int }{{10, 0}, {40, 3}, {600, 0}} {
		t.Run(fmt.Sprintf("K=%d,max_per_host=%d", c.k, c.perHost), func(t *testing.T) {
			want := extract.NewTopK(c.k, c.perHost, extract.Ranking{Strategy: scoring.CTF})
			for _, e := range es {
				want.Add(e)
			}
			var lines []any
			for i, e := range want.Result() {
				lines = append(lines, fmt.Sprintf("%d %s", i, e.Key))
			}
			p, s := beam.NewPipelineWithRoot()
			batch := SelectBatch(s, ReadFrontier(s, files), c.k, c.perHost, int(scoring.CTF))
			passert.Equals(s, beam.ParDo(s, batchKeys, batch), lines...)
			ptest.RunAndValidate(t, p)
		})
	}
}

// discoveryOf turns "key" test input into what FetchAndScore emits.
func discoveryOf(d testDiscovery, emit func(string, Discovery)) {
	emit(d.Key, Discovery{Entry: d.Entry, HasEntry: d.HasEntry, Taken: d.Taken})
}

type testDiscovery struct {
	Key      string
	Entry    extract.Entry
	HasEntry bool
	Taken    bool
}

// TestMergeFrontierWriteManifest: the frontier after a round is the old one
// without the batch, plus the unseen discovered entries, merged per URL;
// the manifest names exactly the part files that hold it.
func TestMergeFrontierWriteManifest(t *testing.T) {
	dir := t.TempDir()
	old := entries(50, 2)
	files := writeParts(t, filepath.Join(dir, "old"), old, 3)
	seenFile := filepath.Join(dir, "seen.txt")
	if err := storage.WriteFile(t.Context(), seenFile, []byte("example,seen)/\n")); err != nil {
		t.Fatal(err)
	}
	batch := old[:5]
	var disc []any
	for _, b := range batch {
		disc = append(disc, testDiscovery{Key: b.Key, Taken: true})
	}
	// Outlinks: to an old entry (merged, higher priority), to a new URL
	// twice (merged), to a seen URL and to a batch URL (both dropped).
	touched := old[10]
	touched.Priority, touched.Order = 0.99, 1000
	newURL := extract.Entry{Key: "example,new)/", URL: "https://new.example/", Priority: 0.2, Order: 1001, Host: "new.example"}
	newURL2 := newURL
	newURL2.Priority, newURL2.Order = 0.7, 1002
	disc = append(disc,
		testDiscovery{Key: touched.Key, Entry: touched, HasEntry: true},
		testDiscovery{Key: newURL.Key, Entry: newURL, HasEntry: true},
		testDiscovery{Key: newURL.Key, Entry: newURL2, HasEntry: true},
		testDiscovery{Key: "example,seen)/", Entry: extract.Entry{Key: "example,seen)/", Order: 1003}, HasEntry: true},
		testDiscovery{Key: batch[0].Key, Entry: batch[0], HasEntry: true},
	)

	out := filepath.Join(dir, "state-00001")
	p, s := beam.NewPipelineWithRoot()
	discovered := beam.ParDo(s, discoveryOf, beam.Create(s, disc...))
	cfg := Config{SeenFiles: []string{seenFile}, OutDir: out}
	parts := MergeFrontier(s, ReadFrontier(s, files), beam.Create(s, batch), discovered, cfg)
	WriteManifest(s, out, parts)
	ptest.RunAndValidate(t, p)

	want := map[string]extract.Entry{}
	for _, e := range old[5:] {
		want[e.Key] = e
	}
	want[touched.Key] = extract.Merge(old[10], touched)
	want[newURL.Key] = extract.Merge(newURL, newURL2)

	m, err := roundstate.ReadManifest(t.Context(), out)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]extract.Entry{}
	for _, f := range m.Frontier {
		if err := roundstate.ReadPart(t.Context(), f, func(e extract.Entry) error {
			if _, dup := got[e.Key]; dup {
				t.Errorf("%s twice in the frontier", e.Key)
			}
			got[e.Key] = e
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if m.FrontierSize != len(got) || len(m.Results) != 0 {
		t.Errorf("manifest: %d frontier entries counted, %d read; %d results files", m.FrontierSize, len(got), len(m.Results))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("frontier after the round: %d entries, want %d\n got %v\nwant %v", len(got), len(want), slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
	}
}

// planLine renders a plan for passert.
func planLine(p Plan) string {
	return fmt.Sprintf("round %d K %d collected %d empty rounds %d files %v", p.Round, p.K, p.Collected, p.EmptyRounds, p.FrontierFiles)
}

// TestPlanRound: the plan of a job's next round comes from the state the
// round before wrote, by the driver's rules: the documents collected so far
// give K, a reached target or an empty frontier gives no plan; and the
// state's seen file is written for the next round's seen set.
func TestPlanRound(t *testing.T) {
	work := t.TempDir()
	dir := roundstate.StateDir(work, 4) // written by round 3
	res := []extract.Result{
		{Rank: 0, Entry: extract.Entry{Key: "b"}, Outcome: extract.OutcomeCollected},
		{Rank: 1, Entry: extract.Entry{Key: "a"}, Outcome: extract.OutcomeCollected},
		{Rank: 2, Entry: extract.Entry{Key: "c"}, Outcome: extract.OutcomeRedirect},
	}
	manifest, fp := writeRoundState(t, dir, res, entries(4, 5))
	prev := Plan{Round: 3, K: 3, Collected: 10}
	for _, c := range []struct {
		name     string
		target   int
		maxRound int
		want     []any
	}{
		{"go on", 20, 0, []any{planLine(Plan{Round: 4, K: 5, Collected: 12, FrontierFiles: []string{fp}})}},
		{"target near", 14, 0, []any{planLine(Plan{Round: 4, K: 2, Collected: 12, FrontierFiles: []string{fp}})}},
		{"target reached", 12, 0, nil},
		{"max rounds", 0, 4, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, s := beam.NewPipelineWithRoot()
			jc := JobConfig{Work: work, BatchSize: 5, Stop: extract.StopRule{TargetSize: c.target, MaxRounds: c.maxRound, StopAfterEmptyRounds: 1}}
			plan := PlanRound(s, beam.Create(s, manifest), beam.Create(s, prev), jc, 4)
			passert.Equals(s, beam.ParDo(s, planLine, plan), c.want...)
			ptest.RunAndValidate(t, p)
			seen, err := os.ReadFile(storage.Join(dir, roundstate.SeenFile))
			if err != nil || string(seen) != "a\nb\nc\n" {
				t.Errorf("seen file of round 3: %q, %v; want its three keys, sorted", seen, err)
			}
		})
	}
}

// TestPlanRoundEmptyRounds: a round that collected nothing adds one to the
// plan's empty rounds, and stop_after_empty_rounds stops the job between
// its rounds as the driver stops between jobs.
func TestPlanRoundEmptyRounds(t *testing.T) {
	work := t.TempDir()
	dir := roundstate.StateDir(work, 4) // written by round 3
	res := []extract.Result{
		{Rank: 0, Entry: extract.Entry{Key: "b"}, Outcome: extract.OutcomeMissing, ReasonCode: extract.ReasonNotInIndex},
		{Rank: 1, Entry: extract.Entry{Key: "a"}, Outcome: extract.OutcomeRedirect},
	}
	manifest, fp := writeRoundState(t, dir, res, entries(4, 5))
	prev := Plan{Round: 3, K: 2, Collected: 10, EmptyRounds: 1}
	for _, c := range []struct {
		name  string
		after int
		want  []any
	}{
		{"never", 0, []any{planLine(Plan{Round: 4, K: 5, Collected: 10, EmptyRounds: 2, FrontierFiles: []string{fp}})}},
		{"after 3", 3, []any{planLine(Plan{Round: 4, K: 5, Collected: 10, EmptyRounds: 2, FrontierFiles: []string{fp}})}},
		{"after 2", 2, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, s := beam.NewPipelineWithRoot()
			jc := JobConfig{Work: work, BatchSize: 5, Stop: extract.StopRule{StopAfterEmptyRounds: c.after}}
			plan := PlanRound(s, beam.Create(s, manifest), beam.Create(s, prev), jc, 4)
			passert.Equals(s, beam.ParDo(s, planLine, plan), c.want...)
			ptest.RunAndValidate(t, p)
		})
	}
}

// writeRoundState writes the state a round leaves for the next in dir: one
// results part, one frontier part and the manifest listing both. It returns
// the manifest's path and the frontier part's.
func writeRoundState(t *testing.T, dir string, res []extract.Result, frontier []extract.Entry) (manifest, frontierPart string) {
	t.Helper()
	ctx := t.Context()
	rp := storage.Join(dir, roundstate.ResultsDir, "part-1.gob")
	fp := storage.Join(dir, roundstate.FrontierDir, "part-2.gob")
	if err := roundstate.WritePart(ctx, rp, res); err != nil {
		t.Fatal(err)
	}
	if err := roundstate.WritePart(ctx, fp, frontier); err != nil {
		t.Fatal(err)
	}
	if err := roundstate.WriteManifest(ctx, dir, []string{
		roundstate.ManifestLine(roundstate.KindResults, rp, len(res)),
		roundstate.ManifestLine(roundstate.KindFrontier, fp, len(frontier)),
	}); err != nil {
		t.Fatal(err)
	}
	return storage.Join(dir, roundstate.ManifestFile), fp
}
