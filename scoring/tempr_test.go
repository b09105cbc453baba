package scoring

import (
	"math"
	"testing"
	"time"
)

func TestTempR(t *testing.T) {
	day := 24 * time.Hour
	start := time.Date(2012, 1, 13, 0, 0, 0, 0, time.UTC)
	end := InclusiveEnd(start) // one-day event: the whole 13 January
	tests := []struct {
		name           string
		td             time.Time
		lead, cooldown time.Duration
		want           float64
	}{
		{"on the start", start, 0, 30 * day, 1},
		{"on the inclusive end", end, 0, 30 * day, 1},
		{"evening of the end day", start.Add(18 * time.Hour), 0, 30 * day, 1},
		{"P0D lead: one second before the start", start.Add(-time.Second), 0, 30 * day, 0},
		{"P0D cool-down: one second after the end", end.Add(time.Second), 7 * day, 0, 0},
		{"P30D cool-down: 30 days after the end", end.Add(30 * day), 0, 30 * day, 0.5},
		{"P30D cool-down: 60 days after the end", end.Add(60 * day), 0, 30 * day, 0.25},
		{"P30D cool-down: 90 days after the end", end.Add(90 * day), 0, 30 * day, 0.125},
		{"P7D lead: 7 days before the start", start.Add(-7 * day), 7 * day, 0, 0.5},
		{"P7D lead: 21 days before the start", start.Add(-21 * day), 7 * day, 0, 0.125},
		{"P2W lead: 7 days before the start", start.Add(-7 * day), 14 * day, 0, math.Sqrt2 / 2},
		{"negative half-life acts as zero", start.Add(-time.Hour), -day, 0, 0},
	}
	for _, tt := range tests {
		got := TempR(tt.td, start, end, tt.lead, tt.cooldown)
		if math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: TempR = %v, want %v", tt.name, got, tt.want)
		}
		if s := (TimeScope{start, end, tt.lead, tt.cooldown}); s.TempR(tt.td) != got {
			t.Errorf("%s: TimeScope.TempR = %v, TempR = %v", tt.name, s.TempR(tt.td), got)
		}
	}
}

// The end instant is inclusive: a caller that passes midnight at the start
// of the end day (not InclusiveEnd) would lose the rest of that day.
func TestTempRInclusiveEndDay(t *testing.T) {
	day := 24 * time.Hour
	start := time.Date(2013, 9, 22, 0, 0, 0, 0, time.UTC)
	noon := start.Add(12 * time.Hour)
	if got := TempR(noon, start, InclusiveEnd(start), 0, 30*day); got != 1 {
		t.Errorf("noon of the end day with InclusiveEnd: TempR = %v, want 1", got)
	}
	if got := TempR(noon, start, start, 0, 30*day); got >= 1 {
		t.Errorf("noon of the end day with end = midnight: TempR = %v, want < 1", got)
	}
	next := start.Add(day)
	if got := TempR(next, start, InclusiveEnd(start), 0, 30*day); got >= 1 || got < 0.9999 {
		t.Errorf("first instant of the next day: TempR = %v, want just below 1", got)
	}
}

func TestTempRNeverAboveOne(t *testing.T) {
	start := time.Date(2010, 6, 11, 0, 0, 0, 0, time.UTC)
	end := InclusiveEnd(time.Date(2010, 7, 11, 0, 0, 0, 0, time.UTC))
	for h := -2000; h <= 2000; h += 7 {
		td := start.Add(time.Duration(h) * time.Hour)
		if h > 0 {
			td = end.Add(time.Duration(h-1000) * time.Hour)
		}
		got := TempR(td, start, end, 3*24*time.Hour, 30*24*time.Hour)
		if got < 0 || got > 1 || math.IsNaN(got) {
			t.Fatalf("TempR(%v) = %v, outside [0, 1]", td, got)
		}
	}
}

func TestInclusiveEnd(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no time zone database:", err)
	}
	tests := []struct {
		day, want time.Time
	}{
		{time.Date(2012, 1, 13, 0, 0, 0, 0, time.UTC), time.Date(2012, 1, 13, 23, 59, 59, 999999999, time.UTC)},
		{time.Date(2012, 2, 29, 15, 4, 5, 0, time.UTC), time.Date(2012, 2, 29, 23, 59, 59, 999999999, time.UTC)},
		{time.Date(2012, 12, 31, 0, 0, 0, 0, time.UTC), time.Date(2012, 12, 31, 23, 59, 59, 999999999, time.UTC)},
		// The day of the switch to summer time has 23 hours.
		{time.Date(2013, 3, 31, 0, 0, 0, 0, berlin), time.Date(2013, 3, 31, 23, 59, 59, 999999999, berlin)},
	}
	for _, tt := range tests {
		if got := InclusiveEnd(tt.day); !got.Equal(tt.want) {
			t.Errorf("InclusiveEnd(%v) = %v, want %v", tt.day, got, tt.want)
		}
	}
}
