package scoring

import (
	"math"
	"slices"
)

// DefaultTopN is the number of terms a reference vector keeps, as in the
// original.
const DefaultTopN = 100

// Reference is the topical scope of a collection in one language: the
// reference vector and the factor that normalises cosines to it.
type Reference struct {
	// Language is the ISO 639-1 code of the analyzer the vector was made
	// with.
	Language string
	// Vector is the reference vector.
	Vector Vector
	// Normalizer divides the raw cosine of a document: the mean cosine of
	// the reference documents to Vector, or 1 when normalisation is off or
	// no reference document is available (a precomputed vector alone).
	Normalizer float64
	// Documents is the number of reference documents of this language.
	Documents int
	// Precomputed reports that Vector was given, not built from documents.
	Precomputed bool

	lookup map[string]float64
	// docs are the reference documents' vectors and normalized says
	// whether Normalizer comes from them (a feedback reference recomputes
	// it, feedback.go).
	docs       []Vector
	normalized bool
}

// NewReference returns the reference of a language. docs are the vectors
// of its reference documents (may be empty when vector is precomputed).
// When vector is nil, the reference vector is the sum of docs truncated to
// its topN heaviest terms (topN <= 0: DefaultTopN); a precomputed vector is
// truncated the same way. With normalize, Normalizer is the mean cosine of
// docs to the reference vector (1 if there are no docs or the mean is 0).
func NewReference(lang string, docs []Vector, vector *Vector, topN int, normalize bool) *Reference {
	if topN <= 0 {
		topN = DefaultTopN
	}
	r := &Reference{Language: lang, Documents: len(docs), Normalizer: 1, docs: docs}
	if vector != nil {
		r.Vector = vector.Top(topN)
		r.Precomputed = true
	} else {
		r.Vector = Sum(docs...).Top(topN)
	}
	if normalize {
		if m := MeanCosine(r.Vector, docs); m > 0 {
			r.Normalizer, r.normalized = m, true
		}
	}
	r.lookup = r.Vector.Map()
	return r
}

// MeanCosine is the mean cosine of docs to ref, adding the cosines in
// increasing order so that the order of docs does not matter. It is 0 for
// no docs.
func MeanCosine(ref Vector, docs []Vector) float64 {
	if len(docs) == 0 {
		return 0
	}
	cos := make([]float64, len(docs))
	for i, d := range docs {
		cos[i] = Cosine(ref, d)
	}
	return sumSorted(cos) / float64(len(cos))
}

// TopicR turns the raw cosine of a document to the reference vector into
// the topical relevance: cosine / normalizer, clipped to [0, 1]. The
// reference documents themselves then score about 1, and a document is
// rated against how similar the event's own descriptions are to their sum,
// which puts TopicR on the same 0–1 scale as TempR. A normalizer that is
// not positive is taken as 1.
func TopicR(cosine, normalizer float64) float64 {
	if !(normalizer > 0) {
		normalizer = 1
	}
	v := cosine / normalizer
	if !(v > 0) { // also NaN
		return 0
	}
	return math.Min(v, 1)
}

// Restem runs the terms of a precomputed vector through a: a unigram that
// analyses to one token is kept under that stem, a bigram that analyses to
// two adjacent tokens under that bigram, and other terms are dropped;
// weights of terms that meet are added. The original system stemmed with
// Lucene's light German stemmer, which keeps derivational suffixes the
// Snowball stemmer removes ("schiffsfuhrung", where we make "schiffsfuhr"
// of "Schiffsführung"); restemming makes such terms comparable with our
// document vectors. Terms that already are our stems stay as they are.
func Restem(a *Analyzer, v Vector) Vector {
	parts := make(map[string][]float64, len(v.entries))
	var tokens []Token
	for _, e := range v.entries {
		var key string
		if key, tokens = restemTerm(a, e.Term, tokens); key == "" {
			continue
		}
		parts[key] = append(parts[key], e.Weight)
	}
	entries := make([]Entry, 0, len(parts))
	for term, ws := range parts {
		entries = append(entries, Entry{Term: term, Weight: sumSorted(ws)})
	}
	return vectorOf(entries)
}

// referenceLanguages returns the sorted keys of a reference map.
func referenceLanguages(refs map[string]*Reference) []string {
	langs := make([]string, 0, len(refs))
	for l := range refs {
		langs = append(langs, l)
	}
	slices.Sort(langs)
	return langs
}
