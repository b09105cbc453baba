package extract

import (
	"strings"
	"testing"
)

// TestStopReason: the one stopping rule, each of its parts, in order.
func TestStopReason(t *testing.T) {
	rule := StopRule{TargetSize: 100, MaxRounds: 10, StopAfterEmptyRounds: 3}
	for _, c := range []struct {
		p    Progress
		rule StopRule
		want string
	}{
		{Progress{Round: 2, Collected: 50, Frontier: 7, EmptyRounds: 2}, rule, ""},
		{Progress{Round: 2, Collected: 100, Frontier: 7}, rule, "target size reached"},
		{Progress{Round: 2, Collected: 50, Frontier: 0}, rule, StopFrontierEmpty},
		{Progress{Round: 10, Collected: 50, Frontier: 7}, rule, "max rounds reached"},
		{Progress{Round: 2, Collected: 50, Frontier: 7, EmptyRounds: 3}, rule, "no document collected in the last 3 rounds (stop_after_empty_rounds)"},
		{Progress{Round: 2, Collected: 50, Frontier: 7, EmptyRounds: 300}, StopRule{}, ""},
	} {
		if got := c.rule.StopReason(c.p); got != c.want {
			t.Errorf("%+v under %+v: %q; want %q", c.p, c.rule, got, c.want)
		}
	}
	empty := 0
	for i, collected := range []int{0, 0, 3, 0} {
		empty = EmptyRoundsAfter(empty, collected)
		if want := []int{1, 2, 0, 1}[i]; empty != want {
			t.Errorf("after round %d: %d empty rounds; want %d", i, empty, want)
		}
	}
	if !strings.Contains(rule.StopReason(Progress{Frontier: 1, EmptyRounds: 3}), "stop_after_empty_rounds") {
		t.Error("the reason does not name the spec field")
	}
}
