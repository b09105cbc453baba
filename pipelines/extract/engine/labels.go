package engine

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"

	"github.com/recrawl/recrawl/internal/collection"
	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/extract/roundstate"
	"github.com/recrawl/recrawl/internal/lookup"
	"github.com/recrawl/recrawl/scoring"
)

// A refresh with the researcher's labels (--refresh --labels_file FILE):
//
//  1. the labels in force are those of the last labelled refresh with the
//     file's over them (a URL labelled again takes its new grade);
//  2. the labelled documents of the collection are read again from their
//     archives for their feedback terms (the terms relevance feedback
//     keeps of a document: scoring.DocTerms), which make the labels'
//     feedback set (extract.LabelState); labels of URLs the collection
//     does not hold are counted and logged, not used;
//  3. the frontier at the refresh's state (with the URLs resolved again)
//     is ranked again: every fetched page that links to an entry of it is
//     read again and its outlinks scored with the reference the labels
//     enriched (and, with learn_links, the link model trained on the
//     labels), and each entry's priority is what its parents give it now
//     (extract.Merge, in collection order); an entry no fetched page links
//     to (a seed) keeps its priority;
//  4. the labels and the ranked frontier are written with the refresh
//     record (roundstate.WriteLabelledRefresh); the rounds go on from it.
//
// Documents already collected keep their place, bytes and scores: only
// the links' priorities change. Everything is a function of the stored
// results, the labels and the index, so the same labels give the same
// bytes, and a refresh killed before its record is complete is made again
// the same.

// Labels are a refresh's labels, as the driver read them from --labels_file.
type Labels struct {
	Path   string
	SHA256 string // of the file's bytes
	// Grades by SURT key: > 0 relevant, 0 not relevant.
	Grades map[string]float64
	// URLs: the URL of each key as the file gives it (for the log of
	// labels the collection does not hold).
	URLs map[string]string
}

// labelsNotInCollectionLogged bounds the URLs of labels the collection
// does not hold that the log names one by one.
const labelsNotInCollectionLogged = 10

// labelState makes the labels in force after a refresh with req (the
// labels of prev with req's over them) and the record of what req's
// labels gave: the feedback terms of the labelled documents of the
// collection are read again with proc from the captures idx holds.
func labelState(ctx context.Context, proc *extract.Processor, idx lookup.Index, st *runState, prev *extract.LabelState, req *Labels) (*extract.LabelState, *collection.RefreshLabels, error) {
	grades := map[string]float64{}
	if prev != nil {
		maps.Copy(grades, prev.Grades)
	}
	maps.Copy(grades, req.Grades)
	// The labelled documents of the collection: the place in collection
	// order of the latest result of each collected URL the labels name.
	position := map[string]int{}
	entryAt := map[int]extract.Entry{}
	i := 0
	err := st.results.replay(func(r extract.Result) error {
		if _, labelled := grades[r.Entry.Key]; labelled && r.Outcome == extract.OutcomeCollected && r.Document != nil {
			position[r.Entry.Key] = i
			entryAt[i] = r.Entry
		}
		i++
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	rec := &collection.RefreshLabels{Path: req.Path, SHA256: req.SHA256}
	var missing []string
	for _, k := range slices.Sorted(maps.Keys(req.Grades)) {
		switch _, ok := position[k]; {
		case !ok:
			rec.NotInCollection++
			missing = append(missing, req.URLs[k])
		case req.Grades[k] > 0:
			rec.Positive++
		default:
			rec.Negative++
		}
	}
	if len(missing) > 0 {
		slog.Warn("labels: URLs the collection does not hold are not used", "file", req.Path, "count", len(missing),
			"urls", missing[:min(len(missing), labelsNotInCollectionLogged)])
	}
	var labelled []int // positions of the labelled documents, in collection order
	for k := range grades {
		if i, ok := position[k]; ok {
			labelled = append(labelled, i)
		}
	}
	slices.Sort(labelled)
	terms, err := labelledTerms(ctx, proc, idx, st.results, labelled)
	if err != nil {
		return nil, nil, err
	}
	state := &extract.LabelState{Grades: grades}
	for seq, i := range labelled {
		e := entryAt[i]
		t, ok := terms[e.Key]
		if !ok {
			slog.Warn("labels: a labelled document has no text to learn from", "url", e.URL)
			continue
		}
		d := scoring.FeedbackDoc{Seq: seq, Relevance: grades[e.Key], Terms: t}
		if d.Relevance > 0 {
			state.Set.Relevant = append(state.Set.Relevant, d)
		} else {
			state.Set.NonRelevant = append(state.Set.NonRelevant, d)
		}
	}
	state.Set.Offered = len(labelled)
	slog.Info("labels", "file", req.Path, "positive", rec.Positive, "negative", rec.Negative, "not_in_collection", rec.NotInCollection,
		"relevant_documents", len(state.Set.Relevant), "non_relevant_documents", len(state.Set.NonRelevant))
	return state, rec, nil
}

// labelledTerms reads the results at positions (sorted) again (their
// captures as idx holds them now) and returns each one's feedback terms by
// SURT key.
func labelledTerms(ctx context.Context, proc *extract.Processor, idx lookup.Index, results resultStore, positions []int) (map[string]scoring.DocTerms, error) {
	tp := *proc // the same scorer and fetcher, keeping the documents' feedback terms
	tp.Settings.Focus.Feedback.Documents = max(tp.Settings.Focus.Feedback.Documents, 1)
	tp.Feedback, tp.LinkModel = nil, nil
	out := map[string]scoring.DocTerms{}
	err := readAgain(ctx, &tp, idx, results, positions, func(res extract.Result) {
		if res.FeedbackTerms != nil && len(res.FeedbackTerms.Terms) > 0 {
			out[res.Entry.Key] = *res.FeedbackTerms
		}
	})
	return out, err
}

// readAgain processes the results at positions (places in collection
// order, sorted) again with proc, in order, looking their captures up in
// idx lookupBatch at a time, and hands each new result to each. It holds
// one batch of entries, not the results.
func readAgain(ctx context.Context, proc *extract.Processor, idx lookup.Index, results resultStore, positions []int, each func(extract.Result)) error {
	batch := make([]extract.Result, 0, min(len(positions), lookupBatch))
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		keys := make([]string, len(batch))
		for i, r := range batch {
			keys[i] = r.Entry.Key
		}
		found, err := idx.Lookup(ctx, keys)
		if err != nil {
			return fmt.Errorf("labels: look up %d documents: %w", len(keys), err)
		}
		for _, r := range batch {
			res, err := proc.Process(ctx, r.Entry, detachCaptures(found[r.Entry.Key]), r.Round, r.Rank)
			if err != nil {
				return fmt.Errorf("labels: read %s again: %w", r.Entry.URL, err)
			}
			each(res)
		}
		batch = batch[:0]
		return nil
	}
	i, next := 0, 0
	err := results.replay(func(r extract.Result) error {
		if next < len(positions) && positions[next] == i {
			next++
			batch = append(batch, extract.Result{Entry: r.Entry, Round: r.Round, Rank: r.Rank})
			if len(batch) == lookupBatch {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		i++
		return nil
	})
	if err != nil {
		return err
	}
	return flush()
}

// rankAgain returns the frontier (entries, any order, a URL at most
// once) ranked with proc (which uses what the labels taught), sorted by
// SURT key: see the top of this file.
func rankAgain(ctx context.Context, proc *extract.Processor, idx lookup.Index, results resultStore, entries []extract.Entry) ([]extract.Entry, error) {
	frontier := make(map[string]extract.Entry, len(entries))
	for _, e := range entries {
		if old, ok := frontier[e.Key]; ok {
			e = extract.Merge(old, e)
		}
		frontier[e.Key] = e
	}
	var parents []int // places in collection order
	i := 0
	err := results.replay(func(r extract.Result) error {
		if linksInto(r, frontier) {
			parents = append(parents, i)
		}
		i++
		return nil
	})
	if err != nil {
		return nil, err
	}
	now := map[string]extract.Entry{}
	err = readAgain(ctx, proc, idx, results, parents, func(res extract.Result) {
		for _, ne := range res.NewEntries {
			if _, ok := frontier[ne.Key]; !ok {
				continue
			}
			if old, ok := now[ne.Key]; ok {
				ne = extract.Merge(old, ne)
			}
			now[ne.Key] = ne
		}
	})
	if err != nil {
		return nil, err
	}
	out := make([]extract.Entry, 0, len(frontier))
	changed := 0
	for _, e := range frontier {
		if n, ok := now[e.Key]; ok {
			if n.Priority != e.Priority {
				changed++
			}
			e.Priority, e.PrioritySum, e.Parents, e.Latest = n.Priority, n.PrioritySum, n.Parents, n.Latest
		}
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b extract.Entry) int { return cmp.Compare(a.Key, b.Key) })
	slog.Info("labels: frontier ranked again", "entries", len(out), "pages_read_again", len(parents), "priorities_changed", changed)
	return out, nil
}

// linksInto reports whether a fetched page's result links to an entry of
// frontier.
func linksInto(r extract.Result, frontier map[string]extract.Entry) bool {
	if r.Outcome != extract.OutcomeCollected && r.Outcome != extract.OutcomeListing && r.Outcome != extract.OutcomeRedirect {
		return false
	}
	for _, l := range r.Links {
		if _, ok := frontier[l.Key]; ok && l.Followed {
			return true
		}
	}
	for _, ne := range r.NewEntries {
		if _, ok := frontier[ne.Key]; ok {
			return true
		}
	}
	return false
}

// labelledFrontier makes what a refresh with labels writes at state n:
// the labels in force, the record of the file's, and the frontier (the
// state's, with again) ranked again.
func labelledFrontier(ctx context.Context, job *extract.Job, work string, n int, st *runState, refreshes []roundstate.Refresh, req *Labels, idx lookup.Index, again []extract.Entry) (*extract.LabelState, *collection.RefreshLabels, []extract.Entry, error) {
	proc, err := job.NewProcessor(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	defer proc.Fetcher.Close()
	prev, err := roundstate.ReadLabels(ctx, work, refreshes)
	if err != nil {
		return nil, nil, nil, err
	}
	state, rec, err := labelState(ctx, proc, idx, st, prev, req)
	if err != nil {
		return nil, nil, nil, err
	}
	l := extract.NewLearner(job.Focus())
	l.SetLabels(state)
	if err := st.results.replay(func(r extract.Result) error { l.Add(r); return nil }); err != nil {
		return nil, nil, nil, err
	}
	proc.Use(l.Learned())
	m, err := roundstate.ReadManifest(ctx, roundstate.StateDir(work, n))
	if err != nil {
		return nil, nil, nil, err
	}
	files, _ := roundstate.RefreshedFrontier(work, n, refreshes, m.Frontier, m.FrontierSize)
	entries := append([]extract.Entry(nil), again...)
	for _, f := range files {
		if err := roundstate.ReadPart(ctx, f, func(e extract.Entry) error { entries = append(entries, e); return nil }); err != nil {
			return nil, nil, nil, err
		}
	}
	ranked, err := rankAgain(ctx, proc, idx, st.results, entries)
	if err != nil {
		return nil, nil, nil, err
	}
	return state, rec, ranked, nil
}
