package document

import (
	"encoding/json"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
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
	// SourceStated is a date the text states as its publication date
	// ("Veröffentlicht am 5. März 2009", "published on …") after the start
	// of the text that datelines read.
	SourceStated = "stated"
	// SourceHTMLDate is go-htmldate's extensive search, asked when none of
	// the sources above gives a date (a year alone is not taken).
	SourceHTMLDate = "htmldate"
	// SourceShownUpdate is the article's modification date when the page
	// shows readers that date and not the publication date (datePolicy).
	SourceShownUpdate = "shown-update"
)

// minPlausible is the earliest publication date accepted: the web had few
// dated pages before, and earlier dates on pages are nearly always dates the
// text talks about.
var minPlausible = time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC)

// Meta tag names, in order of trust. Modification dates (article:modified_time,
// og:updated_time) are used only when the page shows readers that date and
// not the publication date (datePolicy.shownUpdate).
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

// datePolicy chooses among the dates of the page (see publication). The
// zero value is our ordered sources alone; Parse uses defaultDatePolicy.
// The alternatives are kept so that TestDateConformance can measure each
// on the development set and check that the choice generalises (split
// halves, package doc).
type datePolicy struct {
	// fallback is how go-htmldate is asked when our sources find nothing.
	fallback libraryMode
	// corroborate: when our sources disagree on the day (a later source
	// gives another day than the first), go-htmldate's extensive search
	// is asked, and the day it finds wins when one of our later sources
	// gives it too: two extractors agree against one source.
	corroborate bool
	// shownUpdate: when the first date the page shows in its header (a
	// <time>, a byline) is not the day of our first source but is the
	// day of the article's own modification date (article:modified_time,
	// og:updated_time, JSON-LD dateModified), the page shows readers its
	// update date only, and that is the day as shown.
	shownUpdate bool
}

type libraryMode uint8

const (
	libraryOff libraryMode = iota
	libraryFast
	libraryExtensive
)

// defaultDatePolicy is the measured choice (package doc).
var defaultDatePolicy = datePolicy{fallback: libraryExtensive, corroborate: true, shownUpdate: true}

// dateContext is what the date step reads besides the page.
type dateContext struct {
	url       *url.URL
	capture   time.Time
	mainText  string
	languages []string // for go-htmldate's date parser (dateLanguages)
}

// candidate is the first plausible date of one source.
type candidate struct {
	t      time.Time // in the zone written in the page (UTC if none)
	source string
	// guess marks the dateline at the start of the main text (the first
	// date written there, often a date the text talks about) and a date
	// stated as published further on: dateSources gives them only when
	// no other source has a date.
	guess bool
}

func (c candidate) day() string { return c.t.Format(time.DateOnly) }

// publication is the publication date of the page: the instant in UTC, the
// day in the page's own time zone and the source.
//
//   - Our ordered sources (dateSources: meta tags, JSON-LD, microdata,
//     Dublin Core, <time>, the URL, datelines) give one candidate each; the
//     first one is the date unless the rules of pol say otherwise.
//   - When they give nothing, go-htmldate is asked (pol.fallback; source
//     SourceHTMLDate).
//   - A UTC time says nothing about the page's own zone: when the page shows
//     the day before or after the UTC day, and a zone offset (-12 to +14
//     hours) can make that the local day, the shown day is the day as
//     published; the instant is unchanged.
func (p *page) publication(ctx dateContext, pol datePolicy) (time.Time, string, string) {
	var cands []candidate
	p.dateSources(ctx.url, ctx.capture, ctx.mainText, func(c candidate) bool {
		cands = append(cands, c)
		return pol.corroborate // corroboration compares the sources
	})
	if len(cands) == 0 {
		if pol.fallback == libraryOff {
			return time.Time{}, "", ""
		}
		t := p.libraryDate(ctx, pol.fallback == libraryFast)
		if t.IsZero() {
			return t, "", ""
		}
		return t.UTC(), t.Format(time.DateOnly), SourceHTMLDate
	}
	pick := cands[0]
	if pol.corroborate {
		pick = p.corroborated(ctx, cands)
	}
	if pol.shownUpdate && pick == cands[0] {
		if c, ok := p.shownUpdate(ctx, pick); ok {
			return c.t.UTC(), c.day(), c.source
		}
	}
	t, src := pick.t, pick.source
	day := t.Format(time.DateOnly)
	utcDay := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	sinceMidnight := t.Sub(utcDay)
	if _, offset := t.Zone(); offset != 0 || sinceMidnight == 0 || src == SourceDateline || src == SourceURL {
		return t.UTC(), day, src
	}
	if shown, ok := p.shownDay(t, ctx.url, ctx.capture, ctx.mainText); ok {
		if d := shown.Sub(utcDay); d == -24*time.Hour && sinceMidnight < 12*time.Hour || d == 24*time.Hour && sinceMidnight >= 10*time.Hour {
			day = shown.Format(time.DateOnly)
		}
	}
	return t.UTC(), day, src
}

// corroborated is the candidate of datePolicy.corroborate: the first one,
// unless a later source gives another day and go-htmldate's extensive
// search finds that day too. The library is asked only when the sources
// disagree; the first date at the start of the main text (a guess) neither
// asks it nor wins (on the development set it decided no page either way,
// and on the document benchmark's pages it made the library run on most
// pages whose text mentions another day).
func (p *page) corroborated(ctx dateContext, cands []candidate) candidate {
	first := cands[0].day()
	disagree := false
	for _, c := range cands[1:] {
		disagree = disagree || !c.guess && c.day() != first
	}
	if !disagree {
		return cands[0]
	}
	lib := p.libraryDate(ctx, false)
	if lib.IsZero() {
		return cands[0]
	}
	libDay := lib.Format(time.DateOnly)
	if libDay == first {
		return cands[0]
	}
	for _, c := range cands[1:] {
		if !c.guess && c.day() == libDay {
			return c
		}
	}
	return cands[0]
}

// shownUpdate is the rule of datePolicy.shownUpdate: the article's
// modification date, with source SourceShownUpdate, when the first date
// shown in the page's header is its day and no date shown there is the day
// of pick.
func (p *page) shownUpdate(ctx dateContext, pick candidate) (candidate, bool) {
	var shown []string
	collect := func(t time.Time, _ bool) bool {
		shown = append(shown, t.Format(time.DateOnly))
		return true
	}
	for _, i := range p.times {
		if !p.inHardBoilerplate(i) {
			scanDates(p.plainText(i), 200, func(t time.Time, u bool) bool { collect(t, u); return false })
		}
	}
	for _, i := range p.bylines {
		if !p.inHardBoilerplate(i) && !p.inFooter(i) {
			scanDates(p.plainText(i), 300, collect)
		}
	}
	if len(shown) == 0 || slices.Contains(shown, pick.day()) {
		return candidate{}, false
	}
	for _, m := range p.modifiedDates(ctx.capture) {
		if m.Format(time.DateOnly) == shown[0] {
			return candidate{t: m, source: SourceShownUpdate}, true
		}
	}
	return candidate{}, false
}

// modifiedDates are the article's own modification dates: the meta tags
// article:modified_time and og:updated_time and the dateModified of
// Article-like JSON-LD objects.
func (p *page) modifiedDates(capture time.Time) []time.Time {
	var out []time.Time
	add := func(s string) {
		if t, ok := parseDate(s); ok && !t.Before(minPlausible) && (capture.IsZero() || !t.After(capture.Add(24*time.Hour))) {
			out = append(out, t)
		}
	}
	for _, m := range p.metas {
		if m.key == "article:modified_time" || m.key == "og:updated_time" {
			add(m.content)
		}
	}
	article, _ := p.jsonLDValues("dateModified")
	for _, s := range article {
		add(s)
	}
	return out
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

// dateSources calls fn with the first plausible date of each source, in a
// fixed order from explicit machine-readable publication dates to guesses,
// until fn returns false:
//
//	article:published_time meta (and its og: variants)
//	JSON-LD datePublished (Article-like objects first, also in @graph)
//	microdata itemprop="datePublished"
//	Dublin Core meta (DC.date.issued, dcterms.created, DC.date, …)
//	other meta tags (pubdate, publishdate, date, …)
//	<time pubdate> or a <time> whose class/id says "published"
//	a date in the URL path (/2009/09/27/, /20090927/, 2009-09-27)
//	the first other <time> outside comments and ads, unless it says "updated"
//	a dateline: a written date in byline/date elements, then (a second call
//	with the same source) in the first 1000 characters of the main text
//	(English and German forms), skipping dates that follow "updated",
//	"aktualisiert" and the like
//	a date the main text states as its publication date (statedDate)
//
// The last two are guesses (candidate.guess), given only when no source
// before them has a date.
//
// Dates before 1990 or after capture + 1 day are skipped as implausible.
// Each date keeps the time zone written in the page (a fixed offset; UTC
// when the page gives none), so that its calendar day is the day the page
// shows: Parse reports the instant (Published, in UTC) and that day
// (PublishedDay) separately.
func (p *page) dateSources(pageURL *url.URL, capture time.Time, mainText string, report func(c candidate) bool) {
	reported := false
	fn := func(c candidate) bool {
		reported = true
		return report(c)
	}
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
		if !fn(candidate{t: t, source: SourceMetaPrefix + k}) {
			return
		}
	}
	for _, s := range p.jsonLDDates() {
		if t, good := try(s); good {
			if !fn(candidate{t: t, source: SourceJSONLD}) {
				return
			}
			break
		}
	}
	microdata := func() (time.Time, bool) {
		if t, k := metaValue([]string{"datepublished"}); k != "" {
			return t, true
		}
		for _, i := range p.itemDates {
			n := p.recs[i].n
			for _, s := range []string{attr(n, "content"), attr(n, "datetime"), p.plainText(i)} {
				if t, good := try(s); good {
					return t, true
				}
			}
		}
		return time.Time{}, false
	}
	if t, found := microdata(); found && !fn(candidate{t: t, source: SourceMicrodata}) {
		return
	}
	if t, k := metaValue(dublinCoreMetas); k != "" {
		if !fn(candidate{t: t, source: SourceDublinCore}) {
			return
		}
	}
	if t, k := metaValue(otherMetas); k != "" {
		if !fn(candidate{t: t, source: SourceMetaPrefix + k}) {
			return
		}
	}

	var plainTimes []int32
	marked := false
	for _, i := range p.times {
		n := p.recs[i].n
		if p.inHardBoilerplate(i) || hasClassWord(n, updatedWords) {
			continue
		}
		_, pubdate := attrOK(n, "pubdate")
		if pubdate || hasClassWord(n, publishedWords) {
			if t, good := try(p.timeValue(i)); good && !marked {
				marked = true
				if !fn(candidate{t: t, source: SourceTime}) {
					return
				}
			}
			continue
		}
		plainTimes = append(plainTimes, i)
	}
	if pageURL != nil {
		if t, found := urlDate(pageURL.Path); found && ok(t) {
			if !fn(candidate{t: t, source: SourceURL}) {
				return
			}
		}
	}
	for _, i := range plainTimes {
		if t, good := try(p.timeValue(i)); good && !p.afterUpdatedWord(i) {
			if !fn(candidate{t: t, source: SourceTime}) {
				return
			}
			break
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
			if !fn(candidate{t: found, source: SourceDateline}) {
				return
			}
			break
		}
	}
	if reported {
		// The guesses below only count when nothing above gave a date.
		return
	}
	found = time.Time{}
	scanDates(mainText, 1000, accept)
	if !found.IsZero() {
		fn(candidate{t: found, source: SourceDateline, guess: true})
		return
	}
	if t, found := statedDate(mainText, ok); found {
		fn(candidate{t: t, source: SourceStated, guess: true})
	}
}

// publishedStems find the words of publishedWords (and their capitalised
// forms) in text without lower-casing it.
var publishedStems = []string{"ublish", "ublica", "ffentlicht", "rschien", "rstellt", "osted", "epostet", "ublié", "ubblicat"}

// statedDate is the first date the text states as its publication date: a
// written date next to a word like "published", "veröffentlicht",
// "erschienen", "erstellt" or "posted" in the same clause, anywhere in text
// (datelines only read its start), unless the clause also says "updated".
// Only windows around those words are read, at most 16 per word.
func statedDate(text string, ok func(time.Time) bool) (time.Time, bool) {
	var found time.Time
	first := len(text)
	for _, stem := range publishedStems {
		for from, seen := 0, 0; seen < 16; seen++ {
			k := strings.Index(text[from:], stem)
			if k < 0 || from+k > first {
				break
			}
			pos := from + k
			from = pos + len(stem)
			lo, hi := max(0, pos-120), min(len(text), pos+160)
			for lo > 0 && !utf8.RuneStart(text[lo]) {
				lo++
			}
			for hi < len(text) && !utf8.RuneStart(text[hi]) {
				hi--
			}
			scanWrittenDates(text[lo:hi], hi-lo, func(d writtenDate) bool {
				if d.published && !d.updated && ok(d.t) {
					found, first = d.t, pos
					return false
				}
				return true
			})
		}
	}
	return found, !found.IsZero()
}

var (
	updatedWords = wordSet(`updated update modified aktualisiert aktualisierung geandert geaendert
		revised edited lastmod stand zuletzt bearbeitet`)
	publishedWords = wordSet(`published publish publication pubdate veroffentlicht erschienen
		erstellt posted gepostet publié publicado pubblicato`)
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
	article, other := p.jsonLDValues("datePublished")
	return append(article, other...)
}

// jsonLDValues returns the string values of key in the JSON-LD blocks
// (also inside @graph, mainEntity, mainEntityOfPage and itemListElement):
// those of Article-like objects, and the others. Of a block that is not
// valid JSON (trailing commas, unescaped quotes are common), the first
// "key": "value" pair counts as other.
func (p *page) jsonLDValues(key string) (article, other []string) {
	var visit func(v any)
	visit = func(v any) {
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				visit(e)
			}
		case map[string]any:
			if d, ok := x[key].(string); ok {
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
			for _, m := range jsonPair.FindAllStringSubmatch(s, -1) {
				if m[1] == key {
					other = append(other, m[2])
					break
				}
			}
			continue
		}
		visit(v)
	}
	return article, other
}

// jsonPair finds "datePublished": "…" and "dateModified": "…" in broken
// JSON-LD.
var jsonPair = regexp.MustCompile(`"(datePublished|dateModified)"\s*:\s*"([^"]+)"`)

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

// libraryDate asks go-htmldate (extensive search unless fast) for the
// original publication date of the page: the fallback when none of our
// ordered sources finds one (see the package doc for the measurement). The
// library reads the tree without changing it. Its clock is pinned to the
// capture time (relative dates such as "yesterday", years left out, the
// latest acceptable date), so the answer depends only on the page and the
// capture; without a capture time it is not asked. Its date parser reads
// written dates in the languages given (the page's, see dateLanguages)
// instead of trying each of its 200 locales on every text segment.
func (p *page) libraryDate(ctx dateContext, fast bool) time.Time {
	memo := &p.libraryExtensive
	if fast {
		memo = &p.libraryFast
	}
	if !memo.asked {
		memo.asked = true
		memo.t = p.askLibrary(ctx.url, ctx.capture, ctx.languages, fast)
	}
	return memo.t
}

// askLibrary is libraryDate without the memo.
func (p *page) askLibrary(pageURL *url.URL, capture time.Time, languages []string, fast bool) time.Time {
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
			Languages:           languages,
			CurrentTime:         capture,
			PreferredDateSource: dps.Past,
			StrictParsing:       true,
		},
	}
	if pageURL != nil {
		opts.URL = pageURL.String()
	}
	res, err := htmldate.FromDocument(p.recs[0].n, opts)
	if err != nil || res.DateTime.IsZero() || res.DateTime.Before(minPlausible) || res.DateTime.After(maxDate) || libraryGuess(res) {
		return time.Time{}
	}
	return res.DateTime
}

// libraryGuess reports an answer of go-htmldate that is a year alone: its
// last resorts (a copyright notice such as "© 2003-2009", a bare year)
// give 1 January of the year, which is not a day of publication; the
// capture time is the better document time then. (A date the text marks as
// an update is kept: on pages that show no other date, people read it as
// the page's date, and so do the labels of the development set.)
func libraryGuess(res htmldate.Result) bool {
	day := res.DateTime
	if day.Month() != time.January || day.Day() != 1 {
		return false
	}
	found := false
	scanDates(res.SrcString, 2000, func(t time.Time, _ bool) bool {
		found = t.Equal(day)
		return !found
	})
	if found {
		return false
	}
	y := strconv.Itoa(day.Year())
	for _, written := range []string{y + "-01-01", y + "/01/01", y + "0101"} {
		if strings.Contains(res.SrcString, written) {
			return false
		}
	}
	return true
}

// dateLanguages are the languages go-htmldate's date parser reads the page
// in: the language of the text, the one declared in the markup, and English
// (month names in English are common on pages in other languages), each
// once and only when the parser knows it. Measured on the 324 real pages of
// the development set: the same date on every page as with all locales, in
// 40 % less time (package doc).
func dateLanguages(textLanguage, markupHint string) []string {
	langs := make([]string, 0, 3)
	for _, l := range []string{textLanguage, normalizeLanguage(markupHint), "en"} {
		if l != "" && !slices.Contains(langs, l) && dateParserKnows(l) {
			langs = append(langs, l)
		}
	}
	return langs
}

// dateParserKnows reports whether go-dateparser has locales for the ISO
// 639-1 code lang (an unknown language makes every parse fail).
func dateParserKnows(lang string) bool {
	if v, ok := dateParserLanguages.Load(lang); ok {
		return v.(bool)
	}
	var parser dps.Parser
	_, err := parser.Parse(&dps.Configuration{Languages: []string{lang}}, "2009-09-27")
	known := err == nil
	dateParserLanguages.Store(lang, known)
	return known
}

// dateParserLanguages caches dateParserKnows: language code → bool.
var dateParserLanguages sync.Map
