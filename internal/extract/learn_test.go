package extract

import (
	"testing"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/collection"
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
		return Result{Entry: e, Outcome: OutcomeCollected, Document: &collection.Document{URL: u, Relevance: rel}}
	}
	seed := doc("http://news.example/", 0, 1, 0.2)
	seed.Links = []Outlink{{Target: "http://news.example/wahl/1.html", Key: "example,news)/wahl/1.html", Anchor: "Wahlabend", Followed: true}}
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
	full := NewLearner(Focus{LearnLinks: true})
	full.link = l
	js, err := full.JSON()
	if err != nil {
		t.Fatal(err)
	}
	learned, err := DecodeLearned(js)
	if m := learned.LinkModel; err != nil || m == nil || m.N != l.Model().N || len(m.Features) != len(l.Model().Features) || learned.Feedback != nil {
		t.Fatalf("snapshot: %+v, %v", learned, err)
	}
	if learned, err := DecodeLearned(""); learned.LinkModel != nil || learned.Feedback != nil || err != nil {
		t.Error("an empty snapshot has learned something")
	}
	if _, err := DecodeLearned("{"); err == nil {
		t.Error("a broken snapshot decodes")
	}

	// The page of focusPage links to /2009/09/28/coalition-talks.html and
	// /2007/03/01/garden.html: a model that learned that "garden" pages
	// are more relevant than their priority said, and "coalition" pages
	// less, lifts the garden link and lowers the other.
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
	p.Use(Learned{LinkModel: g.Model()})
	e := Entry{Key: "example,news)/2009/09/27/night.html", URL: "http://news.example/2009/09/27/night.html", Depth: 1, Path: "SL"}
	c := cdxj.Capture{Timestamp: "20090928120000", Filename: "a.warc.gz"}
	fetched := Fetched{Selected: Selected{Entry: e, Round: 1, Choice: Choice{Kind: UseSnapshot, Capture: c, Payload: c}}, ContentType: "text/html", Body: focusPage(300)}
	r := p.Score(fetched)
	after := priorities(r)
	if !(after["garden.html"] > before["garden.html"]) || !(after["coalition-talks.html"] < before["coalition-talks.html"]) {
		t.Errorf("before %v, after learning %v", before, after)
	}
	// Learning switched on without a model yet: the static priorities.
	p.Use(Learned{})
	if r := p.Score(fetched); priorities(r)["garden.html"] != before["garden.html"] {
		t.Error("no model changes the priorities")
	}
}

// TestFeedbackLearner: the learner offers collected articles (not listing
// pages, not missing URLs) with their feedback terms in collection order;
// its snapshot reads back to the same set; a feedback set about gardens
// lifts the garden link of focusPage above the coalition link, while the
// document's own scores stay those against the specification's reference.
func TestFeedbackLearner(t *testing.T) {
	f := Focus{Links: scoring.LinkWeights{Parent: 0.1, Anchor: 0.5, Context: 0.4}, Feedback: scoring.FeedbackConfig{Documents: 3, Beta: 2, Parent: true}}
	p := focusProcessor(t, f)
	l := NewLearner(f)
	if !l.Active() || NewLearner(Focus{}).Active() {
		t.Fatal("Active")
	}
	doc := func(u, text string, rel float64, listing bool) Result {
		e, _ := NewEntry(u, 0.5, 1, "SL", "", 0)
		dt, _ := p.Scorer.DocumentTerms(text, "en")
		return Result{Entry: e, Outcome: OutcomeCollected, Document: &collection.Document{URL: u, Relevance: rel, Listing: listing}, FeedbackTerms: &dt}
	}
	garden := "Compost heaps in spring: the garden needs compost, spring planting and heaps of leaves."
	l.Add(doc("http://news.example/a", garden, 0.9, false))
	l.Add(doc("http://news.example/b", garden, 0.8, false))
	l.Add(doc("http://news.example/home", "Coalition election parliament chancellor", 1, true))
	l.Add(Result{Entry: Entry{Key: "x", URL: "http://news.example/x", Depth: 1}, Outcome: OutcomeMissing})
	set := l.Learned().Feedback
	if set == nil || len(set.Relevant) != 2 || set.Offered != 2 || l.Learned().LinkModel != nil {
		t.Fatalf("feedback set %+v: want the two articles, not the listing page or the missing URL", set)
	}
	js, err := l.JSON()
	if err != nil {
		t.Fatal(err)
	}
	learned, err := DecodeLearned(js)
	if err != nil || learned.Feedback == nil || len(learned.Feedback.Relevant) != 2 {
		t.Fatalf("snapshot %+v, %v", learned, err)
	}

	before := scoreFocus(t, f, focusPage(300), 1)
	p.Use(learned)
	if p.Feedback == nil {
		t.Fatal("Use with a feedback set gave no feedback")
	}
	e := Entry{Key: "example,news)/2009/09/27/night.html", URL: "http://news.example/2009/09/27/night.html", Depth: 1, Path: "SL"}
	c := cdxj.Capture{Timestamp: "20090928120000", Filename: "a.warc.gz"}
	after := p.Score(Fetched{Selected: Selected{Entry: e, Round: 1, Choice: Choice{Kind: UseSnapshot, Capture: c, Payload: c}}, ContentType: "text/html", Body: focusPage(300)})
	b, a := priorities(before), priorities(after)
	if !(b["garden.html"] < b["coalition-talks.html"]) || !(a["garden.html"] > b["garden.html"]) {
		t.Errorf("priorities without feedback %v, with %v: want the garden link lifted", b, a)
	}
	if *before.Document != *after.Document {
		t.Errorf("feedback changed the document's scores:\n%+v\n%+v", before.Document, after.Document)
	}
	if after.FeedbackTerms == nil || len(after.FeedbackTerms.Terms) == 0 {
		t.Error("a collected article has no feedback terms")
	}
	// Without feedback configured, no terms are kept and Use keeps none.
	if r := scoreFocus(t, Focus{}, focusPage(300), 1); r.FeedbackTerms != nil {
		t.Error("feedback terms without feedback")
	}
	q := focusProcessor(t, Focus{})
	q.Use(learned)
	if q.Feedback != nil {
		t.Error("a processor without feedback in its focus uses a feedback set")
	}
}

// TestLabelLearner: the researcher's labels make a learner active without
// learn_links or feedback (and not one that learns between rounds); their
// feedback set is in its snapshot and Use scores links with it: the
// default focus, labelled with garden pages as relevant and coalition
// pages as not, lifts the garden link towards the coalition link, the
// document's own scores unchanged. With learn_links, a labelled page is a
// link-model example of its label, not of its own relevance.
func TestLabelLearner(t *testing.T) {
	f := Focus{Links: scoring.LinkWeights{Parent: 0.1, Anchor: 0.5, Context: 0.4}}
	p := focusProcessor(t, f)
	terms := func(text string) scoring.DocTerms {
		dt, ok := p.Scorer.DocumentTerms(text, "en")
		if !ok {
			t.Fatalf("no terms in %q", text)
		}
		return dt
	}
	labels := &LabelState{Grades: map[string]float64{"a": 1, "b": 0}, Set: scoring.FeedbackSet{
		Relevant:    []scoring.FeedbackDoc{{Seq: 0, Relevance: 1, Terms: terms("Compost heaps in spring: the garden needs compost, spring planting and heaps of leaves.")}},
		NonRelevant: []scoring.FeedbackDoc{{Seq: 1, Relevance: 0, Terms: terms("Coalition talks: the parliament and the chancellor after the election.")}},
		Offered:     2,
	}}
	l := NewLearner(f)
	l.SetLabels(labels)
	if !l.Active() || l.LearnsBetweenRounds() {
		t.Fatal("a learner with labels: want active, not learning between rounds")
	}
	js, err := l.JSON()
	if err != nil {
		t.Fatal(err)
	}
	learned, err := DecodeLearned(js)
	if err != nil || learned.Labels == nil || len(learned.Labels.Relevant) != 1 || learned.Feedback != nil || learned.LinkModel != nil {
		t.Fatalf("snapshot %+v, %v: want the labels' set only", learned, err)
	}
	before := scoreFocus(t, f, focusPage(300), 1)
	p.Use(learned)
	if p.Feedback == nil || p.Feedback.Config() != scoring.LabelFeedback {
		t.Fatal("Use with labels gave no label feedback")
	}
	e := Entry{Key: "example,news)/2009/09/27/night.html", URL: "http://news.example/2009/09/27/night.html", Depth: 1, Path: "SL"}
	c := cdxj.Capture{Timestamp: "20090928120000", Filename: "a.warc.gz"}
	after := p.Score(Fetched{Selected: Selected{Entry: e, Round: 1, Choice: Choice{Kind: UseSnapshot, Capture: c, Payload: c}}, ContentType: "text/html", Body: focusPage(300)})
	b, a := priorities(before), priorities(after)
	if !(a["garden.html"] > b["garden.html"]) || !(a["garden.html"]-a["coalition-talks.html"] > b["garden.html"]-b["coalition-talks.html"]) {
		t.Errorf("priorities without labels %v, with %v: want the garden link lifted, closer to the coalition link", b, a)
	}
	if *before.Document != *after.Document {
		t.Errorf("labels changed the document's scores:\n%+v\n%+v", before.Document, after.Document)
	}

	links := NewLearner(Focus{LearnLinks: true})
	links.SetLabels(labels)
	for _, k := range []string{"a", "b", "c"} {
		links.Add(Result{Entry: Entry{Key: k, URL: "http://news.example/" + k, Depth: 1, Priority: 0.5}, Outcome: OutcomeCollected,
			Document: &collection.Document{URL: "http://news.example/" + k, Relevance: 0.4}})
	}
	if m := links.Learned().LinkModel; m == nil || m.Sums[0] != 1+0+0.4 {
		t.Errorf("link model %+v: want the labelled pages' examples of relevance 1 and 0, the other of its own 0.4", m)
	}
}
