package scoring

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/arabic"
	"github.com/blevesearch/snowballstem/danish"
	"github.com/blevesearch/snowballstem/dutch"
	"github.com/blevesearch/snowballstem/english"
	"github.com/blevesearch/snowballstem/finnish"
	"github.com/blevesearch/snowballstem/french"
	"github.com/blevesearch/snowballstem/german"
	"github.com/blevesearch/snowballstem/hungarian"
	"github.com/blevesearch/snowballstem/irish"
	"github.com/blevesearch/snowballstem/italian"
	"github.com/blevesearch/snowballstem/norwegian"
	"github.com/blevesearch/snowballstem/portuguese"
	"github.com/blevesearch/snowballstem/romanian"
	"github.com/blevesearch/snowballstem/russian"
	"github.com/blevesearch/snowballstem/spanish"
	"github.com/blevesearch/snowballstem/swedish"
	"github.com/blevesearch/snowballstem/tamil"
	"github.com/blevesearch/snowballstem/turkish"
	"golang.org/x/text/unicode/norm"

	"github.com/recrawl/recrawl/scoring/stopwords"
)

// Token is one analysed word of a text: its stem and its position. Every
// word of the text takes a position, including stop words and words too
// short or too long to be terms, and a clause or line break takes one more;
// two tokens are adjacent, and form a bigram, when their positions differ
// by exactly one.
type Token struct {
	Term string
	Pos  int32
}

// Word length limits, in runes. Shorter words (single letters and digits)
// and longer ones (URLs, base64, glued-together navigation) are dropped like
// stop words.
const (
	minWordRunes = 2
	maxWordRunes = 64
)

// apostropheRule says what a language does with an apostrophe between two
// letters.
type apostropheRule uint8

const (
	// apostropheCut keeps the part before the apostrophe: German "geht's",
	// Dutch "auto's", Turkish "Türkiye'nin" (proper noun + case suffix).
	apostropheCut apostropheRule = iota
	// apostropheStem keeps the word whole: the English stemmer removes the
	// possessive "'s" itself, and "don't" is on the stop list.
	apostropheStem
	// apostropheElide drops an elided article or preposition before the
	// apostrophe (French "l'élection", Italian "dell'anno", Irish "d'fhág")
	// and keeps other words whole ("aujourd'hui").
	apostropheElide
)

type language struct {
	name     string
	stem     func(*snowballstem.Env) bool
	rule     apostropheRule
	elisions []string
}

// languages are all languages the Snowball project has a stemmer for in
// github.com/blevesearch/snowballstem (except its legacy "porter" English),
// keyed by ISO 639-1 code.
var languages = map[string]language{
	"ar": {name: "Arabic", stem: arabic.Stem},
	"da": {name: "Danish", stem: danish.Stem},
	"de": {name: "German", stem: german.Stem},
	"en": {name: "English", stem: english.Stem, rule: apostropheStem},
	"es": {name: "Spanish", stem: spanish.Stem},
	"fi": {name: "Finnish", stem: finnish.Stem},
	"fr": {name: "French", stem: french.Stem, rule: apostropheElide,
		elisions: []string{"c", "d", "j", "l", "m", "n", "qu", "s", "t", "jusqu", "lorsqu", "puisqu", "quoiqu"}},
	"ga": {name: "Irish", stem: irish.Stem, rule: apostropheElide,
		elisions: []string{"b", "d", "m"}},
	"hu": {name: "Hungarian", stem: hungarian.Stem},
	"it": {name: "Italian", stem: italian.Stem, rule: apostropheElide,
		elisions: []string{"c", "d", "l", "m", "n", "s", "t", "v", "un", "all", "dall", "dell", "nell", "sull", "coll", "pell", "quell", "quest", "tutt", "sant"}},
	"nl": {name: "Dutch", stem: dutch.Stem},
	"no": {name: "Norwegian", stem: norwegian.Stem},
	"pt": {name: "Portuguese", stem: portuguese.Stem},
	"ro": {name: "Romanian", stem: romanian.Stem},
	"ru": {name: "Russian", stem: russian.Stem},
	"sv": {name: "Swedish", stem: swedish.Stem},
	"ta": {name: "Tamil", stem: tamil.Stem},
	"tr": {name: "Turkish", stem: turkish.Stem},
}

// languageAliases maps codes that share an analyzer with another.
var languageAliases = map[string]string{"nb": "no", "nn": "no"}

// Languages returns the ISO 639-1 codes the analyzers support, sorted.
func Languages() []string {
	codes := make([]string, 0, len(languages))
	for code := range languages {
		codes = append(codes, code)
	}
	sort.Strings(codes)
	return codes
}

// NormalizeLanguage reduces a language tag to the ISO 639-1 code of its
// analyzer: "de-DE" and "de_AT" become "de", "nb" becomes "no". It returns
// the lower-cased primary subtag when no analyzer supports it.
func NormalizeLanguage(tag string) string {
	code := strings.ToLower(strings.TrimSpace(tag))
	if i := strings.IndexAny(code, "-_"); i >= 0 {
		code = code[:i]
	}
	if alias, ok := languageAliases[code]; ok {
		return alias
	}
	return code
}

// Analyzer turns the text of one language into stemmed tokens: Unicode
// word tokenization, lower-casing, stop-word removal and Snowball stemming
// (and umlaut folding for German). It is safe for concurrent use.
type Analyzer struct {
	lang     string
	def      language
	stop     map[string]struct{}
	elisions map[string]struct{}
	turkish  bool // Turkish lower case: I→ı, İ→i
	fold     bool // German: ä→a, ö→o, ü→u, ß→ss after stemming
	pool     sync.Pool
}

// stemCacheSize bounds the per-goroutine cache of word → stem. Word
// frequencies are Zipfian, so a few ten thousand entries catch most words.
const stemCacheSize = 1 << 15

// scratch is the reusable state of one analysis: the Snowball environment,
// the word being built and a cache of stems. Scratches live in the
// Analyzer's pool, one per concurrent caller.
type scratch struct {
	env   *snowballstem.Env
	word  []byte
	cache map[string]string
}

// NewAnalyzer returns the analyzer of a language (an ISO 639-1 code or a
// tag NormalizeLanguage reduces to one).
func NewAnalyzer(lang string) (*Analyzer, error) {
	code := NormalizeLanguage(lang)
	def, ok := languages[code]
	if !ok {
		return nil, fmt.Errorf("scoring: no analyzer for language %q (supported: %s)", lang, strings.Join(Languages(), ", "))
	}
	stop, err := stopwords.Load(code)
	if err != nil {
		return nil, fmt.Errorf("scoring: analyzer %s: %w", code, err)
	}
	a := &Analyzer{
		lang:    code,
		def:     def,
		stop:    stop,
		turkish: code == "tr",
		fold:    code == "de",
	}
	if len(def.elisions) > 0 {
		a.elisions = make(map[string]struct{}, len(def.elisions))
		for _, e := range def.elisions {
			a.elisions[e] = struct{}{}
		}
	}
	a.pool.New = func() any {
		return &scratch{
			env:   snowballstem.NewEnv(""),
			word:  make([]byte, 0, 64),
			cache: make(map[string]string, 1024),
		}
	}
	return a, nil
}

// Language returns the ISO 639-1 code of the analyzer.
func (a *Analyzer) Language() string { return a.lang }

// IsStopWord reports whether the lower-cased word is on the language's
// stop list.
func (a *Analyzer) IsStopWord(word string) bool {
	_, ok := a.stop[word]
	return ok
}

// Analyze returns the tokens of text.
func (a *Analyzer) Analyze(text string) []Token {
	return a.AppendTokens(nil, text)
}

// AppendTokens appends the tokens of text to dst and returns the result.
// Positions start at zero for every text.
func (a *Analyzer) AppendTokens(dst []Token, text string) []Token {
	sc := a.pool.Get().(*scratch)
	defer a.pool.Put(sc)
	var pos int32  // position of the next word
	broken := true // a break was seen since the last word
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		switch {
		case isWordRune(r):
			end := a.readWord(sc, text, i)
			if term, ok := a.term(sc); ok {
				dst = append(dst, Token{Term: term, Pos: pos})
			}
			pos++
			broken = false
			i = end
			continue
		case isBreak(r):
			if !broken {
				pos++
				broken = true
			}
		}
		i += size
	}
	return dst
}

// readWord reads the word starting at text[start] into sc.word, lower-cased
// and with typographic apostrophes made ASCII, and returns the offset after
// it. A word is a run of letters, digits and combining marks; it also
// continues over an apostrophe between two letters, over '.' or ','
// between two digits ("3.5", "1,000"), and over soft hyphens (dropped). A
// hyphen ends a word without breaking adjacency, so "Baden-Württemberg"
// yields two adjacent tokens and hence the bigram.
func (a *Analyzer) readWord(sc *scratch, text string, start int) int {
	w := sc.word[:0]
	hasMark := false
	var prev rune
	i := start
	for i < len(text) {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		switch {
		case isWordRune(r):
			if r >= utf8.RuneSelf && (unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r)) {
				hasMark = true
			}
			w = appendLower(w, r, a.turkish)
		case r == '\u00ad' || r == '\u200c' || r == '\u200d':
			// Soft hyphen: invisible, inside the word. Zero-width
			// (non-)joiner: spelling of some scripts, keep.
			if r != '\u00ad' {
				w = utf8.AppendRune(w, r)
			}
		case isApostrophe(r) && unicode.IsLetter(prev) && unicode.IsLetter(nextRune(text, i+size)):
			w = append(w, '\'')
		case (r == '.' || r == ',') && unicode.IsDigit(prev) && unicode.IsDigit(nextRune(text, i+size)):
			w = append(w, byte(r))
		default:
			sc.word = w
			if hasMark {
				sc.word = norm.NFC.Bytes(w)
			}
			return i
		}
		prev = r
		i += size
	}
	sc.word = w
	if hasMark {
		sc.word = norm.NFC.Bytes(w)
	}
	return i
}

// term turns the word in sc.word into a term: apostrophe rule, length
// limits, stop list, stemming, folding. It reports false for a word that is
// not a term.
func (a *Analyzer) term(sc *scratch) (string, bool) {
	w := sc.word
	if i := indexByte(w, '\''); i >= 0 {
		switch a.def.rule {
		case apostropheCut:
			w = w[:i]
		case apostropheElide:
			if _, ok := a.elisions[string(w[:i])]; ok {
				w = w[i+1:]
			}
		}
	}
	if n := utf8.RuneCount(w); n < minWordRunes || n > maxWordRunes {
		return "", false
	}
	if _, ok := a.stop[string(w)]; ok {
		return "", false
	}
	if stem, ok := sc.cache[string(w)]; ok {
		return stem, true
	}
	word := string(w)
	stem := word
	if !isNumber(w) {
		sc.env.SetCurrent(word)
		a.def.stem(sc.env)
		stem = sc.env.Current()
		if a.fold {
			stem = foldGerman(stem)
		}
	}
	if len(sc.cache) >= stemCacheSize {
		clear(sc.cache)
	}
	sc.cache[word] = stem
	return stem, true
}

// foldGerman replaces umlauts and ß as the original system did (ä→a, ö→o,
// ü→u, ß→ss). The German Snowball stemmer already ends with this folding
// for the vowels and starts with ß→ss, so on its output this is a guarantee
// rather than a change.
func foldGerman(s string) string {
	if !strings.ContainsAny(s, "äöüß") {
		return s
	}
	return germanFolder.Replace(s)
}

var germanFolder = strings.NewReplacer("ä", "a", "ö", "o", "ü", "u", "ß", "ss")

func appendLower(w []byte, r rune, turkish bool) []byte {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			if turkish && r == 'I' {
				return utf8.AppendRune(w, 'ı')
			}
			r += 'a' - 'A'
		}
		return append(w, byte(r))
	}
	if turkish {
		return utf8.AppendRune(w, unicode.TurkishCase.ToLower(r))
	}
	return utf8.AppendRune(w, unicode.ToLower(r))
}

// isWordRune reports whether r is part of a word: a letter, a decimal digit
// or a combining mark.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r)
}

// isBreak reports whether r ends a clause, so that the words on either
// side are not adjacent: sentence terminators, commas, semicolons, colons,
// vertical bars and line breaks.
func isBreak(r rune) bool {
	switch r {
	case ',', ';', ':', '|', '\n', '\r', '\u2028', '\u2029', '\u3001', '\uff0c', '\uff1b', '\uff1a', '\u060c', '\u061b':
		return true
	}
	return unicode.Is(unicode.Sentence_Terminal, r)
}

func isApostrophe(r rune) bool {
	return r == '\'' || r == '\u2019' || r == '\u02bc'
}

func nextRune(text string, i int) rune {
	if i >= len(text) {
		return utf8.RuneError
	}
	r, _ := utf8.DecodeRuneInString(text[i:])
	return r
}

func isNumber(w []byte) bool {
	for _, c := range w {
		if (c < '0' || c > '9') && c != '.' && c != ',' {
			return false
		}
	}
	return true
}

func indexByte(w []byte, c byte) int {
	for i, b := range w {
		if b == c {
			return i
		}
	}
	return -1
}

// Analyzers holds the analyzer of every supported language and the
// fallback for all others: a document in a language without an analyzer
// (or with none detected) is analysed as the specification's default
// language.
type Analyzers struct {
	byLang map[string]*Analyzer
	def    *Analyzer
}

// NewAnalyzers builds the analyzers of all supported languages, with the
// analyzer of defaultLang as the fallback.
func NewAnalyzers(defaultLang string) (*Analyzers, error) {
	as := &Analyzers{byLang: make(map[string]*Analyzer, len(languages))}
	for _, code := range Languages() {
		a, err := NewAnalyzer(code)
		if err != nil {
			return nil, err
		}
		as.byLang[code] = a
	}
	def, ok := as.byLang[NormalizeLanguage(defaultLang)]
	if !ok {
		return nil, fmt.Errorf("scoring: default language %q has no analyzer (supported: %s)", defaultLang, strings.Join(Languages(), ", "))
	}
	as.def = def
	return as, nil
}

// For returns the analyzer of lang, or the default analyzer when lang is
// empty or unsupported.
func (as *Analyzers) For(lang string) *Analyzer {
	if a, ok := as.byLang[NormalizeLanguage(lang)]; ok {
		return a
	}
	return as.def
}

// Default returns the fallback analyzer.
func (as *Analyzers) Default() *Analyzer { return as.def }
