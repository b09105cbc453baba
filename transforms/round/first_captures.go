package round

import (
	"context"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/recrawl/recrawl/internal/extract"
)

// LookUpFirstCaptures gives every entry of the merged frontier whose URL
// is new to the frontier the state of its first usable capture (specs
// discount_pre_event_links; extract.Focus.NeedsFirstCapture,
// MarkFirstCapture): the new URLs are cut into chunks of lookupChunk and
// resolved as the batch is (batched look-ups, or the cogroup join with the
// index, by cfg.JoinMode); the entries already in the frontier pass as they
// are. entries is PCollection<extract.Entry>, one per URL; so is the result.
func LookUpFirstCaptures(s beam.Scope, entries beam.PCollection, cfg Config) beam.PCollection {
	s = s.Scope("LookUpFirstCaptures")
	checked, chunks := beam.ParDo2(s, &chunkNewEntriesFn{JobJSON: cfg.JobJSON}, entries)
	resolved := resolveChunks(s, beam.Reshuffle(s, chunks), cfg, "first_capture_lookups")
	marked := beam.ParDo(s, &markFirstCapturesFn{JobJSON: cfg.JobJSON}, resolved)
	return beam.Flatten(s, checked, marked)
}

// lookUpFirstCaptures reports whether a round of the job looks new
// frontier URLs up. No job (a MergeFrontier on its own) looks nothing up;
// a job that cannot be decoded counts as yes: the look-up's DoFns then
// fail in Setup with the decoding error.
func lookUpFirstCaptures(jobJSON string) bool {
	if jobJSON == "" {
		return false
	}
	focus, err := focusOf(jobJSON)
	return err != nil || focus.LooksUpFirstCaptures()
}

// focusOf decodes the job's focus: all the look-up's DoFns need of it (no
// Processor, whose Fetcher they would never use).
func focusOf(jobJSON string) (extract.Focus, error) {
	job, err := extract.UnmarshalJob(jobJSON)
	if err != nil {
		return extract.Focus{}, err
	}
	return job.Focus(), nil
}

// chunkNewEntriesFn passes the entries looked up before (checked) and
// cuts the others into chunks of up to lookupChunk, each a range of SURT
// keys, as explodeBatchFn cuts the batch. The new URLs of a round are
// about ten times the batch (the targets of the collected pages' new
// links), in no key order after the frontier's merge; chunks of them in
// arrival order each spanned most of the index, so that every chunk
// inflated again the blocks the others had inflated. The new entries are
// held, up to sortedNewEntries of them, sorted by key and cut when the
// buffer is full and at the end of the bundle: memory stays bounded
// whatever the frontier, and each sorted run inflates a block at most once.
type chunkNewEntriesFn struct {
	JobJSON string

	focus   extract.Focus
	pending []Ranked
}

// sortedNewEntries bounds how many new entries a bundle holds before it
// sorts and cuts them (about 200 bytes each in memory).
const sortedNewEntries = 1 << 16

func (f *chunkNewEntriesFn) Setup(context.Context) error {
	var err error
	f.focus, err = focusOf(f.JobJSON)
	return err
}

func (f *chunkNewEntriesFn) ProcessElement(e extract.Entry, checked func(extract.Entry), chunks func([]Ranked)) {
	if !f.focus.NeedsFirstCapture(e) {
		checked(e)
		return
	}
	f.pending = append(f.pending, Ranked{Entry: e})
	if len(f.pending) == sortedNewEntries {
		f.cut(chunks)
	}
}

// FinishBundle cuts what the bundle holds and lets its buffer go: the
// harness keeps the DoFn after its last bundle, until the worker ends.
func (f *chunkNewEntriesFn) FinishBundle(_ func(extract.Entry), chunks func([]Ranked)) {
	f.cut(chunks)
	f.pending = nil
}

// cut sorts the held entries by key and emits them in chunks of consecutive
// keys.
func (f *chunkNewEntriesFn) cut(chunks func([]Ranked)) {
	slices.SortFunc(f.pending, func(a, b Ranked) int { return strings.Compare(a.Entry.Key, b.Entry.Key) })
	for start := 0; start < len(f.pending); start += lookupChunk {
		chunks(slices.Clone(f.pending[start:min(start+lookupChunk, len(f.pending))]))
	}
	clear(f.pending)
	f.pending = f.pending[:0]
}

// markFirstCapturesFn sets each looked-up entry's first capture from its
// URL's captures, counting the states.
type markFirstCapturesFn struct {
	JobJSON string

	focus                  extract.Focus
	preEvent, recent, none beam.Counter
}

func (f *markFirstCapturesFn) Setup(context.Context) error {
	var err error
	if f.focus, err = focusOf(f.JobJSON); err != nil {
		return err
	}
	f.preEvent = beam.NewCounter(CounterNamespace, "first_capture_pre_event")
	f.recent = beam.NewCounter(CounterNamespace, "first_capture_recent")
	f.none = beam.NewCounter(CounterNamespace, "first_capture_none")
	return nil
}

func (f *markFirstCapturesFn) ProcessElement(ctx context.Context, chunk []Resolved, emit func(extract.Entry)) {
	for _, r := range chunk {
		e := f.focus.MarkFirstCapture(r.Ranked.Entry, r.Captures)
		switch e.FirstCapture {
		case extract.FirstCapturePreEvent:
			f.preEvent.Inc(ctx, 1)
		case extract.FirstCaptureRecent:
			f.recent.Inc(ctx, 1)
		default:
			f.none.Inc(ctx, 1)
		}
		emit(e)
	}
}
