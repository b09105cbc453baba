package extract

import (
	"fmt"
	"slices"
	"strings"
)

// Why an outlink of a fetched page did not become a new frontier URL
// (Link.NotFollowed, and the keys of LinkStats.NotFollowed).
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

// LinkStats count the outlinks of the fetched pages (collected documents
// and listing pages) and what became of them.
type LinkStats struct {
	// Links are the outlinks of the pages, one per distinct target of a
	// page.
	Links int `json:"links"`
	// New are the links that brought a URL into the frontier for the
	// first time.
	New int `json:"new"`
	// NotFollowed counts the other links by reason (LinkNot*).
	NotFollowed map[string]int `json:"not_followed,omitempty"`
}

func (s *LinkStats) not(reason string, n int) {
	if n == 0 {
		return
	}
	if s.NotFollowed == nil {
		s.NotFollowed = map[string]int{}
	}
	s.NotFollowed[reason] += n
}

// String is "1234 links: 80 new; not followed: 1000 not-main-content, …",
// reasons by count, largest first.
func (s LinkStats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d links: %d new", s.Links, s.New)
	reasons := make([]string, 0, len(s.NotFollowed))
	for r := range s.NotFollowed {
		reasons = append(reasons, r)
	}
	slices.SortFunc(reasons, func(a, b string) int {
		if d := s.NotFollowed[b] - s.NotFollowed[a]; d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	for i, r := range reasons {
		if i == 0 {
			b.WriteString("; not followed: ")
		} else {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d %s", s.NotFollowed[r], r)
	}
	return b.String()
}

// LinkTally follows a run's results in collection order and counts their
// links (LinkStats) for the run and for the current round. A link is new
// when no earlier result's URL or followed link had its target: both
// engines add the same results in the same order, so the counts are the
// same for them, and a resumed run that re-adds its finished rounds' results
// counts as the uninterrupted one.
type LinkTally struct {
	Run, Round LinkStats
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
		t.count(func(s *LinkStats) { s.Links += r.UnparsableOutlinks; s.not(LinkNotUnparsable, r.UnparsableOutlinks) })
	}
	for _, l := range r.Links {
		reason := l.NotFollowed
		if reason == "" && t.known[l.Key] {
			reason = LinkNotSeen
		}
		t.known[l.Key] = t.known[l.Key] || l.Followed
		t.count(func(s *LinkStats) {
			s.Links++
			if reason == "" {
				s.New++
			} else {
				s.not(reason, 1)
			}
		})
	}
}

func (t *LinkTally) count(f func(*LinkStats)) {
	f(&t.Run)
	f(&t.Round)
}

// EndRound returns the round's counts and starts the next round's.
func (t *LinkTally) EndRound() LinkStats {
	s := t.Round
	t.Round = LinkStats{}
	return s
}

// Starvation explains a run that stopped with an empty frontier before its
// target size: how many documents it has, how many links their pages had,
// and why the rest were not followed. It is "" when the run did not starve
// (stop is not StopFrontierEmpty or the target was reached).
func Starvation(stop string, collected, target int, links LinkStats) string {
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
