package engine

import (
	"container/heap"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/collection"
	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/lookup"
)

// runSequential is the reference implementation of Algorithm 1: plain Go,
// one URL at a time, every step through the same functions the Beam rounds
// call (internal/extract). Each URL taken from the frontier is one round of
// batch size 1, so its output is what the Beam engine must produce with K = 1.
// With look_ahead F a round reads the F best URLs and keeps what
// extract.CommitLookAhead keeps for K = 1.
//
// The results are appended to results as they are made; the run state
// keeps only their counts.
func runSequential(ctx context.Context, job *extract.Job, seeds []extract.Entry, idx lookup.Index, proc *extract.Processor, results *spooledResults, progress func(collection.Round)) (*runState, error) {
	strategy, err := job.Strategy()
	if err != nil {
		return nil, err
	}
	ranking := extract.Ranking{Strategy: strategy}
	f := &seqFrontier{ranking: ranking, entries: map[string]extract.Entry{}}
	for _, s := range seeds {
		f.offer(s)
	}
	st := newRunState(results)
	if l := extract.NewLearner(proc.Settings.Focus); l.Active() {
		st.learner = l
	}
	seen := map[string]bool{}
	spec := job.Spec
	lookAhead := job.LookAhead()
	for round := 0; ; round++ {
		if stop := st.stopReason(spec, round, f.Len()); stop != "" {
			st.stop = stop
			break
		}
		start := time.Now()
		frontierSize := f.Len()
		if st.learner != nil {
			proc.Use(st.learner.Learned()) // learned from every result before this round's
		}
		// One URL, or with look-ahead F the F best (extract.CommitLookAhead).
		batch := f.popBatch(lookAhead, spec.MaxPerHost)
		keys := make([]string, len(batch))
		for i, e := range batch {
			keys[i] = e.Key
		}
		found, err := idx.Lookup(ctx, keys)
		if err != nil {
			return nil, fmt.Errorf("round %d: look up %s (and %d more candidates): %w", round, batch[0].URL, len(batch)-1, err)
		}
		cands := make([]extract.Result, len(batch))
		for i, e := range batch {
			if cands[i], err = proc.Process(ctx, e, detachCaptures(found[e.Key]), round, i); err != nil {
				return nil, fmt.Errorf("round %d: %s: %w", round, e.URL, err)
			}
		}
		kept, returned := commitSequential(cands)
		for _, e := range returned {
			f.offer(e)
		}
		for _, res := range kept {
			seen[res.Entry.Key] = true
		}
		for _, res := range kept {
			if err := f.offerAll(ctx, res.NewEntries, seen, idx, proc.Settings.Focus); err != nil {
				return nil, fmt.Errorf("round %d: %s: %w", round, res.Entry.URL, err)
			}
			if err := results.write(res); err != nil {
				return nil, fmt.Errorf("round %d: %s: %w", round, res.Entry.URL, err)
			}
			st.add(res)
		}
		rs := st.endRound(round, frontierSize, len(kept), len(seen)+f.Len(), time.Since(start))
		if progress != nil {
			progress(rs)
		}
	}
	st.frontier = f.Len()
	st.considered = len(seen) + f.Len()
	return st, nil
}

// commitSequential applies a look-ahead round's choice for K = 1
// (extract.CommitLookAhead) to its candidates' results, in rank order: the
// results kept, ranked anew from 0, and the entries returned to the
// frontier. Without look-ahead it keeps the one candidate.
func commitSequential(cands []extract.Result) (kept []extract.Result, returned []extract.Entry) {
	if len(cands) == 1 {
		return cands, nil
	}
	cs := make([]extract.Candidate, len(cands))
	for i, r := range cands {
		cs[i] = extract.CandidateOf(r)
	}
	c := extract.CommitLookAhead(cs, 1)
	keep := c.Ranks()
	for _, r := range cands {
		if i, ok := keep[r.Entry.Key]; ok {
			r.Rank = i
			kept = append(kept, r)
		}
	}
	return kept, c.Returned
}

// seqFrontier is the sequential engine's frontier: the merged entry of each
// unseen URL, and a heap of (possibly outdated) copies ordered by the
// ranking; an outdated copy is skipped when popped.
type seqFrontier struct {
	ranking extract.Ranking
	entries map[string]extract.Entry
	h       entryHeap
}

func (f *seqFrontier) Len() int { return len(f.entries) }

func (f *seqFrontier) offer(e extract.Entry) {
	if old, ok := f.entries[e.Key]; ok {
		merged := extract.Merge(old, e)
		if merged == old {
			return
		}
		e = merged
	}
	f.entries[e.Key] = e
	heap.Push(&f.h, heapItem{e, f.ranking})
}

// offerAll offers the entries a step discovered that were not seen
// before. With discount_pre_event_links, the URLs new to the frontier are
// first looked up in the index, all in one call (extract.Focus
// NeedsFirstCapture, MarkFirstCapture): a URL is looked up once, when it
// enters the frontier, as the Beam engine's MergeFrontier does.
func (f *seqFrontier) offerAll(ctx context.Context, entries []extract.Entry, seen map[string]bool, idx lookup.Index, focus extract.Focus) error {
	var fresh []string
	isFresh := map[string]bool{}
	for _, ne := range entries {
		if _, inFrontier := f.entries[ne.Key]; !seen[ne.Key] && !inFrontier && !isFresh[ne.Key] && focus.NeedsFirstCapture(ne) {
			fresh = append(fresh, ne.Key)
			isFresh[ne.Key] = true
		}
	}
	var found map[string][]cdxj.Capture
	if len(fresh) > 0 {
		var err error
		if found, err = idx.Lookup(ctx, fresh); err != nil {
			return fmt.Errorf("look up the first captures of %d new URLs: %w", len(fresh), err)
		}
	}
	for _, ne := range entries {
		if seen[ne.Key] {
			continue
		}
		if isFresh[ne.Key] {
			ne = focus.MarkFirstCapture(ne, found[ne.Key])
		}
		f.offer(ne)
	}
	return nil
}

// popBatch takes the n best entries (n > 1: a look-ahead round's
// candidates), at most maxPerHost of one host when maxPerHost > 0, as the
// Beam rounds' extract.TopK does; the entries passed over stay.
func (f *seqFrontier) popBatch(n, maxPerHost int) []extract.Entry {
	var batch, passed []extract.Entry
	perHost := map[string]int{}
	for len(batch) < n && f.Len() > 0 {
		e := f.pop()
		if maxPerHost > 0 && n > 1 {
			h := strings.ToLower(e.Host)
			if perHost[h] >= maxPerHost {
				passed = append(passed, e)
				continue
			}
			perHost[h]++
		}
		batch = append(batch, e)
	}
	for _, e := range passed {
		f.offer(e)
	}
	return batch
}

func (f *seqFrontier) pop() extract.Entry {
	for {
		it := heap.Pop(&f.h).(heapItem)
		if cur, ok := f.entries[it.e.Key]; ok && cur == it.e {
			delete(f.entries, it.e.Key)
			return it.e
		}
	}
}

type heapItem struct {
	e extract.Entry
	r extract.Ranking
}

type entryHeap []heapItem

func (h entryHeap) Len() int           { return len(h) }
func (h entryHeap) Less(i, j int) bool { return h[i].r.Before(h[i].e, h[j].e) }
func (h entryHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *entryHeap) Push(x any)        { *h = append(*h, x.(heapItem)) }
func (h *entryHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	*h = old[:len(old)-1]
	return it
}
