package specs

import (
	"strings"
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		text string
	}{
		{"P0D", 0, "P0D"},
		{"PT0S", 0, "PT0S"},
		{"P30D", 30 * Day, "P30D"},
		{"P2W", 14 * Day, "P2W"},
		{"P2W3D", 17 * Day, "P2W3D"},
		{"P6M", 6 * Month, "P6M"},
		{"P1Y", Year, "P1Y"},
		{"PT12H", 12 * time.Hour, "PT12H"},
		{"PT1M", time.Minute, "PT1M"},
		{"P1M", Month, "P1M"},
		{"P1Y2M3DT4H5M6S", Year + 2*Month + 3*Day + 4*time.Hour + 5*time.Minute + 6*time.Second, "P1Y2M3DT4H5M6S"},
		{"P1.5D", 36 * time.Hour, "P1.5D"},
		{"P1,5D", 36 * time.Hour, "P1,5D"},
		{"PT0.000000001S", time.Nanosecond, "PT0.000000001S"},
		{" p30d ", 30 * Day, "P30D"},
		{"P730D", 730 * Day, "P730D"},
	} {
		d, err := ParseDuration(tc.in)
		if err != nil {
			t.Errorf("ParseDuration(%q): %v", tc.in, err)
			continue
		}
		if d.Duration() != tc.want || d.String() != tc.text {
			t.Errorf("ParseDuration(%q) = %v %q, want %v %q", tc.in, d.Duration(), d.String(), tc.want, tc.text)
		}
		if d.IsZero() != (tc.want == 0) {
			t.Errorf("ParseDuration(%q).IsZero() = %v", tc.in, d.IsZero())
		}
	}
	// The nominal year and month are java.time's estimated durations.
	if Year != time.Duration(365.2425*24*float64(time.Hour)) || Month*12 != Year {
		t.Errorf("Year = %v, Month = %v", Year, Month)
	}
}

func TestParseDurationErrors(t *testing.T) {
	for in, want := range map[string]string{
		"P1X":      `"P1X" is not an ISO-8601 duration`,
		"":         "must start with P",
		"30D":      "must start with P",
		"P":        "no components",
		"PT":       "T must be followed",
		"P1DT":     "T must be followed",
		"PD":       "expected a number",
		"P1":       "has no designator",
		"P1D2Y":    `unexpected designator "Y"`,
		"P1M1Y":    `unexpected designator "Y"`,
		"PT1D":     `unexpected designator "D"`,
		"P1.5Y2M":  "only the last component",
		"P1..5D":   "malformed number",
		"P.5D":     "malformed number",
		"-P1D":     "is negative",
		"P300Y":    "too long",
		"P1D1D":    `unexpected designator "D"`,
		"P1Y2M3DT": "T must be followed",
	} {
		_, err := ParseDuration(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseDuration(%q) = %v, want an error containing %q", in, err, want)
		}
	}
}

func TestDurationText(t *testing.T) {
	var zero Duration
	if zero.String() != "P0D" || !zero.IsZero() {
		t.Errorf("zero Duration = %q", zero.String())
	}
	var d Duration
	if err := d.UnmarshalText([]byte("P2W")); err != nil || d.Duration() != 14*Day {
		t.Fatalf("UnmarshalText(P2W) = %v, %v", d, err)
	}
	if b, _ := d.MarshalText(); string(b) != "P2W" {
		t.Errorf("MarshalText = %s", b)
	}
	if err := d.UnmarshalText([]byte("P2X")); err == nil {
		t.Error("UnmarshalText(P2X) succeeded")
	}
}

func TestParseBound(t *testing.T) {
	b, err := ParseBound("2009-09-27")
	if err != nil || !b.DateOnly || !b.Time.Equal(time.Date(2009, 9, 27, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("ParseBound(date) = %+v, %v", b, err)
	}
	if got := b.After(); !got.Equal(time.Date(2009, 9, 28, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("date After = %v", got)
	}
	b, err = ParseBound("2009-09-27T18:00:00+02:00")
	if err != nil || b.DateOnly || !b.First().Equal(time.Date(2009, 9, 27, 16, 0, 0, 0, time.UTC)) {
		t.Fatalf("ParseBound(date-time) = %+v, %v", b, err)
	}
	if b.String() != "2009-09-27T18:00:00+02:00" {
		t.Errorf("String = %q", b.String())
	}
	if got := b.After(); got.Sub(b.First()) != time.Nanosecond {
		t.Errorf("date-time After = %v", got)
	}
	if b, err := ParseBound("2009-09-27 18:00:00Z"); err != nil || b.First().Hour() != 18 {
		t.Errorf("space separator: %+v, %v", b, err)
	}
	for in, want := range map[string]string{
		"2009-09-27T18:00:00": "no time zone offset",
		"27.09.2009":          "neither a date",
		"2009-13-01":          "neither a date",
	} {
		if _, err := ParseBound(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseBound(%q) = %v, want %q", in, err, want)
		}
	}
}
