package extract

import (
	"math"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/scoring"
	"github.com/recrawl/recrawl/specs"
)

func TestFirstCaptureOf(t *testing.T) {
	before := time.Date(2009, 8, 28, 0, 0, 0, 0, time.UTC) // 2009-09-27 minus 30 days
	revisitOf := func(ts, digest string, off int64) cdxj.Capture {
		return cap(ts, "", "warc/revisit", digest, off)
	}
	at := func(ts string) time.Time {
		t, err := CaptureTime(ts)
		if err != nil {
			panic(err)
		}
		return t
	}
	tests := []struct {
		name     string
		captures []cdxj.Capture
		want     FirstCapture
		first    string // the first capture's time, pre-event only
	}{
		{"not in the index", nil, FirstCaptureNone, ""},
		{"one second before the threshold", []cdxj.Capture{cap("20090827235959", "200", "text/html", "A", 1)}, FirstCapturePreEvent, "20090827235959"},
		{"at the threshold: not before it", []cdxj.Capture{cap("20090828000000", "200", "text/html", "A", 1)}, FirstCaptureRecent, ""},
		{"the earliest usable capture counts, not the one selected", []cdxj.Capture{
			cap("20090927120000", "200", "text/html", "B", 2), cap("20090101000000", "200", "text/html", "A", 1)}, FirstCapturePreEvent, "20090101000000"},
		{"the earliest of several before the threshold", []cdxj.Capture{
			cap("20090301000000", "200", "text/html", "B", 2), cap("20090927120000", "200", "text/html", "C", 3),
			cap("20090101000000", "200", "text/html", "A", 1), cap("20090201000000", "200", "text/html", "D", 4)}, FirstCapturePreEvent, "20090101000000"},
		{"an earlier unusable capture does not count", []cdxj.Capture{
			cap("20080101000000", "404", "text/html", "E", 1), cap("20090301000000", "200", "text/html", "B", 2)}, FirstCapturePreEvent, "20090301000000"},
		{"old non-HTML, error and redirect captures do not count", []cdxj.Capture{
			cap("20090101000000", "200", "application/pdf", "P", 1), cap("20090102000000", "404", "text/html", "E", 2),
			cap("20090103000000", "301", "text/html", "R", 3), cap("20090104000000", "", "text/html", "N", 4),
			cap("20090927120000", "200", "text/html", "B", 5)}, FirstCaptureRecent, ""},
		{"only unusable captures", []cdxj.Capture{cap("20090101000000", "404", "text/html", "E", 1), cap("20090103000000", "302", "text/html", "R", 2)}, FirstCaptureNone, ""},
		{"a revisit counts at its own time", []cdxj.Capture{
			cap("20090101000000", "404", "text/html", "X", 1), cap("20090926000000", "200", "text/html", "A", 2), revisitOf("20090927000000", "A", 3)}, FirstCaptureRecent, ""},
		{"an old revisit of an old page", []cdxj.Capture{
			cap("20090201000000", "200", "text/html", "A", 1), revisitOf("20090101000000", "A", 2)}, FirstCapturePreEvent, "20090101000000"},
		{"an unresolved old revisit does not count", []cdxj.Capture{revisitOf("20090101000000", "Z", 1), cap("20090926000000", "200", "text/html", "A", 2)}, FirstCaptureRecent, ""},
		{"bad timestamps do not count", []cdxj.Capture{cap("2009x", "200", "text/html", "A", 1)}, FirstCaptureNone, ""},
	}
	rng := rand.New(rand.NewSource(3))
	for _, tc := range tests {
		var want time.Time
		if tc.first != "" {
			want = at(tc.first)
		}
		if got, first := FirstCaptureOf(tc.captures, before); got != tc.want || !first.Equal(want) {
			t.Errorf("%s: %d at %v, want %d at %v", tc.name, got, first, tc.want, want)
		}
		for range 5 { // the order of the captures does not matter
			perm := append([]cdxj.Capture(nil), tc.captures...)
			rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
			if got, first := FirstCaptureOf(perm, before); got != tc.want || !first.Equal(want) {
				t.Fatalf("%s, shuffled: %d at %v, want %d at %v", tc.name, got, first, tc.want, want)
			}
		}
	}
	// With several archives, the earliest usable capture of any archive.
	a, b := cap("20090927120000", "200", "text/html", "A", 1), cap("20090301000000", "200", "text/html", "B", 1)
	a.Archive, b.Archive = "first", "second"
	if got, first := FirstCaptureOf([]cdxj.Capture{a, b}, before); got != FirstCapturePreEvent || !first.Equal(at("20090301000000")) {
		t.Errorf("two archives: %d at %v, want pre-event at 2009-03-01", got, first)
	}
}

func TestPreEventLinks(t *testing.T) {
	// The rule: links first captured more than two lead_times before the
	// event's start, ranked at a quarter (step, the default), or first
	// captured before the start, ranked with the TempR of their first
	// capture (tempr); under a focused strategy with the option on.
	// Nothing is looked up otherwise.
	spec := func(doc string) *specs.Spec {
		s, err := specs.Parse([]byte("name: p\nevent: {start: 2009-09-27, end: 2009-09-28}\nlead_time: P30D\ncooldown_time: P10D\nseeds: ['http://news.example/']\nreference_documents: [{text: election}]\n"+doc), "p.yaml")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	start := time.Date(2009, 9, 27, 0, 0, 0, 0, time.UTC)
	stepBefore := time.Date(2009, 7, 29, 0, 0, 0, 0, time.UTC) // 60 days before the start
	for doc, want := range map[string]struct {
		on     bool
		before time.Time
		step   bool
	}{
		"": {true, stepBefore, true}, "pre_event_rule: step\n": {true, stepBefore, true}, "pre_event_rule: tempr\n": {true, start, false},
		"focus: paper\n": {}, "discount_pre_event_links: false\n": {}, "strategy: unfocused\n": {},
		"focus: paper\ndiscount_pre_event_links: true\n":                        {true, stepBefore, true},
		"focus: paper\ndiscount_pre_event_links: true\npre_event_rule: tempr\n": {true, start, false},
	} {
		f := (&Job{Spec: spec(doc)}).Focus()
		if f.LooksUpFirstCaptures() != want.on || want.on && (!f.PreEvent.Before.Equal(want.before) || f.PreEvent.Step != want.step) {
			t.Errorf("%q: looks up %t, rule %+v; want %+v", doc, f.LooksUpFirstCaptures(), f.PreEvent, want)
		}
		seeds, err := Seeds(spec(doc), nil)
		if err != nil {
			t.Fatal(err)
		}
		if exempt := seeds[0].FirstCapture == FirstCaptureExempt; exempt != spec(doc).Focus.DiscountPreEventLinks {
			t.Errorf("%q: seed first capture %d", doc, seeds[0].FirstCapture)
		}
		if f.NeedsFirstCapture(seeds[0]) {
			t.Errorf("%q: a seed needs a look-up", doc)
		}
	}
	if _, err := specs.Parse([]byte("name: p\nevent: {start: 2009-09-27, end: 2009-09-28}\nseeds: ['http://news.example/']\nreference_documents: [{text: election}]\npre_event_rule: steps\n"), "p.yaml"); err == nil || !strings.Contains(err.Error(), "pre_event_rule") {
		t.Errorf("an unknown pre_event_rule: %v", err)
	}

	// Only an entry not looked up needs a look-up; the mark is the look-up's.
	f := (&Job{Spec: spec("pre_event_rule: tempr\n")}).Focus()
	e := Entry{Key: "example,news)/2009/01/02/garden.html", URL: "http://news.example/2009/01/02/garden.html", Priority: 0.4, Order: DiscoveryOrder(1, 0, 3)}
	if !f.NeedsFirstCapture(e) || (Focus{}).NeedsFirstCapture(e) {
		t.Error("a new entry needs a look-up only with the option on")
	}
	mark := func(f Focus, ts string) Entry {
		return f.MarkFirstCapture(e, []cdxj.Capture{cap(ts, "200", "text/html", "G", 1), cap("20091001000000", "200", "text/html", "H", 2)})
	}
	// tempr: the factor is the TempR of the first capture, 2^-(days/30).
	for ts, factor := range map[string]float64{"20090729000000": 0.25, "20090828000000": 0.5, "20090629000000": 0.125, "20090926235959": math.Exp2(-1.0 / (30 * 86400))} {
		m := mark(f, ts)
		if m.FirstCapture != FirstCapturePreEvent || f.NeedsFirstCapture(m) || math.Abs(m.PreEventFactor-factor) > 1e-12 || m.SelectionPriority() != 0.4*m.PreEventFactor {
			t.Errorf("tempr, first captured %s: %+v, selection priority %v; want factor %v", ts, m, m.SelectionPriority(), factor)
		}
	}
	if m := mark(f, "20090927000000"); m.FirstCapture != FirstCaptureRecent || m.SelectionPriority() != m.Priority {
		t.Errorf("tempr, first captured at the start: %+v", m)
	}
	if m := f.MarkFirstCapture(e, nil); m.FirstCapture != FirstCaptureNone || m.SelectionPriority() != m.Priority {
		t.Errorf("entry without captures: %+v", m)
	}
	// step (the default): a quarter, more than two lead_times before the
	// start; nothing within them.
	step := (&Job{Spec: spec("")}).Focus()
	if m := mark(step, "20090728235959"); m.FirstCapture != FirstCapturePreEvent || m.SelectionPriority() != 0.4*PreEventLinkFactor {
		t.Errorf("step, first captured just before the threshold: %+v", m)
	}
	if m := mark(step, "20090729000000"); m.FirstCapture != FirstCaptureRecent || m.SelectionPriority() != m.Priority {
		t.Errorf("step, first captured 60 days before the start: %+v", m)
	}
	// A lead_time of P0D: nothing before the start is relevant.
	noLead, err := specs.Parse([]byte("name: p\nevent: {start: 2009-09-27, end: 2009-09-28}\nlead_time: P0D\ncooldown_time: P10D\nseeds: ['http://news.example/']\nreference_documents: [{text: election}]\n"), "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	noLead.Focus.PreEventRule = specs.PreEventTempR
	if m := mark((&Job{Spec: noLead}).Focus(), "20090926235959"); m.FirstCapture != FirstCapturePreEvent || m.SelectionPriority() != 0 {
		t.Errorf("lead_time P0D: %+v", m)
	}

	// Merge keeps the look-up and its factor whatever the order and the
	// combination: an entry in the frontier merged with new discoveries of
	// its URL.
	old := mark(f, "20090828000000")
	rng := rand.New(rand.NewSource(8))
	for _, c := range []Combination{CombineMax, CombineAverage, CombineLast} {
		es := []Entry{old.WithCombination(c)}
		for i := range 4 {
			ne := e
			ne.Priority, ne.Order = 0.1*float64(i+1), DiscoveryOrder(2*i, 1, 1) // the first before old's order
			es = append(es, ne.WithCombination(c))
		}
		merged := mergeAll(es)
		if merged.FirstCapture != FirstCapturePreEvent || merged.PreEventFactor != 0.5 || merged.SelectionPriority() != merged.Priority*0.5 {
			t.Errorf("combination %d: merged %+v", c, merged)
		}
		for range 10 {
			perm := append([]Entry(nil), es...)
			rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
			if m := mergeAll(perm); !reflect.DeepEqual(m, merged) {
				t.Fatalf("combination %d: merge order changes the entry: %+v vs %+v", c, m, merged)
			}
		}
	}

	// Two factors for one URL (a look-up gives one, but Merge must not
	// depend on the order even then): the smaller.
	a, b := old, old
	b.PreEventFactor, b.Order = 0.25, old.Order+1
	if ab, ba := Merge(a, b), Merge(b, a); ab.PreEventFactor != 0.25 || !reflect.DeepEqual(ab, ba) {
		t.Errorf("merging factors 0.5 and 0.25: %+v, %+v", ab, ba)
	}

	// A pre-event link of 0.3 at factor 1/4 ranks after a link of 0.1;
	// with the template discount too, the factors multiply. The unfocused
	// crawl keeps discovery order.
	r := Ranking{Strategy: scoring.CTF}
	pre := Entry{Key: "a", Priority: 0.3, FirstCapture: FirstCapturePreEvent, PreEventFactor: 0.25}
	fresh := Entry{Key: "b", Priority: 0.1, FirstCapture: FirstCaptureRecent}
	if !r.Before(fresh, pre) || r.Before(pre, fresh) {
		t.Error("a pre-event link of priority 0.3 at factor 1/4 must rank after a recent link of priority 0.1")
	}
	both := Entry{Key: "c", Priority: 0.8, FirstCapture: FirstCapturePreEvent, PreEventFactor: 0.25, HostLinks: TemplateLinkPages}
	if got := both.SelectionPriority(); got != 0.8*TemplateLinkFactor*0.25 {
		t.Errorf("template and pre-event link: %v", got)
	}
	for _, s := range []FirstCapture{FirstCaptureUnchecked, FirstCaptureExempt, FirstCaptureNone, FirstCaptureRecent} {
		if x := (Entry{Priority: 0.3, FirstCapture: s}); x.SelectionPriority() != 0.3 {
			t.Errorf("first capture %d discounted", s)
		}
	}
	if u := (Ranking{Strategy: scoring.Unfocused}); !u.Before(Entry{Key: "a", Order: 1, FirstCapture: FirstCapturePreEvent}, Entry{Key: "b", Order: 2}) {
		t.Error("the unfocused crawl must keep discovery order")
	}
}

// TestEntryValidate: an entry read back from a state file is checked, the
// first-capture state and the pre-event factor included.
func TestEntryValidate(t *testing.T) {
	ok := Entry{Key: "com,example)/", URL: "http://example.com/", FirstCapture: FirstCapturePreEvent, PreEventFactor: 0.25}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, mutate := range map[string]func(*Entry){
		"empty key":                  func(e *Entry) { e.Key = "" },
		"first_capture":              func(e *Entry) { e.FirstCapture = FirstCapturePreEvent + 1 },
		"pre_event_factor":           func(e *Entry) { e.PreEventFactor = 1.5 },
		"pre_event_factor negative":  func(e *Entry) { e.PreEventFactor = -0.1 },
		"pre_event_factor not a num": func(e *Entry) { e.PreEventFactor = math.NaN() },
	} {
		e := ok
		mutate(&e)
		if err := e.Validate(); err == nil {
			t.Errorf("%s: no error for %+v", name, e)
		}
	}
}
