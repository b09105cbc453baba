package extract

import (
	"reflect"
	"testing"
)

// TestCommitLookAhead: a look-ahead round keeps the K documents of highest
// own score (ties: the earlier candidate rank) and every candidate that is
// not a collected document, in candidate rank order, and returns the other
// documents scored, ranked from then on by their own score.
func TestCommitLookAhead(t *testing.T) {
	doc := func(rank int, key string, priority, score float64) Candidate {
		return Candidate{Entry: Entry{Key: key, URL: "https://" + key, Priority: priority}, Rank: rank, Counted: true, Score: score}
	}
	other := func(rank int, key string) Candidate {
		return Candidate{Entry: Entry{Key: key, URL: "https://" + key, Priority: 0.9}, Rank: rank}
	}
	cands := []Candidate{ // any order: a runner's combine gives no order
		doc(3, "d", 0.5, 0.80),
		doc(0, "a", 0.9, 0.10),
		other(1, "r"), // a redirect or a missing URL: kept, takes no slot
		doc(2, "c", 0.6, 0.40),
		doc(4, "e", 0.4, 0.40), // ties with c on score: c is the earlier candidate
		doc(5, "f", 0.3, 0.05),
	}
	got := CommitLookAhead(cands, 2)
	want := Commitment{
		Committed: []string{"r", "c", "d"},
		Returned: []Entry{
			{Key: "a", URL: "https://a", Priority: 0.9, Scored: true, OwnScore: 0.10},
			{Key: "e", URL: "https://e", Priority: 0.4, Scored: true, OwnScore: 0.40},
			{Key: "f", URL: "https://f", Priority: 0.3, Scored: true, OwnScore: 0.05},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("CommitLookAhead(K = 2):\n got %+v\nwant %+v", got, want)
	}
	// Without look-ahead (as many candidates as K) every candidate is kept.
	if got := CommitLookAhead(cands, 5); len(got.Committed) != len(cands) || len(got.Returned) != 0 {
		t.Errorf("K = 5 documents of 5: kept %v, returned %v; want all kept", got.Committed, got.Returned)
	}
	// A returned entry is ranked by its own score, not its link priority,
	// and keeps it through merges with later links to it.
	a := got.Returned
	if p := a[0].SelectionPriority(); p != 0.10 {
		t.Errorf("returned entry a: selection priority %v, want its own score 0.10", p)
	}
	link := Entry{Key: "a", URL: "https://a", Priority: 0.95, Order: 7}
	for _, m := range []Entry{Merge(a[0], link), Merge(link, a[0])} {
		if !m.Scored || m.OwnScore != 0.10 || m.SelectionPriority() != 0.10 {
			t.Errorf("merged with a later link: %+v; want it scored 0.10", m)
		}
	}
}
