package document

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// page holds the parsed tree flattened into records in document (pre-)order,
// plus what the single walk over the tree found on the way (meta tags,
// JSON-LD, <time> elements, links, <base href>, <html lang>). Main text,
// links, dates and title are all computed from it, so the tree is walked once
// and never copied.
type page struct {
	recs []rec

	body      int32 // record of <body>, -1 if none
	frameset  bool
	htmlLang  string
	baseHref  string
	canonical string // href of the first <link rel="canonical">
	titleTag  string
	metas     []metaTag
	jsonLD    []string
	times     []int32 // <time> elements
	itemDates []int32 // elements with itemprop="datePublished"
	bylines   []int32 // elements whose class/id speaks of dates or bylines
	h1s       []int32
	links     []rawLink

	// go-htmldate's answers (doctime.go), asked at most once per mode.
	libraryExtensive, libraryFast libraryAnswer

	// Main content selection (maintext.go) and the links inside it.
	roots     []int32
	mainLinks []bool
}

// rec is one node of the tree. Text statistics count non-space runes.
type rec struct {
	n      *html.Node
	parent int32
	end    int32 // index after the last record of this node's subtree
	flags  recFlags
	link   int32 // index into page.links for <a href> elements, else -1

	direct, directLink int32 // text in child text nodes; of which inside <a>
	raw                int32 // text of the whole subtree, dropped parts included
	text, linkText     int32 // text of the subtree without dropped parts
	inline, inlineLink int32 // text of the inline content of a block
	commas             int32 // commas in the inline content

	score float64 // content score (maintext.go)
}

type recFlags uint16

const (
	fText      recFlags = 1 << iota // a text node
	fBlock                          // a block-level element
	fSkip                           // never text: script, style, head, …
	fHard                           // boilerplate whatever its size
	fSoft                           // boilerplate unless it holds most of the text
	fDead                           // dropped: boilerplate or inside boilerplate
	fCandidate                      // received content score
	fPara                           // a paragraph element (<p>)
)

type metaTag struct{ key, content string }

// libraryAnswer is go-htmldate's date for the page (zero if none), once asked.
type libraryAnswer struct {
	asked bool
	t     time.Time
}

type rawLink struct {
	rec  int32
	href string
}

// skipTags hold no readable text.
var skipTags = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Svg: true, atom.Math: true, atom.Iframe: true, atom.Object: true,
	atom.Embed: true, atom.Canvas: true, atom.Select: true, atom.Textarea: true,
	atom.Button: true, atom.Head: true, atom.Title: true, atom.Option: true,
	atom.Input: true, atom.Audio: true, atom.Video: true, atom.Map: true,
}

// inlineTags continue the text of their block.
var inlineTags = map[atom.Atom]bool{
	atom.A: true, atom.Abbr: true, atom.B: true, atom.Bdi: true, atom.Bdo: true,
	atom.Cite: true, atom.Code: true, atom.Data: true, atom.Dfn: true, atom.Em: true,
	atom.Font: true, atom.I: true, atom.Kbd: true, atom.Mark: true, atom.Q: true,
	atom.S: true, atom.Samp: true, atom.Small: true, atom.Span: true, atom.Strong: true,
	atom.Sub: true, atom.Sup: true, atom.Time: true, atom.U: true, atom.Var: true,
	atom.Wbr: true, atom.Label: true, atom.Big: true, atom.Tt: true, atom.Strike: true,
	atom.Nobr: true, atom.Img: true, atom.Br: true, atom.Del: true, atom.Ins: true,
}

// analyze walks the tree once and builds the page. size is the length of
// the HTML source; pages have about one node per 30-40 bytes.
func analyze(root *html.Node, size int) *page {
	p := &page{body: -1, recs: make([]rec, 0, max(256, size/32))}
	p.walk(root, -1, false)
	p.classify()
	return p
}

func (p *page) walk(n *html.Node, parent int32, inLink bool) {
	switch n.Type {
	case html.CommentNode, html.DoctypeNode:
		return
	case html.TextNode:
		idx := int32(len(p.recs))
		p.recs = append(p.recs, rec{n: n, parent: parent, end: idx + 1, flags: fText, link: -1})
		if parent >= 0 && p.recs[parent].flags&fSkip == 0 {
			c, commas := countText(n.Data)
			r := &p.recs[idx]
			r.direct, r.commas = c, commas
			pr := &p.recs[parent]
			pr.direct += c
			pr.commas += commas
			if inLink {
				r.directLink = c
				pr.directLink += c
			}
		}
		return
	}
	idx := int32(len(p.recs))
	p.recs = append(p.recs, rec{n: n, parent: parent, link: -1})
	if n.Type == html.ElementNode {
		p.element(idx, n, parent, &inLink)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		p.walk(c, idx, inLink)
	}
	p.recs[idx].end = int32(len(p.recs))
}

// element records what the walk needs to know about one element.
func (p *page) element(idx int32, n *html.Node, parent int32, inLink *bool) {
	r := &p.recs[idx]
	if !inlineTags[n.DataAtom] {
		r.flags |= fBlock
	}
	if skipTags[n.DataAtom] || (parent >= 0 && p.recs[parent].flags&fSkip != 0) {
		r.flags |= fSkip
	}
	switch n.DataAtom {
	case atom.Html:
		if l := attr(n, "lang"); l != "" {
			p.htmlLang = l
		} else if l := attr(n, "xml:lang"); l != "" {
			p.htmlLang = l
		}
	case atom.Body:
		if p.body < 0 {
			p.body = idx
		}
	case atom.Frameset:
		p.frameset = true
	case atom.Base:
		if p.baseHref == "" {
			p.baseHref = attr(n, "href")
		}
	case atom.Link:
		if p.canonical == "" && hasToken(attr(n, "rel"), "canonical") {
			p.canonical = attr(n, "href")
		}
	case atom.Title:
		if p.titleTag == "" && n.FirstChild != nil {
			p.titleTag = collapseSpace(n.FirstChild.Data)
		}
	case atom.Meta:
		p.meta(n)
	case atom.Script:
		if strings.EqualFold(strings.TrimSpace(attr(n, "type")), "application/ld+json") && n.FirstChild != nil {
			p.jsonLD = append(p.jsonLD, n.FirstChild.Data)
		}
	case atom.Time:
		p.times = append(p.times, idx)
	case atom.H1:
		p.h1s = append(p.h1s, idx)
	case atom.P:
		r.flags |= fPara
	case atom.A, atom.Area:
		if href, ok := attrOK(n, "href"); ok {
			r.link = int32(len(p.links))
			p.links = append(p.links, rawLink{rec: idx, href: href})
		}
		if n.DataAtom == atom.A {
			*inLink = true
		}
	}
	if strings.EqualFold(attr(n, "itemprop"), "datePublished") && n.DataAtom != atom.Meta {
		p.itemDates = append(p.itemDates, idx)
	}
	if r.flags&fSkip == 0 {
		r.flags |= boilerplate(n)
		if isBylineClass(n) {
			p.bylines = append(p.bylines, idx)
		}
	}
}

func (p *page) meta(n *html.Node) {
	content, ok := attrOK(n, "content")
	if !ok {
		return
	}
	for _, k := range [...]string{"property", "name", "itemprop", "http-equiv"} {
		if v := attr(n, k); v != "" {
			p.metas = append(p.metas, metaTag{key: strings.ToLower(strings.TrimSpace(v)), content: strings.TrimSpace(content)})
			return
		}
	}
}

// countText counts the non-space runes and the commas of s.
func countText(s string) (n, commas int32) {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch c {
			case ' ', '\t', '\n', '\r', '\f':
			case ',':
				commas++
				n++
			default:
				n++
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if !unicode.IsSpace(r) {
			n++
			if r == '，' || r == '、' {
				commas++
			}
		}
	}
	return n, commas
}

func attr(n *html.Node, key string) string {
	v, _ := attrOK(n, key)
	return v
}

func attrOK(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key && a.Namespace == "" {
			return a.Val, true
		}
	}
	return "", false
}

// textBuf collects text with whitespace collapsed and block boundaries
// turned into single newlines.
type textBuf struct {
	b       []byte
	pending byte // separator to write before the next word: 0, ' ' or '\n'
}

func (t *textBuf) write(s string) {
	for i := 0; i < len(s); {
		c := s[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' {
			if t.pending == 0 {
				t.pending = ' '
			}
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if unicode.IsSpace(r) {
				if t.pending == 0 {
					t.pending = ' '
				}
				i += size
				continue
			}
		}
		// Copy the run of non-space ASCII bytes (or one multi-byte rune).
		j := i + 1
		if c >= utf8.RuneSelf {
			_, size := utf8.DecodeRuneInString(s[i:])
			j = i + size
		}
		for j < len(s) && s[j] > ' ' && s[j] < utf8.RuneSelf {
			j++
		}
		if t.pending != 0 && len(t.b) > 0 {
			t.b = append(t.b, t.pending)
		}
		t.pending = 0
		t.b = append(t.b, s[i:j]...)
		i = j
	}
}

// breakLine ends the current block.
func (t *textBuf) breakLine() { t.pending = '\n' }

func (t *textBuf) String() string { return string(t.b) }

func collapseSpace(s string) string {
	var t textBuf
	t.write(s)
	return t.String()
}

// classTokens splits the class and id attributes of n into lower-case words,
// also at camelCase boundaries ("mainNav" → "main", "nav").
func classTokens(n *html.Node, yield func(string) bool) {
	for _, a := range n.Attr {
		if a.Namespace != "" || (a.Key != "class" && a.Key != "id") {
			continue
		}
		s := a.Val
		start := -1
		for i := 0; i <= len(s); i++ {
			var c byte
			if i < len(s) {
				c = s[i]
			}
			lower := c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
			upper := c >= 'A' && c <= 'Z'
			if start >= 0 && (!(lower || upper) || upper && i > start && isLowerASCII(s[i-1])) {
				if !yield(strings.ToLower(s[start:i])) {
					return
				}
				start = -1
			}
			if start < 0 && (lower || upper) {
				start = i
			}
		}
	}
}

func isLowerASCII(c byte) bool { return c >= 'a' && c <= 'z' }

// hasToken reports whether the space-separated list (a rel attribute)
// holds token, ASCII case-insensitively.
func hasToken(list, token string) bool {
	for _, t := range strings.Fields(list) {
		if strings.EqualFold(t, token) {
			return true
		}
	}
	return false
}
