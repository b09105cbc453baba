package extract

import (
	"cmp"
	"slices"
)

// Look-ahead (specs look_ahead: F): a round reads the chosen capture of
// F·K frontier URLs, the best by link priority, scores each as any round
// does, and keeps what the round without look-ahead would keep (its first
// K candidates by link priority), except that its documents are replaced
// by the documents of highest topical relevance among all F·K
// (Document.TopicR). A link's priority is a guess about its target; once
// the target is read, its own text is the better evidence. The choice is
// by TopicR rather than by the document's relevance (TTR, which adds
// TempR): a page off the event's topic but from the event's days has a
// TTR of about one half, above most pages on the topic, and is never on
// the event.
//
// So a round keeps as many documents as without look-ahead, and the same
// missing URLs, redirects and listing pages (those among its first K
// candidates); the collection still stops at exactly target_size. The
// documents not kept go back to the frontier with their TopicR as their
// selection priority (Entry.WithOwnScore) and compete there on what is
// known about them; they are neither collected nor followed until a later
// round keeps them. The other candidates not kept (non-documents past the
// first K) go back unchanged.
//
// The choice (CommitLookAhead) is a function of the candidates' results
// alone, so the sequential engine and the Beam rounds make the same one,
// and with F = 1 it keeps every candidate: the rounds without look-ahead.

// Candidate is what a look-ahead round knows about one URL it read: its
// entry as taken, its rank among the round's candidates (ranking order),
// whether it is a collected document, and the document's TopicR.
type Candidate struct {
	Entry   Entry
	Rank    int
	Counted bool
	Score   float64
}

// CandidateOf is the candidate of one step's result.
func CandidateOf(r Result) Candidate {
	c := Candidate{Entry: r.Entry, Rank: r.Rank, Counted: r.Outcome == OutcomeCollected}
	if c.Counted && r.Document != nil {
		c.Score = r.Document.TopicR
	}
	return c
}

// Commitment is a look-ahead round's choice: the keys of the candidates
// it keeps, in candidate rank order (the i-th kept result takes rank i),
// and the entries it returns to the frontier (documents scored), by key.
type Commitment struct {
	Committed []string
	Returned  []Entry
}

// CommitLookAhead chooses what a look-ahead round of k keeps of its
// candidates (given in any order): the candidates that are not collected
// documents among the first k by rank, and as many collected documents as
// those first k hold, the documents of highest own score among all the
// candidates (ties: the earlier candidate rank, i.e. the higher link
// priority). The documents not kept are returned scored, the other
// candidates unchanged.
func CommitLookAhead(cands []Candidate, k int) Commitment {
	byRank := slices.Clone(cands)
	slices.SortFunc(byRank, func(a, b Candidate) int {
		if a.Rank != b.Rank {
			return cmp.Compare(a.Rank, b.Rank)
		}
		return cmp.Compare(a.Entry.Key, b.Entry.Key)
	})
	keep := map[string]bool{}
	var docs []Candidate
	slots := 0 // the documents of the round without look-ahead
	for i, c := range byRank {
		switch {
		case c.Counted:
			docs = append(docs, c)
			if i < k {
				slots++
			}
		case i < k:
			keep[c.Entry.Key] = true
		}
	}
	slices.SortStableFunc(docs, func(a, b Candidate) int { return -cmp.Compare(a.Score, b.Score) })
	for _, c := range docs[:slots] {
		keep[c.Entry.Key] = true
	}
	var out Commitment
	for _, c := range byRank {
		switch {
		case keep[c.Entry.Key]:
			out.Committed = append(out.Committed, c.Entry.Key)
		case c.Counted:
			out.Returned = append(out.Returned, c.Entry.WithOwnScore(c.Score))
		default:
			out.Returned = append(out.Returned, c.Entry)
		}
	}
	slices.SortFunc(out.Returned, func(a, b Entry) int { return cmp.Compare(a.Key, b.Key) })
	return out
}

// Ranks gives each committed key its rank among the results kept: its
// place in Committed.
func (c Commitment) Ranks() map[string]int {
	ranks := make(map[string]int, len(c.Committed))
	for i, k := range c.Committed {
		ranks[k] = i
	}
	return ranks
}

// WithOwnScore is e returned to the frontier by a look-ahead round: ranked
// by its document's own relevance from now on (SelectionPriority).
func (e Entry) WithOwnScore(score float64) Entry {
	e.Scored, e.OwnScore = true, score
	return e
}

// LookAheadCandidates is the number of URLs a round of k reads with
// look-ahead f (f < 1 counts as 1), capped at MaxBatchSize.
func LookAheadCandidates(k, f int) int {
	if f < 1 {
		f = 1
	}
	if k > MaxBatchSize/f {
		return MaxBatchSize
	}
	return k * f
}
