package document

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestListingPages(t *testing.T) {
	// The hand-written pages: articles are not listing pages; the short
	// link-heavy one is (see the package's measured note in listing.go).
	for _, lp := range labelledPages {
		body, err := os.ReadFile(filepath.Join("testdata/pages", lp.name+".html"))
		if err != nil {
			t.Fatal(err)
		}
		doc, err := Parse(body, lp.ctype, lp.url, Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := lp.name == "13-en-short-linkheavy"
		if doc.Listing != want {
			t.Errorf("%s: Listing = %v (link share %.2f, %d links), want %v", lp.name, doc.Listing, doc.LinkShare, len(doc.Outlinks), want)
		}
	}
	var b strings.Builder
	b.WriteString("<html><body><nav><a href=/>Home</a></nav><main><h1>Politics</h1><ul>")
	for i := 0; i < 20; i++ {
		b.WriteString(`<li><a href="/2009/09/story-` + string(rune('a'+i)) + `.html">Coalition talks enter a decisive week in Berlin</a></li>`)
	}
	b.WriteString("</ul><p>Page 1 of 7</p></main></body></html>")
	doc, err := Parse([]byte(b.String()), "text/html", "http://news.example/politics/", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !doc.Listing || doc.LinkShare < 0.8 {
		t.Errorf("section page: Listing = %v, share %.2f", doc.Listing, doc.LinkShare)
	}
	// Its list is its content: the default outlink scope follows it, and
	// still not the navigation.
	inMain := 0
	for _, l := range doc.Outlinks {
		if l.InMain {
			inMain++
		}
		if l.URL == "http://news.example/" && l.InMain {
			t.Error("the navigation link of a listing page is in its main content")
		}
	}
	if inMain != 20 {
		t.Errorf("%d of the listing's 20 article links are main-content links", inMain)
	}
}

func TestLinkContext(t *testing.T) {
	page := `<html><body><article><h1>Vote</h1>
<p>The chancellor's party won the federal election on Sunday. Read more about <a href="/2009/09/28/coalition.html">the coalition</a> talks.</p>
<p>Turnout fell to a record low of 70.8 percent, the returning officer said. Other parties gained ground in all states of the east and the west.</p>
<ul class="share"><li><a href="http://social.example/share">Share</a></li></ul>
</article></body></html>`
	doc, err := Parse([]byte(page), "text/html", "http://news.example/2009/09/27/vote.html", Options{LinkContext: true})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, l := range doc.Outlinks {
		got[l.URL] = l.Context
	}
	if c := got["http://news.example/2009/09/28/coalition.html"]; !strings.HasPrefix(c, "The chancellor's party won") || !strings.HasSuffix(c, "the coalition talks.") {
		t.Errorf("context of the inline link = %q", c)
	}
	if c := got["http://social.example/share"]; c != "Share" {
		t.Errorf("context of the share link = %q", c)
	}
	doc, _ = Parse([]byte(page), "text/html", "http://news.example/2009/09/27/vote.html", Options{})
	for _, l := range doc.Outlinks {
		if l.Context != "" {
			t.Errorf("context without Options.LinkContext: %q", l.Context)
		}
	}
}

func TestURLDate(t *testing.T) {
	day := func(s string) time.Time { t, _ := time.Parse("2006-01-02", s); return t }
	for in, want := range map[string]time.Time{
		"http://a.example/2009/09/27/slug.html":        day("2009-09-27"),
		"http://a.example/news/20090927/slug":          day("2009-09-27"),
		"http://a.example/2009-09-27-slug":             day("2009-09-27"),
		"http://a.example/2009/09/slug/":               day("2009-09-01"),
		"http://a.example/article.php?date=2009-09-27": day("2009-09-27"),
		"http://a.example/politik/slug-a-123.html":     {},
		"http://a.example/1234/56/x":                   {},
		"http://a.example/2009/13/x":                   {},
	} {
		got, ok := URLDate(in)
		if ok != !want.IsZero() || !got.Equal(want) {
			t.Errorf("URLDate(%s) = %v, %v; want %v", in, got, ok, want)
		}
	}
}
