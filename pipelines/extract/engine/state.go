package engine

import (
	"time"

	"github.com/recrawl/recrawl/internal/collection"
	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/extract/roundstate"
	"github.com/recrawl/recrawl/specs"
)

// runState accumulates what a run produced, in collection order: the
// statistics of every round and what the decisions between rounds need of
// the results (counts, and the reason of each URL whose latest result is
// missing). The results themselves are on disk (results.go). Both engines
// fill it the same way.
type runState struct {
	// results are every step's results, in collection order, on disk.
	results resultStore
	// added is the number of results added so far.
	added      int
	rounds     []collection.Round
	collected  int
	listings   int // listing pages followed but not counted
	missing    int
	redirects  int
	relevance  float64
	reasons    map[string]int
	frontier   int
	considered int
	stop       string
	unparsable int64 // outlinks without a SURT key (extract.CounterUnparsableOutlinks)
	truncated  int64 // bodies cut at max_document_bytes (extract.CounterTruncatedBodies)
	links      extract.LinkTally
	target     int
	// learner learns from every result when the spec has learn_links or
	// feedback (set by the engines before the first add; nil: nothing to
	// learn).
	learner *extract.Learner

	round roundCounts // the current round's outcomes
	// missingKeys: the reason code of each URL whose latest result is
	// missing, and that result's place in collection order; a refresh
	// resolves such a URL again, and its new result replaces the missing
	// one in the counts.
	missingKeys map[string]missingResult
	// emptySince: stop_after_empty_rounds counts the rounds from this one
	// on (the first round of the last refresh).
	emptySince int
	// refreshes are the work directory's refreshes (run.json).
	refreshes []roundstate.Refresh
}

// missingResult is where the latest result of a missing URL is.
type missingResult struct {
	reasonCode string
	at         int // its place among the run's results, in collection order
}

// roundCounts are the outcomes of one round, for rounds.jsonl.
type roundCounts struct{ collected, missing, redirects, listings int }

func newRunState(results resultStore) *runState {
	return &runState{results: results, reasons: map[string]int{}, missingKeys: map[string]missingResult{}}
}

// add counts one step's result, which results holds or is given next
// (the engines store them: results.go).
func (s *runState) add(r extract.Result) {
	if m, ok := s.missingKeys[r.Entry.Key]; ok { // resolved again by a refresh
		delete(s.missingKeys, r.Entry.Key)
		s.missing--
		if s.reasons[m.reasonCode]--; s.reasons[m.reasonCode] == 0 {
			delete(s.reasons, m.reasonCode)
		}
	}
	s.unparsable += int64(r.UnparsableOutlinks)
	if r.BodyTruncated {
		s.truncated++
	}
	s.links.Add(r)
	if s.learner != nil {
		s.learner.Add(r)
	}
	switch r.Outcome {
	case extract.OutcomeCollected:
		s.collected++
		s.round.collected++
		s.relevance += r.Document.TopicR
	case extract.OutcomeListing:
		s.listings++
		s.round.listings++
	case extract.OutcomeRedirect:
		s.redirects++
		s.round.redirects++
	default:
		s.missing++
		s.round.missing++
		s.reasons[r.ReasonCode]++
		s.missingKeys[r.Entry.Key] = missingResult{reasonCode: r.ReasonCode, at: s.added}
	}
	s.added++
}

// endRound closes a round's statistics.
func (s *runState) endRound(round, frontierSize, selected, considered int, took time.Duration) collection.Round {
	rs := collection.Round{
		Round: round, FrontierSize: frontierSize, Selected: selected,
		Collected: s.round.collected, Missing: s.round.missing, Redirects: s.round.redirects, Listings: s.round.listings,
		AccumulatedRelevance: s.relevance, URLsConsidered: considered, Links: s.links.EndRound(), Seconds: took.Seconds(),
	}
	s.rounds = append(s.rounds, rs)
	s.round = roundCounts{}
	return rs
}

// stopReason says why the extraction stops before round, or "" to go on:
// the one stopping rule (extract.StopRule) on the state so far.
func (s *runState) stopReason(spec *specs.Spec, round, frontier int) string {
	s.target = spec.TargetSize
	return extract.StopRuleOf(spec).StopReason(s.progress(round, frontier))
}

// progress is where the run stands before round.
func (s *runState) progress(round, frontier int) extract.Progress {
	return extract.Progress{Round: round, Collected: s.collected, Frontier: frontier, EmptyRounds: s.emptyRounds()}
}

// emptyRounds is the number of rounds at the end that collected nothing.
func (s *runState) emptyRounds() int {
	n := 0
	for _, r := range s.rounds {
		if r.Round < s.emptySince {
			continue
		}
		n = extract.EmptyRoundsAfter(n, r.Collected)
	}
	return n
}

// source replays the results from disk, for the outputs the driver writes
// (pipelines/extract/outputs.go).
func (s *runState) source() extract.ResultSource { return s.results.replay }

// collectedIn is the number of documents collected in rounds first to
// end (end < 0: to the last), from the rounds' statistics.
func (s *runState) collectedIn(first, end int) int {
	n := 0
	for _, r := range s.rounds {
		if r.Round >= first && (end < 0 || r.Round < end) {
			n += r.Collected
		}
	}
	return n
}

func (s *runState) totals(rounds int) collection.Totals {
	t := collection.Totals{
		Collected: s.collected, Listings: s.listings, Missing: s.missing, Redirects: s.redirects, Frontier: s.frontier,
		URLsConsidered: s.considered, Rounds: rounds, Relevance: s.relevance,
		MissingReasons: s.reasons, StopReason: s.stop,
		Links: s.links.Run, Starvation: extract.Starvation(s.stop, s.collected, s.target, s.links.Run),
	}
	for name, n := range map[string]int64{extract.CounterUnparsableOutlinks: s.unparsable, extract.CounterTruncatedBodies: s.truncated} {
		if n > 0 {
			if t.Counters == nil {
				t.Counters = map[string]int64{}
			}
			t.Counters[name] = n
		}
	}
	return t
}
