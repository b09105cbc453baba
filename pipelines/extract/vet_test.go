package extract

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/extract/roundstate"
	"github.com/recrawl/recrawl/internal/storage"
	"github.com/recrawl/recrawl/runners"
	"github.com/recrawl/recrawl/specs"
	"github.com/recrawl/recrawl/transforms/round"
)

// vetRound builds one extraction round's pipeline as runRounds does
// (round.Extract with the round.Config runRounds fills in), for a job on a
// gs:// ZipNum index with the given join, and runs it on --runner=vet through
// runners.Config.Run, which runRounds runs every round with. extra
// may add transforms to the round's scope. Vet runs nothing: it inspects the
// graph and fails when a DoFn, function, emitter, iterator or type is not
// registered, i.e. when a distributed runner would have to fall back to
// reflection, or could not find the function on its workers.
func vetRound(t *testing.T, join string, extra func(beam.Scope)) error {
	t.Helper()
	job := &extract.Job{
		// With discount_pre_event_links, so that MergeFrontier's look-up
		// of new URLs is in the graph too.
		Spec: &specs.Spec{Name: "vet", Strategy: "ctf", BatchSize: 10, TargetSize: 100,
			Event: specs.Event{Start: specs.Bound{Time: time.Date(2009, 9, 27, 0, 0, 0, 0, time.UTC), DateOnly: true}},
			Focus: specs.Focus{DiscountPreEventLinks: true}},
		Sources:  []extract.Source{{Index: "zipnum:gs://bucket/index", Archives: []string{"gs://bucket/warc"}}},
		JoinMode: join,
	}
	jobJSON, err := job.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	strategy, err := job.Strategy()
	if err != nil {
		t.Fatal(err)
	}
	// Round 3 of a run whose state is on gs://, as runRounds configures it.
	work := "gs://bucket/work"
	seenFiles := roundstate.SeenFiles(work, 3)
	cfg := round.Config{
		JobJSON: jobJSON, Round: 3, K: 10, MaxPerHost: 2, Strategy: int(strategy),
		FrontierFiles: []string{storage.Join(roundstate.StateDir(work, 3), "frontier", "part-00000.jsonl"),
			storage.Join(roundstate.StateDir(work, 3), "frontier", "part-00001.jsonl")},
		SeenFiles: seenFiles, OutDir: roundstate.StateDir(work, 4),
		JoinMode: job.JoinMode, Sources: job.IndexSources(),
	}
	p, s := beam.NewPipelineWithRoot()
	round.Extract(s, cfg)
	if extra != nil {
		extra(s)
	}
	rc := runners.Config{Runner: runners.Vet}
	_, err = rc.Run(context.Background(), p)
	return err
}

// TestVetRound checks one extraction round, with either join, on the vet
// runner, and that vet does catch what it is there for: the same round plus
// one unregistered DoFn fails.
func TestVetRound(t *testing.T) {
	if !beam.Initialized() {
		beam.Init()
	}
	// Run writes --runner=vet into Beam's flag; later tests of this process
	// must see the default again.
	old := flag.Lookup("runner").Value.String()
	t.Cleanup(func() { flag.Set("runner", old) })

	for _, join := range []string{"lookup", "cogroup"} {
		t.Run(join, func(t *testing.T) {
			if err := vetRound(t, join, nil); err != nil {
				t.Errorf("--join=%s: the round does not pass vet: %v", join, err)
			}
		})
	}
	t.Run("UnregisteredDoFn", func(t *testing.T) {
		err := vetRound(t, "lookup", func(s beam.Scope) {
			beam.ParDo(s, &unregisteredFn{}, beam.Create(s, "a"))
		})
		if err == nil || !strings.Contains(err.Error(), "not performant") || !strings.Contains(err.Error(), "unregisteredFn") {
			t.Errorf("vet accepted a round with an unregistered DoFn, or did not name it: %v", err)
		}
	})
}

// unregisteredFn is the control of TestVetRound: a DoFn without a
// register.DoFn… call.
type unregisteredFn struct{}

func (unregisteredFn) ProcessElement(s string, emit func(string)) { emit(strings.ToUpper(s)) }

// TestVetCommand: `extract --runner=vet` checks the first round's
// registrations from the command line and stops there, writing no outputs.
func TestVetCommand(t *testing.T) {
	a := fixture(t)
	out := filepath.Join(t.TempDir(), "vet")
	res := mustRun(t, nil, extractArgs(a, testEvent, out, "--runner=vet", "--target_size=20")...)
	if !strings.Contains(res.stdout, "passed Beam's registration check") {
		t.Errorf("stdout: %s", tail(res.stdout, 5))
	}
	if _, err := os.Stat(filepath.Join(out, "documents.jsonl")); err == nil {
		t.Error("a vet run wrote documents.jsonl")
	}
}
