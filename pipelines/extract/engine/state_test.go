package engine

import (
	"strings"
	"testing"

	"github.com/recrawl/recrawl/internal/collection"
	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/specs"
)

// TestStopAfterEmptyRounds: a run whose last stop_after_empty_rounds rounds
// collected nothing stops, naming the rule; 0 never stops.
func TestStopAfterEmptyRounds(t *testing.T) {
	spec := specs.Defaults()
	spec.StopAfterEmptyRounds = 3
	st := newRunState(nil)
	st.rounds = []collection.Round{{Collected: 2}, {Collected: 0}, {Collected: 0}}
	if r := st.stopReason(&spec, 3, 10); r != "" {
		t.Errorf("after 2 empty rounds: %q", r)
	}
	st.rounds = append(st.rounds, collection.Round{Collected: 0})
	if r := st.stopReason(&spec, 4, 10); !strings.Contains(r, "no document collected in the last 3 rounds (stop_after_empty_rounds)") {
		t.Errorf("after 3 empty rounds: %q", r)
	}
	spec.StopAfterEmptyRounds = 0
	if r := st.stopReason(&spec, 4, 10); r != "" {
		t.Errorf("stop_after_empty_rounds 0: %q", r)
	}
}

// TestResolvedAgainReplacesMissing: a URL missing in one round and
// collected after a refresh counts as collected only, its reason gone.
func TestResolvedAgainReplacesMissing(t *testing.T) {
	st := newRunState(nil)
	e := extract.Entry{Key: "com,example)/a", URL: "https://example.com/a"}
	st.add(extract.Result{Entry: e, Outcome: extract.OutcomeMissing, ReasonCode: extract.ReasonNotInIndex})
	st.add(extract.Result{Entry: extract.Entry{Key: "b"}, Outcome: extract.OutcomeMissing, ReasonCode: extract.ReasonNotInIndex})
	st.add(extract.Result{Entry: e, Outcome: extract.OutcomeCollected, Document: &collection.Document{TopicR: 0.5}})
	tot := st.totals(1)
	if tot.Missing != 1 || tot.Collected != 1 || tot.MissingReasons[extract.ReasonNotInIndex] != 1 {
		t.Errorf("totals %+v: want 1 missing (not-in-index) and 1 collected", tot)
	}
}
