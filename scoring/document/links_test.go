package document

import (
	"net/url"
	"reflect"
	"testing"
)

func TestOutlinks(t *testing.T) {
	page := `<html><head><base href="http://static.example.org/news/"></head><body>
<nav><a href="/">Home</a> <a href="politics/">Politics</a> <a href="story.html#comments">Comments</a></nav>
<article><p>The council decided on Monday, after a long debate, that the new bridge will be built;
see <a href="story.html">the full report</a>, <a href="//cdn.example.net/doc.pdf">the plan (PDF)</a>,
<a href="https://Other.Example.COM/a/b?x=1#top">an outside view</a> and
<a href="../archive/2009.html"><img src="/i.png" alt="  the archive  "></a>.
Contact <a href="mailto:desk@example.org">the desk</a>, <a href="javascript:void(0)">print</a>,
<a href="#top">top</a>, <a href="ftp://files.example.org/x">files</a>, <a href=" /with-space
 ">space</a>, <a href="">empty</a>.</p>
<p>A second paragraph with enough words to count as text, repeating <a href="story.html">the report</a>, and mentioning the mayor, the budget, the river and the engineers.</p>
</article>
<footer><a href="/about">About</a> <a href="/">Home again</a></footer></body></html>`
	doc, err := Parse([]byte(page), "text/html", "http://www.example.org/news/2009/bridge.html", Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Link{
		{URL: "http://static.example.org/", Anchor: "Home", InMain: false},
		{URL: "http://static.example.org/news/politics/", Anchor: "Politics", InMain: false},
		{URL: "http://static.example.org/news/story.html", Anchor: "the full report", InMain: true},
		{URL: "http://cdn.example.net/doc.pdf", Anchor: "the plan (PDF)", InMain: true},
		{URL: "https://other.example.com/a/b?x=1", Anchor: "an outside view", InMain: true},
		{URL: "http://static.example.org/archive/2009.html", Anchor: "the archive", InMain: true},
		{URL: "http://static.example.org/with-space", Anchor: "space", InMain: true},
		{URL: "http://static.example.org/about", Anchor: "About", InMain: false},
	}
	if !reflect.DeepEqual(doc.Outlinks, want) {
		t.Errorf("outlinks:\n got %+v\nwant %+v", doc.Outlinks, want)
	}
}

func TestOutlinksWithoutPageURL(t *testing.T) {
	page := `<html><body><p>Only <a href="/relative">relative</a> and <a href="http://abs.example.com/x">absolute</a> links in a paragraph that is long enough to be main text.</p></body></html>`
	doc, err := Parse([]byte(page), "text/html", "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Link{{URL: "http://abs.example.com/x", Anchor: "absolute", InMain: true}}
	if !reflect.DeepEqual(doc.Outlinks, want) {
		t.Errorf("got %+v, want %+v", doc.Outlinks, want)
	}
}

// TestResolveFastMatchesNetURL checks that the fast path returns what net/url
// returns, and declines what it cannot handle.
func TestResolveFastMatchesNetURL(t *testing.T) {
	base, _ := url.Parse("http://www.example.org/news/a.html")
	upperBase, _ := url.Parse("http://WWW.Example.org/news/a.html")
	hrefs := []string{
		"/a/b.html", "/a/b?x=1&y=2", "/a/b;jsessionid=1", "/a,b/c:d@e!f$g*h(i)+j=k", "/a/./b", "/a/../b",
		"/a//b", "/a?", "/a?b?c", "/a%20b", "/a b", "/ä", "http://x.example.com", "http://x.example.com/",
		"https://x.example.com/p?q=1", "http://X.example.com/p", "http://x.example.com:8080/p",
		"http://x.example.com?q", "http://user@x.example.com/", "/~user/index.html", "/a'b",
	}
	for _, b := range []*url.URL{base, upperBase} {
		for _, h := range hrefs {
			fast, ok := resolveFast(b, h)
			if !ok {
				continue
			}
			u, err := url.Parse(h)
			if err != nil {
				t.Errorf("%q: fast path accepted what net/url rejects: %v", h, err)
				continue
			}
			slow := b.ResolveReference(u)
			slow.Host = lower(slow.Host)
			if fast != slow.String() {
				t.Errorf("base %s href %q: fast %q, net/url %q", b, h, fast, slow.String())
			}
		}
	}
	if _, ok := resolveFast(base, "/a/../b"); ok {
		t.Error("dot segments must take the net/url path")
	}
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

func TestCanonical(t *testing.T) {
	for _, c := range []struct{ head, want string }{
		{`<link rel="canonical" href="/2009/09/story.html">`, "http://news.example/2009/09/story.html"},
		{`<link rel="alternate amphtml" href="/amp/x"><LINK REL="Canonical" HREF=" https://News.example/a#top ">`, "https://news.example/a"},
		{`<base href="http://other.example/dir/"><link rel=canonical href="story.html">`, "http://other.example/dir/story.html"},
		{`<link rel="canonical" href="/first"><link rel="canonical" href="/second">`, "http://news.example/first"},
		{`<link rel="canonical-ish" href="/x"><link rel="canonical" href="javascript:void(0)">`, ""},
		{``, ""},
	} {
		page := `<html><head><title>t</title>` + c.head + `</head><body><p>Some text of the article, long enough to be text.</p></body></html>`
		doc, err := Parse([]byte(page), "text/html", "http://news.example/print/story.html", Options{})
		if err != nil {
			t.Fatal(err)
		}
		if doc.Canonical != c.want {
			t.Errorf("%s: canonical %q, want %q", c.head, doc.Canonical, c.want)
		}
	}
}
