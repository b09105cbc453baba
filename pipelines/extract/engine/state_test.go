package engine

import (
	"strings"
	"testing"

	"github.com/recrawl/recrawl/internal/collection"
	"github.com/recrawl/recrawl/specs"
)

// TestStopAfterEmptyRounds: a run whose last stop_after_empty_rounds rounds
// collected nothing stops, naming the rule; 0 never stops.
func TestStopAfterEmptyRounds(t *testing.T) {
	spec := specs.Defaults()
	spec.StopAfterEmptyRounds = 3
	st := newRunState()
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
