package extract

import (
	"sort"
	"strings"
)

// TopK collects the K entries that a round takes from the frontier: the
// first K in Ranking order, with at most MaxPerHost entries of any one host
// when MaxPerHost > 0. It is, as it is, the accumulator of the Beam combiner
// that selects a round's batch (transforms/round.SelectBatch): it never keeps
// more than 2K+16 entries, sorting and capping them to K when it reaches
// that, and once compacted it rejects at once any entry ranked below its
// K-th, so a frontier of millions costs little more than one comparison per
// entry. It is mergeable: the TopK of the union of two inputs is the TopK of
// the merge of their TopKs. Every field is exported, so a runner can encode
// it between workers.
//
// Why merging is exact with a per-host cap: an entry dropped by a partial
// TopK has K entries ranked above it that are each either kept in the final
// answer or displaced by MaxPerHost entries of their own host that are, so K
// kept entries stay above it after any merge.
//
// Frontier keys are unique (the frontier is compacted every round), so TopK
// does not deduplicate.
type TopK struct {
	K          int
	MaxPerHost int
	Ranking    Ranking
	Entries    []Entry // kept entries; sorted and capped after Result
	Compacted  bool    // Entries is sorted, capped, at most K long
}

// NewTopK starts an empty accumulator.
func NewTopK(k, maxPerHost int, r Ranking) *TopK {
	return &TopK{K: k, MaxPerHost: maxPerHost, Ranking: r}
}

// Add offers one entry.
func (t *TopK) Add(e Entry) {
	if t.K <= 0 {
		return
	}
	if t.Compacted && len(t.Entries) >= t.K && !t.Ranking.Before(e, t.Entries[t.K-1]) {
		return // worse than the K-th kept entry: can never be taken
	}
	t.Entries = append(t.Entries, e)
	t.Compacted = false
	if len(t.Entries) >= 2*t.K+16 {
		t.compact()
	}
}

// Merge adds everything another accumulator kept.
func (t *TopK) Merge(o *TopK) {
	for _, e := range o.Entries {
		t.Add(e)
	}
}

// Result returns the selected entries in Ranking order.
func (t *TopK) Result() []Entry {
	t.compact()
	return t.Entries
}

func (t *TopK) compact() {
	if t.Compacted {
		return
	}
	sort.Slice(t.Entries, func(i, j int) bool { return t.Ranking.Before(t.Entries[i], t.Entries[j]) })
	kept := t.Entries[:0]
	var perHost map[string]int
	if t.MaxPerHost > 0 {
		perHost = map[string]int{}
	}
	for _, e := range t.Entries {
		if len(kept) >= t.K {
			break
		}
		if perHost != nil {
			h := strings.ToLower(e.Host)
			if perHost[h] >= t.MaxPerHost {
				continue
			}
			perHost[h]++
		}
		kept = append(kept, e)
	}
	// Drop references to entries past the end so they can be collected.
	for i := len(kept); i < len(t.Entries); i++ {
		t.Entries[i] = Entry{}
	}
	t.Entries = kept
	t.Compacted = true
}
