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
	d := dateScan{p: p, capture: capture, report: report}
	if !d.markup() || !d.times(pageURL) || !d.bylines() || d.reported {
		// The guesses only count when nothing before them gave a date.
		return
	}
	d.guesses(mainText)
}

// dateScan is one call of dateSources: its page, the capture time that
// bounds plausible dates, and whether a source has reported a date. Its
// steps return false once report has asked to stop.
type dateScan struct {
	p        *page
	capture  time.Time
	report   func(c candidate) bool
	reported bool
}

// emit reports a date.
func (d *dateScan) emit(c candidate) bool {
	d.reported = true
	return d.report(c)
}

// ok reports whether t is plausible: not before 1990 nor after the capture
// + 1 day.
func (d *dateScan) ok(t time.Time) bool {
	if t.Before(minPlausible) {
		return false
	}
	return d.capture.IsZero() || !t.After(d.capture.Add(24*time.Hour))
}

// try parses s as a date and keeps it if plausible.
func (d *dateScan) try(s string) (time.Time, bool) {
	t, found := parseDate(s)
	return t, found && d.ok(t)
}

// metaValue is the first plausible date of the meta tags with the first of
// keys that has one, and that key ("" when none has).
func (d *dateScan) metaValue(keys []string) (time.Time, string) {
	for _, k := range keys {
		for _, m := range d.p.metas {
			if m.key == k {
				if t, good := d.try(m.content); good {
					return t, k
				}
			}
		}
	}
	return time.Time{}, ""
}

// markup reports the dates of the page's machine-readable sources: the
// article:published_time meta, JSON-LD, microdata, Dublin Core and the other
// meta tags.
func (d *dateScan) markup() bool {
	if t, k := d.metaValue(articleMetas); k != "" {
		if !d.emit(candidate{t: t, source: SourceMetaPrefix + k}) {
			return false
		}
	}
	for _, s := range d.p.jsonLDDates() {
		if t, good := d.try(s); good {
			if !d.emit(candidate{t: t, source: SourceJSONLD}) {
				return false
			}
			break
		}
	}
	if t, found := d.microdata(); found && !d.emit(candidate{t: t, source: SourceMicrodata}) {
		return false
	}
	if t, k := d.metaValue(dublinCoreMetas); k != "" {
		if !d.emit(candidate{t: t, source: SourceDublinCore}) {
			return false
		}
	}
	if t, k := d.metaValue(otherMetas); k != "" {
		if !d.emit(candidate{t: t, source: SourceMetaPrefix + k}) {
			return false
		}
	}
	return true
}

// microdata is the first plausible itemprop="datePublished": a meta tag,
// or an element's content or datetime attribute, or its text.
func (d *dateScan) microdata() (time.Time, bool) {
	if t, k := d.metaValue([]string{"datepublished"}); k != "" {
		return t, true
	}
	p := d.p
	for _, i := range p.itemDates {
		n := p.recs[i].n
		for _, s := range []string{attr(n, "content"), attr(n, "datetime"), p.plainText(i)} {
			if t, good := d.try(s); good {
				return t, true
			}
		}
	}
	return time.Time{}, false
}

// times reports the date of a <time> marked as the publication date, then
// the date in the URL path, then the first other <time> outside comments
// and ads that does not follow an "updated" word. <time> elements whose
// class says "updated" are skipped.
func (d *dateScan) times(pageURL *url.URL) bool {
	p := d.p
	var plainTimes []int32
	marked := false
	for _, i := range p.times {
		n := p.recs[i].n
		if p.inHardBoilerplate(i) || hasClassWord(n, updatedWords) {
			continue
		}
		_, pubdate := attrOK(n, "pubdate")
		if pubdate || hasClassWord(n, publishedWords) {
			if t, good := d.try(p.timeValue(i)); good && !marked {
				marked = true
				if !d.emit(candidate{t: t, source: SourceTime}) {
					return false
				}
			}
			continue
		}
		plainTimes = append(plainTimes, i)
	}
	if pageURL != nil {
		if t, found := urlDate(pageURL.Path); found && d.ok(t) {
			if !d.emit(candidate{t: t, source: SourceURL}) {
				return false
			}
		}
	}
	for _, i := range plainTimes {
		if t, good := d.try(p.timeValue(i)); good && !p.afterUpdatedWord(i) {
			return d.emit(candidate{t: t, source: SourceTime})
		}
	}
	return true
}

// written is the first plausible written date of text that does not follow
// an "updated" word, among its first limit characters.
func (d *dateScan) written(text string, limit int) (time.Time, bool) {
	var found time.Time
	scanDates(text, limit, func(t time.Time, updated bool) bool {
		if updated || !d.ok(t) {
			return true
		}
		found = t
		return false
	})
	return found, !found.IsZero()
}

// bylines reports the first written date of the byline and date elements
// outside comments, ads and footers (a dateline).
func (d *dateScan) bylines() bool {
	p := d.p
	for _, i := range p.bylines {
		if p.inHardBoilerplate(i) || p.inFooter(i) || hasClassWord(p.recs[i].n, updatedWords) {
			continue
		}
		if t, found := d.written(p.plainText(i), 300); found {
			return d.emit(candidate{t: t, source: SourceDateline})
		}
	}
	return true
}

// guesses reports a written date in the first 1000 characters of the main
// text (a dateline), or else a date the text states as its publication
// date.
func (d *dateScan) guesses(mainText string) {
	if t, found := d.written(mainText, 1000); found {
		d.emit(candidate{t: t, source: SourceDateline, guess: true})
		return
	}
	if t, found := statedDate(mainText, d.ok); found {
		d.emit(candidate{t: t, source: SourceStated, guess: true})
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
