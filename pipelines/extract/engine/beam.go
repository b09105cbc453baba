package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/extract/roundstate"
	"github.com/recrawl/recrawl/internal/storage"
	"github.com/recrawl/recrawl/runners"
	"github.com/recrawl/recrawl/transforms/round"
)

// The work directory (--work) and its format are internal/extract/roundstate's.
// Once state N is complete, the frontiers of states before N are deleted
// (roundstate.PruneFrontiers): the work directory grows by one round's
// results and seen keys per round, not by a whole frontier.

// errAlreadyFinished: the work directory holds a finished run of the same
// job and its outputs are in place; there is nothing to do.
var errAlreadyFinished = errors.New("the run is already finished")

// errDryRun: --dry_run translated the first round for Dataflow and ran
// nothing; there are no results to read and no outputs to write.
var errDryRun = errors.New("dry run")

// runRounds runs the extraction as Beam rounds, resuming from --work (the
// settings of e). When the work directory holds a finished run of the same
// job (FINISHED) and its outputs are in place, it returns
// errAlreadyFinished and changes nothing. With e.Refresh it continues the
// extraction the work directory holds (startRefresh).
//
// roundsPerJob rounds run as one pipeline (round.ExtractRounds); the state
// after each is committed once the job ends, so an interrupted job resumes
// from the state before it.
func runRounds(ctx context.Context, rc *runners.Config, job *extract.Job, seeds []extract.Entry, e *Beam) (*runState, error) {
	work, roundsPerJob, quiet := e.Work, max(e.RoundsPerJob, 1), e.Quiet
	jobJSON, err := job.Marshal()
	if err != nil {
		return nil, err
	}
	if e.Refresh != nil {
		if err := checkRefreshable(ctx, work); err != nil {
			return nil, err
		}
	} else {
		if err := roundstate.Claim(ctx, work, jobJSON); err != nil {
			return nil, err
		}
		if e.OutputsInPlace {
			finished, err := roundstate.Finished(ctx, work)
			if err != nil {
				return nil, err
			}
			if finished {
				return nil, errAlreadyFinished
			}
		}
	}
	strategy, err := job.Strategy()
	if err != nil {
		return nil, err
	}
	n, err := roundstate.LastComplete(ctx, work)
	if err != nil {
		return nil, err
	}
	if n < 0 && e.Refresh != nil {
		return nil, fmt.Errorf("--refresh: %s holds no complete state of the extraction; run it without --refresh first", work)
	}
	if n < 0 {
		if err := roundstate.WriteOrigin(ctx, work, roundstate.Origin{IndexState: e.IndexState, JobDigest: roundstate.JobDigest(jobJSON)}); err != nil {
			return nil, err
		}
		if err := roundstate.WriteInitial(ctx, work, seeds); err != nil {
			return nil, err
		}
		n = 0
	} else if e.Refresh == nil {
		slog.Info("resuming", "work", work, "completed_rounds", n)
	}
	if err := roundstate.PruneFrontiers(ctx, work, n); err != nil {
		return nil, err
	}
	results := &roundResults{ctx: ctx}
	st := newRunState(results)
	if roundsPerJob > 1 && extract.NewLearner(job.Focus()).LearnsBetweenRounds() {
		return nil, fmt.Errorf("learn_links and feedback learn between rounds; run with --rounds_per_job=1")
	}
	seen := map[string]bool{}
	for i := 1; i <= n; i++ {
		if err := loadRound(ctx, roundstate.StateDir(work, i), st, seen); err != nil {
			return nil, err
		}
		results.addRound(roundstate.StateDir(work, i))
	}
	refreshes, err := roundstate.Refreshes(ctx, work)
	if err != nil {
		return nil, err
	}
	if e.Refresh != nil {
		if refreshes, err = startRefresh(ctx, job, work, jobJSON, *e.Refresh, e.OutputsInPlace, n, st, refreshes); err != nil {
			return nil, err
		}
	}
	st.refreshes = refreshes
	// What is learned is a function of the results in collection order
	// and of the labels in force: replayed once they are known.
	labels, err := roundstate.ReadLabels(ctx, work, refreshes)
	if err != nil {
		return nil, err
	}
	l := extract.NewLearner(job.Focus())
	l.SetLabels(labels)
	if l.Active() {
		if err := results.replay(func(r extract.Result) error { l.Add(r); return nil }); err != nil {
			return nil, err
		}
		st.learner = l
	}
	if len(refreshes) > 0 {
		st.emptySince = refreshes[len(refreshes)-1].State
	}
	m, err := roundstate.ReadManifest(ctx, roundstate.StateDir(work, n))
	if err != nil {
		return nil, err
	}
	files, frontierSize := roundstate.RefreshedFrontier(work, n, refreshes, m.Frontier, m.FrontierSize)
	seenFiles := roundstate.SeenFilesWith(work, n, refreshes)
	spec := job.Spec
	for r := n; ; {
		if stop := st.stopReason(spec, r, frontierSize); stop != "" {
			st.stop = stop
			break
		}
		start := time.Now()
		learned := ""
		if st.learner != nil {
			if learned, err = st.learner.JSON(); err != nil {
				return nil, err
			}
		}
		ran, err := runJob(ctx, rc, job, jobJSON, int(strategy), work, r, roundsPerJob, st.progress(r, frontierSize), files, seenFiles, learned)
		if err != nil {
			return nil, err
		}
		// Commit the rounds the job ran, in order: the seconds of each are
		// the job's divided by them.
		took := time.Since(start) / time.Duration(len(ran))
		for _, out := range ran {
			m, err := roundstate.ReadManifest(ctx, out)
			if err != nil {
				return nil, err
			}
			roundRes, err := roundstate.ReadResults(ctx, out, m)
			if err != nil {
				return nil, err
			}
			for _, res := range roundRes {
				st.add(res)
				seen[res.Entry.Key] = true
			}
			prevSize := frontierSize
			files, frontierSize = m.Frontier, m.FrontierSize
			rs := st.endRound(r, prevSize, len(roundRes), len(seen)+frontierSize, took)
			if err := roundstate.Commit(ctx, out, rs, roundRes); err != nil {
				return nil, err
			}
			results.addRound(out)
			if err := roundstate.PruneFrontiers(ctx, work, r+1); err != nil {
				return nil, err
			}
			seenFiles = append(seenFiles, storage.Join(out, roundstate.SeenFile))
			if !quiet {
				progressLine(rs)
			}
			r++
		}
	}
	st.frontier = frontierSize
	st.considered = len(seen) + frontierSize
	return st, nil
}

// runJob runs rounds first.. (rounds of them at most: those after the
// extraction stops do nothing) as one pipeline, on the frontier files and
// seen files of the state before first and with the progress so far (and
// what learn_links and feedback learned, extract.Learner.JSON), and
// returns the state directories the rounds wrote, in order (the first
// round always runs).
func runJob(ctx context.Context, rc *runners.Config, job *extract.Job, jobJSON string, strategy int, work string, first, rounds int, progress extract.Progress, files, seenFiles []string, learned string) ([]string, error) {
	collected := progress.Collected
	spec := job.Spec
	for i := 0; i < rounds; i++ { // leftovers of an interrupted attempt
		if err := storage.RemoveAll(ctx, roundstate.StateDir(work, first+i+1)); err != nil {
			return nil, err
		}
	}
	cfg := round.Config{
		JobJSON: jobJSON, Round: first, K: extract.BatchK(spec.BatchSize, spec.TargetSize, collected), MaxPerHost: spec.MaxPerHost,
		Strategy: strategy, FrontierFiles: files, SeenFiles: seenFiles, OutDir: roundstate.StateDir(work, first+1),
		JoinMode: job.JoinMode, Sources: job.IndexSources(), Learned: learned, LookAhead: job.LookAhead(),
	}
	p, s := beam.NewPipelineWithRoot()
	if rounds <= 1 {
		round.Extract(s, cfg)
	} else {
		round.ExtractRounds(s, round.JobConfig{First: cfg, Rounds: rounds, Work: work,
			BatchSize: spec.BatchSize, Stop: extract.StopRuleOf(spec), Collected: collected, EmptyRounds: progress.EmptyRounds})
	}
	if _, err := rc.Run(ctx, p); err != nil {
		return nil, fmt.Errorf("round %d failed; the state of round %d is kept and the same command resumes from it: %w", first, first, err)
	}
	if rc.DryRun { // Dataflow printed the job and returned no result
		fmt.Printf("dry run: round %d translated; nothing was run\n", first)
		return nil, errDryRun
	}
	if rc.Runner == runners.Vet { // the registration check ran; there are no results
		fmt.Printf("vet: round %d passed Beam's registration check; nothing was run\n", first)
		return nil, errDryRun
	}
	ran := []string{cfg.OutDir}
	for i := 1; i < rounds; i++ {
		out := roundstate.StateDir(work, first+i+1)
		if ok, err := storage.Exists(ctx, storage.Join(out, roundstate.ManifestFile)); err != nil {
			return nil, err
		} else if !ok {
			break // the extraction stopped before this round
		}
		ran = append(ran, out)
	}
	return ran, nil
}

// loadRound replays a committed round into the run state.
func loadRound(ctx context.Context, dir string, st *runState, seen map[string]bool) error {
	m, err := roundstate.ReadManifest(ctx, dir)
	if err != nil {
		return err
	}
	results, err := roundstate.ReadResults(ctx, dir, m)
	if err != nil {
		return err
	}
	for _, r := range results {
		st.add(r)
		seen[r.Entry.Key] = true
	}
	rs, err := roundstate.ReadRoundStats(ctx, dir)
	if err != nil {
		return err
	}
	st.rounds = append(st.rounds, rs)
	st.round = roundCounts{}
	st.links.EndRound()
	return nil
}
