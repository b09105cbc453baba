package round

import (
	"context"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/extract/roundstate"
	"github.com/recrawl/recrawl/internal/storage"
)

// Discovery is what a round learned about one URL: a new entry for it (an
// outlink or a redirect target: HasEntry), that the round took it (it is
// in the batch: Taken), or both, once merged per URL.
type Discovery struct {
	Entry    extract.Entry
	HasEntry bool
	Taken    bool
}

type mergeDiscoveriesFn struct{}

func (mergeDiscoveriesFn) MergeAccumulators(a, b Discovery) Discovery {
	out := Discovery{Taken: a.Taken || b.Taken, HasEntry: a.HasEntry || b.HasEntry}
	switch {
	case a.HasEntry && b.HasEntry:
		out.Entry = extract.Merge(a.Entry, b.Entry)
	case a.HasEntry:
		out.Entry = a.Entry
	case b.HasEntry:
		out.Entry = b.Entry
	}
	return out
}

// MergeFrontier computes the frontier after the round: the old frontier
// without the batch, plus the discovered entries that were neither seen
// before the round nor are in its batch, merged per URL (extract.Merge),
// those new to the frontier first looked up in the index when the job
// discounts pre-event links (LookUpFirstCaptures). Old entries no
// discovered URL touches are written by the bundles that read them; only
// the discovered entries and the old entries they touch are shuffled. discovered is KV<SURT key, Discovery>, the round's batch among
// them (Taken), so that dropping what the round took needs no side input
// (see FetchAndScore on prism and side inputs). Returns the manifest lines
// of the frontier files.
func MergeFrontier(s beam.Scope, frontier, batch, discovered beam.PCollection, cfg Config) beam.PCollection {
	s = s.Scope("MergeFrontier")
	dir := storage.Join(cfg.OutDir, roundstate.FrontierDir)
	unseen := beam.ParDo(s, &filterSeenFn{SeenFiles: cfg.SeenFiles}, beam.CombinePerKey(s, &mergeDiscoveriesFn{}, discovered))
	touched, untouchedParts := beam.ParDo2(s, &splitFrontierFn{Dir: dir}, frontier, beam.SideInput{Input: batch}, beam.SideInput{Input: unseen})
	merged := beam.ParDo(s, dropEntryKey, beam.CombinePerKey(s, &mergeEntriesFn{}, beam.Flatten(s, unseen, touched)))
	if lookUpFirstCaptures(cfg.JobJSON) {
		merged = LookUpFirstCaptures(s, merged, cfg)
	}
	mergedParts := beam.ParDo(s, &writeFrontierFn{Dir: dir}, merged)
	return beam.Flatten(s, untouchedParts, mergedParts)
}

func dropEntryKey(_ string, e extract.Entry) extract.Entry { return e }

type mergeEntriesFn struct{}

func (mergeEntriesFn) MergeAccumulators(a, b extract.Entry) extract.Entry { return extract.Merge(a, b) }

// filterSeenFn drops discovered URLs that were seen before the round or
// are in its batch (counted: discovered_already_seen).
type filterSeenFn struct {
	SeenFiles []string

	seen    map[string]struct{}
	skipped beam.Counter
}

func (f *filterSeenFn) Setup() {
	f.skipped = beam.NewCounter(CounterNamespace, "discovered_already_seen")
}

// ProcessElement loads the seen set with the first element, not in Setup:
// in a job of several rounds, the seen file of the round before is written
// during the job, by the step that plans this round (PlanRound), which every
// element here comes after.
func (f *filterSeenFn) ProcessElement(ctx context.Context, key string, d Discovery, emit func(string, extract.Entry)) error {
	if f.seen == nil {
		seen, err := roundstate.LoadSeen(ctx, f.SeenFiles)
		if err != nil {
			return err
		}
		f.seen = seen
	}
	if !d.HasEntry { // a URL the round took, that no result links to
		return nil
	}
	if _, seen := f.seen[key]; seen || d.Taken {
		f.skipped.Inc(ctx, 1)
		return nil
	}
	emit(key, d.Entry)
	return nil
}

// splitFrontierFn drops the batch from the old frontier, emits the entries
// a discovered URL will merge into, and writes the others (untouched) to a
// frontier file of its bundle.
type splitFrontierFn struct {
	Dir string

	batch, discovered map[string]bool
	pw                roundstate.PartWriter
}

func (f *splitFrontierFn) Setup() {
	f.pw = roundstate.NewPartWriter(f.Dir, roundstate.KindFrontier)
}

// The batch is read as an iterable, not a singleton: a round that does
// nothing (after the last round of a job of several) has an empty frontier,
// and a runner may then give its global TopK no value at all (Flink does;
// prism gives the empty default) yet still call FinishBundle, which asks for
// the side input.
func (f *splitFrontierFn) ProcessElement(ctx context.Context, e extract.Entry, batches func(*[]extract.Entry) bool, discovered func(*string, *extract.Entry) bool, touched func(string, extract.Entry), _ func(string)) error {
	if f.batch == nil {
		f.batch = map[string]bool{}
		var batch []extract.Entry
		for batches(&batch) {
			for _, b := range batch {
				f.batch[b.Key] = true
			}
		}
		f.discovered = map[string]bool{}
		var k string
		var d extract.Entry
		for discovered(&k, &d) {
			f.discovered[k] = true
		}
	}
	switch {
	case f.batch[e.Key]:
	case f.discovered[e.Key]:
		touched(e.Key, e)
	default:
		if err := f.pw.Write(ctx, &e); err != nil {
			f.pw.Abort()
			return err
		}
	}
	return nil
}

// FinishBundle commits the bundle's frontier file and lets the keys of the
// side inputs go (the next bundle reads them again): the harness keeps the
// DoFn after its last bundle until the worker ends, for every round of a
// job of several rounds.
func (f *splitFrontierFn) FinishBundle(_ func(*[]extract.Entry) bool, _ func(*string, *extract.Entry) bool, _ func(string, extract.Entry), parts func(string)) error {
	f.batch, f.discovered = nil, nil
	return f.pw.Finish(parts)
}

func (f *splitFrontierFn) Teardown() error {
	f.pw.Abort()
	return nil
}

// writeFrontierFn writes each bundle's entries to a frontier file of its
// own and emits its manifest line.
type writeFrontierFn struct {
	Dir string
	pw  roundstate.PartWriter
}

func (f *writeFrontierFn) Setup() {
	f.pw = roundstate.NewPartWriter(f.Dir, roundstate.KindFrontier)
}

// ProcessElement writes one entry; emit is used only by FinishBundle (the
// Go SDK takes a bundle's emitters from ProcessElement's signature).
func (f *writeFrontierFn) ProcessElement(ctx context.Context, e extract.Entry, _ func(string)) error {
	if err := f.pw.Write(ctx, &e); err != nil {
		f.pw.Abort()
		return err
	}
	return nil
}

func (f *writeFrontierFn) FinishBundle(emit func(string)) error {
	return f.pw.Finish(emit)
}

func (f *writeFrontierFn) Teardown() error {
	f.pw.Abort()
	return nil
}
