package archivegen

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sentence templates. Slots: {S} subject, {O} object (German: accusative),
// {O2} a second object, {E} entity, {P} place (German: dative), {V}/{V2} verb
// past (German: participle), {B} verb base (German: infinitive), {A}
// adjective, {W} time adverb, {C} connector, {N} number, {Y} year.
var sentenceTemplates = [2][]string{
	langEN: {
		"{S} {V} {O} {W}.",
		"{C} {S} {V} {O}.",
		"According to {E}, {S} {V} {O} in {P}.",
		"{E} said that {S} {V} {O} {W}.",
		"\"{S} is {A},\" {E} told reporters in {P}.",
		"In {P}, {S} {V} {O} after {O2} {V2} {O}.",
		"{S} {V} {O}, while {E} {V2} {O2}.",
		"It is {A} whether {S} will {B} {O}.",
		"{S} was {A} {W}, {E} said.",
		"More than {N} people {V} {O} {W}.",
		"{E} {V} {O} and {V2} {O2}.",
		"Critics say {S} should {B} {O} before {O2} is {A}.",
		"The debate about {O} remains {A}.",
		"{S} {V} {O} for the first time since {Y}.",
		"{C} {E} {V} {O} in {P} {W}.",
		"Many observers expect {S} to {B} {O}.",
		"{S} {V} {O2}, which had been {A} for months.",
	},
	langDE: {
		"{S} hat {O} {W} {V}.",
		"{C} hat {S} {O} {V}.",
		"{E} sagte, {S} habe {O} in {P} {V}.",
		"\"{S} ist {A}\", sagte {E} in {P}.",
		"In {P} hat {S} {O} {V}, nachdem {O2} {A} war.",
		"{S} hat {O} {V}, während {E} {O2} {V2} hat.",
		"Es ist {A}, ob {S} {O} {B} wird.",
		"{S} war {W} {A}, sagte {E}.",
		"Mehr als {N} Menschen haben {O} {W} {V}.",
		"{E} hat {O} {V} und {O2} {V2}.",
		"Kritiker sagen, {S} müsse {O} {B}, bevor {O2} {A} ist.",
		"Die Debatte über {O} bleibt {A}.",
		"{S} hat {O} zum ersten Mal seit {Y} {V}.",
		"{C} hat {E} {O} in {P} {V}.",
		"Viele Beobachter erwarten, dass {S} {O} {B} wird.",
		"{S} will {O} {W} {B}.",
		"{S} gilt als {A}.",
	},
}

var connectors = [2][]string{
	wordList("However,|Meanwhile,|At the same time,|In addition,|Nevertheless,|As expected,|On the other hand,|Earlier,|Later,|By contrast,"),
	wordList("Allerdings|Unterdessen|Gleichzeitig|Zudem|Dennoch|Wie erwartet|Andererseits|Zuvor|Später|Inzwischen"),
}

// template token kinds
const (
	tokLit = iota
	tokS
	tokO
	tokO2
	tokE
	tokP
	tokV
	tokV2
	tokB
	tokA
	tokW
	tokC
	tokN
	tokY
)

type token struct {
	kind int
	lit  string
}

var parsedTemplates [2][][]token

func init() {
	slots := map[string]int{"S": tokS, "O": tokO, "O2": tokO2, "E": tokE, "P": tokP, "V": tokV, "V2": tokV2, "B": tokB, "A": tokA, "W": tokW, "C": tokC, "N": tokN, "Y": tokY}
	for l := range 2 {
		for _, t := range sentenceTemplates[l] {
			var toks []token
			for t != "" {
				i := strings.IndexByte(t, '{')
				if i < 0 {
					toks = append(toks, token{tokLit, t})
					break
				}
				if i > 0 {
					toks = append(toks, token{tokLit, t[:i]})
				}
				j := strings.IndexByte(t, '}')
				k, ok := slots[t[i+1:j]]
				if !ok {
					panic("archivegen: unknown template slot " + t[i:j+1])
				}
				toks = append(toks, token{kind: k})
				t = t[j+1:]
			}
			parsedTemplates[l] = append(parsedTemplates[l], toks)
		}
	}
}

// textGen writes sentences that mix a topic vocabulary with the generic one.
type textGen struct {
	r       rng
	lang    int
	topic   *vocab
	generic *vocab
	pTopic  float64 // probability that a slot takes a topic word
	words   int     // words written so far
}

func (w *world) newTextGen(a *article, stream uint64) *textGen {
	return &textGen{r: newRNG(w.seed, stream, uint64(a.id)), lang: a.lang, topic: a.main.v[a.lang], generic: w.generic[a.lang], pTopic: 0.42}
}

// accusative turns a German nominative noun phrase into the accusative (only
// the masculine article changes).
func accusative(np string) string {
	switch {
	case strings.HasPrefix(np, "der "):
		return "den " + np[4:]
	case strings.HasPrefix(np, "ein "):
		return "einen " + np[4:]
	}
	return np
}

// dative turns a German place noun phrase into the dative.
func dative(np string) string {
	switch {
	case strings.HasPrefix(np, "der "), strings.HasPrefix(np, "das "):
		return "dem " + np[4:]
	case strings.HasPrefix(np, "die "):
		return "der " + np[4:]
	}
	return np
}

func (g *textGen) fromTopic() bool { return g.r.float() < g.pTopic }

func (g *textGen) noun() string {
	if g.fromTopic() && len(g.topic.nouns) > 0 {
		return pick(&g.r, g.topic.nouns)
	}
	return pick(&g.r, g.generic.nouns)
}

func (g *textGen) entity() string {
	if g.r.float() < g.pTopic+0.2 && len(g.topic.entities) > 0 {
		return pick(&g.r, g.topic.entities)
	}
	return pick(&g.r, g.generic.entities)
}

func (g *textGen) subject() string {
	if g.r.chance(0.3) {
		return g.entity()
	}
	return g.noun()
}

func (g *textGen) object() string {
	o := g.noun()
	if g.lang == langDE {
		o = accusative(o)
	}
	return o
}

func (g *textGen) place() string {
	var p string
	if g.fromTopic() && len(g.topic.places) > 0 {
		p = pick(&g.r, g.topic.places)
	} else {
		p = pick(&g.r, g.generic.places)
	}
	if g.lang == langDE {
		p = dative(p)
	}
	return p
}

func (g *textGen) verb() verb {
	if g.fromTopic() && len(g.topic.verbs) > 0 {
		return pick(&g.r, g.topic.verbs)
	}
	return pick(&g.r, g.generic.verbs)
}

func (g *textGen) adj() string {
	if g.fromTopic() && len(g.topic.adjs) > 0 {
		return pick(&g.r, g.topic.adjs)
	}
	return pick(&g.r, g.generic.adjs)
}

// sentence appends one sentence.
func (g *textGen) sentence(dst []byte) []byte {
	toks := parsedTemplates[g.lang][g.r.intn(len(parsedTemplates[g.lang]))]
	start := len(dst)
	for _, t := range toks {
		switch t.kind {
		case tokLit:
			dst = append(dst, t.lit...)
		case tokS:
			dst = append(dst, g.subject()...)
		case tokO, tokO2:
			dst = append(dst, g.object()...)
		case tokE:
			dst = append(dst, g.entity()...)
		case tokP:
			dst = append(dst, g.place()...)
		case tokV, tokV2:
			dst = append(dst, g.verb().past...)
		case tokB:
			dst = append(dst, g.verb().base...)
		case tokA:
			dst = append(dst, g.adj()...)
		case tokW:
			dst = append(dst, pick(&g.r, g.generic.keywords)...)
		case tokC:
			dst = append(dst, pick(&g.r, connectors[g.lang])...)
		case tokN:
			dst = strconv.AppendInt(dst, int64(g.r.between(2, 5000)), 10)
		case tokY:
			dst = strconv.AppendInt(dst, int64(g.r.between(1990, 2006)), 10)
		}
	}
	capitalizeAt(dst, start)
	g.words += countWords(dst[start:])
	return dst
}

// capitalizeAt upper-cases the first letter at or after dst[i] (skipping a
// quote), in place when the upper-case form has the same length.
func capitalizeAt(dst []byte, i int) {
	for i < len(dst) && (dst[i] == '"' || dst[i] == ' ') {
		i++
	}
	if i >= len(dst) {
		return
	}
	if c := dst[i]; c >= 'a' && c <= 'z' {
		dst[i] = c - 32
		return
	}
	r, n := utf8.DecodeRune(dst[i:])
	if u := unicode.ToUpper(r); u != r && utf8.RuneLen(u) == n {
		utf8.EncodeRune(dst[i:], u)
	}
}

func countWords(b []byte) int {
	n := 0
	in := false
	for _, c := range b {
		if c == ' ' {
			in = false
		} else if !in {
			in = true
			n++
		}
	}
	return n
}

// capitalize returns s with its first letter upper-cased.
func capitalize(s string) string {
	b := []byte(s)
	capitalizeAt(b, 0)
	return string(b)
}

// stripArticle removes a leading article ("the ashes" → "ashes").
func stripArticle(np string) string {
	for _, a := range []string{"the ", "der ", "die ", "das ", "den ", "ein ", "eine "} {
		if strings.HasPrefix(np, a) {
			return np[len(a):]
		}
	}
	return np
}

func (g *textGen) keyword() string {
	if len(g.topic.keywords) > 0 && g.r.chance(0.8) {
		return pick(&g.r, g.topic.keywords)
	}
	return stripArticle(pick(&g.r, g.topic.nouns))
}

// title makes a headline.
func (g *textGen) title() string {
	p := g.pTopic
	g.pTopic = 0.8
	defer func() { g.pTopic = p }()
	var s string
	if g.lang == langEN {
		switch g.r.intn(6) {
		case 0:
			s = capitalize(g.keyword()) + ": " + g.entity() + " " + g.verb().past + " " + g.noun()
		case 1:
			s = capitalize(g.subject()) + " " + g.verb().past + " " + g.noun() + " in " + g.place()
		case 2:
			s = "Why " + g.noun() + " is " + g.adj()
		case 3:
			s = capitalize(g.keyword()) + " – " + g.adj() + " " + stripArticle(g.noun())
		case 4:
			s = capitalize(g.entity()) + " " + g.verb().past + " " + g.noun()
		default:
			s = capitalize(stripArticle(g.noun())) + ": " + g.subject() + " " + g.verb().past + " " + g.noun()
		}
	} else {
		switch g.r.intn(6) {
		case 0:
			s = capitalize(g.keyword()) + ": " + g.entity() + " hat " + g.object() + " " + g.verb().past
		case 1:
			s = capitalize(g.subject()) + " ist " + g.adj()
		case 2:
			s = "Warum " + g.noun() + " " + g.adj() + " ist"
		case 3:
			s = capitalize(g.keyword()) + " - " + capitalize(stripArticle(g.noun())) + " " + g.adj()
		case 4:
			s = capitalize(g.entity()) + " hat " + g.object() + " " + g.verb().past
		default:
			s = capitalize(stripArticle(g.noun())) + ": " + capitalize(g.subject()) + " will " + g.object() + " " + g.verb().base
		}
	}
	return s
}

// wikiTitle makes an encyclopedia-style title.
func (g *textGen) wikiTitle() string {
	k := capitalize(g.keyword())
	switch g.r.intn(3) {
	case 0:
		return k
	case 1:
		return k + " (" + capitalize(stripArticle(pick(&g.r, g.topic.nouns))) + ")"
	default:
		return capitalize(stripArticle(pick(&g.r, g.topic.nouns))) + " " + strconv.Itoa(g.r.between(2006, 2012))
	}
}

// mentionSentence explicitly names an event in a text about something else.
func mentionSentence(dst []byte, lang int, e *Event, r *rng) []byte {
	name := e.Names[lang]
	if lang == langEN {
		switch r.intn(4) {
		case 0:
			dst = append(dst, "Observers compare the situation with "...)
			dst = append(dst, name...)
			dst = append(dst, '.')
		case 1:
			dst = append(dst, "This comes only weeks after "...)
			dst = append(dst, name...)
			dst = append(dst, '.')
		case 2:
			start := len(dst)
			dst = append(dst, name...)
			capitalizeAt(dst, start)
			dst = append(dst, " is still on many minds."...)
		default:
			dst = append(dst, "The effects of "...)
			dst = append(dst, name...)
			dst = append(dst, " are still being felt."...)
		}
		return dst
	}
	switch r.intn(3) {
	case 0:
		dst = append(dst, "Beobachter vergleichen die Lage mit "...)
		dst = append(dst, dative(name)...)
		dst = append(dst, '.')
	case 1:
		dst = append(dst, "Das geschieht nur wenige Wochen nach "...)
		dst = append(dst, dative(name)...)
		dst = append(dst, '.')
	default:
		dst = append(dst, "Auch "...)
		dst = append(dst, name...)
		dst = append(dst, " beschäftigt die Menschen weiterhin."...)
	}
	return dst
}
