package scoring

import (
	"cmp"
	"math"
	"slices"
)

// Relevance feedback (Rocchio 1971; pseudo-relevance feedback, as focused
// crawlers use it): the documents a crawl has collected and scored highest
// tell which words the event's pages use beyond those of the reference
// documents, and the reference vector is moved towards them:
//
//	q' = q/|q| + β · mean(d/|d| : d relevant) − γ · mean(d/|d| : d non-relevant)
//
// with negative weights dropped and q' truncated to the reference vector's
// size (Config.TopN). The relevant documents are the FeedbackConfig.Documents
// collected documents of highest relevance so far (relevance above 0), the
// non-relevant ones (only with γ > 0) as many of the lowest relevance; ties
// go to the earlier document in collection order (FeedbackSet). A
// document's evidence is its own term vector (weighted as for TopicR)
// truncated to its FeedbackTermsPerDocument heaviest terms (DocTerms), in
// the language of the reference it was scored against; a language without
// feedback documents keeps its reference. The normaliser of an enriched
// reference is the mean cosine of the reference documents to q' (as for q),
// so that TopicR stays on the same scale: the event's own descriptions
// score about 1.
//
// What feedback changes is the priority of links, never a document's
// reported scores: Feedback.TopicR scores link texts (anchor, context) and,
// with FeedbackConfig.Parent, the parent's topical term of a link's
// priority; documents.jsonl's topic_r, ttr and relevance stay the cosine to
// the specification's own reference vector, comparable across runs and
// rounds. The state (FeedbackSet) is the chosen documents with their terms,
// a pure function of the collected documents in collection order.

// FeedbackTermsPerDocument is the number of a document's heaviest terms
// kept as its feedback evidence.
const FeedbackTermsPerDocument = DefaultTopN

// FeedbackConfig are the parameters of relevance feedback.
type FeedbackConfig struct {
	// Documents is the number of relevant (and of non-relevant)
	// documents used; 0 turns feedback off.
	Documents int
	// Beta weighs the relevant documents' mean, Gamma the non-relevant
	// ones' (0: none are kept).
	Beta, Gamma float64
	// Parent: the enriched vector also scores the parent's topical
	// relevance in a link's priority (else only the link's texts).
	Parent bool
}

// DocTerms is one document's evidence for feedback: its term vector,
// truncated to its FeedbackTermsPerDocument heaviest terms, each weight
// divided by the truncated vector's norm (sorted by term), in the language
// of the reference it was compared with.
type DocTerms struct {
	Language string  `json:"language"`
	Terms    []Entry `json:"terms"`
}

// DocumentTerms is the feedback evidence of a document's main text in lang
// (analysed as Score analyses it); ok false when there is no reference or
// the text has no weighted terms.
func (s *Scorer) DocumentTerms(text, lang string) (DocTerms, bool) {
	ref := s.reference(lang)
	if ref == nil {
		return DocTerms{}, false
	}
	v := s.documentVector(ref.Language, text).Top(FeedbackTermsPerDocument)
	if v.Norm() == 0 {
		return DocTerms{}, false
	}
	terms := v.Entries()
	for i := range terms {
		terms[i].Weight /= v.Norm()
	}
	return DocTerms{Language: ref.Language, Terms: terms}, true
}

// LabelFeedback is the feedback of a researcher's labels (recrawl extract
// --refresh --labels_file): classic Rocchio, α = 1 (the reference as it is),
// β = 0.75 for the mean of the documents labelled relevant and γ = 0.15
// for those labelled not relevant, the enriched reference also scoring
// the parent's topical term of a link's priority. Documents is unused: a
// label set is given whole (FeedbackSet's Relevant and NonRelevant).
var LabelFeedback = FeedbackConfig{Beta: 0.75, Gamma: 0.15, Parent: true}

// FeedbackDoc is one document of a feedback set.
type FeedbackDoc struct {
	// Seq is the document's position among the documents offered (its
	// collection order); ties of Relevance go to the lower Seq.
	Seq       int      `json:"seq"`
	Relevance float64  `json:"relevance"`
	Terms     DocTerms `json:"terms"`
}

// FeedbackSet is the state of relevance feedback: the relevant documents
// by decreasing relevance and the non-relevant ones by increasing
// relevance (ties: lower Seq first in both).
type FeedbackSet struct {
	Relevant    []FeedbackDoc `json:"relevant,omitempty"`
	NonRelevant []FeedbackDoc `json:"non_relevant,omitempty"`
	// Offered counts the documents offered (the next Seq).
	Offered int `json:"offered"`
}

// Offer considers one collected document of relevance y for the set of a
// feedback with cfg; documents must be offered in collection order. It
// reports whether the set changed.
func (f *FeedbackSet) Offer(cfg FeedbackConfig, y float64, terms DocTerms) bool {
	d := FeedbackDoc{Seq: f.Offered, Relevance: y, Terms: terms}
	f.Offered++
	if cfg.Documents <= 0 || math.IsNaN(y) {
		return false
	}
	changed := false
	if y > 0 {
		f.Relevant, changed = keepBest(f.Relevant, d, cfg.Documents, func(a, b FeedbackDoc) int {
			return cmp.Or(cmp.Compare(b.Relevance, a.Relevance), cmp.Compare(a.Seq, b.Seq))
		})
	}
	if cfg.Gamma > 0 {
		var c bool
		f.NonRelevant, c = keepBest(f.NonRelevant, d, cfg.Documents, func(a, b FeedbackDoc) int {
			return cmp.Or(cmp.Compare(a.Relevance, b.Relevance), cmp.Compare(a.Seq, b.Seq))
		})
		changed = changed || c
	}
	return changed
}

// keepBest inserts d into docs (sorted by order) and keeps the first n.
func keepBest(docs []FeedbackDoc, d FeedbackDoc, n int, order func(a, b FeedbackDoc) int) ([]FeedbackDoc, bool) {
	i, _ := slices.BinarySearchFunc(docs, d, order)
	if i >= n {
		return docs, false
	}
	docs = slices.Insert(docs, i, d)
	if len(docs) > n {
		docs = docs[:n]
	}
	return docs, true
}

// Feedback is a scorer's references enriched by a feedback set.
type Feedback struct {
	s    *Scorer
	cfg  FeedbackConfig
	refs map[string]*Reference
}

// Feedback enriches the scorer's references with set (nil, or a set
// without documents, leaves them as they are). It is safe for concurrent
// use.
func (s *Scorer) Feedback(set *FeedbackSet, cfg FeedbackConfig) *Feedback {
	fb := &Feedback{s: s, cfg: cfg, refs: make(map[string]*Reference, len(s.refs))}
	for lang, ref := range s.refs {
		fb.refs[lang] = ref
		if set == nil {
			continue
		}
		pos, neg := set.vectors(set.Relevant, lang), set.vectors(set.NonRelevant, lang)
		if len(pos) == 0 && len(neg) == 0 || ref.Vector.Norm() == 0 {
			continue
		}
		fb.refs[lang] = s.enrich(ref, pos, neg, cfg)
	}
	return fb
}

// vectors are the term vectors of the documents of docs in lang.
func (f *FeedbackSet) vectors(docs []FeedbackDoc, lang string) [][]Entry {
	var out [][]Entry
	for _, d := range docs {
		if d.Terms.Language == lang {
			out = append(out, d.Terms.Terms)
		}
	}
	return out
}

// enrich is Rocchio's q' of ref (see the top of this file).
func (s *Scorer) enrich(ref *Reference, pos, neg [][]Entry, cfg FeedbackConfig) *Reference {
	parts := map[string][]float64{}
	for _, e := range ref.Vector.entries {
		parts[e.Term] = append(parts[e.Term], e.Weight/ref.Vector.Norm())
	}
	add := func(docs [][]Entry, w float64) {
		if len(docs) == 0 || w == 0 {
			return
		}
		w /= float64(len(docs))
		for _, terms := range docs {
			for _, e := range terms {
				parts[e.Term] = append(parts[e.Term], w*e.Weight)
			}
		}
	}
	add(pos, cfg.Beta)
	add(neg, -cfg.Gamma)
	entries := make([]Entry, 0, len(parts))
	for term, ws := range parts {
		if w := sumSorted(ws); w > 0 {
			entries = append(entries, Entry{Term: term, Weight: w})
		}
	}
	topN := s.topN
	if topN <= 0 {
		topN = DefaultTopN
	}
	r := &Reference{Language: ref.Language, Documents: ref.Documents, Precomputed: ref.Precomputed,
		Vector: vectorOf(entries).Top(topN), Normalizer: ref.Normalizer, docs: ref.docs, normalized: ref.normalized}
	if ref.normalized {
		if m := MeanCosine(r.Vector, ref.docs); m > 0 {
			r.Normalizer = m
		}
	}
	r.lookup = r.Vector.Map()
	return r
}

// Reference is the enriched reference of lang (falling back to the default
// language, as Scorer.Score does; nil if neither has one).
func (f *Feedback) Reference(lang string) *Reference {
	if r, ok := f.refs[f.s.analyzers.For(lang).Language()]; ok {
		return r
	}
	return f.refs[f.s.defLang]
}

// TopicR is the TopicR of a text in lang against the enriched reference.
func (f *Feedback) TopicR(text, lang string) float64 {
	var sc Score
	f.s.topicRTo(&sc, text, f.Reference(lang))
	return sc.TopicR
}

// Config is the feedback's configuration.
func (f *Feedback) Config() FeedbackConfig { return f.cfg }

// LinkTexts is Scorer.LinkTexts against the enriched reference.
func (f *Feedback) LinkTexts(lang string) *LinkTexts {
	t := f.s.LinkTexts(lang)
	t.fb = f
	return t
}
