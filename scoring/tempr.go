package scoring

import (
	"math"
	"time"
)

// TimeScope is the temporal scope of a collection: the event interval
// [Start, End] and the half-lives of the relevance before (Lead) and after
// (Cooldown) it.
//
// End is an instant and is inside the interval. A specification whose end
// is a calendar day ("the whole end day is inside") passes the last instant
// of that day, InclusiveEnd(day), not midnight at its start.
type TimeScope struct {
	Start, End     time.Time
	Lead, Cooldown time.Duration
}

// TempR returns the temporal relevance of a document with time t.
func (s TimeScope) TempR(t time.Time) float64 {
	return TempR(t, s.Start, s.End, s.Lead, s.Cooldown)
}

// TempR is the temporal relevance of a document with time td to an event
// lasting from start to end (both instants inside the event):
//
//	1                              if start <= td <= end
//	2^(-(start - td) / lead)       if td < start
//	2^(-(td - end) / cooldown)     if td > end
//
// A half-life of zero (or less) gives 0 on its side of the interval: "P0D"
// means no lead time, so a document one second before the start is not
// relevant. The result is always in [0, 1].
func TempR(td, start, end time.Time, lead, cooldown time.Duration) float64 {
	switch {
	case td.Before(start):
		return halfLifeDecay(start.Sub(td), lead)
	case td.After(end):
		return halfLifeDecay(td.Sub(end), cooldown)
	default:
		return 1
	}
}

// halfLifeDecay returns 2^(-dt/halfLife) for dt > 0, which halves every
// halfLife; zero when halfLife is not positive.
func halfLifeDecay(dt, halfLife time.Duration) float64 {
	if halfLife <= 0 {
		return 0
	}
	v := math.Exp2(-float64(dt) / float64(halfLife))
	return math.Min(v, 1)
}

// InclusiveEnd returns the last representable instant (one nanosecond
// before the next midnight) of the calendar day of day, in day's location.
// It turns an event end date, which includes the whole day, into the
// instant TimeScope.End expects.
func InclusiveEnd(day time.Time) time.Time {
	y, m, d := day.Date()
	return time.Date(y, m, d+1, 0, 0, 0, 0, day.Location()).Add(-time.Nanosecond)
}
