package scoring

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// Bag is the multiset of terms of one text: every token is a unigram and
// every two adjacent tokens form a bigram, written "stem1 stem2". Terms are
// kept in the order of their first occurrence, so that sums over a bag are
// the same on every run. A Bag is reusable (Reset) and not safe for
// concurrent use.
type Bag struct {
	terms  []string
	counts []int
	index  map[string]int
	tokens int
	buf    []byte
}

// NewBag returns an empty bag.
func NewBag() *Bag {
	return &Bag{index: make(map[string]int)}
}

// BagOf returns the bag of the tokens.
func BagOf(tokens []Token) *Bag {
	b := NewBag()
	b.AddTokens(tokens)
	return b
}

// Reset empties the bag, keeping its memory.
func (b *Bag) Reset() {
	clear(b.index)
	b.terms = b.terms[:0]
	b.counts = b.counts[:0]
	b.tokens = 0
}

// AddTokens adds the unigrams and bigrams of one token stream.
func (b *Bag) AddTokens(tokens []Token) {
	b.tokens += len(tokens)
	for i, t := range tokens {
		b.addTerm(t.Term)
		if i > 0 && tokens[i-1].Pos+1 == t.Pos {
			b.buf = append(append(append(b.buf[:0], tokens[i-1].Term...), ' '), t.Term...)
			if j, ok := b.index[string(b.buf)]; ok { // no allocation on a hit
				b.counts[j]++
			} else {
				b.addTerm(string(b.buf))
			}
		}
	}
}

func (b *Bag) addTerm(term string) {
	if j, ok := b.index[term]; ok {
		b.counts[j]++
		return
	}
	b.index[term] = len(b.terms)
	b.terms = append(b.terms, term)
	b.counts = append(b.counts, 1)
}

// Len returns the number of distinct terms.
func (b *Bag) Len() int { return len(b.terms) }

// Tokens returns the number of tokens added.
func (b *Bag) Tokens() int { return b.tokens }

// At returns the i-th distinct term, in order of first occurrence, and its
// frequency.
func (b *Bag) At(i int) (term string, tf int) { return b.terms[i], b.counts[i] }

// Count returns the frequency of term.
func (b *Bag) Count(term string) int {
	if j, ok := b.index[term]; ok {
		return b.counts[j]
	}
	return 0
}

// Terms returns the distinct terms, sorted.
func (b *Bag) Terms() []string {
	terms := slices.Clone(b.terms)
	sort.Strings(terms)
	return terms
}

// TermWeight is the weight of a term in a vector: (1 + ln tf) · idf · tw,
// where tw is the keyword boost (2, 1.5 or 1). A term that does not occur
// has weight 0.
func TermWeight(tf int, idf, boost float64) float64 {
	if tf <= 0 {
		return 0
	}
	return (1 + math.Log(float64(tf))) * idf * boost
}

// Weigh returns the term vector of a bag: each term weighted by TermWeight
// with its idf from dict and its boost from kw (either may be nil: idf 1,
// boost 1).
func Weigh(b *Bag, dict *Dictionary, kw *Keywords) Vector {
	entries := make([]Entry, 0, b.Len())
	for i, term := range b.terms {
		w := TermWeight(b.counts[i], dict.IDF(term), kw.Boost(term))
		if w != 0 {
			entries = append(entries, Entry{Term: term, Weight: w})
		}
	}
	return vectorOf(entries)
}

// Entry is one component of a Vector.
type Entry struct {
	Term   string  `json:"term"`
	Weight float64 `json:"weight"`
}

// Vector is an immutable sparse term vector. Its components are sorted by
// term and have non-zero weights; its norm is computed once, summing in
// term order.
type Vector struct {
	entries []Entry
	norm    float64
}

// MaxWeight bounds the absolute weight of a term given to NewVector: its
// square, and a sum of squares of millions of such weights, stay finite.
// A tf·idf weight is at most a few hundred (70 in the authors' 31
// specifications; specs refuses reference weights beyond 1e9).
const MaxWeight = 1e100

// NewVector returns the vector with the given term weights, such as a
// specification's precomputed reference vector. Zero weights are dropped;
// NaN, infinite and weights beyond ±MaxWeight are an error.
func NewVector(weights map[string]float64) (Vector, error) {
	entries := make([]Entry, 0, len(weights))
	for term, w := range weights {
		if math.IsNaN(w) || math.IsInf(w, 0) || math.Abs(w) > MaxWeight {
			return Vector{}, fmt.Errorf("scoring: term %q has weight %v (weights are finite, at most %g in absolute value)", term, w, float64(MaxWeight))
		}
		if w != 0 {
			entries = append(entries, Entry{Term: term, Weight: w})
		}
	}
	return vectorOf(entries), nil
}

// vectorOf sorts entries (with distinct terms) and computes the norm.
func vectorOf(entries []Entry) Vector {
	slices.SortFunc(entries, func(a, b Entry) int { return strings.Compare(a.Term, b.Term) })
	return Vector{entries: entries, norm: euclideanNorm(entries)}
}

// minSumOfSquares is the smallest sum of squares taken as it is: below it,
// squares of small weights may have lost their bits to underflow.
const minSumOfSquares = 0x1p-900

// euclideanNorm is the Euclidean norm of the weights, in term order. A sum of
// squares that overflows (weights near 1e154 and beyond) or underflows is
// computed again on the weights divided by the largest absolute weight,
// so the norm is right wherever it is representable; other sums are kept
// as they are, bit for bit.
func euclideanNorm(entries []Entry) float64 {
	var sum float64
	for _, e := range entries {
		sum += e.Weight * e.Weight
	}
	if !math.IsInf(sum, 0) && sum >= minSumOfSquares {
		return math.Sqrt(sum)
	}
	var scale float64
	for _, e := range entries {
		scale = max(scale, math.Abs(e.Weight))
	}
	if scale == 0 || math.IsInf(scale, 0) || math.IsNaN(scale) {
		return math.Sqrt(sum)
	}
	var scaled float64
	for _, e := range entries {
		x := e.Weight / scale
		scaled += x * x
	}
	return math.Sqrt(scaled) * scale
}

// Len returns the number of non-zero components.
func (v Vector) Len() int { return len(v.entries) }

// Norm returns the Euclidean norm.
func (v Vector) Norm() float64 { return v.norm }

// Entries returns the components sorted by term.
func (v Vector) Entries() []Entry { return slices.Clone(v.entries) }

// Weight returns the weight of term, 0 if absent.
func (v Vector) Weight(term string) float64 {
	i, ok := slices.BinarySearchFunc(v.entries, term, func(e Entry, t string) int { return strings.Compare(e.Term, t) })
	if !ok {
		return 0
	}
	return v.entries[i].Weight
}

// Map returns the components as a map.
func (v Vector) Map() map[string]float64 {
	m := make(map[string]float64, len(v.entries))
	for _, e := range v.entries {
		m[e.Term] = e.Weight
	}
	return m
}

// Ranked returns the components by decreasing weight, ties by term.
func (v Vector) Ranked() []Entry {
	ranked := slices.Clone(v.entries)
	slices.SortFunc(ranked, byWeightThenTerm)
	return ranked
}

func byWeightThenTerm(a, b Entry) int {
	if c := cmp.Compare(b.Weight, a.Weight); c != 0 {
		return c
	}
	return strings.Compare(a.Term, b.Term)
}

// Top returns the vector truncated to its n heaviest components (ties by
// term, so the cut is the same on every run). n <= 0 or n >= Len returns v.
func (v Vector) Top(n int) Vector {
	if n <= 0 || n >= len(v.entries) {
		return v
	}
	return vectorOf(v.Ranked()[:n])
}

// MarshalJSON writes the vector as a JSON object term → weight with the
// terms sorted.
func (v Vector) MarshalJSON() ([]byte, error) {
	return json.Marshal(v.Map()) // encoding/json sorts map keys
}

// UnmarshalJSON reads a JSON object term → weight.
func (v *Vector) UnmarshalJSON(data []byte) error {
	var m map[string]float64
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	nv, err := NewVector(m)
	if err != nil {
		return err
	}
	*v = nv
	return nil
}

// Cosine returns the cosine similarity of two vectors, 0 if either is
// zero.
func Cosine(a, b Vector) float64 {
	if a.norm == 0 || b.norm == 0 {
		return 0
	}
	c := dot(a, b, 1, 1) / (a.norm * b.norm)
	if math.IsNaN(c) || math.IsInf(c, 0) {
		// The dot product or the product of the norms overflowed (or
		// underflowed to 0): the same cosine on the unit vectors.
		c = dot(a, b, 1/a.norm, 1/b.norm)
	}
	return c
}

// dot is the dot product of a·sa and b·sb, a merge of the two term-sorted
// component lists. A scale of 1 changes no product (x·1 is x exactly), so
// dot(a, b, 1, 1) is the plain dot product to the last bit.
func dot(a, b Vector, sa, sb float64) float64 {
	var sum float64
	i, j := 0, 0
	for i < len(a.entries) && j < len(b.entries) {
		switch c := strings.Compare(a.entries[i].Term, b.entries[j].Term); {
		case c < 0:
			i++
		case c > 0:
			j++
		default:
			sum += (a.entries[i].Weight * sa) * (b.entries[j].Weight * sb)
			i++
			j++
		}
	}
	return sum
}

// Sum returns the component-wise sum of the vectors. The weights of each
// term are added in increasing order, so the result does not depend on the
// order of vs, to the last bit.
func Sum(vs ...Vector) Vector {
	parts := make(map[string][]float64)
	for _, v := range vs {
		for _, e := range v.entries {
			parts[e.Term] = append(parts[e.Term], e.Weight)
		}
	}
	entries := make([]Entry, 0, len(parts))
	for term, ws := range parts {
		entries = append(entries, Entry{Term: term, Weight: sumSorted(ws)})
	}
	nonZero := entries[:0]
	for _, e := range entries {
		if e.Weight != 0 {
			nonZero = append(nonZero, e)
		}
	}
	return vectorOf(nonZero)
}

// sumSorted adds the numbers in increasing order (sorting xs in place).
func sumSorted(xs []float64) float64 {
	slices.Sort(xs)
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum
}
