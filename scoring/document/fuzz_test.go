package document

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse feeds bodies to the HTML → text/links/date step: Parse must not
// panic, and what it returns must be valid UTF-8 with absolute links.
// Seeds: below and scoring/document/testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`<html><head><meta charset="iso-8859-1"><title>T</title><meta property="article:published_time" content="2009-09-27"></head><body><p>Wahl am 27. September 2009 <a href="/x">x</a></p></body></html>`), "text/html")
	f.Add([]byte("\xff\xfe<\x00h\x00t\x00m\x00l\x00>\x00"), "text/html; charset=utf-16")
	f.Add([]byte(strings.Repeat("<div>", 600)), "text/html")
	f.Add([]byte(`<script type="application/ld+json">{"datePublished": "2010-04-14T10:00:00Z"}</script><time datetime="99999-01-01">`), "")
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		doc, err := Parse(body, contentType, "http://fuzz.example/2009/09/27/page.html", Options{MaxBytes: 1 << 16, LinkContext: true})
		if err != nil {
			return
		}
		if !utf8.ValidString(doc.Title) || !utf8.ValidString(doc.MainText) {
			t.Fatalf("invalid UTF-8 in title or main text")
		}
		for _, l := range doc.Outlinks {
			if !strings.HasPrefix(l.URL, "http://") || strings.HasPrefix(l.URL, "https://") {
				t.Fatalf("outlink %q is not an absolute http(s) URL", l.URL)
			}
		}
	})
}
