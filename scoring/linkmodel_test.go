package scoring

import (
	"encoding/json"
	"math"
	"slices"
	"testing"
)

func TestLinkFeatures(t *testing.T) {
	got := LinkFeatures("http://www.News.example/politik/2009/09/27/wahl-abend-1x.html?id=42&Section=Politics", "Der Wahlabend: Ergebnisse")
	want := []string{
		"anchor:der", "anchor:ergebnisse", "anchor:wahlabend",
		"host:news.example", "num:2009",
		"shape:w/d4/d2/d2/w?id&section",
		"url:abend", "url:html", "url:politics", "url:politik", "url:wahl",
	}
	if !slices.Equal(got, want) {
		t.Errorf("features\n got %q\nwant %q", got, want)
	}
	if f := LinkFeatures("::", ""); len(f) != 0 {
		t.Errorf("an unparsable URL without anchor has features %q", f)
	}
}

func TestLinkModel(t *testing.T) {
	var m LinkModel
	if _, ok := m.Predict([]string{"url:wahl"}); ok {
		t.Error("an empty model predicts")
	}
	// 10 relevant examples under /wahl/, 10 irrelevant under /garten/, one
	// without features (it counts in the mean only).
	m.Add(nil, 0.5)
	for i := 0; i < 10; i++ {
		if _, ok := m.Predict(nil); ok {
			t.Errorf("predicts with %d examples (< %d)", m.N, LinkModelMinExamples)
		}
		m.Add(LinkFeatures("http://a.example/wahl/x.html", ""), 0.9)
		m.Add(LinkFeatures("http://a.example/garten/x.html", ""), 0.1)
	}
	mu := m.Sum / float64(m.N)
	wahl, _ := m.Predict(LinkFeatures("http://a.example/wahl/y.html", ""))
	garten, _ := m.Predict(LinkFeatures("http://a.example/garten/y.html", ""))
	unknown, ok := m.Predict([]string{"url:unbekannt"})
	if !ok || !(wahl > unknown && unknown > garten) || unknown != mu {
		t.Errorf("wahl %v, unknown %v (μ %v), garten %v", wahl, unknown, mu, garten)
	}
	// url:wahl's mean is (9 + 3μ)/13; the host, the shape and url:html are
	// shared by both kinds of page and add (almost) nothing.
	if w := (9 + LinkModelPrior*mu) / (10 + LinkModelPrior); math.Abs(wahl-w) > 0.01 {
		t.Errorf("wahl %v, want about its feature's mean %v", wahl, w)
	}
	// The snapshot a Beam round reads gives the same model.
	a, _ := json.Marshal(&m)
	var back LinkModel
	if err := json.Unmarshal(a, &back); err != nil {
		t.Fatal(err)
	}
	c, _ := json.Marshal(&back)
	if string(a) != string(c) {
		t.Error("the model does not survive its JSON")
	}
	if p, _ := back.Predict([]string{"url:wahl"}); p != func() float64 { v, _ := m.Predict([]string{"url:wahl"}); return v }() {
		t.Error("a decoded model predicts differently")
	}
}
