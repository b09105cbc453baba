package extract

import (
	"fmt"

	"github.com/recrawl/recrawl/specs"
)

// StopRule is when an extraction stops (method.md §3.6, and the spec's
// stop_after_empty_rounds): a spec's target_size, max_rounds and
// stop_after_empty_rounds (0: not applied).
type StopRule struct {
	TargetSize, MaxRounds, StopAfterEmptyRounds int
}

// StopRuleOf is the stopping rule of a spec.
func StopRuleOf(s *specs.Spec) StopRule {
	return StopRule{TargetSize: s.TargetSize, MaxRounds: s.MaxRounds, StopAfterEmptyRounds: s.StopAfterEmptyRounds}
}

// Progress is where an extraction stands before a round: the round's
// number, the documents collected and the frontier's size before it, and
// how many rounds at the end collected no document.
type Progress struct {
	Round, Collected, Frontier, EmptyRounds int
}

// EmptyRoundsAfter is Progress.EmptyRounds after a round that collected
// collectedInRound documents, given the count before it.
func EmptyRoundsAfter(emptyBefore, collectedInRound int) int {
	if collectedInRound > 0 {
		return 0
	}
	return emptyBefore + 1
}

// StopReason says why the extraction stops before the round of p, or "" to
// go on. It is the one stopping rule: the sequential engine applies it
// before every round, the Beam engine's driver between jobs, and a job of
// several rounds (transforms/round.ExtractRounds) between its rounds, so
// any number of rounds per job gives the same run.
func (r StopRule) StopReason(p Progress) string {
	switch {
	case r.TargetSize > 0 && p.Collected >= r.TargetSize:
		return "target size reached"
	case p.Frontier == 0:
		return StopFrontierEmpty
	case r.MaxRounds > 0 && p.Round >= r.MaxRounds:
		return "max rounds reached"
	case r.StopAfterEmptyRounds > 0 && p.EmptyRounds >= r.StopAfterEmptyRounds:
		return fmt.Sprintf("no document collected in the last %d rounds (stop_after_empty_rounds)", r.StopAfterEmptyRounds)
	}
	return ""
}

// BatchK is how many URLs a round takes: the batch size, or fewer when the
// target size is that close.
func BatchK(batchSize, targetSize, collected int) int {
	k := batchSize
	if targetSize > 0 && targetSize-collected < k {
		k = targetSize - collected
	}
	return k
}
