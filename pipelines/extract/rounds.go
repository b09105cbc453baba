package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/parallel"
	"github.com/recrawl/recrawl/internal/storage"
	"github.com/recrawl/recrawl/runners"
	"github.com/recrawl/recrawl/transforms"
)

// The work directory (--work) holds the state between rounds:
//
//	job.json                 the job this state belongs to
//	state-00000/             the initial state: the seeds
//	state-NNNNN/             the state after N rounds:
//	    round.manifest         the state's part files, "kind<TAB>path<TAB>count"
//	                           (kind results or frontier), sorted
//	    results/part-*.gob     round N-1's results (extract.Result), one gob stream
//	                           per bundle, in no order: the driver sorts them by rank
//	    frontier/part-*.gob    the whole frontier after round N-1 (extract.Entry)
//	    seen.txt               the SURT keys round N-1 took (its batch), sorted:
//	                           the seen set after N rounds is the union of the
//	                           seen.txt of states 0..N (state 0's is empty)
//	    round.json             round N-1's statistics
//	    DONE                   written last: the state is complete
//	FINISHED                 the outputs were written
//
// Once state N is complete, the frontiers of states before N are deleted
// (pruneFrontiers): the work directory grows by one round's results and
// seen keys per round, not by a whole frontier.
// Only the files a manifest names are state: a part file of a bundle that
// a runner retried is an orphan nobody reads. Nothing is rewritten after its
// round: the seen set grows by one file per round (a round's cost does not
// grow with the run), and a worker process keeps the set it read for the next
// round (transforms.loadSeen). A state without DONE is an interrupted round:
// it is deleted and the round runs again, from the last complete state. Every
// file is written atomically, so a SIGKILL at any point leaves either a
// complete state or one without DONE.
const (
	jobFile      = "job.json"
	doneFile     = "DONE"
	finishedFile = "FINISHED"
	seenFile     = "seen.txt"
	roundFile    = "round.json"
)

func stateDir(work string, n int) string { return storage.Join(work, fmt.Sprintf("state-%05d", n)) }

// errAlreadyFinished: the work directory holds a finished run of the same
// job and its outputs are in place; there is nothing to do.
var errAlreadyFinished = errors.New("the run is already finished")

// errDryRun: --dry_run translated the first round for Dataflow and ran
// nothing; there are no results to read and no outputs to write.
var errDryRun = errors.New("dry run")

// runRounds runs the extraction as Beam rounds, resuming from --work. When
// the work directory holds a finished run of the same job (FINISHED) and
// outputsInPlace is set, it returns errAlreadyFinished and changes nothing.
func runRounds(ctx context.Context, rc *runners.Config, job *extract.Job, seeds []extract.Entry, work string, quiet, outputsInPlace bool) (*runState, error) {
	jobJSON, err := job.Marshal()
	if err != nil {
		return nil, err
	}
	if err := claimWork(ctx, work, jobJSON); err != nil {
		return nil, err
	}
	if outputsInPlace {
		finished, err := storage.Exists(ctx, storage.Join(work, finishedFile))
		if err != nil {
			return nil, err
		}
		if finished {
			return nil, errAlreadyFinished
		}
	}
	strategy, err := job.Strategy()
	if err != nil {
		return nil, err
	}
	n, err := lastCompleteState(ctx, work)
	if err != nil {
		return nil, err
	}
	if n < 0 {
		if err := writeInitialState(ctx, work, seeds); err != nil {
			return nil, err
		}
		n = 0
	} else {
		slog.Info("resuming", "work", work, "completed_rounds", n)
	}
	if err := pruneFrontiers(ctx, work, n); err != nil {
		return nil, err
	}
	st := newRunState()
	seen := map[string]bool{}
	for i := 1; i <= n; i++ {
		if err := loadRound(ctx, stateDir(work, i), st, seen); err != nil {
			return nil, err
		}
	}
	m, err := transforms.ReadManifest(ctx, stateDir(work, n))
	if err != nil {
		return nil, err
	}
	files, frontierSize := m.Frontier, m.FrontierSize
	var seenFiles []string
	for i := 0; i <= n; i++ {
		seenFiles = append(seenFiles, storage.Join(stateDir(work, i), seenFile))
	}
	spec := job.Spec
	for round := n; ; round++ {
		if stop := st.stopReason(spec, round, frontierSize); stop != "" {
			st.stop = stop
			break
		}
		k := spec.BatchSize
		if spec.TargetSize > 0 && spec.TargetSize-st.collected < k {
			k = spec.TargetSize - st.collected
		}
		out := stateDir(work, round+1)
		if err := storage.RemoveAll(ctx, out); err != nil { // leftovers of an interrupted attempt
			return nil, err
		}
		cfg := transforms.RoundConfig{
			JobJSON: jobJSON, Round: round, K: k, MaxPerHost: spec.MaxPerHost, Strategy: int(strategy),
			FrontierFiles: files, SeenFiles: seenFiles, OutDir: out,
			JoinMode: job.JoinMode, IndexSpec: job.Index,
		}
		start := time.Now()
		p, s := beam.NewPipelineWithRoot()
		transforms.ExtractRound(s, cfg)
		if _, err := rc.Run(ctx, p); err != nil {
			return nil, fmt.Errorf("round %d failed; the state of round %d is kept and the same command resumes from it: %w", round, round, err)
		}
		if rc.DryRun { // Dataflow printed the job and returned no result
			fmt.Printf("dry run: round %d translated; nothing was run\n", round)
			return nil, errDryRun
		}
		if rc.Runner == runners.Vet { // the registration check ran; there are no results
			fmt.Printf("vet: round %d passed Beam's registration check; nothing was run\n", round)
			return nil, errDryRun
		}
		m, err := transforms.ReadManifest(ctx, out)
		if err != nil {
			return nil, err
		}
		results, err := readResults(ctx, out, m)
		if err != nil {
			return nil, err
		}
		for _, r := range results {
			st.add(r)
			seen[r.Entry.Key] = true
		}
		prevSize := frontierSize
		files, frontierSize = m.Frontier, m.FrontierSize
		rs := st.endRound(round, prevSize, len(results), len(seen)+frontierSize, time.Since(start))
		if err := commitState(ctx, out, rs, results); err != nil {
			return nil, err
		}
		if err := pruneFrontiers(ctx, work, round+1); err != nil {
			return nil, err
		}
		seenFiles = append(seenFiles, storage.Join(out, seenFile))
		if !quiet {
			progressLine(rs)
		}
	}
	st.frontier = frontierSize
	st.considered = len(seen) + frontierSize
	return st, nil
}

// markFinished writes FINISHED into the work directory: written after the
// outputs, so a run killed while writing them rewrites them when started again.
func markFinished(ctx context.Context, work string) error {
	return storage.WriteFile(ctx, storage.Join(work, finishedFile), nil)
}

// claimWork ties the work directory to one job: resuming with another spec
// or other settings would mix two extractions.
func claimWork(ctx context.Context, work, jobJSON string) error {
	p := storage.Join(work, jobFile)
	old, err := storage.ReadFile(ctx, p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return storage.WriteFile(ctx, p, []byte(jobJSON))
	case err != nil:
		return err
	case string(old) != jobJSON:
		return fmt.Errorf("--work %s holds the state of another extraction (different spec, flags or references); use another --work or delete it", work)
	}
	return nil
}

// lastCompleteState returns the highest N with state-N/DONE, or -1.
func lastCompleteState(ctx context.Context, work string) (int, error) {
	dones, err := storage.Glob(ctx, storage.Join(work, "state-*", doneFile))
	if err != nil {
		return 0, err
	}
	best := -1
	for _, d := range dones {
		dir := strings.TrimSuffix(strings.TrimSuffix(d, doneFile), "/")
		num := strings.TrimPrefix(storage.Base(dir), "state-")
		if n, err := strconv.Atoi(num); err == nil && n > best {
			best = n
		}
	}
	return best, nil
}

func writeInitialState(ctx context.Context, work string, seeds []extract.Entry) error {
	dir := stateDir(work, 0)
	if err := storage.RemoveAll(ctx, dir); err != nil {
		return err
	}
	seedFile := storage.Join(dir, transforms.FrontierDir, "seeds.gob")
	if err := transforms.WritePart(ctx, seedFile, seeds); err != nil {
		return err
	}
	manifest := transforms.ManifestLine(transforms.ManifestFrontier, seedFile, len(seeds)) + "\n"
	if err := storage.WriteFile(ctx, storage.Join(dir, transforms.RoundManifestFile), []byte(manifest)); err != nil {
		return err
	}
	if err := storage.WriteFile(ctx, storage.Join(dir, seenFile), nil); err != nil {
		return err
	}
	return storage.WriteFile(ctx, storage.Join(dir, doneFile), nil)
}

// readResults reads the results of the round that wrote state dir (its
// manifest m), in rank order. The ranks must be exactly 0..n-1: anything
// else is a state that does not hold one complete round.
func readResults(ctx context.Context, dir string, m transforms.Manifest) ([]extract.Result, error) {
	parts := make([][]extract.Result, len(m.Results))
	errs := make([]error, len(m.Results))
	parallel.For(len(parts), func(i int) {
		errs[i] = transforms.ReadPart(ctx, m.Results[i], func(r extract.Result) error {
			parts[i] = append(parts[i], r)
			return nil
		})
	})
	var out []extract.Result
	for i, p := range parts {
		if errs[i] != nil {
			return nil, fmt.Errorf("round results: %w", errs[i])
		}
		out = append(out, p...)
	}
	if len(out) != m.ResultCount {
		return nil, fmt.Errorf("%s: the manifest names %d results, its files hold %d", dir, m.ResultCount, len(out))
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Rank < out[j].Rank })
	for i, r := range out {
		if r.Rank != i {
			return nil, fmt.Errorf("%s: the results of the round have rank %d where %d belongs (a result missing or repeated)", dir, r.Rank, i)
		}
	}
	return out, nil
}

// loadRound replays a committed round into the run state.
func loadRound(ctx context.Context, dir string, st *runState, seen map[string]bool) error {
	m, err := transforms.ReadManifest(ctx, dir)
	if err != nil {
		return err
	}
	results, err := readResults(ctx, dir, m)
	if err != nil {
		return err
	}
	for _, r := range results {
		st.add(r)
		seen[r.Entry.Key] = true
	}
	data, err := storage.ReadFile(ctx, storage.Join(dir, roundFile))
	if err != nil {
		return err
	}
	var rs extract.RoundStats
	if err := json.Unmarshal(data, &rs); err != nil {
		return fmt.Errorf("%s: %w", storage.Join(dir, roundFile), err)
	}
	st.rounds = append(st.rounds, rs)
	st.round = roundCounts{}
	st.links.EndRound()
	return nil
}

// commitState writes the round's statistics and the keys it took (the
// round's part of the seen set), then DONE.
func commitState(ctx context.Context, dir string, rs extract.RoundStats, results []extract.Result) error {
	b, _ := json.Marshal(rs)
	if err := storage.WriteFile(ctx, storage.Join(dir, roundFile), b); err != nil {
		return err
	}
	keys := make([]string, len(results))
	for i, r := range results {
		keys[i] = r.Entry.Key
	}
	sort.Strings(keys)
	var buf bytes.Buffer
	for _, k := range keys {
		buf.WriteString(k)
		buf.WriteByte('\n')
	}
	if err := storage.WriteFile(ctx, storage.Join(dir, seenFile), buf.Bytes()); err != nil {
		return err
	}
	return storage.WriteFile(ctx, storage.Join(dir, doneFile), nil)
}
