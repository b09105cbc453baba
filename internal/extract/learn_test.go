package extract

import (
	"testing"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/scoring"
)

// TestLinkLearner: the learner trains on fetched pages (not seeds, not
// missing URLs) with the anchor of the first followed link to them; its
// snapshot reads back to the same model; and a trained model moves the
// priority of a link whose URL looks like the relevant pages'.
func TestLinkLearner(t *testing.T) {
	var l LinkLearner
	doc := func(u string, depth int, p, rel float64) Result {
		e, _ := NewEntry(u, p, depth, "SL", "", 0)
		return Result{Entry: e, Outcome: OutcomeCollected, Document: &Document{URL: u, Relevance: rel}}
	}
	seed := doc("http://news.example/", 0, 1, 0.2)
	seed.Links = []Link{{Target: "http://news.example/wahl/1.html", Key: "example,news)/wahl/1.html", Anchor: "Wahlabend", Followed: true}}
	l.Add(seed)
	if l.Model().N != 0 {
		t.Error("a seed is an example")
	}
	l.Add(doc("http://news.example/wahl/1.html", 1, 0.5, 0.9))
	if f := l.Model().Features["anchor:wahlabend"]; f.N != 1 || f.SumY != 0.9 || f.SumP != 0.5 {
		t.Errorf("the anchor of the first link is not a feature: %+v", l.Model().Features)
	}
	l.Add(Result{Entry: Entry{Key: "x", URL: "http://news.example/x", Depth: 1}, Outcome: OutcomeMissing})
	if l.Model().N != 1 {
		t.Error("a missing URL is an example")
	}
	for i := 0; i < 30; i++ {
		l.Add(doc("http://news.example/wahl/a.html", 1, 0.5, 0.9))
		l.Add(doc("http://news.example/garten/a.html", 1, 0.5, 0.1))
	}
	js, err := l.ModelJSON()
	if err != nil {
		t.Fatal(err)
	}
	m, err := DecodeLinkModel(js)
	if err != nil || m.N != l.Model().N || len(m.Features) != len(l.Model().Features) {
		t.Fatalf("snapshot: %v", err)
	}
	if m, err := DecodeLinkModel(""); m != nil || err != nil {
		t.Error("an empty snapshot is a model")
	}
	if _, err := DecodeLinkModel("{"); err == nil {
		t.Error("a broken snapshot decodes")
	}

	// The page of focusPage links to /2009/09/28/coalition-talks.html and
	// /2007/03/01/garden.html: a model that learned that "garden" pages
	// are more relevant than their priority said, and "coalition" pages
	// less, lifts the garden link above the other.
	var g LinkLearner
	for i := 0; i < 30; i++ {
		g.Add(doc("http://news.example/news/hot.html", 1, 0.8, 0.8))
		g.Add(doc("http://news.example/news/cold.html", 1, 0.1, 0.1))
		g.Add(doc("http://news.example/2007/03/02/garden-party.html", 1, 0.3, 1))
		g.Add(doc("http://news.example/2009/09/29/coalition-rumours.html", 1, 0.6, 0))
	}
	f := Focus{Links: scoring.LinkWeights{Parent: 0.1, Anchor: 0.5, Context: 0.4}}
	before := priorities(scoreFocus(t, f, focusPage(300), 1))
	f.LearnLinks = true
	p := focusProcessor(t, f)
	p.LinkModel = g.Model()
	e := Entry{Key: "example,news)/2009/09/27/night.html", URL: "http://news.example/2009/09/27/night.html", Depth: 1, Path: "SL"}
	c := cdxj.Capture{Timestamp: "20090928120000", Filename: "a.warc.gz"}
	fetched := Fetched{Selected: Selected{Entry: e, Round: 1, Choice: Choice{Kind: UseSnapshot, Capture: c, Payload: c}}, ContentType: "text/html", Body: focusPage(300)}
	r := p.Score(fetched)
	after := priorities(r)
	if !(before["coalition-talks.html"] > before["garden.html"]) || !(after["garden.html"] > after["coalition-talks.html"]) {
		t.Errorf("before %v, after learning %v", before, after)
	}
	// Learning switched on without a model yet: the static priorities.
	p.LinkModel = nil
	if r := p.Score(fetched); priorities(r)["garden.html"] != before["garden.html"] {
		t.Error("no model changes the priorities")
	}
}
