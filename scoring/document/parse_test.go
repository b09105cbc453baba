package document

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestParseRejectsNonHTML(t *testing.T) {
	for _, c := range []struct {
		ctype string
		body  string
	}{
		{"application/pdf", "%PDF-1.4 ..."},
		{"image/jpeg", "\xff\xd8\xff\xe0"},
		{"", "%PDF-1.4 binary"},
		{"application/octet-stream", "\x00\x01\x02"},
	} {
		_, err := Parse([]byte(c.body), c.ctype, "http://example.com/x", Options{})
		if !errors.Is(err, ErrNotHTML) {
			t.Errorf("%q: err = %v, want ErrNotHTML", c.ctype, err)
		}
	}
	// Missing or uninformative types are sniffed.
	for _, ctype := range []string{"", "text/plain", "application/octet-stream", "TEXT/HTML;charset=UTF-8", "text/html;"} {
		if _, err := Parse([]byte("<!DOCTYPE html><html><body><p>Hello</p></body></html>"), ctype, "http://example.com/", Options{}); err != nil {
			t.Errorf("%q: %v", ctype, err)
		}
	}
}

func TestParseTruncates(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("<html><body><article>")
	for i := 0; b.Len() < 200_000; i++ {
		b.WriteString("<p>Paragraph with enough words to be counted, about the river, the bridge and the town council. ")
		if i%3 == 0 {
			b.WriteString("<b>Bold <i>and italic</i>")
		}
	}
	body := b.Bytes()
	doc, err := Parse(body, "text/html", "http://example.com/", Options{MaxBytes: 50_000})
	if err != nil {
		t.Fatal(err)
	}
	if !doc.Truncated || doc.MainText == "" || len(doc.MainText) > 50_000 {
		t.Errorf("truncated %v, text length %d", doc.Truncated, len(doc.MainText))
	}
	// A cut through a multi-byte rune still gives valid text.
	doc, err = Parse([]byte("<p>"+strings.Repeat("äöü ", 100)), "text/html", "", Options{MaxBytes: 102})
	if err != nil || !doc.Truncated {
		t.Fatalf("%v %v", err, doc)
	}
	if full, _ := Parse(body, "text/html", "", Options{}); full.Truncated {
		t.Error("200 KB page truncated under the default cap")
	}
}

func TestParseNoText(t *testing.T) {
	cases := []struct{ body, reason string }{
		{"   ", ReasonEmpty},
		{"<html><body><nav><a href='/'>Home</a></nav><script>var x=1;</script></body></html>", ReasonNoText},
		{`<html><frameset cols="20%,80%"><frame src="menu.html"><frame src="main.html"></frameset></html>`, ReasonFrameset},
	}
	for _, c := range cases {
		doc, err := Parse([]byte(c.body), "text/html", "http://example.com/", Options{DefaultLanguage: "de"})
		if err != nil {
			t.Fatal(err)
		}
		if doc.Reason != c.reason || doc.MainText != "" {
			t.Errorf("%q: reason %q, text %q; want reason %q", c.body, doc.Reason, doc.MainText, c.reason)
		}
		if doc.Language != "de" {
			t.Errorf("%q: language %q, want the default", c.body, doc.Language)
		}
	}
}

func TestParseTitle(t *testing.T) {
	for _, c := range []struct{ page, want string }{
		{`<html><head><title>Site - Story</title><meta property="og:title" content=" The  story "></head><body><h1>Other</h1></body></html>`, "The story"},
		{`<html><head><title>Site - Story</title></head><body><h1 class="logo"><a href="/">Site</a></h1><h1>The <em>real</em> headline</h1></body></html>`, "The real headline"},
		{`<html><head><title>Site - Story</title></head><body><p>x</p></body></html>`, "Site - Story"},
	} {
		doc, err := Parse([]byte(c.page), "text/html", "", Options{})
		if err != nil {
			t.Fatal(err)
		}
		if doc.Title != c.want {
			t.Errorf("title %q, want %q", doc.Title, c.want)
		}
	}
}

// TestParseDeterministic: the same input gives the same document.
func TestParseDeterministic(t *testing.T) {
	body := benchPage(t, "de")
	first, err := Parse(body, "text/html", "http://example.com/2009/09/27/a.html", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		again, _ := Parse(body, "text/html", "http://example.com/2009/09/27/a.html", Options{})
		if again.MainText != first.MainText || len(again.Outlinks) != len(first.Outlinks) || again.Language != first.Language || !again.Published.Equal(first.Published) {
			t.Fatal("Parse is not deterministic")
		}
	}
}

// TestBenchPageExtraction checks the benchmark page is processed as a real
// page would be: article text without comments, navigation or footer; main
// links only from the article.
func TestBenchPageExtraction(t *testing.T) {
	doc, err := Parse(benchPage(t, "en"), "text/html", "http://news.example.com/2009/09/27/story.html", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"Section 3", "Most read", "Footer link", "reader1", "Related article", "cookies"} {
		if strings.Contains(doc.MainText, bad) {
			t.Errorf("main text contains %q", bad)
		}
	}
	var inMain int
	for _, l := range doc.Outlinks {
		if l.InMain {
			inMain++
			if !strings.Contains(l.URL, "/story/") && !strings.Contains(l.URL, "other.example.org") {
				t.Errorf("unexpected main link %s", l.URL)
			}
		}
	}
	if inMain != 6 || doc.Language != "en" || doc.PublishedSource != "meta:article:published_time" {
		t.Errorf("main links %d, language %s, date source %s", inMain, doc.Language, doc.PublishedSource)
	}
}
