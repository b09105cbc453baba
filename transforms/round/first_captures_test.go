package round

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/lookup"
	"github.com/recrawl/recrawl/specs"
)

func init() {
	beam.RegisterFunction(entryJSON)
}

func entryJSON(e extract.Entry) (string, error) {
	b, err := json.Marshal(e)
	return string(b), err
}

// TestLookUpFirstCaptures: with discount_pre_event_links, the entries not
// looked up yet get the state of their URL's first usable capture, with
// either join, exactly as the sequential engine marks them
// (extract.Focus.MarkFirstCapture over the index's captures); the entries
// looked up before pass unchanged, even when their state is not what a
// look-up would give now (they are not looked up again).
func TestLookUpFirstCaptures(t *testing.T) {
	for _, tc := range []struct {
		join string
		rule specs.PreEventRule
	}{{"lookup", specs.PreEventStep}, {"cogroup", specs.PreEventStep}, {"lookup", specs.PreEventTempR}, {"cogroup", specs.PreEventTempR}} {
		join := tc.join
		t.Run(join+"/"+string(tc.rule), func(t *testing.T) {
			ctx := context.Background()
			job, batch := roundJob(t, join)
			job.Spec.Focus.DiscountPreEventLinks, job.Spec.Focus.PreEventRule = true, tc.rule
			jobJSON, err := job.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			focus := job.Focus()
			if !focus.LooksUpFirstCaptures() || !lookUpFirstCaptures(jobJSON) {
				t.Fatalf("the job does not look up first captures: %+v", focus)
			}
			idx, err := lookup.OpenSources(ctx, job.IndexSources())
			if err != nil {
				t.Fatal(err)
			}
			defer idx.Close()
			var want []any
			states, factors := map[extract.FirstCapture]int{}, map[float64]bool{}
			for i, e := range batch {
				if i%4 == 3 { // looked up in an earlier round: kept as it is
					batch[i].FirstCapture, batch[i].PreEventFactor = extract.FirstCapturePreEvent, 0.3
					if i%8 == 7 {
						batch[i].FirstCapture = extract.FirstCaptureExempt
					}
					w, _ := entryJSON(batch[i])
					want = append(want, w)
					continue
				}
				found, err := idx.Lookup(ctx, []string{e.Key})
				if err != nil {
					t.Fatal(err)
				}
				m := focus.MarkFirstCapture(e, found[e.Key])
				states[m.FirstCapture]++
				if m.FirstCapture == extract.FirstCapturePreEvent {
					factors[m.PreEventFactor] = true
				}
				w, _ := entryJSON(m)
				want = append(want, w)
			}
			if states[extract.FirstCapturePreEvent] == 0 || states[extract.FirstCaptureRecent] == 0 || states[extract.FirstCaptureNone] == 0 {
				t.Fatalf("weak test: the new entries' states %v; want pre-event, recent and none", states)
			}
			if tc.rule == specs.PreEventTempR && len(factors) < 2 {
				t.Fatalf("weak test: the pre-event entries' factors %v; want several", factors)
			}
			t.Logf("%d entries, new ones: %v, factors %v", len(batch), states, factors)

			cfg := Config{JobJSON: jobJSON, Round: 1, JoinMode: join, Sources: job.IndexSources()}
			p, s := beam.NewPipelineWithRoot()
			got := LookUpFirstCaptures(s, beam.CreateList(s, batch), cfg)
			passert.Equals(s, beam.ParDo(s, entryJSON, got), want...)
			ptest.RunAndValidate(t, p)
		})
	}
}

// TestChunkNewEntriesKeyRanges: the new entries of a bundle leave in chunks
// of at most lookupChunk consecutive keys, each entry once; the chunks of
// one sorted run (the held entries, cut when sortedNewEntries are held and
// at the end of the bundle) do not overlap, so that their look-ups share no
// index block but at the edges. The entries looked up before pass at once.
func TestChunkNewEntriesKeyRanges(t *testing.T) {
	all := entries(sortedNewEntries*5/4+3*lookupChunk+17, 5) // a fifth looked up before
	rand.New(rand.NewPCG(2, 2)).Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	fn := &chunkNewEntriesFn{focus: extract.Focus{PreEvent: extract.PreEventRule{Before: time.Date(2009, 9, 1, 0, 0, 0, 0, time.UTC)}}}
	var checked []extract.Entry
	var chunks [][]Ranked
	runEnds := []int{} // the number of chunks emitted when each sorted run ended
	emitChecked := func(e extract.Entry) { checked = append(checked, e) }
	emitChunk := func(c []Ranked) { chunks = append(chunks, c) }
	for i, e := range all {
		if i%5 == 0 {
			e.FirstCapture = extract.FirstCapturePreEvent
		}
		fn.ProcessElement(e, emitChecked, emitChunk)
		if len(fn.pending) == 0 && len(chunks) > 0 && (len(runEnds) == 0 || runEnds[len(runEnds)-1] != len(chunks)) {
			runEnds = append(runEnds, len(chunks))
		}
	}
	fn.FinishBundle(emitChecked, emitChunk)
	runEnds = append(runEnds, len(chunks))
	if cap(fn.pending) != 0 { // the harness keeps the DoFn until the worker ends
		t.Errorf("after FinishBundle the DoFn holds a buffer of %d entries, want none", cap(fn.pending))
	}
	if len(runEnds) != 2 {
		t.Fatalf("%d sorted runs, want 2 (one when the buffer filled, one at the end of the bundle)", len(runEnds))
	}
	seen := map[string]bool{}
	for _, e := range checked {
		seen[e.Key] = true
	}
	if want := (len(all) + 4) / 5; len(checked) != want {
		t.Fatalf("%d entries passed as checked, want %d", len(checked), want)
	}
	start := 0
	for _, end := range runEnds {
		prevLast := ""
		for i := start; i < end; i++ {
			c := chunks[i]
			if len(c) == 0 || len(c) > lookupChunk {
				t.Fatalf("chunk %d holds %d entries, want 1..%d", i, len(c), lookupChunk)
			}
			for j, r := range c {
				if seen[r.Entry.Key] {
					t.Fatalf("%s emitted twice", r.Entry.Key)
				}
				seen[r.Entry.Key] = true
				if j > 0 && c[j-1].Entry.Key >= r.Entry.Key {
					t.Fatalf("chunk %d: key %s after %s", i, r.Entry.Key, c[j-1].Entry.Key)
				}
			}
			if c[0].Entry.Key <= prevLast {
				t.Fatalf("chunk %d starts at %s, inside the range of the chunk before it (to %s)", i, c[0].Entry.Key, prevLast)
			}
			prevLast = c[len(c)-1].Entry.Key
		}
		start = end
	}
	if len(seen) != len(all) {
		t.Fatalf("%d distinct entries came out, %d went in", len(seen), len(all))
	}
}
