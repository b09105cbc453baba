package specs

import (
	"path/filepath"
	"testing"

	"github.com/recrawl/recrawl/internal/testkit/sharedtest"
)

func TestExamplesLoad(t *testing.T) {
	files, _ := filepath.Glob("examples/*")
	if len(files) < 3 {
		t.Fatalf("want at least 3 examples, have %v", files)
	}
	for _, f := range files {
		if _, err := Load(f); err != nil {
			t.Errorf("%v", err)
		}
	}
}

func TestDemoExample(t *testing.T) {
	s, err := Load("examples/demo-election.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.AllLanguages(); len(got) != 2 || got[0] != "de" || got[1] != "en" {
		t.Errorf("languages %v, want de and en", got)
	}
	if len(s.Keywords.For("de")) == 0 || len(s.Keywords.For("en")) == 0 || len(s.Seeds) == 0 {
		t.Errorf("demo lacks keywords or seeds: %+v", s)
	}
}

// TestElection2009Equivalent checks that the example in our format has the
// temporal scope and reference article of the original election2009.json.
func TestElection2009Equivalent(t *testing.T) {
	orig, err := Load(sharedtest.Path(t, "specs/archive-recrawling/election2009.json"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Load("examples/election2009.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s0, e0 := s.EventInterval()
	o0, oe := orig.EventInterval()
	if !s0.Equal(o0) || !e0.Equal(oe) || s.LeadTime != orig.LeadTime || s.CooldownTime != orig.CooldownTime {
		t.Errorf("temporal scope %v..%v %v/%v, original %v..%v %v/%v", s0, e0, s.LeadTime, s.CooldownTime, o0, oe, orig.LeadTime, orig.CooldownTime)
	}
	if s.DefaultLanguage != orig.DefaultLanguage || s.Name != orig.Name {
		t.Errorf("name %q language %q, original %q %q", s.Name, s.DefaultLanguage, orig.Name, orig.DefaultLanguage)
	}
	// The original names the article by its /w/ path; ours uses /wiki/.
	if len(s.ReferenceDocuments) != 1 || filepath.Base(s.ReferenceDocuments[0].URL) != filepath.Base(orig.ReferenceDocuments[0].URL) {
		t.Errorf("reference documents %+v, original %+v", s.ReferenceDocuments, orig.ReferenceDocuments)
	}
	for _, kw := range s.Keywords.For("de") {
		found := false
		for _, o := range orig.Keywords.For("de") {
			found = found || o == kw
		}
		if !found {
			t.Errorf("keyword %q is not among the original's", kw)
		}
	}
}
