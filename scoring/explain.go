package scoring

import "slices"

// ExplainTerms is the number of terms an explanation lists by default.
const ExplainTerms = 20

// TermContribution is one term's share of the cosine of a document to the
// reference vector.
type TermContribution struct {
	Term string `json:"term"`
	// Reference and Document are the term's weights in the two vectors.
	Reference float64 `json:"reference"`
	Document  float64 `json:"document"`
	// Contribution is Reference · Document / (|reference| · |document|);
	// the contributions of all shared terms add up to the cosine.
	Contribution float64 `json:"contribution"`
}

// Explanation says why a document got its TopicR: the terms that
// contribute most to its cosine to the reference vector. Its fields are in
// a fixed order and its terms sorted, so it marshals to the same JSON on
// every run.
type Explanation struct {
	Language      string             `json:"language"`
	TopicR        float64            `json:"topicR"`
	Cosine        float64            `json:"cosine"`
	Normalizer    float64            `json:"normalizer"`
	ReferenceNorm float64            `json:"referenceNorm"`
	DocumentNorm  float64            `json:"documentNorm"`
	Matched       int                `json:"matched"`
	Reason        string             `json:"reason,omitempty"`
	Terms         []TermContribution `json:"terms"`
}

// Explain returns the n terms (n <= 0: ExplainTerms) contributing most to
// the TopicR of a document, with the same TopicR, cosine and reason as
// Score.
func (s *Scorer) Explain(text, lang string, n int) Explanation {
	var sc Score
	s.topicR(&sc, text, lang)
	e := Explanation{
		Language: sc.Language,
		TopicR:   sc.TopicR,
		Cosine:   sc.Cosine,
		Matched:  sc.Matched,
		Reason:   sc.Reason,
		Terms:    []TermContribution{},
	}
	ref := s.reference(lang)
	if ref == nil {
		return e
	}
	e.Normalizer = ref.Normalizer
	e.ReferenceNorm = ref.Vector.Norm()
	if sc.Reason != "" {
		return e
	}
	doc := s.documentVector(ref.Language, text)
	e.DocumentNorm = doc.Norm()
	e.Terms = Contributions(ref.Vector, doc, n)
	return e
}

// Contributions returns the n shared terms (n <= 0: ExplainTerms) of ref
// and doc with the largest contribution to their cosine, by decreasing
// contribution, ties by term.
func Contributions(ref, doc Vector, n int) []TermContribution {
	if n <= 0 {
		n = ExplainTerms
	}
	out := []TermContribution{}
	if ref.norm == 0 || doc.norm == 0 {
		return out
	}
	norms := ref.norm * doc.norm
	i, j := 0, 0
	for i < len(ref.entries) && j < len(doc.entries) {
		r, d := ref.entries[i], doc.entries[j]
		switch {
		case r.Term < d.Term:
			i++
		case r.Term > d.Term:
			j++
		default:
			out = append(out, TermContribution{Term: r.Term, Reference: r.Weight, Document: d.Weight, Contribution: r.Weight * d.Weight / norms})
			i++
			j++
		}
	}
	slices.SortFunc(out, func(a, b TermContribution) int {
		switch {
		case a.Contribution > b.Contribution:
			return -1
		case a.Contribution < b.Contribution:
			return 1
		case a.Term < b.Term:
			return -1
		case a.Term > b.Term:
			return 1
		}
		return 0
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}
