package document

import (
	"errors"
	"testing"

	"github.com/recrawl/recrawl/scoring/document/datelibrary"
)

// The tests parse documents with their dates.
func init() { RegisterDateLibrary(datelibrary.Library{}) }

// TestParseNeedsDateLibrary: without a registered date library, Parse
// fails with ErrNoDateLibrary, unless NoDates is set; with NoDates the
// document is the same but for its date.
func TestParseNeedsDateLibrary(t *testing.T) {
	body := []byte(`<html lang="en"><head><title>Election day</title><meta property="article:published_time" content="2009-09-25T10:00:00Z"></head>` +
		`<body><article><p>The polls opened on Sunday morning across the country, and turnout was reported to be higher than four years ago.</p></article></body></html>`)
	with, err := Parse(body, "text/html", "http://example.com/news/election", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if with.PublishedDay != "2009-09-25" {
		t.Fatalf("PublishedDay %q, want 2009-09-25 (the meta tag)", with.PublishedDay)
	}
	saved := dateLibrary
	defer func() { dateLibrary = saved }()
	dateLibrary = nil
	if _, err := Parse(body, "text/html", "http://example.com/news/election", Options{}); !errors.Is(err, ErrNoDateLibrary) {
		t.Errorf("without a date library: %v, want ErrNoDateLibrary", err)
	}
	without, err := Parse(body, "text/html", "http://example.com/news/election", Options{NoDates: true})
	if err != nil {
		t.Fatal(err)
	}
	if !without.Published.IsZero() || without.PublishedDay != "" || without.PublishedSource != "" {
		t.Errorf("NoDates: published %v %q %q, want none", without.Published, without.PublishedDay, without.PublishedSource)
	}
	without.Published, without.PublishedDay, without.PublishedSource = with.Published, with.PublishedDay, with.PublishedSource
	if without.Text() != with.Text() || without.Language != with.Language || len(without.Outlinks) != len(with.Outlinks) || without.Reason != with.Reason {
		t.Errorf("NoDates changed more than the date:\n with    %+v\n without %+v", with, without)
	}
}
