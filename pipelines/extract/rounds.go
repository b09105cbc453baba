package main

import (
	"bufio"
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
	"github.com/recrawl/recrawl/internal/storage"
	"github.com/recrawl/recrawl/runners"
	"github.com/recrawl/recrawl/transforms"
)

// The work directory (--work) holds the state between rounds:
//
//	job.json                 the job this state belongs to
//	state-00000/             the initial frontier (the seeds)
//	state-NNNNN/             the state after N rounds:
//	    results.jsonl          round N-1's results, in rank order
//	    frontier.manifest      the frontier's state files ("path<TAB>count")
//	    frontier/part-*.jsonl
//	    seen.txt               every SURT key seen so far
//	    round.json             round N-1's statistics
//	    DONE                   written last: the state is complete
//	FINISHED                 the outputs were written
//
// A state without DONE is an interrupted round: it is deleted and the round
// runs again, from the last complete state. Every file is written
// atomically, so a SIGKILL at any point leaves either a complete state or
// one without DONE.
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
	st := newRunState()
	seen := map[string]bool{}
	for i := 1; i <= n; i++ {
		if err := loadRound(ctx, stateDir(work, i), st, seen); err != nil {
			return nil, err
		}
	}
	files, frontierSize, err := readManifest(ctx, stateDir(work, n))
	if err != nil {
		return nil, err
	}
	spec := job.Spec
	for round := n; ; round++ {
		if stop := st.stopReason(spec.TargetSize, spec.MaxRounds, round, frontierSize); stop != "" {
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
			FrontierFiles: files, SeenFile: storage.Join(stateDir(work, round), seenFile), OutDir: out,
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
		results, err := readResults(ctx, out)
		if err != nil {
			return nil, err
		}
		for _, r := range results {
			st.add(r)
			seen[r.Entry.Key] = true
		}
		prevSize := frontierSize
		if files, frontierSize, err = readManifest(ctx, out); err != nil {
			return nil, err
		}
		rs := st.endRound(round, prevSize, len(results), len(seen)+frontierSize, time.Since(start))
		if err := commitState(ctx, out, rs, seen); err != nil {
			return nil, err
		}
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
	var buf bytes.Buffer
	for _, e := range seeds {
		b, _ := json.Marshal(e)
		buf.Write(b)
		buf.WriteByte('\n')
	}
	seedFile := storage.Join(dir, transforms.FrontierDir, "seeds.jsonl")
	if err := storage.WriteFile(ctx, seedFile, buf.Bytes()); err != nil {
		return err
	}
	manifest := fmt.Sprintf("%s\t%d\n", seedFile, len(seeds))
	if err := storage.WriteFile(ctx, storage.Join(dir, transforms.FrontierManifestFile), []byte(manifest)); err != nil {
		return err
	}
	if err := storage.WriteFile(ctx, storage.Join(dir, seenFile), nil); err != nil {
		return err
	}
	return storage.WriteFile(ctx, storage.Join(dir, doneFile), nil)
}

// readManifest returns a state's frontier files and their entry count. No
// manifest means an empty frontier (a round whose frontier came out empty
// writes none).
func readManifest(ctx context.Context, dir string) ([]string, int, error) {
	data, err := storage.ReadFile(ctx, storage.Join(dir, transforms.FrontierManifestFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	var files []string
	total := 0
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if line == "" {
			continue
		}
		name, count, ok := strings.Cut(line, "\t")
		n, err := strconv.Atoi(count)
		if !ok || err != nil {
			return nil, 0, fmt.Errorf("%s line %d: want path<TAB>count, got %q", transforms.FrontierManifestFile, i+1, line)
		}
		files = append(files, name)
		total += n
	}
	return files, total, nil
}

func readResults(ctx context.Context, dir string) ([]extract.Result, error) {
	p := storage.Join(dir, transforms.RoundResultsFile)
	r, err := storage.Open(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("round results: %w", err)
	}
	defer r.Close()
	var out []extract.Result
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<26)
	for line := 1; sc.Scan(); line++ {
		var res extract.Result
		if err := json.Unmarshal(sc.Bytes(), &res); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", p, line, err)
		}
		out = append(out, res)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	return out, nil
}

// loadRound replays a committed round into the run state.
func loadRound(ctx context.Context, dir string, st *runState, seen map[string]bool) error {
	results, err := readResults(ctx, dir)
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
	st.roundCollected, st.roundMissing, st.roundRedirects = 0, 0, 0
	return nil
}

// commitState writes the round's statistics and the seen set, then DONE.
func commitState(ctx context.Context, dir string, rs extract.RoundStats, seen map[string]bool) error {
	b, _ := json.Marshal(rs)
	if err := storage.WriteFile(ctx, storage.Join(dir, roundFile), b); err != nil {
		return err
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if err := storage.WriteFile(ctx, storage.Join(dir, seenFile), []byte(strings.Join(keys, "\n")+"\n")); err != nil {
		return err
	}
	return storage.WriteFile(ctx, storage.Join(dir, doneFile), nil)
}
