package document

import (
	"net/url"
	"slices"
	"time"
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
//     Dublin Core, <time>, the URL, datelines, stated dates) give one
//     candidate each; the first one is the date unless the rules of pol
//     (corroborated, shownUpdate) say otherwise.
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
// disagree. Guesses (candidate.guess) neither ask it nor win: on the
// development set they decided no page either way, and leaving them out
// lets dateSources stop before reading the text when another source has a
// date.
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
