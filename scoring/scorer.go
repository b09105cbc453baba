package scoring

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"time"
)

// ReferenceText is the main text of one reference document and its
// language ("" for the default language).
type ReferenceText struct {
	Text     string
	Language string
}

// Config is everything a Scorer needs from a collection specification.
type Config struct {
	// DefaultLanguage (ISO 639-1) analyses documents in languages without
	// an analyzer or a reference vector. Required.
	DefaultLanguage string
	// References are the texts of the reference documents.
	References []ReferenceText
	// ReferenceVectors are precomputed reference vectors, language →
	// term → weight (the original specifications' referenceVectors). A
	// language given here uses this vector instead of one built from its
	// reference texts; its texts, if any, still set the normaliser. The
	// terms are restemmed with the language's analyzer (see Restem) and
	// the weights used as given: no keyword boost is applied again.
	ReferenceVectors map[string]map[string]float64
	// Keywords by language; the key "" holds keywords for all languages.
	Keywords map[string][]string
	// Dictionaries are the idf dictionaries by language. A language
	// without one weighs terms by idf 1.
	Dictionaries map[string]*Dictionary
	// TopN is the number of terms of a reference vector; 0 means
	// DefaultTopN.
	TopN int
	// RawCosine turns the normalisation of TopicR off.
	RawCosine bool
	// Time is the temporal scope.
	Time TimeScope
	// Alpha weighs TopicR against TempR in TTR. It is used as given (0
	// is a valid alpha); the specification's default is DefaultAlpha.
	Alpha float64
	// Strategy selects the Priority of a score.
	Strategy Strategy
}

// Scorer computes the relevance of documents to one collection
// specification. It is built once (analysing the reference documents and
// keywords) and is then safe for concurrent use.
type Scorer struct {
	analyzers *Analyzers
	defLang   string
	refs      map[string]*Reference
	keywords  map[string]*Keywords
	dicts     map[string]*Dictionary
	time      TimeScope
	alpha     float64
	strategy  Strategy
	topN      int
	pool      sync.Pool
}

// docScratch is the reusable memory of one Score call.
type docScratch struct {
	tokens []Token
	bag    *Bag
}

// Score is the relevance of one document.
type Score struct {
	TopicR float64 `json:"topicR"`
	TempR  float64 `json:"tempR"`
	TTR    float64 `json:"ttr"`
	// Priority is the relevance under the configured strategy, which the
	// document's outlinks inherit.
	Priority float64 `json:"priority"`
	// Cosine is the raw cosine to the reference vector, before
	// normalisation.
	Cosine float64 `json:"cosine"`
	// Language is the language of the analyzer and reference vector used.
	Language string `json:"language"`
	// Tokens is the number of analysed tokens (stop words removed), Terms
	// the number of distinct unigrams and bigrams, Matched the number of
	// terms shared with the reference vector.
	Tokens  int `json:"tokens"`
	Terms   int `json:"terms"`
	Matched int `json:"matched"`
	// Reason says why a relevance is 0 without having been computed:
	// TopicR for "empty text", "no terms after analysis" and the like,
	// TempR for "no document time"; several are joined by "; ". It is ""
	// when both were computed.
	Reason string `json:"reason,omitempty"`
}

// Reasons for a TopicR of 0 without comparison.
const (
	ReasonEmptyText      = "empty text"
	ReasonNoTerms        = "no terms after analysis"
	ReasonZeroVector     = "all terms have weight 0"
	ReasonEmptyReference = "empty reference vector"
	ReasonNoDocumentTime = "no document time"
	ReasonNoTopicalScope = "no reference vector for the document's language or the default language"
	reasonSeparator      = "; "
)

// NewScorer prepares the scoring of a specification: it builds the
// analyzers, analyses the keywords of every language and builds the
// reference vector of every language that has reference texts or a
// precomputed vector.
func NewScorer(cfg Config) (*Scorer, error) {
	analyzers, err := NewAnalyzers(cfg.DefaultLanguage)
	if err != nil {
		return nil, err
	}
	if math.IsNaN(cfg.Alpha) || cfg.Alpha < 0 || cfg.Alpha > 1 {
		return nil, fmt.Errorf("scoring: alpha %v is not in [0, 1]", cfg.Alpha)
	}
	if cfg.Time.End.Before(cfg.Time.Start) {
		return nil, fmt.Errorf("scoring: event end %v is before its start %v", cfg.Time.End, cfg.Time.Start)
	}
	s := &Scorer{
		analyzers: analyzers,
		defLang:   analyzers.Default().Language(),
		refs:      make(map[string]*Reference),
		keywords:  make(map[string]*Keywords),
		dicts:     make(map[string]*Dictionary),
		time:      cfg.Time,
		alpha:     cfg.Alpha,
		strategy:  cfg.Strategy,
		topN:      cfg.TopN,
	}
	s.pool.New = func() any { return &docScratch{bag: NewBag()} }

	// Dictionaries and keywords are keyed by the analyzer's language, so
	// that "de-DE" and "de" meet.
	for lang, d := range cfg.Dictionaries {
		s.dicts[analyzers.For(lang).Language()] = d
	}
	allKeywords := cfg.Keywords[""]
	keywordsOf := make(map[string][]string)
	for lang, kws := range cfg.Keywords {
		if lang != "" {
			code := analyzers.For(lang).Language()
			keywordsOf[code] = append(keywordsOf[code], kws...)
		}
	}
	for _, code := range Languages() {
		kws := append(append([]string(nil), keywordsOf[code]...), allKeywords...)
		if len(kws) > 0 {
			s.keywords[code] = NewKeywords(analyzers.For(code), kws)
		}
	}

	// Reference texts and precomputed vectors, grouped by the language of
	// their analyzer.
	texts := make(map[string][]string)
	for _, rt := range cfg.References {
		code := analyzers.For(rt.Language).Language()
		texts[code] = append(texts[code], rt.Text)
	}
	precomputed := make(map[string]Vector)
	for lang, weights := range cfg.ReferenceVectors {
		v, err := NewVector(weights)
		if err != nil {
			return nil, fmt.Errorf("scoring: reference vector %q: %w", lang, err)
		}
		code := analyzers.For(lang).Language()
		if _, dup := precomputed[code]; dup {
			return nil, fmt.Errorf("scoring: two reference vectors for language %q", code)
		}
		precomputed[code] = Restem(analyzers.For(code), v)
	}
	for _, code := range Languages() {
		docs := texts[code]
		pre, hasPre := precomputed[code]
		if len(docs) == 0 && !hasPre {
			continue
		}
		vectors := make([]Vector, 0, len(docs))
		for _, text := range docs {
			vectors = append(vectors, s.documentVector(code, text))
		}
		var given *Vector
		if hasPre {
			given = &pre
		}
		s.refs[code] = NewReference(code, vectors, given, cfg.TopN, !cfg.RawCosine)
	}
	if len(s.refs) == 0 {
		return nil, fmt.Errorf("scoring: no reference documents or reference vectors")
	}
	return s, nil
}

// documentVector is the term vector of a text in a supported language,
// for reference documents and explanations.
func (s *Scorer) documentVector(lang, text string) Vector {
	a := s.analyzers.For(lang)
	bag := BagOf(a.Analyze(text))
	return Weigh(bag, s.dicts[a.Language()], s.keywords[a.Language()])
}

// reference returns the reference of lang, falling back to the default
// language; nil if neither has one.
func (s *Scorer) reference(lang string) *Reference {
	if r, ok := s.refs[s.analyzers.For(lang).Language()]; ok {
		return r
	}
	return s.refs[s.defLang]
}

// References returns the references by language, sorted by language.
func (s *Scorer) References() []*Reference {
	out := make([]*Reference, 0, len(s.refs))
	for _, l := range referenceLanguages(s.refs) {
		out = append(out, s.refs[l])
	}
	return out
}

// Alpha returns the configured alpha.
func (s *Scorer) Alpha() float64 { return s.alpha }

// Strategy returns the configured strategy.
func (s *Scorer) Strategy() Strategy { return s.strategy }

// TimeScope returns the configured temporal scope.
func (s *Scorer) TimeScope() TimeScope { return s.time }

// Score computes the relevance of a document from its main text, its
// language (ISO 639-1 or a tag; "" when unknown) and its time (publication
// date, else capture time). A document in a language without a reference
// vector is analysed and compared as the default language. A zero docTime
// (no time at all) gives TempR 0.
func (s *Scorer) Score(text, lang string, docTime time.Time) Score {
	var sc Score
	if docTime.IsZero() {
		sc.Reason = ReasonNoDocumentTime
	} else {
		sc.TempR = s.time.TempR(docTime)
	}
	s.topicR(&sc, text, lang)
	sc.TTR = TTR(s.alpha, sc.TopicR, sc.TempR)
	sc.Priority = Priority(s.strategy, sc.TopicR, sc.TempR, s.alpha)
	return sc
}

// topicR fills the topical part of sc.
func (s *Scorer) topicR(sc *Score, text, lang string) {
	s.topicRTo(sc, text, s.reference(lang))
}

// topicRTo fills the topical part of sc against ref (a reference of the
// scorer, or one enriched by feedback; nil: none).
func (s *Scorer) topicRTo(sc *Score, text string, ref *Reference) {
	if ref == nil {
		sc.addReason(ReasonNoTopicalScope)
		return
	}
	sc.Language = ref.Language
	if strings.TrimSpace(text) == "" {
		sc.addReason(ReasonEmptyText)
		return
	}
	if ref.Vector.Norm() == 0 {
		sc.addReason(ReasonEmptyReference)
		return
	}
	a := s.analyzers.For(ref.Language)
	ds := s.pool.Get().(*docScratch)
	defer s.pool.Put(ds)
	ds.tokens = a.AppendTokens(ds.tokens[:0], text)
	ds.bag.Reset()
	ds.bag.AddTokens(ds.tokens)
	sc.Tokens, sc.Terms = ds.bag.Tokens(), ds.bag.Len()
	if sc.Terms == 0 {
		sc.addReason(ReasonNoTerms)
		return
	}
	dict, kw := s.dicts[ref.Language], s.keywords[ref.Language]
	var dot, norm2 float64
	for i, term := range ds.bag.terms {
		w := TermWeight(ds.bag.counts[i], dict.IDF(term), kw.Boost(term))
		norm2 += w * w
		if rw, ok := ref.lookup[term]; ok {
			dot += rw * w
			sc.Matched++
		}
	}
	if norm2 == 0 {
		sc.addReason(ReasonZeroVector)
		return
	}
	sc.Cosine = dot / (ref.Vector.Norm() * math.Sqrt(norm2))
	sc.TopicR = TopicR(sc.Cosine, ref.Normalizer)
}

func (sc *Score) addReason(r string) {
	if sc.Reason == "" {
		sc.Reason = r
	} else {
		sc.Reason += reasonSeparator + r
	}
}
