package specs

import (
	"fmt"
	"strings"
	"time"
)

// A Bound is the start or the end of the event: either a calendar date,
// which stands for the whole day in UTC, or an RFC 3339 date-time with an
// explicit offset, which stands for that instant.
type Bound struct {
	// Time is the instant; for a date, midnight UTC at its start.
	Time time.Time
	// DateOnly reports that the bound was written as a date.
	DateOnly bool
}

// ParseBound parses "2009-09-27" (a date) or an RFC 3339 date-time such as
// "2009-09-27T18:00:00Z" or "2009-09-27T18:00:00+02:00" (a space instead of
// the T is accepted, as YAML timestamps allow). A date-time without an offset
// is rejected: it would be a different instant in every time zone.
func ParseBound(s string) (Bound, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return inRange(s, Bound{Time: t, DateOnly: true})
	}
	v := s
	if len(v) > 10 && v[10] == ' ' {
		v = v[:10] + "T" + v[11:]
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return inRange(s, Bound{Time: t})
	}
	if _, err := time.Parse("2006-01-02T15:04:05.999999999", v); err == nil {
		return Bound{}, fmt.Errorf("%q has no time zone offset; add Z for UTC or e.g. +02:00", s)
	}
	return Bound{}, fmt.Errorf("%q is neither a date (2009-09-27) nor an RFC 3339 date-time (2009-09-27T18:00:00Z)", s)
}

// MinBoundYear is the earliest year of a bound. Year 1 would be
// time.Time's zero, which stands for a bound not given; no web archive
// holds captures of events that old anyway.
const MinBoundYear = 1000

// inRange returns b, or an error when it is before MinBoundYear (in UTC).
func inRange(s string, b Bound) (Bound, error) {
	if b.Time.UTC().Year() < MinBoundYear {
		return Bound{}, fmt.Errorf("%q is out of range: a bound is in the years %d to 9999", s, MinBoundYear)
	}
	return b, nil
}

// IsZero reports whether the bound is unset.
func (b Bound) IsZero() bool { return b.Time.IsZero() }

// First returns the first instant the bound covers: the bound itself, or
// midnight UTC for a date.
func (b Bound) First() time.Time { return b.Time.UTC() }

// After returns the first instant after the bound: the next midnight UTC for
// a date (the whole day is covered), else the bound plus one nanosecond, the
// resolution of time.Time.
func (b Bound) After() time.Time {
	if b.DateOnly {
		return b.Time.UTC().AddDate(0, 0, 1)
	}
	return b.Time.UTC().Add(time.Nanosecond)
}

// String returns the bound as written: YYYY-MM-DD for a date, RFC 3339 with
// the original offset for a date-time.
func (b Bound) String() string {
	if b.DateOnly {
		return b.Time.Format(time.DateOnly)
	}
	return b.Time.Format(time.RFC3339Nano)
}

// MarshalText implements encoding.TextMarshaler.
func (b Bound) MarshalText() ([]byte, error) { return []byte(b.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler with ParseBound.
func (b *Bound) UnmarshalText(p []byte) error {
	v, err := ParseBound(string(p))
	if err != nil {
		return err
	}
	*b = v
	return nil
}
