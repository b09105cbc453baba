// Package engine runs the rounds of an extraction, Algorithm 1 of Gossen
// et al.: from the seeds, select a batch of the frontier, resolve and fetch
// its snapshots, score them and merge their outlinks into the frontier, until
// the stopping rule ends the run. Two engines implement [Engine] and give
// the same collection:
//
//   - [Sequential] (sequential.go): plain Go, one URL per round; the
//     reference the Beam engine is tested against (K = 1).
//   - [Beam] (beam.go): each round, or each job of several rounds, is a Beam
//     pipeline of transforms/round's composites, run on any runner; the
//     state between rounds is internal/extract/roundstate's work directory, so a
//     killed run resumes.
//
// Both call the same pure steps (internal/extract) and accumulate their
// results the same way (state.go). The driver, pipelines/extract, reads the
// flags, prepares the job, picks an engine and writes the outputs of the
// [Run] it returns.
package engine

import (
	"context"
	"fmt"
	"os"

	"github.com/recrawl/recrawl/internal/collection"
	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/extract/roundstate"
	"github.com/recrawl/recrawl/internal/lookup"
	"github.com/recrawl/recrawl/runners"
)

// Engine runs an extraction's rounds.
type Engine interface {
	// Extract runs the rounds from the seeds until the stopping rule ends
	// them and returns what they produced.
	Extract(ctx context.Context, job *extract.Job, seeds []extract.Entry) (*Run, error)
	// Finish records that the run's outputs are written.
	Finish(ctx context.Context) error
}

// ErrAlreadyFinished: the work directory holds a finished run of the same
// job and its outputs are in place; there is nothing to do.
var ErrAlreadyFinished = errAlreadyFinished

// ErrNothingNew: a refresh found the index and the job as the last run or
// refresh of a finished extraction left them; it changed nothing.
var ErrNothingNew = errNothingNew

// ErrDryRun: the runner translated or checked the first round (--dry_run,
// --runner=vet) and ran nothing; there are no results and no outputs.
var ErrDryRun = errDryRun

// Sequential is the reference engine: one URL per round, in this process.
type Sequential struct {
	Index lookup.Index // the job's snapshot index (extract.Job.OpenIndex)
	Quiet bool         // no progress line (else one every 100 rounds)
	// results of the last Extract, released by Finish.
	results *spooledResults
}

// Extract runs the rounds one URL at a time.
func (e *Sequential) Extract(ctx context.Context, job *extract.Job, seeds []extract.Entry) (*Run, error) {
	proc, err := job.NewProcessor(ctx)
	if err != nil {
		return nil, err
	}
	defer proc.Fetcher.Close()
	results, err := newSpooledResults()
	if err != nil {
		return nil, err
	}
	e.results = results
	n := 0
	st, err := runSequential(ctx, job, seeds, e.Index, proc, results, func(rs collection.Round) {
		if n++; !e.Quiet && (n%100 == 0) {
			progressLine(rs)
		}
	})
	if err != nil {
		return nil, err
	}
	return &Run{st}, nil
}

// Finish releases the run's results (a temporary file): the sequential
// engine keeps no state.
func (e *Sequential) Finish(context.Context) error {
	if e.results == nil {
		return nil
	}
	err := e.results.close()
	e.results = nil
	return err
}

// Beam runs the rounds as Beam pipelines on a runner, with their state in
// a work directory (internal/extract/roundstate).
type Beam struct {
	Runner *runners.Config
	Work   string // the work directory (--work)
	// RoundsPerJob rounds run as one pipeline (--rounds_per_job; 1 or more).
	RoundsPerJob int
	Quiet        bool // no progress line (else one per round)
	// OutputsInPlace: the run's outputs exist; a finished run of the same
	// job then returns ErrAlreadyFinished and changes nothing.
	OutputsInPlace bool
	// IndexState is the digest of what the job's indexes hold ("" when it
	// cannot be known), recorded when the extraction starts and with
	// each refresh.
	IndexState string
	// Refresh, when set, continues the extraction the work directory holds
	// against the index as it is now (recrawl extract --refresh).
	Refresh *Refresh
}

// Extract runs the rounds, resuming from the work directory.
func (e *Beam) Extract(ctx context.Context, job *extract.Job, seeds []extract.Entry) (*Run, error) {
	st, err := runRounds(ctx, e.Runner, job, seeds, e)
	if err != nil {
		return nil, err
	}
	return &Run{st}, nil
}

// Finish marks the work directory finished (roundstate.MarkFinished): the
// same command run again changes nothing.
func (e *Beam) Finish(ctx context.Context) error { return roundstate.MarkFinished(ctx, e.Work) }

// Run is what an engine produced, in collection order.
type Run struct{ st *runState }

// Results replays every step's result, in collection order, from disk
// (valid until the engine's Finish).
func (r *Run) Results() extract.ResultSource { return r.st.source() }

// Refreshes are the refreshes of the work directory, each with the
// documents its rounds collected (run.json).
func (r *Run) Refreshes() []roundstate.Refresh {
	out := append([]roundstate.Refresh(nil), r.st.refreshes...)
	for i := range out {
		end := -1 // the rounds of refresh i: from its state to the next one's
		if i+1 < len(out) {
			end = out[i+1].State
		}
		out[i].Added = r.st.collectedIn(out[i].State, end)
	}
	return out
}

// Rounds are the statistics of every round (rounds.jsonl).
func (r *Run) Rounds() []collection.Round { return r.st.rounds }

// Totals are the run's totals (run.json).
func (r *Run) Totals() collection.Totals { return r.st.totals(len(r.st.rounds)) }

// Summary is the run's last line on standard output.
func (r *Run) Summary(output string) string {
	st := r.st
	return fmt.Sprintf("collected %d documents (%d missing, %d redirects) in %d rounds: %s; accumulated relevance %.3f; outputs in %s",
		st.collected, st.missing, st.redirects, len(st.rounds), st.stop, st.relevance, output)
}

// progressLine prints one round's progress on standard error.
func progressLine(rs collection.Round) {
	fmt.Fprintf(os.Stderr, "round %d: frontier %d, selected %d, collected %d, missing %d, accumulated relevance %.3f (%.2fs)\n",
		rs.Round, rs.FrontierSize, rs.Selected, rs.Collected, rs.Missing, rs.AccumulatedRelevance, rs.Seconds)
}
