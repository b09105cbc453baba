package engine

import (
	"time"

	"github.com/recrawl/recrawl/internal/collection"
	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/extract/roundstate"
	"github.com/recrawl/recrawl/specs"
)

// runState accumulates what a run produced, in collection order: the
// results of every step and the statistics of every round. Both engines
// fill it the same way.
type runState struct {
	results    []extract.Result
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
	// missing; a refresh resolves such a URL again, and its new result
	// replaces the missing one in the counts.
	missingKeys map[string]string
	// emptySince: stop_after_empty_rounds counts the rounds from this one
	// on (the first round of the last refresh).
	emptySince int
	// refreshes are the work directory's refreshes (run.json).
	refreshes []roundstate.Refresh
}

// roundCounts are the outcomes of one round, for rounds.jsonl.
type roundCounts struct{ collected, missing, redirects, listings int }

func newRunState() *runState {
	return &runState{reasons: map[string]int{}, missingKeys: map[string]string{}}
}

// add records one step's result.
func (s *runState) add(r extract.Result) {
	s.results = append(s.results, r)
	if code, ok := s.missingKeys[r.Entry.Key]; ok { // resolved again by a refresh
		delete(s.missingKeys, r.Entry.Key)
		s.missing--
		if s.reasons[code]--; s.reasons[code] == 0 {
			delete(s.reasons, code)
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
		s.missingKeys[r.Entry.Key] = r.ReasonCode
	}
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

// source replays the results for the outputs the driver writes
// (pipelines/extract/outputs.go).
func (s *runState) source() extract.ResultSource {
	return func(yield func(extract.Result) error) error {
		for _, r := range s.results {
			if err := yield(r); err != nil {
				return err
			}
		}
		return nil
	}
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
