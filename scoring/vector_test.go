package scoring

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

func vec(t testing.TB, m map[string]float64) Vector {
	t.Helper()
	v, err := NewVector(m)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

func TestBagUnigramsAndBigrams(t *testing.T) {
	a := mustAnalyzer(t, "en")
	b := BagOf(a.Analyze("Volcano eruption. Volcano eruption, volcano ash of the volcano"))
	want := map[string]int{"volcano": 4, "erupt": 2, "volcano erupt": 2, "ash": 1, "volcano ash": 1}
	got := map[string]int{}
	for i := 0; i < b.Len(); i++ {
		term, tf := b.At(i)
		got[term] = tf
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("bag = %v, want %v", got, want)
	}
	if b.Tokens() != 7 {
		t.Errorf("Tokens() = %d, want 7", b.Tokens())
	}
	if first, _ := b.At(0); first != "volcano" {
		t.Errorf("first term %q, want volcano (order of first occurrence)", first)
	}
	if want := []string{"ash", "erupt", "volcano", "volcano ash", "volcano erupt"}; !reflect.DeepEqual(b.Terms(), want) {
		t.Errorf("Terms() = %v, want %v", b.Terms(), want)
	}
	b.Reset()
	if b.Len() != 0 || b.Count("volcano") != 0 || b.Tokens() != 0 {
		t.Error("Reset left terms behind")
	}
}

func TestTermWeight(t *testing.T) {
	tests := []struct {
		tf         int
		idf, boost float64
		want       float64
	}{
		{1, 1, 1, 1},
		{1, 2.5, 1, 2.5},
		{2, 1, 1, 1 + math.Ln2},
		{3, 2, 1.5, (1 + math.Log(3)) * 2 * 1.5},
		{1, 4, 2, 8},
		{0, 4, 2, 0},
	}
	for _, tt := range tests {
		if got := TermWeight(tt.tf, tt.idf, tt.boost); !near(got, tt.want) {
			t.Errorf("TermWeight(%d, %v, %v) = %v, want %v", tt.tf, tt.idf, tt.boost, got, tt.want)
		}
	}
}

// A tiny corpus computed by hand.
//
//	A = "volcano eruption" → volcano, erupt, "volcano erupt"
//	D = "volcano ash"      → volcano, ash,   "volcano ash"
//
// With idf 1 every weight is 1: cos = 1 / (√3·√3) = 1/3. With idf
// volcano 2, erupt 1, ash 3 and missing terms at the largest idf 3:
// A = (2, 1, 3), D = (2, 3, 3); cos = 2·2 / (√14·√22).
func TestCosineByHand(t *testing.T) {
	a := mustAnalyzer(t, "en")
	docA := BagOf(a.Analyze("volcano eruption"))
	docD := BagOf(a.Analyze("volcano ash"))
	if got := Cosine(Weigh(docA, nil, nil), Weigh(docD, nil, nil)); !near(got, 1.0/3) {
		t.Errorf("cosine with idf 1 = %v, want 1/3", got)
	}
	dict, err := NewDictionary(map[string]float64{"volcano": 2, "erupt": 1, "ash": 3})
	if err != nil {
		t.Fatal(err)
	}
	va, vd := Weigh(docA, dict, nil), Weigh(docD, dict, nil)
	if got := va.Weight("volcano erupt"); got != 3 {
		t.Errorf("missing bigram weight %v, want the largest idf 3", got)
	}
	if !near(va.Norm(), math.Sqrt(14)) || !near(vd.Norm(), math.Sqrt(22)) {
		t.Errorf("norms %v, %v, want √14, √22", va.Norm(), vd.Norm())
	}
	if got, want := Cosine(va, vd), 4/math.Sqrt(14*22); !near(got, want) {
		t.Errorf("cosine = %v, want %v", got, want)
	}
	if got := Cosine(va, va); !near(got, 1) {
		t.Errorf("self cosine = %v, want 1", got)
	}
	if got := Cosine(va, Vector{}); got != 0 {
		t.Errorf("cosine with the zero vector = %v, want 0", got)
	}
}

func TestTop(t *testing.T) {
	v := vec(t, map[string]float64{"d": 1, "c": 2, "b": 2, "a": 3, "e": 0})
	tests := []struct {
		n    int
		want []Entry
	}{
		{1, []Entry{{"a", 3}}},
		{2, []Entry{{"a", 3}, {"b", 2}}}, // b and c tie: b wins by term
		{3, []Entry{{"a", 3}, {"b", 2}, {"c", 2}}},
		{10, []Entry{{"a", 3}, {"b", 2}, {"c", 2}, {"d", 1}}},
		{0, []Entry{{"a", 3}, {"b", 2}, {"c", 2}, {"d", 1}}},
	}
	for _, tt := range tests {
		if got := v.Top(tt.n).Entries(); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Top(%d) = %v, want %v", tt.n, got, tt.want)
		}
	}
	if got, want := v.Ranked(), []Entry{{"a", 3}, {"b", 2}, {"c", 2}, {"d", 1}}; !reflect.DeepEqual(got, want) {
		t.Errorf("Ranked() = %v, want %v", got, want)
	}
	if got := v.Top(2).Norm(); !near(got, math.Sqrt(13)) {
		t.Errorf("norm of Top(2) = %v, want √13", got)
	}
}

func TestSumIsOrderIndependent(t *testing.T) {
	vs := []Vector{
		vec(t, map[string]float64{"a": 0.1, "b": 1e16}),
		vec(t, map[string]float64{"a": 0.2, "b": 1}),
		vec(t, map[string]float64{"a": 0.3, "c": 1, "b": -1e16}),
	}
	want := Sum(vs...)
	for _, perm := range [][]int{{0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}} {
		got := Sum(vs[perm[0]], vs[perm[1]], vs[perm[2]])
		if !reflect.DeepEqual(got.Entries(), want.Entries()) || got.Norm() != want.Norm() {
			t.Errorf("Sum in order %v = %v, want %v", perm, got.Entries(), want.Entries())
		}
	}
	if got := want.Weight("a"); !near(got, 0.6) {
		t.Errorf("a = %v, want 0.6", got)
	}
}

func TestNewVectorRejectsNaN(t *testing.T) {
	if _, err := NewVector(map[string]float64{"a": math.NaN()}); err == nil {
		t.Error("NaN weight accepted")
	}
	if _, err := NewVector(map[string]float64{"a": math.Inf(1)}); err == nil {
		t.Error("infinite weight accepted")
	}
}

func TestVectorJSON(t *testing.T) {
	v := vec(t, map[string]float64{"zeta": 1.5, "alpha": 2, "costa concordia": 4})
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"alpha":2,"costa concordia":4,"zeta":1.5}`; string(data) != want {
		t.Errorf("JSON %s, want %s", data, want)
	}
	var back Vector
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Entries(), v.Entries()) {
		t.Errorf("round trip %v, want %v", back.Entries(), v.Entries())
	}
}
