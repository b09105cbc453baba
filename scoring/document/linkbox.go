package document

import (
	"net/url"
	"sort"
	"unicode/utf8"
)

// A link's box is the list of links it stands in: the smallest element
// around it that holds at least minBoxLinks links, when that element is a
// list of links rather than running text (link text is more than
// minBoxLinkDensity of its text: boilerpipe's link density, Kohlschütter
// et al., WSDM 2010). A "related stories" list, a "most read" widget, a
// menu, a list of headlines on a section page are boxes; a paragraph or an
// article body with a few links in it is not (its links have their
// paragraph as context). The box's text says what the links of the list
// have in common, which a single anchor often does not: the headline "Why
// the turnout is close" names no topic, the related-stories list it stands
// in does, and a "most read" list of the same page names other topics.
// This is the aggregation node of Pant & Srinivasan (link contexts in
// topical crawlers, TKDE 2006), taken at the first level of the tree that
// groups several links.
const (
	minBoxLinks       = 3
	minBoxLinkDensity = 1.0 / 3
	// maxBoxBytes bounds the text read from a box (its first bytes), and
	// maxBoxes the boxes of one page.
	maxBoxBytes = 2000
	maxBoxes    = 256
)

// linkBoxes sets the Box of every outlink: the text of the box around the
// first link to its URL (see minBoxLinks), at most maxBoxBytes.
func (p *page) linkBoxes(pageURL *url.URL, links []Link) {
	if len(links) == 0 || len(p.links) < minBoxLinks {
		return
	}
	// The link elements in document order: the records of a subtree are
	// the range [i, end), so a subtree's links are a range of pos.
	pos := make([]int32, len(p.links))
	for i, l := range p.links {
		pos[i] = l.rec
	}
	linksIn := func(b int32) int {
		lo := sort.Search(len(pos), func(i int) bool { return pos[i] >= b })
		hi := sort.Search(len(pos), func(i int) bool { return pos[i] >= p.recs[b].end })
		return hi - lo
	}
	byURL := make(map[string]int, len(links))
	for i, l := range links {
		byURL[l.URL] = i
	}
	texts := map[int32]string{}
	resolved := map[string]string{}
	base := p.base(pageURL)
	for _, l := range p.links {
		target, ok := resolved[l.href]
		if !ok {
			target = resolve(base, l.href)
			resolved[l.href] = target
		}
		i, ok := byURL[target]
		if !ok || links[i].Box != "" {
			continue
		}
		b := p.recs[l.rec].parent
		for b >= 0 && linksIn(b) < minBoxLinks {
			b = p.recs[b].parent
		}
		if b < 0 {
			continue
		}
		t, ok := texts[b]
		if !ok {
			if len(texts) >= maxBoxes {
				continue
			}
			var density float64
			t, density = p.textPrefix(b, maxBoxBytes)
			if density <= minBoxLinkDensity {
				t = "" // running text, not a list of links
			}
			texts[b] = t
		}
		links[i].Box = t
	}
}

// textPrefix is the first at most limit bytes of plainText(i), cut at a
// rune boundary, and the share of them that is link text; it stops reading
// the subtree once it has them.
func (p *page) textPrefix(i int32, limit int) (string, float64) {
	var t textBuf
	linkEnd := int32(-1) // the end of the link being read
	inLinks := 0
	for j := i; j < p.recs[i].end && len(t.b) < limit; j++ {
		r := &p.recs[j]
		if r.link >= 0 {
			linkEnd = max(linkEnd, r.end)
		}
		if r.flags&fText != 0 && p.recs[r.parent].flags&fSkip == 0 {
			n := len(t.b)
			t.write(r.n.Data)
			if j < linkEnd {
				inLinks += len(t.b) - n
			}
		} else if r.flags&fBlock != 0 && j != i {
			t.pending = ' '
		}
	}
	b := t.b
	if len(b) > limit {
		b = b[:limit]
		// Do not cut a UTF-8 sequence: drop a last rune left incomplete.
		for k := len(b) - 1; k >= 0 && k >= len(b)-utf8.UTFMax; k-- {
			if utf8.RuneStart(b[k]) {
				if !utf8.FullRune(b[k:]) {
					b = b[:k]
				}
				break
			}
		}
	}
	density := 0.0
	if len(t.b) > 0 {
		density = float64(inLinks) / float64(len(t.b))
	}
	return string(b), density
}
