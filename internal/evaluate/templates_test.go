package evaluate

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/recrawl/recrawl/internal/collection"
	"github.com/recrawl/recrawl/specs"
)

func TestScoreTemplates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "labels.tsv")
	os.WriteFile(path, []byte("#url\tevent\tgrade\talias\thost\ttemplate\n"+
		"http://www.a.example/1\te\t2\t-\twww.a.example\taside\n"+
		"http://www.a.example/2\te\t2\t-\twww.a.example\taside\n"+
		"http://b.example/1\te\t1\t-\tb.example\tclassic\n"+
		"http://b.example/2\t-\t0\t-\tb.example\tclassic\n"), 0o644)
	l, err := ReadLabels(path, "e")
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Templates(); len(got) != 2 || got[0] != "aside" || got[1] != "classic" {
		t.Fatalf("templates %v", got)
	}
	docs := []collection.Document{
		{URL: "http://b.example/2"}, {URL: "http://a.example/1"}, {URL: "http://other.example/"},
		{URL: "http://b.example/1"}, {URL: "http://www.a.example/9"},
	}
	got := ScoreTemplates(docs, l, 3)
	// aside: its hosts' documents are a/1 (relevant) and a/9: 1 of the
	// first R=2; within the first 3 documents a/1 is found: recall 1/2.
	// classic: b/2, b/1: R=1, the first is not relevant; b/1 is 4th.
	want := []TemplateScore{{Template: "aside", R: 2, PrecisionAtR: 0.5, RecallAtN: 0.5}, {Template: "classic", R: 1, PrecisionAtR: 0, RecallAtN: 0}}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Template != w.Template || g.R != w.R || math.Abs(g.PrecisionAtR-w.PrecisionAtR) > 1e-12 || math.Abs(g.RecallAtN-w.RecallAtN) > 1e-12 {
			t.Errorf("template %d: %+v, want %+v", i, g, w)
		}
	}
	// Labels without a template column: no breakdown.
	plain, _ := NewLabels([]Label{{URL: "http://a.example/1", Grade: 1}})
	if ScoreTemplates(docs, plain, 3) != nil {
		t.Error("a breakdown without templates")
	}
}

// TestUnfocusedVariants: "unfocused" is the specification as given under
// the unfocused strategy (the default leaves listing pages out of the
// collection); "unfocused+listings" is the unfocused crawl
// with the listing pages counted. Both follow every link.
func TestUnfocusedVariants(t *testing.T) {
	for _, tc := range []struct {
		name     string
		listings bool
	}{{"unfocused", false}, {UnfocusedListingsVariant, true}} {
		v, ok := FocusVariantByName(tc.name)
		if !ok {
			t.Fatalf("no variant %s", tc.name)
		}
		s := specs.Defaults()
		v.Apply(&s)
		if v.Strategy != "unfocused" || s.Outlinks != specs.OutlinksAll || s.Focus.CountListingPages != tc.listings {
			t.Errorf("%s: strategy %q outlinks %q count_listing_pages %v, want unfocused, all, %v",
				tc.name, v.Strategy, s.Outlinks, s.Focus.CountListingPages, tc.listings)
		}
	}
}
