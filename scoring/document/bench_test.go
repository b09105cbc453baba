package document

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// benchPage builds a realistic article page of about 70 KB: inline scripts
// and styles in the head, a large navigation, an article of paragraphs taken
// from the labelled pages, a sidebar, a comment section and a link-heavy
// footer, the proportions of a 2010s news page.
func benchPage(tb testing.TB, lang string) []byte {
	var paras []string
	for _, lp := range labelledPages {
		if lp.lang == lang {
			for _, l := range strings.Split(strings.TrimSpace(lp.mainText(tb)), "\n") {
				if len(l) > 100 {
					paras = append(paras, l)
				}
			}
		}
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `<!DOCTYPE html><html lang=%q><head><meta charset="utf-8"><title>Benchmark article</title>`, lang)
	b.WriteString(`<meta property="og:title" content="Benchmark article"><meta property="article:published_time" content="2009-09-27T10:00:00+02:00">`)
	b.WriteString(`<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","headline":"Benchmark","datePublished":"2009-09-27T10:00:00+02:00"}</script><script>`)
	for i := range 300 {
		fmt.Fprintf(&b, "window.cfg%d={slot:'ad-%d',sizes:[[300,250],[728,90]],targeting:{section:'news',pos:%d}};\n", i, i, i)
	}
	b.WriteString(`</script><style>`)
	for i := range 120 {
		fmt.Fprintf(&b, ".c%d{margin:%dpx;padding:0 %dpx;color:#%03x}\n", i, i%10, i%7, i*7)
	}
	b.WriteString(`</style></head><body class="article-page"><div id="cookie-consent"><p>We use cookies to personalise content and ads and to analyse our traffic.</p><button>OK</button></div>`)
	b.WriteString(`<header class="site-header"><nav class="main-nav"><ul>`)
	for i := range 60 {
		fmt.Fprintf(&b, `<li class="nav-item"><a href="/section/%d/" class="nav-link">Section %d</a></li>`, i, i)
	}
	b.WriteString(`</ul></nav></header><div class="page"><main><article><h1>Benchmark article</h1><p class="byline">By A. Writer, <time datetime="2009-09-27">27 September 2009</time></p><div class="article-body">`)
	for i := range 18 {
		fmt.Fprintf(&b, "<p>%s</p>\n", html.EscapeString(paras[i%len(paras)]))
		if i%6 == 5 {
			fmt.Fprintf(&b, `<div class="ad-slot" id="ad-%d"><script>render(%d)</script></div>`, i, i)
			fmt.Fprintf(&b, `<p>See also <a href="/story/%d.html">a related story number %d</a> and <a href="http://other.example.org/page%d">another site</a>.</p>`, i, i, i)
		}
	}
	b.WriteString(`</div><ul class="related">`)
	for i := range 10 {
		fmt.Fprintf(&b, `<li><a href="/related/%d"><img src="/img/%d.jpg" alt="Related picture %d">Related article %d with a longer headline</a></li>`, i, i, i, i)
	}
	b.WriteString(`</ul></article><section id="comments" class="comments">`)
	for i := range 12 {
		fmt.Fprintf(&b, `<div class="comment"><span class="author">reader%d</span> <time datetime="2009-09-28T1%d:00">28 Sep</time><p>%s</p></div>`, i, i%10, html.EscapeString(paras[(i+3)%len(paras)][:80]))
	}
	b.WriteString(`</section></main><aside class="sidebar"><h3>Most read</h3><ol>`)
	for i := range 40 {
		fmt.Fprintf(&b, `<li><a href="/most-read/%d.html">Most read headline %d about the news of the day</a></li>`, i, i)
	}
	b.WriteString(`</ol></aside></div><footer class="site-footer">`)
	for c := range 8 {
		fmt.Fprintf(&b, `<div class="col"><h4>Group %d</h4><ul>`, c)
		for k := range 12 {
			fmt.Fprintf(&b, `<li><a href="/footer/%d/%d">Footer link %d</a></li>`, c, k, k)
		}
		b.WriteString(`</ul></div>`)
	}
	b.WriteString(`<p>&copy; 2012 Example Media. All rights reserved.</p></footer><script src="/app.js"></script></body></html>`)
	return b.Bytes()
}

func benchmarkPages(b *testing.B) [][]byte {
	return [][]byte{benchPage(b, "en"), benchPage(b, "de")}
}

// BenchmarkParse is the whole per-document step of this package (decode,
// one html.Parse, main text, links, date, language) on ~70 KB pages.
func BenchmarkParse(b *testing.B) {
	pages := benchmarkPages(b)
	b.SetBytes(int64(len(pages[0])))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Parse(pages[i%2], "text/html; charset=utf-8", "http://news.example.com/2009/09/27/story.html", Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBareHTMLParse is golang.org/x/net/html.Parse of the same bytes:
// the reference the product's time budget (3x) is measured against.
func BenchmarkBareHTMLParse(b *testing.B) {
	pages := benchmarkPages(b)
	b.SetBytes(int64(len(pages[0])))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := html.Parse(bytes.NewReader(pages[i%2])); err != nil {
			b.Fatal(err)
		}
	}
}
