package extract

import (
	"fmt"
	"math"
	"time"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/scoring"
)

// Entry is one URL of the frontier.
type Entry struct {
	Key      string  `json:"surt"`             // canonical SURT key: the URL's identity
	URL      string  `json:"url"`              // the URL as first discovered
	Priority float64 `json:"priority"`         // best priority over all parents so far
	Depth    int     `json:"depth"`            // links from a seed (first discovery)
	Path     string  `json:"path"`             // S, SL, SLL, SLR… (first discovery)
	Parent   string  `json:"parent,omitempty"` // URL of the first parent; "" for seeds
	Order    Order   `json:"order"`            // discovery order
	Host     string  `json:"host"`             // host of URL, for max_per_host

	// How Merge combines the priorities from several parents (specs
	// combine); the zero value is the paper's maximum, and then the fields
	// below stay zero.
	Combine Combination `json:"combine,omitempty"`
	// PrioritySum and Parents (average): the sum of the priorities given
	// by the parents so far, in units of 2^-32 so that the sum is exact
	// whatever order a runner merges in, and their number.
	PrioritySum int64 `json:"priority_sum,omitempty"`
	Parents     int   `json:"parents,omitempty"`
	// Latest (last): the discovery order of the priority kept.
	Latest Order `json:"latest,omitempty"`
	// HostLinks (specs discount_template_links): how many fetched pages
	// of the URL's own host linked to it so far. Each page discovers a URL
	// once and Merge adds the counts up, so the count is exact whatever
	// order a runner merges in.
	HostLinks int `json:"host_links,omitempty"`
	// FirstCapture (specs discount_pre_event_links): what the snapshot
	// index said about the URL when it entered the frontier (looked up
	// once, by the engine: Focus.PreEvent). Merge keeps the highest, so
	// an entry in the frontier keeps its look-up whatever merges into it.
	FirstCapture FirstCapture `json:"first_capture,omitempty"`
	// PreEventFactor (FirstCapturePreEvent only): the factor the entry is
	// ranked with (PreEventRule.Factor of its first usable capture).
	// Merge keeps the smaller of two entries in that state, though a
	// URL's look-up gives the same factor wherever it is made.
	PreEventFactor float64 `json:"pre_event_factor,omitempty"`
	// Scored and OwnScore (specs look_ahead): a look-ahead round read the
	// URL and returned it to the frontier; OwnScore, its document's own
	// relevance, is then its selection priority (CommitLookAhead).
	Scored   bool    `json:"scored,omitempty"`
	OwnScore float64 `json:"own_score,omitempty"`
}

// FirstCapture is what a URL's first usable capture says about its age
// (Entry.FirstCapture).
type FirstCapture uint8

// The states of an entry's first capture. A URL's look-up gives the same
// state wherever it is made, so the order only serves Merge: a state
// looked up wins over Unchecked.
const (
	// FirstCaptureUnchecked: not looked up (the option is off, or the
	// engine has not looked it up yet).
	FirstCaptureUnchecked FirstCapture = iota
	// FirstCaptureExempt: a seed, the user's choice: never looked up,
	// never discounted.
	FirstCaptureExempt
	// FirstCaptureNone: no usable capture in the index (it will be missing).
	FirstCaptureNone
	// FirstCaptureRecent: the first usable capture is not before the
	// threshold.
	FirstCaptureRecent
	// FirstCapturePreEvent: the first usable capture is before the
	// threshold (PreEventRule.Before): the page existed before the event,
	// and the entry is ranked with its PreEventFactor.
	FirstCapturePreEvent
)

// Template links (after Bar-Yossef & Rajagopalan, WWW 2002, "Template
// detection via data mining"): the links a site repeats on its pages —
// "most read" and latest-news widgets, footer link farms, navigation — are
// the site's, not the page's. The relevance of a page that carries one,
// and the paragraph around it, say nothing about where it leads. A URL
// that TemplateLinkPages or more fetched pages of its own host link to is
// such a link, and is ranked with its priority times TemplateLinkFactor.
// An article linked from the related-stories boxes of a few pages stays
// below the threshold; a widget on every page of a host passes it as soon
// as the crawl has read five of the host's pages.
const (
	TemplateLinkPages  = 5
	TemplateLinkFactor = 0.5
)

// Pre-event links (specs discount_pre_event_links): in a web archive the
// first usable capture of a page is an upper bound on its publication date,
// so a link whose URL was first captured well before the event's start
// leads to a page that existed before the event, unlikely to be about it.
// The page's own text cannot say so before it is fetched.
//
// The default rule (PreEventRule.Step, specs pre_event_rule: step) ranks a
// link first captured more than PreEventHalfLives lead_times (lead
// half-lives) before the start with its priority times PreEventLinkFactor,
// the TempR at that threshold; the lead-up articles of the last weeks are
// often about the event and are not discounted. The other rule (tempr)
// ranks every link first captured before the start with its priority times
// the TempR of its first capture, which bounds the TempR of the page itself
// (before the start TempR only grows with the document time); it measured
// below the step (docs/focus.md). A first capture after the start says nothing
// (the page may be older than its first capture), and neither does its
// absence.
const (
	PreEventHalfLives  = 2
	PreEventLinkFactor = 0.25
)

// PostEventHalfLives: a link whose URL is dated more than this many
// cooldown_times (cool-down half-lives) after the event's end is ranked
// with PreEventLinkFactor, the TempR at that date (specs
// discount_post_event_links; Processor.linkPriority). The mirror of the
// pre-event step, read from the URL instead of the first capture: a first
// capture bounds a page's publication date only from above, so it cannot
// tell a late page; a URL's date can.
const PostEventHalfLives = 2

// SelectionPriority is the priority the entry is ranked with (Ranking,
// documents.jsonl's priority): Priority, times TemplateLinkFactor when
// TemplateLinkPages or more pages of its host link to it, times its
// PreEventFactor when its first usable capture predates the event. It
// depends only on the entry, so the ranking stays a function of the merged
// frontier: the same on every runner and in the sequential engine.
func (e Entry) SelectionPriority() float64 {
	if e.Scored { // read by a look-ahead round: its own score
		return e.OwnScore
	}
	p := e.Priority
	if e.HostLinks >= TemplateLinkPages {
		p *= TemplateLinkFactor
	}
	if e.FirstCapture == FirstCapturePreEvent {
		p *= e.PreEventFactor
	}
	return p
}

// Combination says how the priorities of an unseen URL found by several
// parents combine (specs.Combine).
type Combination uint8

// The combinations.
const (
	CombineMax     Combination = iota // the highest priority (the paper)
	CombineAverage                    // the mean over all parents (ARCOMEM)
	CombineLast                       // the priority from the latest parent
)

// fixedOne is 1 in the fixed-point units of Entry.PrioritySum.
const fixedOne = 1 << 32

// WithCombination prepares a newly discovered entry for combination c: for
// average its priority becomes a one-parent sum (rounded to the fixed-point
// unit), for last its own order is the latest.
func (e Entry) WithCombination(c Combination) Entry {
	e.Combine = c
	switch c {
	case CombineAverage:
		e.PrioritySum, e.Parents = int64(math.Round(e.Priority*fixedOne)), 1
		e.Priority = float64(e.PrioritySum) / fixedOne
	case CombineLast:
		e.Latest = e.Order
	}
	return e
}

// sum returns the fixed-point priority sum and parent count of an entry
// for averaging; an entry made without a combination (a seed, a redirect
// target) counts as one parent.
func (e Entry) sum() (int64, int) {
	if e.Parents > 0 {
		return e.PrioritySum, e.Parents
	}
	return int64(math.Round(e.Priority * fixedOne)), 1
}

// Order is a discovery position: (round, parent rank, link index) packed so
// that numeric order is discovery order.
type Order int64

const (
	linkBits = 20 // up to 1,048,575 links per page
	rankBits = 22 // up to 4,194,303 URLs per round
)

// MaxLinksPerPage and MaxBatchSize bound what an Order can encode.
const (
	MaxLinksPerPage = 1<<linkBits - 1
	MaxBatchSize    = 1<<rankBits - 1
)

// DiscoveryOrder packs a discovery position. Seeds are discovered in round
// 0 with rank 0 and link = their position in the seed list; the outlinks of
// the page of rank r in round n are (n, r, 1…); a redirect target is (n, r, 0).
func DiscoveryOrder(round, parentRank, link int) Order {
	if link > MaxLinksPerPage {
		link = MaxLinksPerPage
	}
	return Order(int64(round)<<(rankBits+linkBits) | int64(parentRank)<<linkBits | int64(link))
}

// Round returns the round an order was discovered in.
func (o Order) Round() int { return int(int64(o) >> (rankBits + linkBits)) }

// Merge combines two entries for the same key: the priority by their
// combination (the maximum over all parents, the paper's rule; the average;
// or the latest parent's), the host links as their sum, the first capture
// as the higher state (a looked-up state over Unchecked) with its factor
// (the smaller of equal states), and everything
// else from the first discovery (lowest Order). It is commutative and
// associative, so Beam may merge in any order: the average sums exact
// fixed-point values.
func Merge(a, b Entry) Entry {
	first, other := a, b
	if b.Order < a.Order {
		first, other = b, a
	}
	c := max(first.Combine, other.Combine)
	first.HostLinks += other.HostLinks
	switch {
	case other.FirstCapture > first.FirstCapture:
		first.FirstCapture, first.PreEventFactor = other.FirstCapture, other.PreEventFactor
	case other.FirstCapture == first.FirstCapture:
		first.PreEventFactor = min(first.PreEventFactor, other.PreEventFactor)
	}
	if other.Scored {
		first.OwnScore = max(first.OwnScore, other.OwnScore)
		if !first.Scored {
			first.Scored, first.OwnScore = true, other.OwnScore
		}
	}
	switch c {
	case CombineAverage:
		s1, n1 := first.sum()
		s2, n2 := other.sum()
		first.Combine, first.PrioritySum, first.Parents = c, s1+s2, n1+n2
		first.Priority = float64(first.PrioritySum) / float64(first.Parents) / fixedOne
	case CombineLast:
		first.Combine = c
		l1, l2 := first.latest(), other.latest()
		if l2 > l1 {
			first.Priority, first.Latest = other.Priority, l2
		} else {
			first.Latest = l1
		}
	default:
		if other.Priority > first.Priority {
			first.Priority = other.Priority
		}
	}
	return first
}

func (e Entry) latest() Order {
	if e.Combine == CombineLast {
		return e.Latest
	}
	return e.Order
}

// Ranking orders frontier entries for a strategy: which entry is taken first.
type Ranking struct {
	Strategy scoring.Strategy
}

// Before reports whether a is taken before b. Focused strategies: higher
// selection priority (Entry.SelectionPriority), then lower depth, then
// smaller SURT key. Unfocused: discovery order (breadth-first), then SURT
// key.
func (r Ranking) Before(a, b Entry) bool {
	if r.Strategy == scoring.Unfocused {
		if a.Order != b.Order {
			return a.Order < b.Order
		}
		return a.Key < b.Key
	}
	if pa, pb := a.SelectionPriority(), b.SelectionPriority(); pa != pb {
		return pa > pb
	}
	if a.Depth != b.Depth {
		return a.Depth < b.Depth
	}
	return a.Key < b.Key
}

// Validate checks an entry read from state files.
func (e Entry) Validate() error {
	if e.Key == "" || e.URL == "" {
		return fmt.Errorf("frontier entry %+v: empty key or URL", e)
	}
	if e.FirstCapture > FirstCapturePreEvent {
		return fmt.Errorf("frontier entry %s: first_capture %d is not a state", e.Key, e.FirstCapture)
	}
	if !(e.PreEventFactor >= 0 && e.PreEventFactor <= 1) { // NaN too
		return fmt.Errorf("frontier entry %s: pre_event_factor %v is not in [0, 1]", e.Key, e.PreEventFactor)
	}
	return nil
}

// LooksUpFirstCaptures reports whether the engines look each new frontier
// URL up in the snapshot index (specs discount_pre_event_links, under a
// focused strategy).
func (f Focus) LooksUpFirstCaptures() bool { return !f.PreEvent.Before.IsZero() }

// NeedsFirstCapture reports whether the engine must look e's URL up before
// it enters the frontier: the look-up is on and e has not been looked up
// (an entry already in the frontier has, so a merged entry needs it only
// when its URL is new to the frontier).
func (f Focus) NeedsFirstCapture(e Entry) bool {
	return f.LooksUpFirstCaptures() && e.FirstCapture == FirstCaptureUnchecked
}

// MarkFirstCapture returns e with the state of its URL's first usable
// capture among captures, all the captures of its key (FirstCaptureOf),
// and for a pre-event URL the factor it is ranked with.
func (f Focus) MarkFirstCapture(e Entry, captures []cdxj.Capture) Entry {
	state, first := FirstCaptureOf(captures, f.PreEvent.Before)
	e.FirstCapture, e.PreEventFactor = state, 0
	if state == FirstCapturePreEvent {
		e.PreEventFactor = f.PreEvent.Factor(first)
	}
	return e
}

// PreEventRule says which links the engines discount as pre-event links
// (specs discount_pre_event_links, pre_event_rule) and by how much.
type PreEventRule struct {
	// Before: a URL whose first usable capture is strictly before it is a
	// pre-event link; zero: nothing is looked up (off, the paper, or the
	// unfocused strategy, whose breadth-first order a factor would not
	// change).
	Before time.Time
	// Scope is the event's temporal scope; Factor is its TempR of the
	// first capture (Step false).
	Scope scoring.TimeScope
	// Step: PreEventLinkFactor for every pre-event link, with Before
	// PreEventHalfLives lead_times before the start (the default rule).
	Step bool
}

// Factor is the factor a link first captured at first (before Before) is
// ranked with: the TempR of first, or PreEventLinkFactor with Step.
func (r PreEventRule) Factor(first time.Time) float64 {
	if r.Step {
		return PreEventLinkFactor
	}
	return r.Scope.TempR(first)
}
