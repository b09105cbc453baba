package extract

import (
	"reflect"
	"testing"

	"github.com/recrawl/recrawl/internal/collection"
)

// TestCommitLookAhead: a look-ahead round of K keeps the non-documents
// among its first K candidates and as many documents as those hold: the
// documents of highest own score among all candidates (ties: the earlier
// candidate rank), in candidate rank order. It returns the other documents
// scored, ranked from then on by their own score, and the other
// non-documents unchanged.
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
		other(1, "r"), // a redirect or a missing URL among the first K: kept
		doc(2, "c", 0.6, 0.40),
		doc(4, "e", 0.4, 0.40), // ties with c on score: c is the earlier candidate
		other(5, "s"),          // past the first K: returned as it was
		doc(6, "f", 0.3, 0.05),
	}
	// K = 3: the first three candidates hold two documents (a, c) and r.
	got := CommitLookAhead(cands, 3)
	want := Commitment{
		Committed: []string{"r", "c", "d"},
		Returned: []Entry{
			{Key: "a", URL: "https://a", Priority: 0.9, Scored: true, OwnScore: 0.10},
			{Key: "e", URL: "https://e", Priority: 0.4, Scored: true, OwnScore: 0.40},
			{Key: "f", URL: "https://f", Priority: 0.3, Scored: true, OwnScore: 0.05},
			{Key: "s", URL: "https://s", Priority: 0.9},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("CommitLookAhead(K = 3):\n got %+v\nwant %+v", got, want)
	}
	// Without look-ahead (as many candidates as K) every candidate is kept.
	if got := CommitLookAhead(cands, len(cands)); len(got.Committed) != len(cands) || len(got.Returned) != 0 {
		t.Errorf("K = %d of %d candidates: kept %v, returned %v; want all kept", len(cands), len(cands), got.Committed, got.Returned)
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

// TestCandidateScoreIsTopicR: a look-ahead round keeps documents by their
// topical relevance, so a page off the event's topic from the event's days
// (TopicR 0, TTR one half) is not kept before a page on the topic with a
// lower TTR; results that are not collected documents have no score.
func TestCandidateScoreIsTopicR(t *testing.T) {
	onTopic := Result{Entry: Entry{Key: "on"}, Rank: 1, Outcome: OutcomeCollected,
		Document: &collection.Document{TopicR: 0.30, TempR: 0.40, Relevance: 0.35}}
	offTopic := Result{Entry: Entry{Key: "off"}, Rank: 0, Outcome: OutcomeCollected,
		Document: &collection.Document{TopicR: 0, TempR: 1, Relevance: 0.5}}
	listing := Result{Entry: Entry{Key: "list"}, Rank: 2, Outcome: OutcomeListing,
		Document: &collection.Document{TopicR: 0.9, TempR: 1, Relevance: 0.95}}
	cands := []Candidate{CandidateOf(offTopic), CandidateOf(onTopic), CandidateOf(listing)}
	if cands[0].Score != 0 || cands[1].Score != 0.30 || cands[2].Counted || cands[2].Score != 0 {
		t.Fatalf("candidates %+v: want scores 0 and 0.30 (TopicR) and an uncounted listing page", cands)
	}
	// K = 1 of two documents: the one on the topic is kept.
	if got := CommitLookAhead(cands[:2], 1); len(got.Committed) != 1 || got.Committed[0] != "on" {
		t.Errorf("kept %v, want the page on the topic", got.Committed)
	}
}
