package extract

import (
	"fmt"

	"github.com/recrawl/recrawl/internal/collection"
)

// Why an outlink of a fetched page did not become a new frontier URL
// (Outlink.NotFollowed, and the keys of collection.LinkStats.NotFollowed).
const (
	// LinkNotMain: the link lies outside the page's main content
	// (navigation, "related stories" boxes, sidebars, footers) and the
	// spec follows main-content links only (outlinks: main).
	LinkNotMain = "not-main-content"
	// LinkNotAllowed: the spec's allow/deny lists exclude the target.
	LinkNotAllowed = "denied"
	// LinkNotFollowThreshold: the page's TTR is below follow_threshold.
	LinkNotFollowThreshold = "follow-threshold"
	// LinkNotMaxDepth: the page is at max_depth.
	LinkNotMaxDepth = "max-depth"
	// LinkNotUnparsable: the target has no SURT key.
	LinkNotUnparsable = "unparsable"
	// LinkNotSeen: followed, but the target was already taken, found
	// missing or waiting in the frontier (or is the page itself).
	LinkNotSeen = "already-seen"
)

// notFollowed counts n links left out for reason.
func notFollowed(s *collection.LinkStats, reason string, n int) {
	if n == 0 {
		return
	}
	if s.NotFollowed == nil {
		s.NotFollowed = map[string]int{}
	}
	s.NotFollowed[reason] += n
}

// LinkTally follows a run's results in collection order and counts their
// links (collection.LinkStats) for the run and for the current round. A link is new
// when no earlier result's URL or followed link had its target: both
// engines add the same results in the same order, so the counts are the
// same for them, and a resumed run that re-adds its finished rounds' results
// counts as the uninterrupted one.
type LinkTally struct {
	Run, Round collection.LinkStats
	known      map[string]bool // SURT keys taken or offered so far
}

// Add counts one step's result.
func (t *LinkTally) Add(r Result) {
	if t.known == nil {
		t.known = map[string]bool{}
	}
	t.known[r.Entry.Key] = true
	for _, ne := range r.NewEntries { // a redirect's target
		if r.Outcome == OutcomeRedirect {
			t.known[ne.Key] = true
		}
	}
	if r.UnparsableOutlinks > 0 {
		t.count(func(s *collection.LinkStats) {
			s.Links += r.UnparsableOutlinks
			notFollowed(s, LinkNotUnparsable, r.UnparsableOutlinks)
		})
	}
	for _, l := range r.Links {
		reason := l.NotFollowed
		if reason == "" && t.known[l.Key] {
			reason = LinkNotSeen
		}
		t.known[l.Key] = t.known[l.Key] || l.Followed
		t.count(func(s *collection.LinkStats) {
			s.Links++
			if reason == "" {
				s.New++
			} else {
				notFollowed(s, reason, 1)
			}
		})
	}
}

func (t *LinkTally) count(f func(*collection.LinkStats)) {
	f(&t.Run)
	f(&t.Round)
}

// EndRound returns the round's counts and starts the next round's.
func (t *LinkTally) EndRound() collection.LinkStats {
	s := t.Round
	t.Round = collection.LinkStats{}
	return s
}

// Starvation explains a run that stopped with an empty frontier before its
// target size: how many documents it has, how many links their pages had,
// and why the rest were not followed. It is "" when the run did not starve
// (stop is not StopFrontierEmpty or the target was reached).
func Starvation(stop string, collected, target int, links collection.LinkStats) string {
	if stop != StopFrontierEmpty || target <= 0 || collected >= target {
		return ""
	}
	msg := fmt.Sprintf("the frontier ran dry after %d of %d documents; their pages had %s", collected, target, links)
	if n := links.NotFollowed[LinkNotMain]; n > 0 && n*2 >= links.Links {
		msg += "; most links lie outside the main content: outlinks: all follows them"
	}
	return msg
}

// StopFrontierEmpty is the stop reason of a run whose frontier emptied.
const StopFrontierEmpty = "frontier empty"
