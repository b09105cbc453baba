package extract

import (
	"reflect"
	"strings"
	"testing"

	"github.com/recrawl/recrawl/internal/collection"
)

func TestLinkTally(t *testing.T) {
	// The focus page: 12 navigation links (not main content) and 2 article
	// links in the main text.
	page := focusPage(300)
	var tally LinkTally
	r := scoreFocus(t, Focus{}, page, 1)
	tally.Add(r)
	want := collection.LinkStats{Links: 14, New: 2, NotFollowed: map[string]int{LinkNotMain: 12}}
	if got := tally.EndRound(); !reflect.DeepEqual(got, want) {
		t.Fatalf("first page: %+v, want %+v", got, want)
	}
	// The same page again (another URL): its two links are known now.
	r.Entry.Key = "example,news)/other"
	tally.Add(r)
	if got := tally.Round; got.New != 0 || got.NotFollowed[LinkNotSeen] != 2 || got.NotFollowed[LinkNotMain] != 12 {
		t.Fatalf("second page: %+v", got)
	}
	if tally.Run.Links != 28 || tally.Run.New != 2 {
		t.Errorf("run: %+v", tally.Run)
	}
	// The gate and max_depth are reasons of their own.
	var gated LinkTally
	gated.Add(scoreFocus(t, Focus{FollowThreshold: 0.99}, page, 1))
	gated.Add(scoreFocus(t, Focus{MaxDepth: 2}, page, 2))
	if n := gated.Run.NotFollowed; n[LinkNotFollowThreshold] != 14 || n[LinkNotMaxDepth] != 14 || gated.Run.New != 0 {
		t.Errorf("gate and depth: %+v", gated.Run)
	}

	msg := Starvation(StopFrontierEmpty, 9, 200, tally.Run)
	for _, part := range []string{"after 9 of 200 documents", "28 links: 2 new", "24 not-main-content, 2 already-seen", "outlinks: all"} {
		if !strings.Contains(msg, part) {
			t.Errorf("starvation message %q lacks %q", msg, part)
		}
	}
	for _, c := range []struct {
		stop              string
		collected, target int
	}{{StopFrontierEmpty, 200, 200}, {"target size reached", 200, 200}, {"max rounds reached", 9, 200}, {StopFrontierEmpty, 9, 0}} {
		if m := Starvation(c.stop, c.collected, c.target, tally.Run); m != "" {
			t.Errorf("%+v: starvation %q", c, m)
		}
	}
}
