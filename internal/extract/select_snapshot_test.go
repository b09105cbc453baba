package extract

import (
	"testing"
	"time"

	"github.com/recrawl/recrawl/internal/cdxj"
)

func cap(ts, status, mime, digest string, off int64) cdxj.Capture {
	return cdxj.Capture{Key: "com,example)/a", Timestamp: ts, URL: "http://example.com/a", Status: status, Mime: mime, Digest: digest, Filename: "f.warc.gz", Offset: off}
}

func day(s string) time.Time {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestSelectSnapshot(t *testing.T) {
	iv := Interval{Start: day("2009-09-27"), End: day("2009-09-29")} // 27th and 28th inclusive
	tests := []struct {
		name     string
		captures []cdxj.Capture
		kind     ChoiceKind
		wantOff  int64 // offset of the chosen capture
		wantPay  int64 // offset of its payload record
		reason   string
	}{
		{"earliest inside the interval", []cdxj.Capture{
			cap("20090928120000", "200", "text/html", "A", 1),
			cap("20090927080000", "200", "text/html", "B", 2),
			cap("20090920000000", "200", "text/html", "C", 3),
		}, UseSnapshot, 2, 2, ""},
		{"end day is inclusive", []cdxj.Capture{
			cap("20090928235959", "200", "text/html", "A", 1),
			cap("20090929000001", "200", "text/html", "B", 2),
		}, UseSnapshot, 1, 1, ""},
		{"closest outside, before vs after", []cdxj.Capture{
			cap("20090920000000", "200", "text/html", "A", 1), // 7 days before
			cap("20091003000000", "200", "text/html", "B", 2), // 4 days after the end
		}, UseSnapshot, 2, 2, ""},
		{"as far before as after: the earlier", []cdxj.Capture{
			cap("20091001000000", "200", "text/html", "B", 2), // 2 days after end (29th 00:00)...
			cap("20090925000000", "200", "text/html", "A", 1), // 2 days before
		}, UseSnapshot, 1, 1, ""},
		{"revisit counts with its original's payload", []cdxj.Capture{
			cap("20080101000000", "200", "text/html", "D", 10),
			cap("20090927100000", "", "warc/revisit", "D", 11),
		}, UseSnapshot, 11, 10, ""},
		{"revisit of a 404 is not usable", []cdxj.Capture{
			cap("20080101000000", "404", "text/html", "E", 10),
			cap("20090927100000", "", "warc/revisit", "E", 11),
		}, NoSnapshot, 0, 0, "no usable capture: 2× status 404"},
		{"unresolved revisit", []cdxj.Capture{
			cap("20090927100000", "", "warc/revisit", "F", 11),
		}, NoSnapshot, 0, 0, "no usable capture: 1× unresolved revisit"},
		{"non-HTML and errors are not usable", []cdxj.Capture{
			cap("20090927100000", "200", "image/png", "G", 1),
			cap("20090927100000", "500", "text/html", "H", 2),
		}, NoSnapshot, 0, 0, "no usable capture: 1× non-HTML image/png, 1× status 500"},
		{"redirect only when nothing is usable", []cdxj.Capture{
			cap("20090927100000", "301", "text/html", "R", 1),
			cap("20100101000000", "200", "text/html", "S", 2),
		}, UseSnapshot, 2, 2, ""},
		{"redirect", []cdxj.Capture{
			cap("20090927100000", "301", "text/html", "R", 1),
			cap("20090927100000", "404", "text/html", "S", 2),
		}, FollowRedirect, 1, 1, ""},
		{"nothing", nil, NoSnapshot, 0, 0, "not in the index"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := SelectSnapshot(tc.captures, iv)
			if got.Kind != tc.kind {
				t.Fatalf("kind = %v (%s), want %v", got.Kind, got.Reason, tc.kind)
			}
			if tc.kind != NoSnapshot && (got.Capture.Offset != tc.wantOff || got.Payload.Offset != tc.wantPay) {
				t.Errorf("chose offset %d (payload %d), want %d (%d)", got.Capture.Offset, got.Payload.Offset, tc.wantOff, tc.wantPay)
			}
			if got.Reason != tc.reason {
				t.Errorf("reason = %q, want %q", got.Reason, tc.reason)
			}
		})
	}
}

func TestCaptureTime(t *testing.T) {
	for in, want := range map[string]string{
		"20090927123456": "2009-09-27T12:34:56Z",
		"2009":           "2009-01-01T00:00:00Z",
		"200909":         "2009-09-01T00:00:00Z",
		"2009092712":     "2009-09-27T12:00:00Z",
	} {
		got, err := CaptureTime(in)
		if err != nil || got.Format(time.RFC3339) != want {
			t.Errorf("CaptureTime(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "20a9", "200913010000000", "20091301000000"} {
		if _, err := CaptureTime(bad); err == nil {
			t.Errorf("CaptureTime(%q) accepted", bad)
		}
	}
}
