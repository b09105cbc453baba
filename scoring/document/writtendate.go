package document

import (
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// months maps English and German month names and abbreviations (folded:
// lower case, umlauts without dots) to month numbers.
var months = map[string]int{
	"january": 1, "jan": 1, "januar": 1, "janner": 1, "jaenner": 1,
	"february": 2, "feb": 2, "februar": 2, "febr": 2,
	"march": 3, "mar": 3, "marz": 3, "maerz": 3, "mrz": 3,
	"april": 4, "apr": 4,
	"may": 5, "mai": 5,
	"june": 6, "jun": 6, "juni": 6,
	"july": 7, "jul": 7, "juli": 7,
	"august": 8, "aug": 8,
	"september": 9, "sep": 9, "sept": 9,
	"october": 10, "oct": 10, "oktober": 10, "okt": 10,
	"november": 11, "nov": 11,
	"december": 12, "dec": 12, "dezember": 12, "dez": 12,
}

// foldWord lower-cases a word and removes the dots of German umlauts
// ("März" → "marz", "geändert" → "geandert").
func foldWord(w string) string {
	ascii := true
	for i := 0; i < len(w); i++ {
		if w[i] >= utf8.RuneSelf || w[i] >= 'A' && w[i] <= 'Z' {
			ascii = false
			break
		}
	}
	if ascii {
		return w
	}
	var b strings.Builder
	for _, r := range strings.ToLower(w) {
		switch r {
		case 'ä':
			r = 'a'
		case 'ö':
			r = 'o'
		case 'ü':
			r = 'u'
		case 'ß':
			b.WriteString("ss")
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

type tokKind uint8

const (
	tNum tokKind = iota
	tWord
	tPunct
)

type tok struct {
	kind       tokKind
	s          string
	start, end int
}

// tokenize splits s (up to limit bytes) into number runs, letter runs and
// single punctuation characters, skipping spaces.
func tokenize(s string, limit int) []tok {
	if len(s) > limit {
		s = s[:limit]
	}
	toks := make([]tok, 0, len(s)/4)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r >= '0' && r <= '9':
			j := i + 1
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			toks = append(toks, tok{tNum, s[i:j], i, j})
			i = j
		case unicode.IsLetter(r):
			j := i + size
			for j < len(s) {
				r2, size2 := utf8.DecodeRuneInString(s[j:])
				if !unicode.IsLetter(r2) {
					break
				}
				j += size2
			}
			toks = append(toks, tok{tWord, s[i:j], i, j})
			i = j
		case r == '\n':
			toks = append(toks, tok{tPunct, "\n", i, i + 1})
			i++
		case unicode.IsSpace(r):
			i += size
		default:
			toks = append(toks, tok{tPunct, s[i : i+size], i, i + size})
			i += size
		}
	}
	return toks
}

// scanDates calls fn for each written date in the first limit bytes of s, in
// order, until fn returns false. Forms: 27.09.2009, 2009-09-27, 27. September
// 2009, 27 Sept. 2009, 5. März 2009, September 27, 2009, Sep 27th 2009.
// updated is true when one of the four preceding words of the same clause is
// like "updated".
func scanDates(s string, limit int, fn func(t time.Time, updated bool) bool) {
	scanWrittenDates(s, limit, func(d writtenDate) bool { return fn(d.t, d.updated) })
}

// writtenDate is a date written in text, with the words around it: updated
// when one of the four preceding words of the same clause is like
// "updated", published when one of the four preceding or five following
// words of the same clause is like "published" ("Veröffentlicht am 5. März
// 2009", "am 3. Dezember 2011 um 10:00 Uhr veröffentlicht").
type writtenDate struct {
	t                  time.Time
	updated, published bool
}

// scanWrittenDates is scanDates with the words around each date.
func scanWrittenDates(s string, limit int, fn func(d writtenDate) bool) {
	toks := tokenize(s, limit)
	at := func(i int, kind tokKind, text string) bool {
		return i < len(toks) && toks[i].kind == kind && (text == "" || toks[i].s == text)
	}
	adjacent := func(i int) bool { return i < len(toks) && i > 0 && toks[i-1].end == toks[i].start }
	num := func(i, minLen, maxLen int) (int, bool) {
		if !at(i, tNum, "") || len(toks[i].s) < minLen || len(toks[i].s) > maxLen {
			return 0, false
		}
		v, _ := strconv.Atoi(toks[i].s)
		return v, true
	}
	month := func(i int) (int, bool) {
		if !at(i, tWord, "") || len(toks[i].s) < 3 || len(toks[i].s) > 10 {
			return 0, false
		}
		m, ok := months[foldWord(toks[i].s)]
		return m, ok
	}
	skip := func(i int, p string) int { // skip an optional punctuation mark
		if at(i, tPunct, p) {
			return i + 1
		}
		return i
	}
	// updated looks back over at most four words of the same clause.
	updated := func(i int) bool {
		for j, words := i-1, 0; j >= 0 && words < 4; j-- {
			if toks[j].kind == tPunct && strings.Contains(".;|·!?\n", toks[j].s) {
				return false
			}
			if toks[j].kind == tWord {
				words++
				if updatedWords[foldWord(toks[j].s)] {
					return true
				}
			}
		}
		return false
	}
	// near reports whether one of the four words before token i or the
	// five words after token end, in the same clause, is in words.
	near := func(i, end int, words map[string]bool) bool {
		for j, n := i-1, 0; j >= 0 && n < 4; j-- {
			if toks[j].kind == tPunct && strings.Contains(".;|·!?\n", toks[j].s) {
				break
			}
			if toks[j].kind == tWord {
				n++
				if words[foldWord(toks[j].s)] {
					return true
				}
			}
		}
		for j, n := end, 0; j < len(toks) && n < 5; j++ {
			if toks[j].kind == tPunct && strings.Contains(";|·!?\n", toks[j].s) {
				break
			}
			if toks[j].kind == tWord {
				n++
				if words[foldWord(toks[j].s)] {
					return true
				}
			}
		}
		return false
	}
	for i := 0; i < len(toks); i++ {
		var y, m, d int
		var ok bool
		end := i + 5 // the token after the date
		switch toks[i].kind {
		case tNum:
			n := len(toks[i].s)
			v, _ := strconv.Atoi(toks[i].s)
			switch {
			case n == 4 && at(i+1, tPunct, "-") && adjacent(i+1) && adjacent(i+2) && at(i+3, tPunct, "-") && adjacent(i+3) && adjacent(i+4):
				// 2009-09-27
				m, ok = num(i+2, 1, 2)
				if ok {
					d, ok = num(i+4, 1, 2)
				}
				y = v
			case n <= 2 && at(i+1, tPunct, ".") && adjacent(i+1) && adjacent(i+2) && at(i+3, tPunct, ".") && adjacent(i+3) && adjacent(i+4):
				// 27.09.2009
				m, ok = num(i+2, 1, 2)
				if ok {
					y, ok = num(i+4, 4, 4)
				}
				d = v
			case n <= 2:
				// 27. September 2009, 27 Sep 2009
				j := skip(i+1, ".")
				if m, ok = month(j); ok {
					j = skip(skip(j+1, "."), ",")
					y, ok = num(j, 4, 4)
					end = j + 1
				}
				d = v
			}
		case tWord:
			// September 27, 2009; Sep. 27th 2009
			if m, ok = month(i); ok {
				j := skip(i+1, ".")
				if d, ok = num(j, 1, 2); ok {
					j++
					if at(j, tWord, "") && adjacent(j) {
						switch strings.ToLower(toks[j].s) {
						case "st", "nd", "rd", "th":
							j++
						}
					}
					y, ok = num(skip(j, ","), 4, 4)
					end = skip(j, ",") + 1
				}
			}
		}
		if !ok {
			continue
		}
		t, valid := makeDate(y, m, d)
		if !valid {
			continue
		}
		if !fn(writtenDate{t: t, updated: updated(i), published: near(i, end, publishedWords)}) {
			return
		}
	}
}
