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
	if got := m.Adjust([]string{"url:wahl"}, 0.3); got != 0.3 {
		t.Errorf("an empty model adjusts: %v", got)
	}
	// The crawl's priority p predicts y on the /news/ links (y = p), and
	// says nothing about the /wahl/ (relevant) and /garten/ (irrelevant)
	// links, which all had p 0.3.
	add := func(u string, p, y float64) { m.Add(LinkFeatures(u, ""), p, y) }
	for i := 0; i < 10; i++ {
		if i == 4 { // 16 examples
			if got := m.Adjust(LinkFeatures("http://a.example/wahl/y.html", ""), 0.3); got != 0.3 {
				t.Errorf("adjusts with %d examples (< %d)", m.N, LinkModelMinExamples)
			}
		}
		add("http://a.example/news/hot.html", 0.8, 0.8)
		add("http://a.example/news/cold.html", 0.1, 0.1)
		add("http://a.example/wahl/x.html", 0.3, 0.9)
		add("http://a.example/garten/x.html", 0.3, 0.1)
	}
	a, b, ok := m.fit()
	if !ok || a <= 0 {
		t.Fatalf("fit a %v b %v", a, b)
	}
	wahl := m.Adjust(LinkFeatures("http://a.example/wahl/y.html", ""), 0.3)
	garten := m.Adjust(LinkFeatures("http://a.example/garten/y.html", ""), 0.3)
	unknown := m.Adjust([]string{"url:unbekannt"}, 0.3)
	if !(wahl > 0.3 && unknown == 0.3 && garten < 0.3) {
		t.Errorf("adjusted: wahl %v, unknown %v, garten %v", wahl, unknown, garten)
	}
	// The URL words group of /wahl/y.html is url:html (all 40 examples)
	// and url:wahl; the host and the shape are shared by all examples.
	resid := func(f string) float64 {
		st := m.Features[f]
		return (st.SumY - a*st.SumP - b*float64(st.N)) / (float64(st.N) + LinkModelPrior)
	}
	want := 0.3 + min(LinkModelMaxLift, resid("host:a.example")+resid("shape:w/w")+(resid("url:html")+resid("url:wahl"))/2)
	if math.Abs(wahl-want) > 1e-9 {
		t.Errorf("wahl %v, want %v", wahl, want)
	}
	// Residuals of the features that p explains are about 0: "hot" links
	// had y = p.
	if r := resid("url:hot"); math.Abs(r) > 0.1 {
		t.Errorf("a feature that p explains has residual %v", r)
	}
	// The snapshot a Beam round reads gives the same model.
	js, _ := json.Marshal(&m)
	var back LinkModel
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	again, _ := json.Marshal(&back)
	if string(js) != string(again) || back.Adjust(LinkFeatures("http://a.example/wahl/y.html", ""), 0.3) != wahl {
		t.Error("the model does not survive its JSON")
	}
	// A p that says nothing about y (slope 0) adjusts nothing.
	var flat LinkModel
	for i := 0; i < 30; i++ {
		flat.Add([]string{"url:x"}, float64(i%3)/3, 0.5)
	}
	if got := flat.Adjust([]string{"url:x"}, 0.2); got != 0.2 {
		t.Errorf("a flat fit adjusts: %v", got)
	}
}
