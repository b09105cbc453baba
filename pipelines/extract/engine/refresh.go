package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/extract/roundstate"
	"github.com/recrawl/recrawl/internal/lookup"
	"github.com/recrawl/recrawl/internal/storage"
)

// Refresh is what a refresh continues with: the --index values and the
// digest of what they hold now, and the time it is made.
type Refresh struct {
	Index      []string
	IndexState string // "" when it cannot be known: the URLs are resolved again
	Now        time.Time
	// Lookup is the job's index, where the missing URLs are looked up.
	Lookup lookup.Index
	// Labels are the researcher's labels (--labels_file; nil without): see
	// labels.go.
	Labels *Labels
}

// lookupBatch is how many missing URLs resolveAgain looks up at once.
const lookupBatch = 1000

// errNothingNew: see ErrNothingNew.
var errNothingNew = errors.New("nothing new to refresh")

// retriedReasons are the reasons a missing URL is resolved again by a
// refresh: those a newer index or a file that arrived since can change.
var retriedReasons = map[string]bool{
	extract.ReasonNotInIndex:      true,
	extract.ReasonNoUsable:        true,
	extract.ReasonStaleIndex:      true,
	extract.ReasonArchiveFileGone: true,
}

// checkRefreshable checks that work holds an extraction: a refresh needs
// its job and its first state.
func checkRefreshable(ctx context.Context, work string) error {
	ok, err := storage.Exists(ctx, storage.Join(work, roundstate.JobFile))
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("--refresh: %s holds no extraction (no %s); run the extraction without --refresh first", work, roundstate.JobFile)
	}
	return nil
}

// startRefresh begins (or takes up again) a refresh of the extraction in
// work, whose last complete state is n and whose rounds st holds. It
// returns errNothingNew when the extraction is finished, its outputs are
// in place and neither the index state nor the job changed since its last
// run or refresh (an unknown index state always counts as changed), nor
// the labels since the last refresh with labels (when req has labels).
// Otherwise, in this order, each step safe to be killed after:
//
//  1. FINISHED is removed;
//  2. unless the last refresh (or the extraction) recorded the same index
//     state and job, a new refresh record is written at state n, which
//     puts the missing URLs that now have a capture back into the
//     frontier (resolveAgain); with labels, the refresh also holds the
//     labels in force and the frontier ranked again (labels.go);
//  3. job.json becomes the refreshed job.
//
// The rounds then go on from state n as a resumed run's do. It returns
// the refreshes of the work directory.
func startRefresh(ctx context.Context, job *extract.Job, work, jobJSON string, req Refresh, outputsInPlace bool, n int, st *runState, refreshes []roundstate.Refresh) ([]roundstate.Refresh, error) {
	last, err := roundstate.ReadOrigin(ctx, work)
	if err != nil {
		return nil, err
	}
	if len(refreshes) > 0 {
		r := refreshes[len(refreshes)-1]
		last = roundstate.Origin{IndexState: r.IndexState, JobDigest: r.JobDigest}
	}
	current := roundstate.Origin{IndexState: req.IndexState, JobDigest: roundstate.JobDigest(jobJSON)}
	same := req.IndexState != "" && last == current && sameLabels(refreshes, req.Labels)
	finished, err := roundstate.Finished(ctx, work)
	if err != nil {
		return nil, err
	}
	if finished && outputsInPlace && same {
		return nil, errNothingNew
	}
	if err := roundstate.Unfinish(ctx, work); err != nil {
		return nil, err
	}
	if !same {
		r := roundstate.Refresh{Number: len(refreshes) + 1, State: n, Time: req.Now.UTC().Format(time.RFC3339),
			Index: req.Index, IndexState: req.IndexState, JobDigest: current.JobDigest}
		again, seen, err := resolveAgain(ctx, job, req.Lookup, work, n, st, refreshes)
		if err != nil {
			return nil, err
		}
		var labels *extract.LabelState
		var ranked []extract.Entry
		if req.Labels != nil {
			if labels, r.Labels, ranked, err = labelledFrontier(ctx, job, work, n, st, refreshes, req.Labels, req.Lookup, again); err != nil {
				return nil, err
			}
		}
		if err := roundstate.WriteLabelledRefresh(ctx, work, r, again, seen, labels, ranked); err != nil {
			return nil, err
		}
		r.ResolvedAgain, r.Reprioritised = len(again), len(ranked)
		refreshes = append(refreshes, r)
		slog.Info("refresh", "number", r.Number, "first_round", n, "resolved_again", len(again), "index_state", r.IndexState)
	} else {
		slog.Info("refresh taken up again", "number", len(refreshes), "completed_rounds", n)
	}
	if err := storage.WriteFile(ctx, storage.Join(work, roundstate.JobFile), []byte(jobJSON)); err != nil {
		return nil, err
	}
	return refreshes, nil
}

// sameLabels reports whether labels (nil: no --labels_file) are those of the
// last refresh with labels, or are not given.
func sameLabels(refreshes []roundstate.Refresh, labels *Labels) bool {
	if labels == nil {
		return true
	}
	for i := len(refreshes) - 1; i >= 0; i-- {
		if l := refreshes[i].Labels; l != nil {
			return l.SHA256 == labels.SHA256
		}
	}
	return false
}

// resolveAgain returns the entries of the URLs a refresh at state n puts
// back into the frontier, in collection order, and the seen set without
// them, sorted. They are the URLs whose latest result is missing for one
// of retriedReasons, that are in the seen set (a URL put back by an
// earlier refresh and not taken since is in the frontier already), and
// for which the snapshot rule now finds a capture in idx: a URL that
// would be missing again stays as it is, so a refresh's work follows what
// the index gained, not how many URLs are missing.
func resolveAgain(ctx context.Context, job *extract.Job, idx lookup.Index, work string, n int, st *runState, refreshes []roundstate.Refresh) ([]extract.Entry, []string, error) {
	seen, err := roundstate.LoadSeen(ctx, roundstate.SeenFilesWith(work, n, refreshes))
	if err != nil {
		return nil, nil, err
	}
	var candidates []extract.Entry
	i := 0
	err = st.results.replay(func(r extract.Result) error {
		key := r.Entry.Key
		latest, isMissing := st.missingKeys[key] // where the URL's latest result is, when it is missing
		if _, isSeen := seen[key]; isMissing && latest.at == i && r.Outcome == extract.OutcomeMissing && retriedReasons[r.ReasonCode] && isSeen {
			candidates = append(candidates, r.Entry)
		}
		i++
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	var again []extract.Entry
	taken := map[string]bool{}
	iv, archives := job.Interval(), job.ArchiveNames()
	for start := 0; start < len(candidates); start += lookupBatch {
		batch := candidates[start:min(start+lookupBatch, len(candidates))]
		keys := make([]string, len(batch))
		for i, e := range batch {
			keys[i] = e.Key
		}
		found, err := idx.Lookup(ctx, keys)
		if err != nil {
			return nil, nil, fmt.Errorf("refresh: look up %d missing URLs: %w", len(keys), err)
		}
		for _, e := range batch {
			if extract.SelectSnapshotIn(found[e.Key], iv, archives).Kind != extract.NoSnapshot {
				again = append(again, e)
				taken[e.Key] = true
			}
		}
	}
	slog.Info("refresh: missing URLs looked up again", "missing", len(candidates), "with_a_capture_now", len(again))
	rest := make([]string, 0, len(seen))
	for k := range seen {
		if !taken[k] {
			rest = append(rest, k)
		}
	}
	return again, rest, nil
}
