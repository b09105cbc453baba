package roundstate

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/recrawl/recrawl/internal/storage"
)

// Names of the files and directories of a work directory and of its states.
const (
	JobFile      = "job.json"
	DoneFile     = "DONE"
	FinishedFile = "FINISHED"
	SeenFile     = "seen.txt"
	RoundFile    = "round.json"
	// ManifestFile names every part file of a state, one per line:
	// "kind<TAB>path<TAB>count" (kind KindResults or KindFrontier), sorted.
	ManifestFile = "round.manifest"
	ResultsDir   = "results"  // results/part-*.gob: extract.Result values, in no particular order
	FrontierDir  = "frontier" // frontier/part-*.gob: extract.Entry values
	// CandidatesDir (specs look_ahead): candidates/part-*.gob, the
	// extract.Result of every URL a round read, kept or not; the manifest
	// names only the results the round kept (in ResultsDir).
	CandidatesDir = "candidates"
)

// StateDir is the directory of the state after n rounds.
func StateDir(work string, n int) string { return storage.Join(work, fmt.Sprintf("state-%05d", n)) }

// SeenFiles are the seen files of states 0..n: their union is the seen set
// after n rounds.
func SeenFiles(work string, n int) []string {
	files := make([]string, 0, n+1)
	for i := 0; i <= n; i++ {
		files = append(files, storage.Join(StateDir(work, i), SeenFile))
	}
	return files
}

// Claim ties the work directory to one job (its JSON): resuming with another
// spec or other settings would mix two extractions.
func Claim(ctx context.Context, work, jobJSON string) error {
	p := storage.Join(work, JobFile)
	old, err := storage.ReadFile(ctx, p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return storage.WriteFile(ctx, p, []byte(jobJSON))
	case err != nil:
		return err
	case string(old) != jobJSON:
		return fmt.Errorf("--work %s holds the state of another extraction (different spec, flags or references); use another --work or delete it (to continue it on a newer index or to a larger target_size: --refresh)", work)
	}
	return nil
}

// Finished reports whether the work directory holds a finished run (its
// outputs were written).
func Finished(ctx context.Context, work string) (bool, error) {
	return storage.Exists(ctx, storage.Join(work, FinishedFile))
}

// MarkFinished writes FINISHED: written after the outputs, so a run killed
// while writing them rewrites them when started again.
func MarkFinished(ctx context.Context, work string) error {
	return storage.WriteFile(ctx, storage.Join(work, FinishedFile), nil)
}

// LastComplete returns the highest N with state-N/DONE, or -1.
func LastComplete(ctx context.Context, work string) (int, error) {
	dones, err := storage.Glob(ctx, storage.Join(work, "state-*", DoneFile))
	if err != nil {
		return 0, err
	}
	best := -1
	for _, d := range dones {
		dir := strings.TrimSuffix(strings.TrimSuffix(d, DoneFile), "/")
		num := strings.TrimPrefix(storage.Base(dir), "state-")
		if n, err := strconv.Atoi(num); err == nil && n > best {
			best = n
		}
	}
	return best, nil
}
