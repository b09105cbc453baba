package records

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// pyInt parses an integer as python's int() does (surrounding white space,
// a sign, underscores between digits).
func pyInt(s string) (int64, error) {
	// The usual Content-Length: up to 18 digits, nothing else.
	if len(s) > 0 && len(s) <= 18 {
		var v int64
		i := 0
		for ; i < len(s) && '0' <= s[i] && s[i] <= '9'; i++ {
			v = v*10 + int64(s[i]-'0')
		}
		if i == len(s) {
			return v, nil
		}
	}
	s = strings.TrimSpace(s)
	t := strings.TrimLeft(s, "+-")
	if len(s)-len(t) > 1 || t == "" || t[0] == '_' || t[len(t)-1] == '_' || strings.Contains(t, "__") {
		return 0, fmt.Errorf("invalid integer %q", s)
	}
	return strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 10, 64)
}

// isoToTimestamp is warcio's iso_date_to_timestamp: the date is split at
// every non-digit, the numbers (year, month, day, and optionally hour,
// minute, second, fraction) must form a valid date, and it is written as 14
// digits.
func isoToTimestamp(date string) (string, error) {
	ts, err := isoTimestamp(date)
	if err != nil {
		return "", err
	}
	return string(ts[:]), nil
}

// isoTimestamp is isoToTimestamp's 14 digits, without a new string.
func isoTimestamp(date string) (ts [14]byte, err error) {
	// The parts between non-digits: their lengths, and the numbers of the
	// first six (at most 7 parts and an empty one after a trailing
	// separator).
	var lens [8]int
	var nums [6]int
	parts, start := 0, 0
	for i := 0; i <= len(date); i++ {
		if i < len(date) && date[i] >= '0' && date[i] <= '9' {
			if parts < len(nums) && i-start < 9 {
				nums[parts] = nums[parts]*10 + int(date[i]-'0')
			}
			continue
		}
		if parts == len(lens) {
			return ts, errors.New("not an ISO 8601 date")
		}
		lens[parts] = i - start
		parts++
		start = i + 1
	}
	if parts > 0 && lens[parts-1] == 0 {
		parts--
	}
	if parts < 3 || parts > 7 {
		return ts, errors.New("not an ISO 8601 date")
	}
	for i := range min(parts, 6) {
		if lens[i] == 0 || lens[i] > 9 {
			return ts, errors.New("not an ISO 8601 date")
		}
	}
	if parts == 7 && lens[6] == 0 {
		return ts, errors.New("not an ISO 8601 date")
	}
	// A date time.Date would not normalise: every field in its range.
	y, mo, d := nums[0], nums[1], nums[2]
	if y < 1 || y > 9999 || mo < 1 || mo > 12 || d < 1 || d > daysIn(mo, y) || nums[3] > 23 || nums[4] > 59 || nums[5] > 59 {
		return ts, errors.New("date out of range")
	}
	// As time.Time.Format("20060102150405"), without a time.Time.
	b := &ts
	put := func(at, n, width int) {
		for i := at + width - 1; i >= at; i-- {
			b[i] = byte('0' + n%10)
			n /= 10
		}
	}
	put(0, y, 4)
	for i, n := range nums[1:] {
		put(4+2*i, n, 2)
	}
	return ts, nil
}

// daysIn is the number of days of month mo of year y (proleptic Gregorian).
func daysIn(mo, y int) int {
	switch mo {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
