package specs

import (
	"fmt"
	"math/big"
	"strings"
	"time"
)

// Nominal lengths of the ISO-8601 designators that have no fixed length.
// They are java.time's estimated durations (ChronoUnit.YEARS, MONTHS): the
// average Gregorian year of 365.2425 days and a twelfth of it. The original
// implementation added a java.time.Period to an Instant, which only works for
// days and weeks (years and months throw), and all 31 of its specifications
// use days only, so no behaviour of the original is changed by this choice.
const (
	Day   = 24 * time.Hour
	Week  = 7 * Day
	Year  = 31556952 * time.Second // 365.2425 days
	Month = Year / 12              // 30.436875 days
)

// A Duration is a non-negative ISO-8601 duration such as P30D, P2W, P6M, PT12H
// or P1Y2M3DT4H5M6S, as used for lead_time and cooldown_time. It keeps the
// text it was written with (so a resolved specification shows P2W, not
// P14D) and its length as a time.Duration. The zero value is P0D.
type Duration struct {
	text string
	d    time.Duration
}

// designators of an ISO-8601 duration in the order they must appear, with
// their lengths; the time part (after T) uses H, M, S.
var (
	dateDesignators = []designator{{'Y', Year}, {'M', Month}, {'W', Week}, {'D', Day}}
	timeDesignators = []designator{{'H', time.Hour}, {'M', time.Minute}, {'S', time.Second}}
)

type designator struct {
	letter byte
	unit   time.Duration
}

// ParseDuration parses an ISO-8601 duration: P, then any of nY nM nW nD in
// this order, then optionally T and any of nH nM nS, at least one component
// in all. Lower-case letters are accepted. Only the last component may have a
// decimal fraction (with '.' or ','), as ISO 8601 allows. Weeks may be
// combined with other components (P2W3D), as java.time.Period allows.
// Negative durations are rejected: a half-life cannot be negative.
func ParseDuration(s string) (Duration, error) {
	text := strings.ToUpper(strings.TrimSpace(s))
	if strings.HasPrefix(text, "-") {
		return Duration{}, fmt.Errorf("%q is negative; a half-life must be P0D or longer", s)
	}
	bad := func(why string) error {
		return fmt.Errorf("%q is not an ISO-8601 duration (%s; examples: P30D, P2W, P6M, PT12H, P1Y2M3DT4H5M6S)", s, why)
	}
	if !strings.HasPrefix(text, "P") {
		return Duration{}, bad("it must start with P")
	}
	rest := text[1:]
	total := new(big.Rat)
	components := 0
	fractional := false
	parsePart := func(part string, designators []designator) error {
		next := 0 // index of the first designator still allowed
		for part != "" {
			if fractional {
				return bad("only the last component may have a fraction")
			}
			i := 0
			for i < len(part) && (part[i] >= '0' && part[i] <= '9' || part[i] == '.' || part[i] == ',') {
				i++
			}
			if i == 0 {
				return bad(fmt.Sprintf("expected a number before %q", part[:1]))
			}
			if i == len(part) {
				return bad(fmt.Sprintf("number %s has no designator", part))
			}
			num := strings.Replace(part[:i], ",", ".", 1)
			if strings.Count(num, ".") > 1 || strings.HasPrefix(num, ".") || strings.HasSuffix(num, ".") || strings.Contains(num, ",") {
				return bad(fmt.Sprintf("malformed number %s", part[:i]))
			}
			letter := part[i]
			found := -1
			for j := next; j < len(designators); j++ {
				if designators[j].letter == letter {
					found = j
					break
				}
			}
			if found < 0 {
				return bad(fmt.Sprintf("unexpected designator %q", string(letter)))
			}
			v, ok := new(big.Rat).SetString(num)
			if !ok {
				return bad(fmt.Sprintf("malformed number %s", part[:i]))
			}
			fractional = strings.Contains(num, ".")
			total.Add(total, v.Mul(v, new(big.Rat).SetInt64(int64(designators[found].unit))))
			components++
			next = found + 1
			part = part[i+1:]
		}
		return nil
	}
	datePart, timePart, hasT := strings.Cut(rest, "T")
	if err := parsePart(datePart, dateDesignators); err != nil {
		return Duration{}, err
	}
	if hasT {
		if timePart == "" {
			return Duration{}, bad("T must be followed by hours, minutes or seconds")
		}
		if err := parsePart(timePart, timeDesignators); err != nil {
			return Duration{}, err
		}
	}
	if components == 0 {
		return Duration{}, bad("it has no components")
	}
	// Round to whole nanoseconds and refuse what time.Duration cannot hold.
	ns := new(big.Int).Quo(new(big.Int).Add(new(big.Int).Mul(total.Num(), big.NewInt(2)), total.Denom()), new(big.Int).Mul(total.Denom(), big.NewInt(2)))
	if !ns.IsInt64() {
		return Duration{}, fmt.Errorf("%q is too long (at most about 292 years)", s)
	}
	return Duration{text: text, d: time.Duration(ns.Int64())}, nil
}

// MustParseDuration is ParseDuration for constants in code and tests; it
// panics on an invalid duration.
func MustParseDuration(s string) Duration {
	d, err := ParseDuration(s)
	if err != nil {
		panic(err)
	}
	return d
}

// Duration returns the length, with years and months at their nominal
// lengths (see Year and Month).
func (d Duration) Duration() time.Duration { return d.d }

// IsZero reports whether the duration is zero (P0D, PT0S, ...): for a
// half-life, "none".
func (d Duration) IsZero() bool { return d.d == 0 }

// String returns the ISO-8601 text the duration was written with, upper-cased;
// P0D for the zero value.
func (d Duration) String() string {
	if d.text == "" {
		return "P0D"
	}
	return d.text
}

// MarshalText implements encoding.TextMarshaler (used by JSON and YAML).
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler with ParseDuration.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := ParseDuration(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// DurationOf returns the Duration of a time.Duration, written in whole days
// or, when not whole days, in seconds (P30D, PT90000S).
func DurationOf(d time.Duration) Duration {
	if d <= 0 {
		return Duration{}
	}
	if d%Day == 0 {
		return Duration{text: fmt.Sprintf("P%dD", d/Day), d: d}
	}
	return Duration{text: fmt.Sprintf("PT%dS", int64(d/time.Second)), d: d}
}
