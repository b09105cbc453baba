package document

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/abadojack/whatlanggo"
)

// Values of Document.LanguageSource.
const (
	LanguageFromText    = "text"      // identified from title and main text
	LanguageFromMarkup  = "html-lang" // <html lang>, Content-Language meta, og:locale
	LanguageFromDefault = "default"   // Options.DefaultLanguage
)

const (
	// languageSample is how much of title + main text the identifier reads;
	// trigram statistics settle long before, and time grows with the length.
	languageSample = 2000
	// minLanguageLetters: below this many letters trigram identification is
	// a guess.
	minLanguageLetters = 40
	// minLanguageConfidence: the confidence (relative margin of the best
	// language over the second) below which the markup hint or the default
	// wins. A tie has confidence 0, so the result never depends on
	// whatlanggo's map iteration order.
	minLanguageConfidence = 0.5
)

// identifyLanguage chooses the language of the document. Precedence:
//
//  1. the language identified from title and main text, if it is reliable
//     (see textLanguage): the text decides because CMS templates often
//     declare a wrong <html lang> (a German article in an English template);
//  2. the markup hint: <html lang>, else <meta http-equiv="Content-Language">,
//     else og:locale, reduced to its ISO 639-1 primary subtag;
//  3. Options.DefaultLanguage.
func identifyLanguage(title, text, hint string, opts Options) (lang, source string, confidence float64) {
	if code, conf := textLanguage(languageText(title, text)); code != "" {
		return code, LanguageFromText, conf
	}
	if code := normalizeLanguage(hint); code != "" {
		return code, LanguageFromMarkup, 0
	}
	lang, source = defaultLanguage(opts)
	return lang, source, 0
}

// textLanguage identifies the language of sample, or returns "" if the
// sample is too short or the identification unreliable. Function words
// decide first: they identify English, German, French, Spanish, Italian,
// Dutch and Portuguese text in a few microseconds (whatlanggo's trigram
// method takes 0.3-1 ms per page, as long as the html.Parse of the page).
// Text with few function words of those languages goes to whatlanggo.
func textLanguage(sample string) (string, float64) {
	if letterCount(sample) < minLanguageLetters {
		return "", 0
	}
	if code, conf, ok := functionWordLanguage(sample); ok {
		if conf >= minLanguageConfidence {
			return code, conf
		}
		return "", 0
	}
	info := whatlanggo.Detect(sample)
	if info.Lang >= 0 && info.Confidence >= minLanguageConfidence {
		if code := info.Lang.Iso6391(); code != "" {
			return code, info.Confidence
		}
	}
	return "", 0
}

// functionWordLangs are the languages identified by function words, in bit
// order of functionWords' values.
var functionWordLangs = [...]string{"en", "de", "fr", "es", "it", "nl", "pt"}

// functionWords maps the most frequent short words of each language to a
// bit set of the languages they belong to.
var functionWords = func() map[string]uint8 {
	lists := [...]string{
		`the and of to in is that for it was on with as by at from he she they be this
		have has are were which an not but or his her their will would said after been had who`,
		`der die und das den dem des ist nicht ein eine einer einen zu mit sich auf für von
		im auch es an sie wird werden wurde hat haben sind bei nach noch aus wie über oder aber
		dass als vor zum zur um`,
		`le la les et des du un une est que qui dans pour pas sur au aux par avec ce cette il
		elle ont sont été plus mais ou son sa ses leur nous vous à`,
		`el la los las y de del que en un una es por con para se no su sus al lo como más pero
		fue ha han este esta entre sobre también muy`,
		`il lo la gli le e di del della dei che in un una è per non con si da al alla sono ha
		hanno nel nella anche come più ma questo questa stato`,
		`de het een en van in is dat op te met voor niet zijn er aan ook als door maar om bij
		nog naar werd wordt dit deze heeft hebben uit over`,
		`o a os as e de do da dos das que em um uma no na para com por não se mais foi ao à
		pelo pela são como mas também seu sua`,
	}
	m := map[string]uint8{}
	for i, l := range lists {
		for _, w := range strings.Fields(l) {
			m[w] |= 1 << i
		}
	}
	return m
}()

const (
	// minFunctionWordShare: below this share of function words among all
	// words the text is not in one of functionWordLangs.
	minFunctionWordShare = 0.12
	minFunctionWords     = 5
)

// functionWordLanguage counts the function words of each language in s.
// ok is false when s has too few of them; conf is (best - second) / best.
func functionWordLanguage(s string) (code string, conf float64, ok bool) {
	var counts [len(functionWordLangs)]int
	words := 0
	var buf [32]byte
	w := buf[:0]
	flush := func() {
		if len(w) == 0 {
			return
		}
		words++
		if set, found := functionWords[string(w)]; found {
			for i := range counts {
				if set&(1<<i) != 0 {
					counts[i]++
				}
			}
		}
		w = w[:0]
	}
	for _, r := range s {
		if unicode.IsLetter(r) {
			if len(w)+utf8.UTFMax <= cap(w) {
				w = utf8.AppendRune(w, unicode.ToLower(r))
			}
			continue
		}
		flush()
	}
	flush()
	best, second := 0, -1
	for i := 1; i < len(counts); i++ {
		if counts[i] > counts[best] {
			second, best = best, i
		} else if second < 0 || counts[i] > counts[second] {
			second = i
		}
	}
	if counts[best] < minFunctionWords || float64(counts[best]) < minFunctionWordShare*float64(words) {
		return "", 0, false
	}
	return functionWordLangs[best], float64(counts[best]-counts[second]) / float64(counts[best]), true
}

func defaultLanguage(opts Options) (string, string) {
	if code := normalizeLanguage(opts.DefaultLanguage); code != "" {
		return code, LanguageFromDefault
	}
	return "", ""
}

// languageText joins title and text and cuts the result to languageSample
// bytes at a rune boundary.
func languageText(title, text string) string {
	s := text
	if title != "" {
		s = title + "\n" + text
	}
	if len(s) <= languageSample {
		return s
	}
	cut := languageSample
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

func letterCount(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			n++
		}
	}
	return n
}

// iso6392 maps the ISO 639-2 codes sometimes found in lang attributes.
var iso6392 = map[string]string{
	"eng": "en", "deu": "de", "ger": "de", "fra": "fr", "fre": "fr", "spa": "es",
	"ita": "it", "nld": "nl", "dut": "nl", "por": "pt", "rus": "ru", "pol": "pl",
}

// normalizeLanguage reduces a language tag ("de-DE", "en_US", "DE", "deu") to
// an ISO 639-1 code, or "" if it is not one.
func normalizeLanguage(tag string) string {
	tag = strings.ToLower(strings.TrimSpace(tag))
	if i := strings.IndexAny(tag, "-_"); i >= 0 {
		tag = tag[:i]
	}
	if c, ok := iso6392[tag]; ok {
		return c
	}
	if len(tag) != 2 || tag[0] < 'a' || tag[0] > 'z' || tag[1] < 'a' || tag[1] > 'z' {
		return ""
	}
	return tag
}

// languageHint is the language declared in the markup.
func (p *page) languageHint() string {
	if normalizeLanguage(p.htmlLang) != "" {
		return p.htmlLang
	}
	for _, key := range []string{"content-language", "og:locale"} {
		for _, m := range p.metas {
			if m.key == key && normalizeLanguage(m.content) != "" {
				return m.content
			}
		}
	}
	return ""
}
