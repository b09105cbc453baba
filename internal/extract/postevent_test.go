package extract

import (
	"math"
	"testing"
	"time"

	"github.com/recrawl/recrawl/scoring"
	"github.com/recrawl/recrawl/scoring/document"
	"github.com/recrawl/recrawl/specs"
)

func TestPostEventLinks(t *testing.T) {
	// The threshold: two cooldown_times after the event's last instant,
	// under a focused strategy with the option on (the default preset).
	spec := func(doc string) *specs.Spec {
		s, err := specs.Parse([]byte("name: p\nevent: {start: 2009-09-27, end: 2009-09-28}\nlead_time: P30D\ncooldown_time: P10D\nseeds: ['http://news.example/']\nreference_documents: [{text: election}]\n"+doc), "p.yaml")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	after := time.Date(2009, 10, 19, 0, 0, 0, 0, time.UTC).Add(-1) // 2009-09-28 ends at 09-29 00:00; + 20 days
	for doc, want := range map[string]time.Time{
		"": after, "discount_post_event_links: true\n": after, "focus: paper\ndiscount_post_event_links: true\n": after,
		"focus: paper\n": {}, "discount_post_event_links: false\n": {}, "strategy: unfocused\n": {},
	} {
		if got := (&Job{Spec: spec(doc)}).Focus().PostEventAfter; !got.Equal(want) {
			t.Errorf("%q: post-event threshold %v, want %v", doc, got, want)
		}
	}

	// The factor depends on the URL's date alone.
	f := Focus{PostEventAfter: after}
	for url, want := range map[string]float64{
		"http://news.example/2009/10/19/later.html":    PreEventLinkFactor, // the first day after the threshold
		"http://news.example/2009/10/18/later.html":    1,
		"http://news.example/2009/11/":                 PreEventLinkFactor, // a month: its first day
		"http://news.example/2009/10/":                 1,
		"http://news.example/story.php?date=20100301":  PreEventLinkFactor,
		"http://news.example/2007/03/01/garden.html":   1, // before the event: the pre-event rule's business
		"http://news.example/politics/coalition-talks": 1, // no date
		"http://news.example/2009/13/45/bad.html":      1, // not a date
	} {
		if got := f.postEventFactor(document.URLDate(url)); got != want {
			t.Errorf("%s: factor %v, want %v", url, got, want)
		}
		if got := (Focus{}).postEventFactor(document.URLDate(url)); got != 1 {
			t.Errorf("%s: factor %v with the option off", url, got)
		}
	}

	// In a step: the link dated after the threshold gets a quarter of the
	// priority it gets without the option, the others the same, under the
	// paper's links and under the default's.
	page := focusPage(300)                                                                      // links to /2009/09/28/coalition-talks.html and /2007/03/01/garden.html
	early := time.Date(2009, 9, 20, 0, 0, 0, 0, time.UTC)                                       // a threshold that the 2009-09-28 link is after
	for _, links := range []scoring.LinkWeights{{}, {Parent: 0.1, Anchor: 0.5, Context: 0.4}} { // paper, default
		off := priorities(scoreFocus(t, Focus{Links: links}, page, 1))
		on := priorities(scoreFocus(t, Focus{Links: links, PostEventAfter: early}, page, 1))
		if len(on) != 2 || off["coalition-talks.html"] <= 0 ||
			math.Abs(on["coalition-talks.html"]-PreEventLinkFactor*off["coalition-talks.html"]) > 1e-15 || on["garden.html"] != off["garden.html"] {
			t.Errorf("links %+v: priorities %v with the option, %v without", links, on, off)
		}
		if late := priorities(scoreFocus(t, Focus{Links: links, PostEventAfter: after}, page, 1)); late["coalition-talks.html"] != off["coalition-talks.html"] {
			t.Errorf("links %+v: a link dated before the threshold is discounted: %v", links, late)
		}
	}
}
