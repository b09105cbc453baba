package extract

import (
	"fmt"

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

// Merge combines two entries for the same key: the maximum priority over all
// parents, and everything else from the first discovery (lowest Order).
func Merge(a, b Entry) Entry {
	first, other := a, b
	if b.Order < a.Order {
		first, other = b, a
	}
	if other.Priority > first.Priority {
		first.Priority = other.Priority
	}
	return first
}

// Ranking orders frontier entries for a strategy: which entry is taken first.
type Ranking struct {
	Strategy scoring.Strategy
}

// Before reports whether a is taken before b. Focused strategies: higher
// priority, then lower depth, then smaller SURT key. Unfocused: discovery
// order (breadth-first), then SURT key.
func (r Ranking) Before(a, b Entry) bool {
	if r.Strategy == scoring.Unfocused {
		if a.Order != b.Order {
			return a.Order < b.Order
		}
		return a.Key < b.Key
	}
	if a.Priority != b.Priority {
		return a.Priority > b.Priority
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
	return nil
}
