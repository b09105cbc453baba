package scoring

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestNewVectorRejectsAbsurdWeights: a weight beyond ±MaxWeight is an
// error naming the term and the weight.
func TestNewVectorRejectsAbsurdWeights(t *testing.T) {
	for _, w := range []float64{1e160, -1e160, 1e308, MaxWeight * 2} {
		_, err := NewVector(map[string]float64{"flut": 1, "wahl": w})
		if err == nil || !strings.Contains(err.Error(), `"wahl"`) {
			t.Errorf("weight %g: %v, want an error naming the term", w, err)
		}
	}
	if _, err := NewVector(map[string]float64{"wahl": MaxWeight}); err != nil {
		t.Errorf("weight MaxWeight: %v", err)
	}
}

// TestNormWithoutOverflow: weights whose squares overflow or underflow
// still give the right norm and cosine, the same as the same vector
// scaled to ordinary weights.
func TestNormWithoutOverflow(t *testing.T) {
	for _, scale := range []float64{1e160, 1e200, 1e300, 1e-170, 1e-300} {
		big := vectorOf([]Entry{{"flut", 3 * scale}, {"pegel", 4 * scale}})
		if got, want := big.Norm(), 5*scale; !near(got/scale, want/scale) {
			t.Errorf("scale %g: norm %g, want %g", scale, got, want)
		}
		doc := vec(t, map[string]float64{"flut": 1, "deich": 2})
		want := Cosine(vec(t, map[string]float64{"flut": 3, "pegel": 4}), doc)
		if got := Cosine(big, doc); !near(got, want) {
			t.Errorf("scale %g: cosine %v, want %v", scale, got, want)
		}
		if got := Contributions(big, doc, 0); len(got) != 1 || !near(got[0].Contribution, want) {
			t.Errorf("scale %g: contributions %+v, want flut %v", scale, got, want)
		}
	}
	// Both vectors large: the dot product overflows, the cosine does not.
	a := vectorOf([]Entry{{"flut", 1e300}, {"pegel", 1e300}})
	b := vectorOf([]Entry{{"flut", 1e300}})
	if got := Cosine(a, b); !near(got, 1/math.Sqrt2) {
		t.Errorf("cosine of two large vectors: %v, want %v", got, 1/math.Sqrt2)
	}
}

// TestNormUnchangedOnOrdinaryWeights: on ordinary weights the norm is the
// square root of the sum of squares in term order, to the last bit.
func TestNormUnchangedOnOrdinaryWeights(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		var entries []Entry
		for i := range 1 + rng.IntN(100) {
			entries = append(entries, Entry{Term: string(rune('a'+i%26)) + strings.Repeat("x", i/26), Weight: rng.Float64() * 70})
		}
		v := vectorOf(entries)
		var sum float64
		for _, e := range v.entries {
			sum += e.Weight * e.Weight
		}
		if v.Norm() != math.Sqrt(sum) {
			t.Fatalf("norm %v, want %v", v.Norm(), math.Sqrt(sum))
		}
	}
}
