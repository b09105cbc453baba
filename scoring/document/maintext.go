package document

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Main-text extraction: drop boilerplate by tag, ARIA role and class/id
// words; score the remaining blocks as Readability does (each paragraph gives
// points for its length and commas to its parent, grandparent and further
// ancestors, scaled down by link density); take the best-scoring container,
// widen it to a common ancestor when several strong candidates share one, add
// strong siblings; emit its text without link lists and headline.

// softTags are boilerplate unless they hold most of the page's text (ASP.NET
// pages wrap everything in one <form>; some sites put the article in <header>).
var softTags = map[atom.Atom]bool{
	atom.Nav: true, atom.Aside: true, atom.Footer: true, atom.Header: true,
	atom.Form: true, atom.Menu: true, atom.Dialog: true, atom.Figcaption: true,
	atom.Address: true,
}

// hardWords in a class or id mark boilerplate whatever its size.
var hardWords = wordSet(`comment comments kommentar kommentare commentlist
	cookie cookies consent gdpr cmp
	ad ads adv advert adverts advertisement advertising adbox adslot anzeige anzeigen werbung
	sponsor sponsored share sharing sharebar shariff social socials
	newsletter disqus outbrain taboola plista popup modal paywall`)

// softWords in a class or id mark boilerplate unless the element holds most
// of the text (layout wrappers such as "page-with-sidebar").
var softWords = wordSet(`nav navi navbar navigation menu menubar mainmenu submenu topnav subnav
	breadcrumb breadcrumbs crumbs footer fuss fusszeile header masthead topbar toolbar
	sidebar side rail aside widget widgets marginal
	related recommended recommendations empfehlungen mehr more morelinks readmore
	promo tags tagcloud meta byline author autor dateline caption credit credits
	pagination pager paging skip login search suche subscribe signup print tools
	banner links linklist services service teaserbox infobox`)

// positiveWords and negativeWords adjust a candidate's score, as in
// Readability.
var (
	positiveWords = wordSet(`article artikel body content entry main post story text
		beitrag inhalt blog hentry column`)
	negativeWords = wordSet(`hidden contact media shopping scroll shoutbox skyscraper
		teaser list liste overview`)
	bylineWords = wordSet(`date datum time zeit byline dateline published publish
		pubdate posted meta info author autor timestamp`)
)

// boilerRoles are ARIA landmark roles that are not content.
var boilerRoles = map[string]bool{
	"navigation": true, "banner": true, "contentinfo": true, "complementary": true,
	"search": true, "menu": true, "menubar": true, "dialog": true, "alertdialog": true,
}

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// boilerplate classifies an element by tag, role, hidden state and class/id.
func boilerplate(n *html.Node) recFlags {
	if _, hidden := attrOK(n, "hidden"); hidden {
		return fHard
	}
	if strings.EqualFold(attr(n, "aria-hidden"), "true") {
		return fHard
	}
	if st := attr(n, "style"); st != "" && strings.Contains(strings.ReplaceAll(strings.ToLower(st), " ", ""), "display:none") {
		return fHard
	}
	switch n.DataAtom {
	case atom.Html, atom.Body, atom.Main, atom.Article:
		return 0
	}
	var f recFlags
	if softTags[n.DataAtom] || boilerRoles[strings.ToLower(attr(n, "role"))] {
		f = fSoft
	}
	classTokens(n, func(w string) bool {
		if hardWords[w] {
			f = fHard
			return false
		}
		if softWords[w] {
			f = fSoft
		}
		return true
	})
	return f
}

func isBylineClass(n *html.Node) bool { return hasClassWord(n, bylineWords) }

func classWeight(n *html.Node) float64 {
	var w float64
	pos, neg := false, false
	classTokens(n, func(t string) bool {
		pos = pos || positiveWords[t]
		neg = neg || negativeWords[t]
		return true
	})
	if pos {
		w += 25
	}
	if neg {
		w -= 25
	}
	switch strings.ToLower(attr(n, "role")) {
	case "main", "article":
		w += 25
	}
	return w
}

func tagWeight(a atom.Atom) float64 {
	switch a {
	case atom.Article, atom.Main:
		return 10
	case atom.Div, atom.Section:
		return 5
	case atom.Pre, atom.Td, atom.Blockquote:
		return 3
	case atom.Address, atom.Ol, atom.Ul, atom.Dl, atom.Dd, atom.Dt, atom.Li, atom.Form:
		return -3
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Th:
		return -5
	}
	return 0
}

// paragraph thresholds, in non-space runes.
const (
	minParagraph   = 25  // shorter inline runs give no score (Readability)
	longParagraph  = 80  // sibling paragraphs this long join the main content
	maxScoreLevels = 5   // ancestors that receive a paragraph's score
	mostText       = 0.5 // share of the page text that protects soft boilerplate
	linkDenseBlock = 0.5 // link share above which a container is a link list
)

// classify computes the raw and effective text statistics, drops
// boilerplate and scores the blocks. Records are in pre-order, so a reverse
// loop sees every child before its parent.
func (p *page) classify() {
	recs := p.recs
	for i := len(recs) - 1; i >= 0; i-- {
		r := &recs[i]
		r.raw += r.direct
		if r.parent >= 0 {
			recs[r.parent].raw += r.raw
		}
	}
	var total int32
	if p.body >= 0 {
		total = recs[p.body].raw
	}
	for i := range recs {
		r := &recs[i]
		if r.parent >= 0 && recs[r.parent].flags&fDead != 0 {
			r.flags |= fDead
			continue
		}
		if r.flags&fHard != 0 || r.flags&fSoft != 0 && float64(r.raw) <= mostText*float64(total) {
			r.flags |= fDead
		}
	}
	for i := len(recs) - 1; i >= 0; i-- {
		r := &recs[i]
		if r.flags&(fDead|fSkip) != 0 || r.flags&fText != 0 {
			continue
		}
		r.text += r.direct
		r.linkText += r.directLink
		r.inline += r.direct
		r.inlineLink += r.directLink
		if r.parent < 0 {
			continue
		}
		pr := &recs[r.parent]
		pr.text += r.text
		pr.linkText += r.linkText
		if r.flags&fBlock == 0 {
			pr.inline += r.inline
			pr.inlineLink += r.inlineLink
			pr.commas += r.commas
			continue
		}
		if r.inline >= minParagraph {
			p.scoreParagraph(int32(i))
		}
	}
}

// scoreParagraph gives a block's inline text score to its ancestors; blocks
// other than <p> with text of their own (<td>, <div> with <br>s) also score
// themselves, so a table cell holding the article can win over its row.
func (p *page) scoreParagraph(i int32) {
	r := &p.recs[i]
	s := 1 + float64(r.commas) + min(float64(r.inline)/100, 3)
	s *= 1 - float64(r.inlineLink)/float64(r.inline)
	level := 0
	a := r.parent
	if r.flags&fPara == 0 {
		a = i
		level = -1
	}
	for ; a >= 0 && level < maxScoreLevels; level++ {
		ar := &p.recs[a]
		if ar.n.Type != html.ElementNode || ar.n.DataAtom == atom.Html {
			break
		}
		if ar.flags&fCandidate == 0 {
			ar.flags |= fCandidate
			ar.score = tagWeight(ar.n.DataAtom) + classWeight(ar.n)
		}
		switch {
		case level <= 0:
			ar.score += s
		case level == 1:
			ar.score += s / 2
		default:
			ar.score += s / float64(level*3)
		}
		a = ar.parent
	}
}

func (p *page) linkDensity(i int32) float64 {
	r := &p.recs[i]
	if r.text == 0 {
		return 0
	}
	return float64(r.linkText) / float64(r.text)
}

func (p *page) finalScore(i int32) float64 {
	return p.recs[i].score * (1 - p.linkDensity(i))
}

// selectMain picks the records whose subtrees form the main content.
func (p *page) selectMain() {
	const nTop = 5
	var top [nTop]int32
	nt := 0
	for i := range p.recs {
		if p.recs[i].flags&fCandidate == 0 {
			continue
		}
		s := p.finalScore(int32(i))
		j := nt
		if nt < nTop {
			nt++
		} else if s <= p.finalScore(top[nTop-1]) {
			continue
		} else {
			j = nTop - 1
		}
		for j > 0 && s > p.finalScore(top[j-1]) {
			top[j] = top[j-1]
			j--
		}
		top[j] = int32(i)
	}
	if nt == 0 {
		if p.body >= 0 {
			p.roots = []int32{p.body}
		}
		return
	}
	best := top[0]
	bestScore := p.finalScore(best)

	// Several strong candidates inside one ancestor: the ancestor is the
	// article (paragraphs split by figures, ads or subheadings).
	for a := p.recs[best].parent; a >= 0 && a != p.body && p.recs[a].n.DataAtom != atom.Html; a = p.recs[a].parent {
		inside := 0
		for _, c := range top[1:nt] {
			if p.finalScore(c) >= 0.75*bestScore && c > a && c < p.recs[a].end {
				inside++
			}
		}
		if inside >= 2 {
			best = a
			break
		}
	}

	parent := p.recs[best].parent
	if parent < 0 {
		p.roots = []int32{best}
		return
	}
	threshold := max(10, bestScore*0.2)
	for c := parent + 1; c < p.recs[parent].end; c = p.recs[c].end {
		r := &p.recs[c]
		if c == best {
			p.roots = append(p.roots, c)
			continue
		}
		if r.flags&(fDead|fSkip|fText) != 0 || r.text == 0 {
			continue
		}
		ld := p.linkDensity(c)
		switch {
		case r.flags&fCandidate != 0 && p.finalScore(c) >= threshold:
		case r.flags&fPara != 0 && r.inline >= longParagraph && ld < 0.25:
		default:
			continue
		}
		p.roots = append(p.roots, c)
	}
}

// walkMain walks the main content, calling text for each text node, block at
// block boundaries and link for each link element inside it. Boilerplate,
// link lists and the <h1> headline are left out.
func (p *page) walkMain(text func(string), block func(), link func(int32)) {
	var open []int32 // ends of the blocks being walked
	for _, root := range p.roots {
		end := p.recs[root].end
		for i := root; i < end; {
			for len(open) > 0 && i >= open[len(open)-1] {
				open = open[:len(open)-1]
				block()
			}
			r := &p.recs[i]
			if r.flags&fText != 0 {
				if r.flags&fSkip == 0 && p.recs[r.parent].flags&fSkip == 0 {
					text(r.n.Data)
				}
				i++
				continue
			}
			if r.flags&(fDead|fSkip) != 0 || r.n.DataAtom == atom.H1 || p.isLinkList(i) {
				i = r.end
				continue
			}
			if r.link >= 0 {
				link(r.link)
			}
			if r.flags&fBlock != 0 || r.n.DataAtom == atom.Br {
				block()
				if r.end > i+1 {
					open = append(open, r.end)
				}
			}
			i++
		}
		open = open[:0]
		block()
	}
}

// isLinkList reports a container that is mostly link text (a list of related
// articles, tag links, a pager) inside the main content.
func (p *page) isLinkList(i int32) bool {
	r := &p.recs[i]
	if r.flags&fBlock == 0 || r.flags&fPara != 0 || r.text == 0 {
		return false
	}
	return p.linkDensity(i) > linkDenseBlock
}

// mainText returns the text of the main content, one block per line, and
// marks the links inside it.
func (p *page) mainText() string {
	var t textBuf
	t.b = make([]byte, 0, 4096)
	p.walkMain(t.write, t.breakLine, func(l int32) { p.linkInMain(l) })
	return t.String()
}

// title is the og:title, else the first <h1> that is not just a link (site
// logos), else the <title>.
func (p *page) title() string {
	for _, m := range p.metas {
		if m.key == "og:title" && m.content != "" {
			return collapseSpace(m.content)
		}
	}
	for _, h := range p.h1s {
		r := &p.recs[h]
		if r.raw > 0 && r.flags&fSkip == 0 {
			s := p.plainText(h)
			if s != "" && !p.onlyLinkText(h) {
				return s
			}
		}
	}
	return p.titleTag
}

func (p *page) onlyLinkText(i int32) bool {
	var link, all int32
	for j := i; j < p.recs[i].end; j++ {
		r := &p.recs[j]
		if r.flags&fText != 0 {
			all += r.direct
			link += r.directLink
		}
	}
	return all > 0 && link == all
}

// plainText is the text of a subtree on one line, including parts dropped as
// boilerplate (for anchors and headings).
func (p *page) plainText(i int32) string {
	var t textBuf
	for j := i; j < p.recs[i].end; j++ {
		r := &p.recs[j]
		if r.flags&fText != 0 && p.recs[r.parent].flags&fSkip == 0 {
			t.write(r.n.Data)
		} else if r.flags&fBlock != 0 && j != i {
			t.pending = ' '
		}
	}
	return t.String()
}
