package extract

import (
	"math/rand"
	"reflect"
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
	tests := []struct {
		name     string
		captures []cdxj.Capture
		want     FirstCapture
	}{
		{"not in the index", nil, FirstCaptureNone},
		{"one second before the threshold", []cdxj.Capture{cap("20090827235959", "200", "text/html", "A", 1)}, FirstCapturePreEvent},
		{"at the threshold: not before it", []cdxj.Capture{cap("20090828000000", "200", "text/html", "A", 1)}, FirstCaptureRecent},
		{"the earliest usable capture counts, not the one selected", []cdxj.Capture{
			cap("20090927120000", "200", "text/html", "B", 2), cap("20090101000000", "200", "text/html", "A", 1)}, FirstCapturePreEvent},
		{"old non-HTML, error and redirect captures do not count", []cdxj.Capture{
			cap("20090101000000", "200", "application/pdf", "P", 1), cap("20090102000000", "404", "text/html", "E", 2),
			cap("20090103000000", "301", "text/html", "R", 3), cap("20090104000000", "", "text/html", "N", 4),
			cap("20090927120000", "200", "text/html", "B", 5)}, FirstCaptureRecent},
		{"only unusable captures", []cdxj.Capture{cap("20090101000000", "404", "text/html", "E", 1), cap("20090103000000", "302", "text/html", "R", 2)}, FirstCaptureNone},
		{"a revisit counts at its own time", []cdxj.Capture{
			cap("20090101000000", "404", "text/html", "X", 1), cap("20090926000000", "200", "text/html", "A", 2), revisitOf("20090927000000", "A", 3)}, FirstCaptureRecent},
		{"an unresolved old revisit does not count", []cdxj.Capture{revisitOf("20090101000000", "Z", 1), cap("20090926000000", "200", "text/html", "A", 2)}, FirstCaptureRecent},
		{"bad timestamps do not count", []cdxj.Capture{cap("2009x", "200", "text/html", "A", 1)}, FirstCaptureNone},
	}
	rng := rand.New(rand.NewSource(3))
	for _, tc := range tests {
		if got := FirstCaptureOf(tc.captures, before); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
		for range 5 { // the order of the captures does not matter
			perm := append([]cdxj.Capture(nil), tc.captures...)
			rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
			if got := FirstCaptureOf(perm, before); got != tc.want {
				t.Fatalf("%s, shuffled: %d, want %d", tc.name, got, tc.want)
			}
		}
	}
	// With several archives, the earliest usable capture of any archive.
	a, b := cap("20090927120000", "200", "text/html", "A", 1), cap("20090301000000", "200", "text/html", "B", 1)
	a.Archive, b.Archive = "first", "second"
	if got := FirstCaptureOf([]cdxj.Capture{a, b}, before); got != FirstCapturePreEvent {
		t.Errorf("two archives: %d, want pre-event", got)
	}
}

func TestPreEventLinks(t *testing.T) {
	// The threshold is the event's start minus two lead_times, under a
	// focused strategy with the option on; nothing is looked up otherwise.
	spec := func(doc string) *specs.Spec {
		s, err := specs.Parse([]byte("name: p\nevent: {start: 2009-09-27, end: 2009-09-28}\nlead_time: P30D\ncooldown_time: P10D\nseeds: ['http://news.example/']\nreference_documents: [{text: election}]\n"+doc), "p.yaml")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	want := time.Date(2009, 7, 29, 0, 0, 0, 0, time.UTC) // 60 days before 2009-09-27
	for doc, on := range map[string]bool{"": true, "focus: paper\n": false, "discount_pre_event_links: false\n": false,
		"strategy: unfocused\n": false, "focus: paper\ndiscount_pre_event_links: true\n": true} {
		f := (&Job{Spec: spec(doc)}).Focus()
		if f.LooksUpFirstCaptures() != on || on && !f.PreEventBefore.Equal(want) {
			t.Errorf("%q: looks up %t, before %v; want %t, %v", doc, f.LooksUpFirstCaptures(), f.PreEventBefore, on, want)
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

	// Only an entry not looked up needs a look-up; the mark is the look-up's.
	f := (&Job{Spec: spec("")}).Focus()
	e := Entry{Key: "example,news)/2009/01/02/garden.html", URL: "http://news.example/2009/01/02/garden.html", Priority: 0.4, Order: DiscoveryOrder(1, 0, 3)}
	if !f.NeedsFirstCapture(e) || (Focus{}).NeedsFirstCapture(e) {
		t.Error("a new entry needs a look-up only with the option on")
	}
	old := f.MarkFirstCapture(e, []cdxj.Capture{cap("20090728235959", "200", "text/html", "G", 1)})
	if old.FirstCapture != FirstCapturePreEvent || f.NeedsFirstCapture(old) || old.SelectionPriority() != 0.4*PreEventLinkFactor {
		t.Errorf("pre-event entry: %+v, selection priority %v", old, old.SelectionPriority())
	}
	if m := f.MarkFirstCapture(e, nil); m.FirstCapture != FirstCaptureNone || m.SelectionPriority() != m.Priority {
		t.Errorf("entry without captures: %+v", m)
	}
	// Within two lead_times of the start: a lead-up page, not discounted.
	if m := f.MarkFirstCapture(e, []cdxj.Capture{cap("20090729000000", "200", "text/html", "G", 1)}); m.FirstCapture != FirstCaptureRecent {
		t.Errorf("a page first captured 60 days before the start: %+v", m)
	}

	// Merge keeps the look-up whatever the order and the combination: an
	// entry in the frontier merged with new discoveries of its URL.
	rng := rand.New(rand.NewSource(8))
	for _, c := range []Combination{CombineMax, CombineAverage, CombineLast} {
		es := []Entry{old.WithCombination(c)}
		for i := range 4 {
			ne := e
			ne.Priority, ne.Order = 0.1*float64(i+1), DiscoveryOrder(2*i, 1, 1) // the first before old's order
			es = append(es, ne.WithCombination(c))
		}
		merged := mergeAll(es)
		if merged.FirstCapture != FirstCapturePreEvent || merged.SelectionPriority() != merged.Priority*PreEventLinkFactor {
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

	// A pre-event link of 0.3 ranks after a link of 0.1; with the template
	// discount too, the factors multiply. The unfocused crawl keeps
	// discovery order.
	r := Ranking{Strategy: scoring.CTF}
	pre := Entry{Key: "a", Priority: 0.3, FirstCapture: FirstCapturePreEvent}
	fresh := Entry{Key: "b", Priority: 0.1, FirstCapture: FirstCaptureRecent}
	if !r.Before(fresh, pre) || r.Before(pre, fresh) {
		t.Error("a pre-event link of priority 0.3 must rank after a recent link of priority 0.1")
	}
	both := Entry{Key: "c", Priority: 0.8, FirstCapture: FirstCapturePreEvent, HostLinks: TemplateLinkPages}
	if got := both.SelectionPriority(); got != 0.8*TemplateLinkFactor*PreEventLinkFactor {
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
