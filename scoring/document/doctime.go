package document

import (
	"encoding/json"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	dps "github.com/markusmobius/go-dateparser"
	"github.com/markusmobius/go-htmldate"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Values of Document.PublishedSource. Meta tags other than Dublin Core are
// reported as SourceMetaPrefix + the tag's name or property in lower case,
// e.g. "meta:article:published_time", "meta:pubdate", "meta:date".
const (
	SourceMetaPrefix = "meta:"
	SourceJSONLD     = "json-ld:datePublished"
	SourceMicrodata  = "microdata:datePublished"
	SourceDublinCore = "dublin-core"
	SourceTime       = "time-element"
	SourceURL        = "url"
	SourceDateline   = "dateline"
	// SourceHTMLDate is go-htmldate's extensive search, asked only when none
	// of the sources above gives a date.
	SourceHTMLDate = "htmldate"
)

// minPlausible is the earliest publication date accepted: the web had few
// dated pages before, and earlier dates on pages are nearly always dates the
// text talks about.
var minPlausible = time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC)

// Meta tag names, in order of trust. Modification dates (article:modified_time,
// og:updated_time, dcterms.modified, last-modified) are never used.
var (
	articleMetas = []string{"article:published_time", "og:article:published_time",
		"og:published_time", "article:published", "published_time"}
	dublinCoreMetas = []string{"dcterms.issued", "dc.date.issued", "dcterms.created",
		"dc.date.created", "dcterms.date", "dc.date", "dc.created", "dc:date", "dcterms:created"}
	otherMetas = []string{"pubdate", "publishdate", "publish-date", "publish_date",
		"publication_date", "pub_date", "date_published", "original-publish-date",
		"article_date_original", "sailthru.date", "parsely-pub-date", "article.published",
		"cxenseparse:recs:publishtime", "date", "dc.date.published"}
)

// publication is the publication date of the page for Parse: the instant in
// UTC, the day in the page's own time zone and the source.
//
//   - Our ordered sources (published: meta tags, JSON-LD, microdata, Dublin
//     Core, <time>, the URL, datelines) come first.
//   - When they give nothing, go-htmldate's extensive search (libraryDate)
//     is asked. (Asking it before our datelines gains one page of 324 on the
//     development set but takes "Stand:" and "Last updated" dates.)
//   - A UTC time says nothing about the page's own zone: when the page shows
//     the day before or after the UTC day, and a zone offset (-12 to +14
//     hours) can make that the local day, the shown day is the day as
//     published; the instant is unchanged.
func (p *page) publication(pageURL *url.URL, capture time.Time, mainText string) (time.Time, string, string) {
	t, src := p.published(pageURL, capture, mainText)
	if t.IsZero() {
		if t = p.libraryDate(pageURL, capture, false); !t.IsZero() {
			src = SourceHTMLDate
		}
	}
	if t.IsZero() {
		return t, "", ""
	}
	day := t.Format(time.DateOnly)
	utcDay := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	sinceMidnight := t.Sub(utcDay)
	if _, offset := t.Zone(); offset != 0 || sinceMidnight == 0 || src == SourceHTMLDate || src == SourceDateline || src == SourceURL {
		return t.UTC(), day, src
	}
	if shown, ok := p.shownDay(t, pageURL, capture, mainText); ok {
		if d := shown.Sub(utcDay); d == -24*time.Hour && sinceMidnight < 12*time.Hour || d == 24*time.Hour && sinceMidnight >= 10*time.Hour {
			day = shown.Format(time.DateOnly)
		}
	}
	return t.UTC(), day, src
}

// shownDay is the day the page shows to readers for the instant t: the text
// of a <time> whose datetime is t, else the first shown date: a date in the
// URL path, the text of a <time> element, a dateline in a byline or at the
// start of the main text (the written sources of published).
func (p *page) shownDay(t time.Time, pageURL *url.URL, capture time.Time, mainText string) (time.Time, bool) {
	for _, i := range p.times {
		if dt, ok := parseDate(attr(p.recs[i].n, "datetime")); ok && dt.Equal(t) {
			if shown, ok := parseDate(p.plainText(i)); ok {
				return shown, true
			}
		}
	}
	if pageURL != nil {
		if t, ok := urlDate(pageURL.Path); ok {
			return t, true
		}
	}
	var found time.Time
	accept := func(t time.Time, updated bool) bool {
		if updated || t.Before(minPlausible) || !capture.IsZero() && t.After(capture.Add(24*time.Hour)) {
			return true
		}
		found = t
		return false
	}
	for _, i := range p.times {
		if p.inHardBoilerplate(i) || hasClassWord(p.recs[i].n, updatedWords) {
			continue
		}
		if scanDates(p.plainText(i), 200, accept); !found.IsZero() {
			return found, true
		}
	}
	for _, i := range p.bylines {
		if p.inHardBoilerplate(i) || p.inFooter(i) || hasClassWord(p.recs[i].n, updatedWords) {
			continue
		}
		if scanDates(p.plainText(i), 300, accept); !found.IsZero() {
			return found, true
		}
	}
	scanDates(mainText, 1000, accept)
	return found, !found.IsZero()
}

// published finds the publication date of the page. Sources are tried in a
// fixed order, from explicit machine-readable publication dates to guesses:
//
//	article:published_time meta (and its og: variants)
//	JSON-LD datePublished (Article-like objects first, also in @graph)
//	microdata itemprop="datePublished"
//	Dublin Core meta (DC.date.issued, dcterms.created, DC.date, …)
//	other meta tags (pubdate, publishdate, date, …)
//	<time pubdate> or a <time> whose class/id says "published"
//	a date in the URL path (/2009/09/27/, /20090927/, 2009-09-27)
//	the first other <time> outside comments and ads, unless it says "updated"
//	a dateline: a written date in byline/date elements, then in the first
//	1000 characters of the main text (English and German forms), skipping
//	dates that follow "updated", "aktualisiert" and the like
//
// Dates before 1990 or after capture + 1 day are skipped as implausible.
// The result keeps the time zone written in the page (a fixed offset; UTC
// when the page gives none), so that its calendar day is the day the page
// shows: Parse reports the instant (Published, in UTC) and that day
// (PublishedDay) separately.
func (p *page) published(pageURL *url.URL, capture time.Time, mainText string) (time.Time, string) {
	ok := func(t time.Time) bool {
		if t.Before(minPlausible) {
			return false
		}
		return capture.IsZero() || !t.After(capture.Add(24*time.Hour))
	}
	try := func(s string) (time.Time, bool) {
		t, found := parseDate(s)
		return t, found && ok(t)
	}
	metaValue := func(keys []string) (time.Time, string) {
		for _, k := range keys {
			for _, m := range p.metas {
				if m.key == k {
					if t, good := try(m.content); good {
						return t, k
					}
				}
			}
		}
		return time.Time{}, ""
	}

	if t, k := metaValue(articleMetas); k != "" {
		return t, SourceMetaPrefix + k
	}
	for _, s := range p.jsonLDDates() {
		if t, good := try(s); good {
			return t, SourceJSONLD
		}
	}
	if t, k := metaValue([]string{"datepublished"}); k != "" {
		return t, SourceMicrodata
	}
	for _, i := range p.itemDates {
		n := p.recs[i].n
		for _, s := range []string{attr(n, "content"), attr(n, "datetime"), p.plainText(i)} {
			if t, good := try(s); good {
				return t, SourceMicrodata
			}
		}
	}
	if t, k := metaValue(dublinCoreMetas); k != "" {
		return t, SourceDublinCore
	}
	if t, k := metaValue(otherMetas); k != "" {
		return t, SourceMetaPrefix + k
	}

	var plainTimes []int32
	for _, i := range p.times {
		n := p.recs[i].n
		if p.inHardBoilerplate(i) || hasClassWord(n, updatedWords) {
			continue
		}
		_, pubdate := attrOK(n, "pubdate")
		if pubdate || hasClassWord(n, publishedWords) {
			if t, good := try(p.timeValue(i)); good {
				return t, SourceTime
			}
			continue
		}
		plainTimes = append(plainTimes, i)
	}
	if pageURL != nil {
		if t, found := urlDate(pageURL.Path); found && ok(t) {
			return t, SourceURL
		}
	}
	for _, i := range plainTimes {
		if t, good := try(p.timeValue(i)); good && !p.afterUpdatedWord(i) {
			return t, SourceTime
		}
	}

	var found time.Time
	accept := func(t time.Time, updated bool) bool {
		if updated || !ok(t) {
			return true
		}
		found = t
		return false
	}
	for _, i := range p.bylines {
		if p.inHardBoilerplate(i) || p.inFooter(i) || hasClassWord(p.recs[i].n, updatedWords) {
			continue
		}
		scanDates(p.plainText(i), 300, accept)
		if !found.IsZero() {
			return found, SourceDateline
		}
	}
	scanDates(mainText, 1000, accept)
	if !found.IsZero() {
		return found, SourceDateline
	}
	return time.Time{}, ""
}

var (
	updatedWords = wordSet(`updated update modified aktualisiert aktualisierung geandert geaendert
		revised edited lastmod stand zuletzt bearbeitet`)
	publishedWords = wordSet(`published publish publication pubdate veroffentlicht erschienen`)
)

// hasClassWord reports whether the class or id of n contains one of words.
func hasClassWord(n *html.Node, words map[string]bool) bool {
	found := false
	classTokens(n, func(w string) bool {
		found = words[w]
		return !found
	})
	return found
}

// timeValue is the datetime attribute of a <time>, else its text.
func (p *page) timeValue(i int32) string {
	if v := attr(p.recs[i].n, "datetime"); strings.TrimSpace(v) != "" {
		return v
	}
	return p.plainText(i)
}

// afterUpdatedWord reports whether the text just before element i ends with a
// word like "updated" ("Aktualisiert: <time>…").
func (p *page) afterUpdatedWord(i int32) bool {
	var before string
	for j := i - 1; j >= 0 && j >= i-4; j-- {
		if r := &p.recs[j]; r.flags&fText != 0 {
			before = r.n.Data
			break
		}
	}
	words := strings.FieldsFunc(before, func(r rune) bool { return !unicode.IsLetter(r) })
	return len(words) > 0 && updatedWords[foldWord(words[len(words)-1])]
}

// inHardBoilerplate reports whether record i lies in comments, ads, cookie
// banners or other hard boilerplate.
func (p *page) inHardBoilerplate(i int32) bool {
	for a := i; a >= 0; a = p.recs[a].parent {
		if p.recs[a].flags&fHard != 0 {
			return true
		}
	}
	return false
}

// inFooter reports whether record i lies in a page or article footer, where
// dates are copyright years and "last modified" stamps.
func (p *page) inFooter(i int32) bool {
	for a := i; a >= 0; a = p.recs[a].parent {
		n := p.recs[a].n
		if n.DataAtom == atom.Footer || strings.EqualFold(attr(n, "role"), "contentinfo") || hasClassWord(n, footerWords) {
			return true
		}
	}
	return false
}

var footerWords = wordSet(`footer fuss fusszeile colophon copyright`)

// jsonLDDates returns the datePublished values of the JSON-LD blocks,
// those of Article-like objects first.
func (p *page) jsonLDDates() []string {
	var article, other []string
	var visit func(v any)
	visit = func(v any) {
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				visit(e)
			}
		case map[string]any:
			if d, ok := x["datePublished"].(string); ok {
				if isArticleType(x["@type"]) {
					article = append(article, d)
				} else {
					other = append(other, d)
				}
			}
			for k, e := range x {
				if k == "@graph" || k == "mainEntity" || k == "mainEntityOfPage" || k == "itemListElement" {
					visit(e)
				}
			}
		}
	}
	for _, src := range p.jsonLD {
		s := strings.TrimSpace(src)
		s = strings.TrimPrefix(s, "<!--")
		s = strings.TrimSuffix(s, "-->")
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			// Broken JSON-LD is common (trailing commas, unescaped quotes):
			// fall back to the first "datePublished": "…" pair.
			if m := jsonDatePublished.FindStringSubmatch(s); m != nil {
				other = append(other, m[1])
			}
			continue
		}
		visit(v)
	}
	return append(article, other...)
}

var jsonDatePublished = regexp.MustCompile(`"datePublished"\s*:\s*"([^"]+)"`)

func isArticleType(t any) bool {
	switch x := t.(type) {
	case string:
		return strings.Contains(x, "Article") || strings.Contains(x, "Posting") || strings.Contains(x, "Report")
	case []any:
		for _, e := range x {
			if isArticleType(e) {
				return true
			}
		}
	}
	return false
}

// dateLayouts are the machine-readable forms found in meta tags, JSON-LD and
// datetime attributes. Fractional seconds are accepted by time.Parse without
// being in the layout.
var dateLayouts = []string{
	time.RFC3339,
	"2006-01-02T15:04:05-0700",
	"2006-01-02T15:04:05-07",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04-0700",
	"2006-01-02T15:04:05",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02 15:04:05 -0700",
	"2006-01-02 15:04:05 MST",
	"2006-01-02 15:04:05",
	"2006-01-02 15:04",
	"2006-01-02",
	"2006/01/02 15:04:05",
	"2006/01/02",
	"20060102",
	"20060102150405",
	time.RFC1123,
	time.RFC1123Z,
	"Mon, 2 Jan 2006 15:04:05 MST",
	"Mon, 2 Jan 2006 15:04:05 -0700",
	time.RFC850,
	time.ANSIC,
	"02.01.2006 15:04",
	"02.01.2006",
	"2.1.2006",
}

// parseDate reads a machine-readable date, or failing that the first written
// date in s. The result keeps the offset written in s (UTC when none).
func parseDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, false
	}
	for _, l := range dateLayouts {
		if len(s) < len(l)-6 || len(s) > len(l)+12 {
			continue // cheap length filter before time.Parse
		}
		if t, err := time.Parse(l, s); err == nil {
			return t, true
		}
	}
	if len(s) > 10 && s[4] == '-' && s[7] == '-' {
		if t, err := time.Parse("2006-01-02", s[:10]); err == nil {
			return t, true
		}
	}
	var found time.Time
	scanDates(s, 200, func(t time.Time, _ bool) bool { found = t; return false })
	return found, !found.IsZero()
}

var (
	urlDateSep     = regexp.MustCompile(`(?:^|[^0-9])((?:19|20)[0-9]{2})[/_-]([01]?[0-9])[/_-]([0-3]?[0-9])(?:[^0-9]|$)`)
	urlDateCompact = regexp.MustCompile(`(?:^|[^0-9])((?:19|20)[0-9]{2})([01][0-9])([0-3][0-9])(?:[^0-9]|$)`)
)

// urlDate finds a date in a URL path: /2009/09/27/, 2009-09-27, /20090927/.
func urlDate(path string) (time.Time, bool) {
	for _, re := range []*regexp.Regexp{urlDateSep, urlDateCompact} {
		if m := re.FindStringSubmatch(path); m != nil {
			y, _ := strconv.Atoi(m[1])
			mo, _ := strconv.Atoi(m[2])
			d, _ := strconv.Atoi(m[3])
			if t, ok := makeDate(y, mo, d); ok {
				return t, true
			}
		}
	}
	return time.Time{}, false
}

func makeDate(y, m, d int) (time.Time, bool) {
	if m < 1 || m > 12 || d < 1 || d > 31 {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if t.Day() != d { // 31 February
		return time.Time{}, false
	}
	return t, true
}

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
	for i := 0; i < len(toks); i++ {
		var y, m, d int
		var ok bool
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
		if !fn(t, updated(i)) {
			return
		}
	}
}

// libraryDate asks go-htmldate (extensive search unless fast) for the
// original publication date of the page: the fallback when none of our
// ordered sources finds one (see the package doc for the measurement). The
// library parses its own clone of the tree, so the page is not changed. Its
// clock is pinned to the capture time (relative dates such as "yesterday",
// years left out, the latest acceptable date), so the answer depends only on
// the page and the capture; without a capture time it is not asked.
func (p *page) libraryDate(pageURL *url.URL, capture time.Time, fast bool) time.Time {
	if len(p.recs) == 0 || capture.IsZero() {
		return time.Time{}
	}
	maxDate := capture.Add(24 * time.Hour)
	opts := htmldate.Options{
		UseOriginalDate:     true,
		MinDate:             minPlausible,
		MaxDate:             maxDate,
		SkipExtensiveSearch: fast,
		DateParserConfig: &dps.Configuration{
			CurrentTime:         capture,
			PreferredDateSource: dps.Past,
			StrictParsing:       true,
		},
	}
	if pageURL != nil {
		opts.URL = pageURL.String()
	}
	res, err := htmldate.FromDocument(p.recs[0].n, opts)
	if err != nil || res.DateTime.IsZero() || res.DateTime.Before(minPlausible) || res.DateTime.After(maxDate) {
		return time.Time{}
	}
	return res.DateTime
}
