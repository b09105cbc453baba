package round

import (
	"context"
	"fmt"
	"sort"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/extract/roundstate"
	"github.com/recrawl/recrawl/internal/storage"
)

// JobConfig is several consecutive rounds built as one pipeline
// (--rounds_per_job), so that a runner pays one job start for all of them.
type JobConfig struct {
	First  Config // the first round, configured as for Extract
	Rounds int    // rounds in the job
	Work   string // the work directory: round r writes roundstate.StateDir(Work, r+1)
	// The stopping rule and the batch size (extract.StopRule, extract.BatchK).
	BatchSize int
	Stop      extract.StopRule
	// Documents collected before the job, and the rounds at the end that
	// collected none (extract.Progress).
	Collected, EmptyRounds int
}

// Plan is what a round of a job does, decided from the state before it: its
// number, how many URLs it takes, the documents collected before it and the
// frontier part files it reads. A round that would stop the extraction has
// no plan, and then it, and every round after it in the job, does nothing.
type Plan struct {
	Round, K, Collected int
	EmptyRounds         int // rounds before it, at the end, that collected no document
	FrontierFiles       []string
}

// ExtractRounds adds jc.Rounds consecutive rounds. The first one's plan is
// the driver's; each later round's plan is made by PlanRound from the state
// the round before wrote, exactly as the driver would make it between two
// jobs: the same stopping rule, the same K, the same seen set. So any number
// of rounds per job writes the same states, and a job interrupted at any
// point resumes from the last state the driver committed.
func ExtractRounds(s beam.Scope, jc JobConfig) {
	first := jc.First
	plan := beam.Create(s.Scope(fmt.Sprintf("Round%d", first.Round)), Plan{Round: first.Round, K: first.K, Collected: jc.Collected, EmptyRounds: jc.EmptyRounds, FrontierFiles: first.FrontierFiles})
	seenFiles := append([]string(nil), first.SeenFiles...)
	for i := 0; i < jc.Rounds; i++ {
		cfg := first
		cfg.Round = first.Round + i
		cfg.OutDir = roundstate.StateDir(jc.Work, cfg.Round+1)
		cfg.K = jc.BatchSize // the plan's K limits it
		if i == 0 {
			cfg.K = first.K
		} else {
			seenFiles = append(seenFiles, storage.Join(roundstate.StateDir(jc.Work, cfg.Round), roundstate.SeenFile))
		}
		cfg.SeenFiles = append([]string(nil), seenFiles...)
		manifest := extractPlanned(s, cfg, plan)
		if i+1 < jc.Rounds {
			plan = PlanRound(s, manifest, plan, jc, cfg.Round+1)
		}
	}
}

// PlanRound makes the plan of round next from the manifest of the state
// before it (written by round next-1, whose plan was prev): it reads that
// round's results, writes their keys as the state's seen file (the next
// round's seen set needs them; the driver's commit rewrites the same bytes),
// and applies the stopping rule.
func PlanRound(s beam.Scope, manifest, prev beam.PCollection, jc JobConfig, next int) beam.PCollection {
	s = s.Scope(fmt.Sprintf("Round%d", next)).Scope("PlanRound")
	return beam.ParDo(s, &planRoundFn{Next: next, BatchSize: jc.BatchSize, Stop: jc.Stop,
		Dir: roundstate.StateDir(jc.Work, next)}, manifest, beam.SideInput{Input: prev})
}

type planRoundFn struct {
	Next      int
	BatchSize int
	Stop      extract.StopRule
	Dir       string // the state written by round Next-1
}

func (f *planRoundFn) ProcessElement(ctx context.Context, _ string, prev []Plan, emit func(Plan)) error {
	if len(prev) != 1 {
		return fmt.Errorf("round %d: %d plans of the round before, want 1", f.Next, len(prev))
	}
	m, err := roundstate.ReadManifest(ctx, f.Dir)
	if err != nil {
		return err
	}
	results, err := roundstate.ReadResults(ctx, f.Dir, m)
	if err != nil {
		return err
	}
	if err := roundstate.WriteSeen(ctx, f.Dir, results); err != nil {
		return err
	}
	collected := prev[0].Collected
	for _, r := range results {
		if r.Outcome == extract.OutcomeCollected {
			collected++
		}
	}
	empty := extract.EmptyRoundsAfter(prev[0].EmptyRounds, collected-prev[0].Collected)
	if f.Stop.StopReason(extract.Progress{Round: f.Next, Collected: collected, Frontier: m.FrontierSize, EmptyRounds: empty}) != "" {
		return nil
	}
	files := append([]string(nil), m.Frontier...)
	sort.Strings(files)
	emit(Plan{Round: f.Next, K: extract.BatchK(f.BatchSize, f.Stop.TargetSize, collected), Collected: collected, EmptyRounds: empty, FrontierFiles: files})
	return nil
}

// planFilesFn emits the frontier files of a plan.
type planFilesFn struct{}

func (planFilesFn) ProcessElement(p Plan, emit func(string)) {
	for _, f := range p.FrontierFiles {
		emit(f)
	}
}

// limitBatchFn cuts a batch taken with the job's largest K to its round's
// K (with look-ahead F, its F·K candidates): the first K of a TopK of more
// are its TopK of K (the per-host cap is applied in ranking order).
// Without a plan the round does nothing.
type limitBatchFn struct {
	LookAhead int // look_ahead (0 and 1: none)
}

func (f limitBatchFn) ProcessElement(batch []extract.Entry, plan []Plan, emit func([]extract.Entry)) {
	if len(plan) != 1 {
		emit(nil) // an empty batch: the round takes nothing
		return
	}
	if n := extract.LookAheadCandidates(plan[0].K, f.LookAhead); len(batch) > n {
		batch = batch[:n]
	}
	emit(batch)
}
