// Package datelibrary is go-htmldate as the publication-date library of
// package document (document.DateLibrary): the library document asks when
// its own sources find no date or disagree. A program registers it once,
// before parsing documents with their dates:
//
//	document.RegisterDateLibrary(datelibrary.Library{})
//
// internal/extract does, so every program that scores documents has it. It
// is a package of its own so that a program that parses documents without
// their dates (document.Options.NoDates: the index's dictionary) does not
// link go-htmldate: its date parser (go-dateparser) builds the tables of its
// 200 locales when the process starts, 0.3 s of CPU and 95 MB of memory in
// every process that links it, used or not. It does not import document, so
// document's own tests can register it.
package datelibrary

import (
	"sync"
	"time"

	dps "github.com/markusmobius/go-dateparser"
	"github.com/markusmobius/go-htmldate"
	"golang.org/x/net/html"
)

// Library is go-htmldate behind document.DateLibrary.
type Library struct{}

// Date asks go-htmldate (extensive search unless fast) for the original
// publication date of the page rooted at root, captured from pageURL at
// capture. Its clock is pinned to the capture time (relative dates such as
// "yesterday", years left out), it accepts dates in [minDate, maxDate],
// reads a date in the URL after the metadata (DeferUrlExtractor), and its
// date parser reads written dates in the given languages only. It returns
// the date and the text it was read from; ok is false when it found none.
func (Library) Date(root *html.Node, pageURL string, capture, minDate, maxDate time.Time, languages []string, fast bool) (t time.Time, src string, ok bool) {
	opts := htmldate.Options{
		UseOriginalDate:     true,
		DeferUrlExtractor:   true,
		MinDate:             minDate,
		MaxDate:             maxDate,
		SkipExtensiveSearch: fast,
		URL:                 pageURL,
		DateParserConfig: &dps.Configuration{
			Languages:           languages,
			CurrentTime:         capture,
			PreferredDateSource: dps.Past,
			StrictParsing:       true,
		},
	}
	res, err := htmldate.FromDocument(root, opts)
	if err != nil || res.DateTime.IsZero() {
		return time.Time{}, "", false
	}
	return res.DateTime, res.SrcString, true
}

// Knows reports whether go-dateparser has locales for the ISO 639-1 code
// lang (an unknown language makes every parse fail).
func (Library) Knows(lang string) bool {
	if v, ok := knownLanguages.Load(lang); ok {
		return v.(bool)
	}
	var parser dps.Parser
	_, err := parser.Parse(&dps.Configuration{Languages: []string{lang}}, "2009-09-27")
	known := err == nil
	knownLanguages.Store(lang, known)
	return known
}

// knownLanguages caches Knows: language code → bool.
var knownLanguages sync.Map
