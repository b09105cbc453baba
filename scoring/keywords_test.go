package scoring

import (
	"math"
	"reflect"
	"testing"
)

func TestKeywordBoost(t *testing.T) {
	a := mustAnalyzer(t, "en")
	k := NewKeywords(a, []string{"Costa Concordia", "Wreck", "Library of Congress", "Isola del Giglio harbour"})
	tests := []struct {
		term string
		want float64
	}{
		{"costa concordia", FullMatchBoost},   // the keyword itself
		{"wreck", FullMatchBoost},             // single-token keyword
		{"giglio harbour", FullMatchBoost},    // a bigram of a longer keyword
		{"isola del", FullMatchBoost},         // "del" is not an English stop word
		{"librari", FullMatchBoost},           // no two adjacent tokens: its unigrams
		{"costa", PartialMatchBoost},          // one token of a two-token keyword
		{"concordia ship", PartialMatchBoost}, // a bigram sharing a token
		{"ship costa", PartialMatchBoost},
		{"wreck salvag", PartialMatchBoost},
		{"concordia costa", PartialMatchBoost}, // reversed: overlap, not the keyword
		{"ship", NoMatchBoost},
		{"cruis ship", NoMatchBoost},
	}
	for _, tt := range tests {
		if got := k.Boost(tt.term); got != tt.want {
			t.Errorf("Boost(%q) = %v, want %v", tt.term, got, tt.want)
		}
	}
	var none *Keywords
	if none.Boost("costa") != NoMatchBoost || NewKeywords(a, nil).Boost("costa") != NoMatchBoost {
		t.Error("no keywords must boost nothing")
	}
	if want := []string{"congress", "costa concordia", "del giglio", "giglio harbour", "isola del", "librari", "wreck"}; !reflect.DeepEqual(k.FullTerms(), want) {
		t.Errorf("FullTerms() = %v, want %v", k.FullTerms(), want)
	}
}

// The boost multiplies the weight of reference and document terms alike.
func TestKeywordBoostInVector(t *testing.T) {
	a := mustAnalyzer(t, "en")
	k := NewKeywords(a, []string{"Costa Concordia"})
	v := Weigh(BagOf(a.Analyze("Costa Concordia ship")), nil, k)
	want := map[string]float64{
		"costa": 1.5, "concordia": 1.5, "ship": 1,
		"costa concordia": 2, "concordia ship": 1.5,
	}
	if got := v.Map(); !reflect.DeepEqual(got, want) {
		t.Errorf("vector %v, want %v", got, want)
	}
	if !near(v.Norm(), math.Sqrt(1.5*1.5*3+1+4)) {
		t.Errorf("norm %v", v.Norm())
	}
}
