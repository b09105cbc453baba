package round

import (
	"context"
	"encoding/json"
	"testing"

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
