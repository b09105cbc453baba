package scoring

import (
	"slices"
	"strings"
)

// Keyword boosts: the term weight tw_t of the paper for a term that fully
// matches a keyword, partially overlaps one, or neither.
const (
	FullMatchBoost    = 2.0
	PartialMatchBoost = 1.5
	NoMatchBoost      = 1.0
)

// Keywords is the set of keywords of one language, analysed with that
// language's analyzer, for the keyword boost of term weights.
//
// A keyword is analysed like a text. A term fully matches it when the term
// is the keyword's own longest term: the keyword's bigrams if it has two or
// more adjacent tokens (so "Costa Concordia" fully matches the bigram
// "costa concordia", and each bigram of a longer keyword is a full match,
// since no term is longer than a bigram), else its unigrams ("Schrott"
// fully matches "schrott"). A term partially overlaps a keyword when one of
// its tokens is a token of the keyword ("costa" alone, or "costa reederei").
type Keywords struct {
	full   map[string]struct{}
	tokens map[string]struct{}
}

// NewKeywords analyses keywords with a.
func NewKeywords(a *Analyzer, keywords []string) *Keywords {
	k := &Keywords{full: make(map[string]struct{}), tokens: make(map[string]struct{})}
	var tokens []Token
	for _, kw := range keywords {
		tokens = a.AppendTokens(tokens[:0], kw)
		bigrams := 0
		for i, t := range tokens {
			k.tokens[t.Term] = struct{}{}
			if i > 0 && tokens[i-1].Pos+1 == t.Pos {
				k.full[tokens[i-1].Term+" "+t.Term] = struct{}{}
				bigrams++
			}
		}
		if bigrams == 0 {
			for _, t := range tokens {
				k.full[t.Term] = struct{}{}
			}
		}
	}
	return k
}

// Boost returns the keyword boost of a term: FullMatchBoost,
// PartialMatchBoost or NoMatchBoost. A nil Keywords boosts nothing.
func (k *Keywords) Boost(term string) float64 {
	if k == nil || len(k.tokens) == 0 {
		return NoMatchBoost
	}
	if _, ok := k.full[term]; ok {
		return FullMatchBoost
	}
	first, second, isBigram := strings.Cut(term, " ")
	if _, ok := k.tokens[first]; ok {
		return PartialMatchBoost
	}
	if isBigram {
		if _, ok := k.tokens[second]; ok {
			return PartialMatchBoost
		}
	}
	return NoMatchBoost
}

// Len returns the number of distinct keyword tokens.
func (k *Keywords) Len() int {
	if k == nil {
		return 0
	}
	return len(k.tokens)
}

// FullTerms returns the terms that fully match a keyword, sorted.
func (k *Keywords) FullTerms() []string {
	if k == nil {
		return nil
	}
	terms := make([]string, 0, len(k.full))
	for t := range k.full {
		terms = append(terms, t)
	}
	slices.Sort(terms)
	return terms
}
