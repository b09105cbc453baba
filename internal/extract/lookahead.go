package extract

import (
	"cmp"
	"slices"
)

// Look-ahead (specs look_ahead: F): a round reads the chosen capture of
// F·K frontier URLs, the best by link priority, scores each as any round
// does, and keeps K of the documents among them: the best by their own
// relevance (Document.Relevance, what the collection reports and their
// outlinks inherit). A link's priority is a guess about its target; once
// the target is read, its own score is known and is the better evidence.
//
// The candidates that are not collected documents (missing URLs,
// redirects, listing pages) take no slot of the collection and are kept
// whatever their score: their outcome is the same whenever they are read.
// The documents not kept go back to the frontier with their own score as
// their selection priority (Entry.Scored): they are neither collected nor
// followed until a later round keeps them, and compete there on what is
// known about them. A round keeps at most K documents, so the collection
// still stops at exactly target_size.
//
// The choice (CommitLookAhead) is a function of the candidates' results
// alone, so the sequential engine and the Beam rounds make the same one,
// and with F = 1 it keeps every candidate: the rounds without look-ahead.

// Candidate is what a look-ahead round knows about one URL it read: its
// entry as taken, its rank among the round's candidates (ranking order),
// whether it is a collected document, and the document's own relevance.
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
		c.Score = r.Document.Relevance
	}
	return c
}

// Commitment is a look-ahead round's choice: the keys of the candidates
// it keeps, in candidate rank order (the i-th kept result takes rank i),
// and the documents it returns to the frontier, scored (Entry.Scored).
type Commitment struct {
	Committed []string
	Returned  []Entry
}

// CommitLookAhead chooses what a look-ahead round keeps of its candidates
// (any order): every candidate that is not a collected document, and the
// k collected documents of highest own score (ties: the earlier candidate
// rank, i.e. the higher link priority, then the SURT key). The other
// documents are returned with their score.
func CommitLookAhead(cands []Candidate, k int) Commitment {
	docs := make([]Candidate, 0, len(cands))
	for _, c := range cands {
		if c.Counted {
			docs = append(docs, c)
		}
	}
	slices.SortFunc(docs, func(a, b Candidate) int {
		if a.Score != b.Score {
			return -cmp.Compare(a.Score, b.Score)
		}
		if a.Rank != b.Rank {
			return cmp.Compare(a.Rank, b.Rank)
		}
		return cmp.Compare(a.Entry.Key, b.Entry.Key)
	})
	returned := map[string]bool{}
	var out Commitment
	for i, c := range docs {
		if i >= max(k, 0) {
			returned[c.Entry.Key] = true
			out.Returned = append(out.Returned, c.Entry.WithOwnScore(c.Score))
		}
	}
	kept := make([]Candidate, 0, len(cands)-len(out.Returned))
	for _, c := range cands {
		if !returned[c.Entry.Key] {
			kept = append(kept, c)
		}
	}
	slices.SortFunc(kept, func(a, b Candidate) int {
		if a.Rank != b.Rank {
			return cmp.Compare(a.Rank, b.Rank)
		}
		return cmp.Compare(a.Entry.Key, b.Entry.Key)
	})
	for _, c := range kept {
		out.Committed = append(out.Committed, c.Entry.Key)
	}
	slices.SortFunc(out.Returned, func(a, b Entry) int { return cmp.Compare(a.Key, b.Key) })
	return out
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
