package scoring

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

// TestFeedbackSet: the set keeps the n most relevant documents (relevance
// above 0) and, with gamma, the n least relevant; ties go to the earlier
// document; it reports whether it changed.
func TestFeedbackSet(t *testing.T) {
	cfg := FeedbackConfig{Documents: 2, Beta: 0.5, Gamma: 0.1}
	var f FeedbackSet
	terms := func(w string) DocTerms { return DocTerms{Language: "en", Terms: []Entry{{Term: w, Weight: 1}}} }
	steps := []struct {
		y       float64
		changed bool
	}{{0.5, true}, {0, true}, {0.5, true}, {0.7, true}, {0.5, false}, {0.2, true}, {math.NaN(), false}}
	for i, s := range steps {
		if got := f.Offer(cfg, s.y, terms(string(rune('a'+i)))); got != s.changed {
			t.Errorf("offer %d (relevance %v): changed %v, want %v", i, s.y, got, s.changed)
		}
	}
	seqs := func(docs []FeedbackDoc) []int {
		var out []int
		for _, d := range docs {
			out = append(out, d.Seq)
		}
		return out
	}
	// Relevant: 0.7 (document 3), then the first of the three 0.5 (0);
	// non-relevant: 0 (1), then 0.2 (5), which displaced 0.5 (0).
	if got, want := seqs(f.Relevant), []int{3, 0}; !reflect.DeepEqual(got, want) {
		t.Errorf("relevant %v, want %v", got, want)
	}
	if got, want := seqs(f.NonRelevant), []int{1, 5}; !reflect.DeepEqual(got, want) {
		t.Errorf("non-relevant %v, want %v", got, want)
	}
	if f.Offered != len(steps) {
		t.Errorf("offered %d, want %d", f.Offered, len(steps))
	}
	var off FeedbackSet
	if off.Offer(FeedbackConfig{}, 1, terms("x")) || len(off.Relevant) != 0 {
		t.Error("feedback off (0 documents) kept a document")
	}
}

// TestFeedbackEnrich: feedback from relevant documents moves the reference
// towards their words (a link text in those words gains TopicR), a text in
// the reference's own words still scores, and the same set gives the same
// vector bytes; without documents the references stay as they are.
func TestFeedbackEnrich(t *testing.T) {
	s, err := NewScorer(linkTestConfig())
	if err != nil {
		t.Fatal(err)
	}
	cfg := FeedbackConfig{Documents: 3, Beta: 0.75}
	texts := []string{
		"Exit polls and the ballot count: the chancellor's coalition and the ballot recount in Bavaria.",
		"The ballot recount in Bavaria confirms the exit polls of the federal election.",
		"Ballot papers, exit polls and recount: Bavaria's returning officers report.",
	}
	var set FeedbackSet
	for _, text := range texts {
		dt, ok := s.DocumentTerms(text, "en")
		if !ok || dt.Language != "en" || len(dt.Terms) == 0 {
			t.Fatalf("DocumentTerms(%q) = %+v, %v", text, dt, ok)
		}
		norm := 0.0
		for _, e := range dt.Terms {
			norm += e.Weight * e.Weight
		}
		if math.Abs(norm-1) > 1e-9 {
			t.Errorf("document terms have norm² %v, want 1", norm)
		}
		set.Offer(cfg, 0.8, dt)
	}
	if _, ok := s.DocumentTerms("  ", "en"); ok {
		t.Error("an empty text has feedback terms")
	}
	fb := s.Feedback(&set, cfg)
	anchor := "ballot recount in Bavaria"
	if before, after := s.TextTopicR(anchor, "en"), fb.TopicR(anchor, "en"); !(after > before) {
		t.Errorf("TopicR of %q: %v with feedback, %v without; want it higher", anchor, after, before)
	}
	if got := fb.TopicR("coalition talks after the federal election", "en"); !(got > 0) {
		t.Errorf("a text in the reference's words has TopicR %v with feedback", got)
	}
	lt := fb.LinkTexts("en")
	if got, want := lt.TopicR(anchor), fb.TopicR(anchor, "en"); got != want {
		t.Errorf("feedback LinkTexts %v, Feedback.TopicR %v", got, want)
	}
	orig, enriched := s.reference("en"), fb.Reference("en")
	if enriched.Vector.Len() > DefaultTopN || enriched.Vector.Weight("ballot") == 0 || orig.Vector.Weight("ballot") != 0 {
		t.Errorf("enriched vector: %d terms, ballot %v (original %v)", enriched.Vector.Len(), enriched.Vector.Weight("ballot"), orig.Vector.Weight("ballot"))
	}
	if !(enriched.Normalizer > 0) || enriched.Normalizer == orig.Normalizer {
		t.Errorf("enriched normaliser %v, original %v: want it recomputed from the reference documents", enriched.Normalizer, orig.Normalizer)
	}
	// Deterministic: the same set, decoded from its JSON, gives the same
	// vector bytes.
	b, err := json.Marshal(&set)
	if err != nil {
		t.Fatal(err)
	}
	var back FeedbackSet
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	v1, _ := json.Marshal(enriched.Vector)
	v2, _ := json.Marshal(s.Feedback(&back, cfg).Reference("en").Vector)
	if string(v1) != string(v2) || s.Feedback(&back, cfg).Reference("en").Normalizer != enriched.Normalizer {
		t.Error("the same feedback set after a JSON round trip gives another reference")
	}
	if s.Feedback(nil, cfg).Reference("en") != orig || s.Feedback(&FeedbackSet{}, cfg).Reference("en") != orig {
		t.Error("feedback without documents changed the reference")
	}
	// Non-relevant documents push their words down.
	neg := FeedbackConfig{Documents: 3, Beta: 0.75, Gamma: 0.5}
	var set2 FeedbackSet
	set2.Offer(neg, 0.9, set.Relevant[0].Terms)
	bad, _ := s.DocumentTerms("Compost heaps and gardening in autumn, the coalition of gardeners.", "en")
	set2.Offer(neg, 0, bad)
	if w := s.Feedback(&set2, neg).Reference("en").Vector.Weight("coalit"); !(w < s.Feedback(&set2, FeedbackConfig{Documents: 3, Beta: 0.75}).Reference("en").Vector.Weight("coalit")) {
		t.Errorf("a word of a non-relevant document kept weight %v", w)
	}
}
