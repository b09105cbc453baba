package document

import (
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/html"
)

// libraryDate asks go-htmldate (extensive search unless fast) for the
// original publication date of the page: the fallback when none of our
// ordered sources finds one, and the arbiter when they disagree
// (datePolicy; see the package doc for the measurement). The answer is
// kept in the page: the library is asked at most once per mode. The
// library reads the tree without changing it. Its clock is pinned to the
// capture time (relative dates such as "yesterday", years left out, the
// latest acceptable date), so the answer depends only on the page and the
// capture; without a capture time it is not asked. It reads a date in the
// URL after the metadata (DeferUrlExtractor), as our sources do: asked
// first, the URL would "corroborate" our own URL source with the same
// evidence against the page's metadata (same accuracy on the development
// set either way). Its date parser reads
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
	u := ""
	if pageURL != nil {
		u = pageURL.String()
	}
	t, src, ok := dateLibrary.Date(p.recs[0].n, u, capture, minPlausible, maxDate, languages, fast)
	if !ok || t.Before(minPlausible) || t.After(maxDate) || libraryGuess(t, src) {
		return time.Time{}
	}
	return t
}

// DateLibrary is the publication-date library Parse asks when the page's
// own date sources find none or disagree (datePolicy): go-htmldate, in
// package datelibrary, registered with RegisterDateLibrary. It is not
// imported here so that programs that parse documents without their dates
// (Options.NoDates) do not link it (see package datelibrary).
type DateLibrary interface {
	// Date is the library's publication date of the page rooted at root,
	// captured from pageURL at capture, within [minDate, maxDate], extensive
	// search unless fast, reading written dates in the given languages;
	// src is the text it was read from; ok is false when it found none.
	Date(root *html.Node, pageURL string, capture, minDate, maxDate time.Time, languages []string, fast bool) (t time.Time, src string, ok bool)
	// Knows reports whether the library reads dates written in the ISO
	// 639-1 language lang.
	Knows(lang string) bool
}

// dateLibrary is the registered DateLibrary; nil until RegisterDateLibrary.
var dateLibrary DateLibrary

// RegisterDateLibrary sets the library Parse asks for dates. A program
// calls it once, before parsing documents with their dates (internal/extract
// does, with datelibrary.Library); without it, Parse fails with
// ErrNoDateLibrary unless Options.NoDates is set.
func RegisterDateLibrary(l DateLibrary) { dateLibrary = l }

// ErrNoDateLibrary: Parse was asked for dates in a program that registered
// no DateLibrary.
var ErrNoDateLibrary = errors.New("no date library registered: call document.RegisterDateLibrary(datelibrary.Library{}) before parsing, or set Options.NoDates")

// libraryGuess reports an answer of go-htmldate that is a year alone: its
// last resorts (a copyright notice such as "© 2003-2009", a bare year)
// give 1 January of the year, which is not a day of publication; the
// capture time is the better document time then. (A date the text marks as
// an update is kept: on pages that show no other date, people read it as
// the page's date, and so do the labels of the development set.)
func libraryGuess(day time.Time, src string) bool {
	if day.Month() != time.January || day.Day() != 1 {
		return false
	}
	found := false
	scanDates(src, 2000, func(t time.Time, _ bool) bool {
		found = t.Equal(day)
		return !found
	})
	if found {
		return false
	}
	y := strconv.Itoa(day.Year())
	for _, written := range []string{y + "-01-01", y + "/01/01", y + "0101"} {
		if strings.Contains(src, written) {
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

// dateParserKnows reports whether the date library reads the ISO 639-1
// code lang (an unknown language makes every parse fail).
func dateParserKnows(lang string) bool { return dateLibrary.Knows(lang) }
