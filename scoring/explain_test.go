package scoring

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// "volcano ash cloud" against the volcano reference (volcano 2, others 1,
// norm √8); the document has five terms of weight 1 (norm √5). Shared:
// volcano 2·1, ash 1·1, "volcano ash" 1·1, each over √40.
func TestExplainByHand(t *testing.T) {
	s := mustScorer(t, volcanoConfig())
	e := s.Explain("volcano ash cloud", "en", 0)
	want := []TermContribution{
		{Term: "volcano", Reference: 2, Document: 1, Contribution: 2 / math.Sqrt(40)},
		{Term: "ash", Reference: 1, Document: 1, Contribution: 1 / math.Sqrt(40)},
		{Term: "volcano ash", Reference: 1, Document: 1, Contribution: 1 / math.Sqrt(40)}, // tie: by term
	}
	if len(e.Terms) != len(want) {
		t.Fatalf("terms %+v, want %+v", e.Terms, want)
	}
	sum := 0.0
	for i, c := range e.Terms {
		w := want[i]
		if c.Term != w.Term || c.Reference != w.Reference || c.Document != w.Document || !near(c.Contribution, w.Contribution) {
			t.Errorf("term %d = %+v, want %+v", i, c, w)
		}
		sum += c.Contribution
	}
	if !near(sum, e.Cosine) {
		t.Errorf("contributions add to %v, cosine %v", sum, e.Cosine)
	}
	sc := s.Score("volcano ash cloud", "en", eventStart)
	if e.TopicR != sc.TopicR || e.Cosine != sc.Cosine || e.Matched != 3 || e.Language != "en" {
		t.Errorf("explanation %+v disagrees with score %+v", e, sc)
	}
	if !near(e.ReferenceNorm, math.Sqrt(8)) || !near(e.DocumentNorm, math.Sqrt(5)) || !near(e.Normalizer, 4/math.Sqrt(24)) {
		t.Errorf("norms %v, %v, normaliser %v", e.ReferenceNorm, e.DocumentNorm, e.Normalizer)
	}
	if got := s.Explain("volcano ash cloud", "en", 1).Terms; len(got) != 1 || got[0].Term != "volcano" {
		t.Errorf("Explain(n=1) = %+v", got)
	}
}

func TestExplainJSON(t *testing.T) {
	s := mustScorer(t, volcanoConfig())
	a, err := json.Marshal(s.Explain("volcano ash cloud", "en", 0))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(s.Explain("volcano ash cloud", "en", 0))
	if string(a) != string(b) {
		t.Errorf("JSON differs between runs:\n%s\n%s", a, b)
	}
	for _, key := range []string{`{"language":"en","topicR":`, `"normalizer":`, `"terms":[{"term":"volcano","reference":2,"document":1,"contribution":`} {
		if !strings.Contains(string(a), key) {
			t.Errorf("JSON %s lacks %s", a, key)
		}
	}
	empty, _ := json.Marshal(s.Explain("", "en", 0))
	if !strings.Contains(string(empty), `"reason":"empty text","terms":[]`) {
		t.Errorf("empty text explanation %s", empty)
	}
}

// At most 20 terms by default, ordered by contribution.
func TestExplainTopTwenty(t *testing.T) {
	var ref strings.Builder
	for i := 0; i < 40; i++ {
		ref.WriteString(strings.Repeat("w"+string(rune('a'+i%26))+string(rune('a'+i/26))+" ", i+1))
		ref.WriteString(". ")
	}
	s := mustScorer(t, Config{DefaultLanguage: "en", References: []ReferenceText{{Text: ref.String()}}, Time: eventScope})
	e := s.Explain(ref.String(), "en", 0)
	if len(e.Terms) != ExplainTerms {
		t.Fatalf("%d terms, want %d", len(e.Terms), ExplainTerms)
	}
	for i := 1; i < len(e.Terms); i++ {
		if e.Terms[i].Contribution > e.Terms[i-1].Contribution {
			t.Errorf("term %d (%v) contributes more than term %d (%v)", i, e.Terms[i].Contribution, i-1, e.Terms[i-1].Contribution)
		}
	}
}
