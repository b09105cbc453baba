package extract

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/lookup"
)

// ChoiceKind says what selectSnapshot found for a URL.
type ChoiceKind int

const (
	// NoSnapshot: the URL has no usable capture; it goes to missing.
	NoSnapshot ChoiceKind = iota
	// UseSnapshot: Capture is the selected capture, Payload the record that
	// holds its content (the revisited record for a revisit).
	UseSnapshot
	// FollowRedirect: no usable capture, but a 3xx one; its target enters
	// the frontier.
	FollowRedirect
)

// Choice is the result of selectSnapshot.
type Choice struct {
	Kind    ChoiceKind
	Capture cdxj.Capture // the capture chosen (its timestamp is the capture time)
	Payload cdxj.Capture // where its payload is: Capture itself, or the record a revisit refers to
	Reason  string       // for NoSnapshot: why nothing is usable
}

// Interval is the event time interval, half-open: [Start, End). A spec's
// date-only end day is inclusive, so End is the following midnight.
type Interval struct {
	Start, End time.Time
}

// SelectSnapshot implements selectSnapshot (method.md §3.3): among the usable
// captures of one URL (HTTP 200 HTML, a revisit counting with the payload of
// the record it revisits) take the earliest capture inside the event
// interval, else the capture closest to the interval (ties: the earlier).
// Without a usable capture, a 3xx capture chosen by the same rule makes the
// URL a redirect. captures are all captures of one SURT key.
func SelectSnapshot(captures []cdxj.Capture, iv Interval) Choice {
	return SelectSnapshotIn(captures, iv, nil)
}

// SelectSnapshotIn is SelectSnapshot over the captures of several named
// archives (cdxj.Capture.Archive), archives being their names in the order
// given on the command line. Captures of all archives compete under the
// same rule; of two captures taken at the same time, the one of the archive
// named first wins (then the smaller filename and offset). A revisit
// resolves to its payload only within its own archive: another archive's
// copy of the URL is another crawl, whatever its digest.
func SelectSnapshotIn(captures []cdxj.Capture, iv Interval, archives []string) Choice {
	var usable, redirects []candidate
	statuses := map[string]int{}
	for _, c := range captures {
		cand, class := classify(c, captures)
		switch class {
		case classUsable:
			usable = append(usable, cand)
		case classRedirect:
			redirects = append(redirects, cand)
		default:
			statuses[class]++
		}
	}
	if best, ok := closest(usable, iv, archives); ok {
		return Choice{Kind: UseSnapshot, Capture: best.capture, Payload: best.payload}
	}
	if best, ok := closest(redirects, iv, archives); ok {
		return Choice{Kind: FollowRedirect, Capture: best.capture, Payload: best.payload}
	}
	if len(captures) == 0 {
		return Choice{Kind: NoSnapshot, Reason: "not in the index"}
	}
	return Choice{Kind: NoSnapshot, Reason: "no usable capture: " + describe(statuses)}
}

type candidate struct {
	capture, payload cdxj.Capture
	t                time.Time
}

// The classes of a capture (classify) that are not a reason it is unusable.
const (
	classUsable   = "usable"
	classRedirect = "redirect"
)

// classify says what one capture of a URL offers: a usable page (HTTP 200
// HTML; a revisit with the payload of the record it revisits, at its own
// time), a redirect, or else why it is not usable (the reason counted in
// NoSnapshot's Reason). all are the URL's captures, for revisits.
func classify(c cdxj.Capture, all []cdxj.Capture) (candidate, string) {
	payload, ok := resolveRevisit(c, all)
	if !ok {
		return candidate{}, "unresolved revisit"
	}
	t, err := CaptureTime(c.Timestamp)
	if err != nil {
		return candidate{}, "bad timestamp"
	}
	switch {
	case payload.Status == "200" && cdxj.IsHTML(payload.Mime):
		return candidate{c, payload, t}, classUsable
	case isRedirect(payload.Status):
		return candidate{c, payload, t}, classRedirect
	case payload.Status == "200":
		return candidate{}, "non-HTML " + payload.Mime
	case payload.Status == "":
		return candidate{}, "no HTTP status"
	}
	return candidate{}, "status " + payload.Status
}

// FirstCaptureOf classifies a URL by its first usable capture (specs
// discount_pre_event_links): FirstCapturePreEvent with the earliest usable
// capture's time (as SelectSnapshot counts them: HTTP 200 HTML, a revisit
// with its payload, of any archive) when that is strictly before before,
// FirstCaptureRecent when it is not, FirstCaptureNone without a usable
// capture (redirects, errors and other media types do not count). The
// result does not depend on the order of captures.
func FirstCaptureOf(captures []cdxj.Capture, before time.Time) (FirstCapture, time.Time) {
	state, first := FirstCaptureNone, time.Time{}
	for _, c := range captures {
		if state != FirstCaptureNone {
			// Only a usable capture before the threshold and before the
			// earliest found so far can change the answer now: skip the
			// others without resolving revisits (a URL may have thousands
			// of captures, most of them revisits).
			bound := before
			if state == FirstCapturePreEvent {
				bound = first
			}
			if t, err := CaptureTime(c.Timestamp); err != nil || !t.Before(bound) {
				continue
			}
		}
		cand, class := classify(c, captures)
		if class != classUsable {
			continue
		}
		if cand.t.Before(before) {
			if state != FirstCapturePreEvent || cand.t.Before(first) {
				state, first = FirstCapturePreEvent, cand.t
			}
			continue
		}
		state = FirstCaptureRecent
	}
	return state, first // first is set only with FirstCapturePreEvent
}

// closest picks the earliest candidate inside iv, else the one with the
// smallest distance to iv, ties to the earlier (then to the archive named
// first, then to the smaller filename and offset, so the choice never
// depends on input order).
func closest(cs []candidate, iv Interval, archives []string) (candidate, bool) {
	if len(cs) == 0 {
		return candidate{}, false
	}
	dist := func(c candidate) time.Duration {
		switch {
		case c.t.Before(iv.Start):
			return iv.Start.Sub(c.t)
		case !c.t.Before(iv.End):
			return c.t.Sub(iv.End) + time.Nanosecond // End is exclusive
		}
		return 0
	}
	best := cs[0]
	for _, c := range cs[1:] {
		dc, db := dist(c), dist(best)
		if dc < db || dc == db && earlier(c, best, archives) {
			best = c
		}
	}
	return best, true
}

func earlier(a, b candidate, archives []string) bool {
	if !a.t.Equal(b.t) {
		return a.t.Before(b.t)
	}
	if c := lookup.CompareArchives(archives, a.capture.Archive, b.capture.Archive); c != 0 {
		return c < 0
	}
	if a.capture.Filename != b.capture.Filename {
		return a.capture.Filename < b.capture.Filename
	}
	return a.capture.Offset < b.capture.Offset
}

// resolveRevisit returns the capture holding c's payload: c itself unless c
// is a revisit, then the latest non-revisit capture of the same URL with the
// same payload digest taken no later than c (else any such capture), in
// c's own archive. A revisit whose original is not among the URL's
// captures of its archive is unresolved.
func resolveRevisit(c cdxj.Capture, all []cdxj.Capture) (cdxj.Capture, bool) {
	if !c.IsRevisit() {
		return c, true
	}
	var best cdxj.Capture
	found := false
	for _, o := range all {
		if o.IsRevisit() || o.Digest == "" || o.Digest != c.Digest || o.Archive != c.Archive {
			continue
		}
		switch {
		case !found:
			best, found = o, true
		case o.Timestamp <= c.Timestamp && (best.Timestamp > c.Timestamp || o.Timestamp > best.Timestamp):
			best = o
		case best.Timestamp > c.Timestamp && o.Timestamp < best.Timestamp:
			best = o
		}
	}
	return best, found
}

func isRedirect(status string) bool {
	switch status {
	case "301", "302", "303", "307", "308":
		return true
	}
	return false
}

// CaptureTime parses a 14-digit (or shorter, padded) capture timestamp as UTC.
func CaptureTime(ts string) (time.Time, error) {
	if len(ts) < 4 || len(ts) > 14 {
		return time.Time{}, fmt.Errorf("timestamp %q: want 4 to 14 digits", ts)
	}
	padded := ts + "0101000000"[len(ts)-4:] // 2009 → 20090101000000
	t, err := time.Parse("20060102150405", padded)
	if err != nil {
		return time.Time{}, fmt.Errorf("timestamp %q: %w", ts, err)
	}
	return t, nil
}

func describe(counts map[string]int) string {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d× %s", counts[k], k)
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
