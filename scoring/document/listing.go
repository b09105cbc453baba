package document

import (
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Listing pages are home, section, tag and archive pages: they consist of
// links to articles with little text of their own. A focused extraction can
// follow them without counting them as documents (specs: count_listing_pages).
//
// A page with at least listingMinLinks links is a listing page when its main
// text has fewer than listingMaxWords words or link text makes up at least
// listingLinkShare of its visible text. On a listing page, every link outside
// boilerplate counts as a main-content link (Link.InMain): the list is the
// page's content, so the default outlink scope follows it.
//
// Measured on the generated archive (internal/corpus/archivegen, 3,000 articles and
// 572 other pages): articles have 299-1,613 words of main text and a link
// share of 0.02-0.32, so none is a listing page; the home, section and tag
// pages have 0-290 words and a link share of 0.33-0.91, and those with more
// than 100 words have a share of 0.43 or more, so all but pages with fewer
// than 10 links are. On this package's hand-written test pages, short
// articles of 123-280 words with a share of 0.06-0.21 are not listing pages;
// a 97-word article with a share of 0.63 is, and a teaser page whose teaser
// sentences make 137 words of main text with a share of 0.28 is missed.
const (
	listingMaxWords  = 100
	listingMinLinks  = 10
	listingLinkShare = 0.4
)

// linkShare is the share of link text in the visible text of the body
// (boilerplate included: navigation is part of what a reader sees).
func (p *page) linkShare() float64 {
	var all, link int64
	for i := range p.recs {
		r := &p.recs[i]
		if r.flags&fText == 0 || r.parent < 0 || p.recs[r.parent].flags&fSkip != 0 {
			continue
		}
		all += int64(r.direct)
		link += int64(r.directLink)
	}
	if all == 0 {
		return 0
	}
	return float64(link) / float64(all)
}

// isListing applies the listing-page rule to a parsed page.
func isListing(mainWords, links int, linkShare float64) bool {
	if links < listingMinLinks {
		return false
	}
	return mainWords < listingMaxWords || linkShare >= listingLinkShare
}

// countWords counts the words of a text (runs of letters or digits).
func countWords(s string) int {
	n, in := 0, false
	for _, r := range s {
		w := unicode.IsLetter(r) || unicode.IsDigit(r)
		if w && !in {
			n++
		}
		in = w
	}
	return n
}

// listingLinksInMain marks the links of a listing page that lie outside
// boilerplate (navigation, header, footer, sidebars, ads) as main-content
// links: on a listing page the list of links is the content, although main
// text extraction leaves link lists out. It reports whether any link changed.
func (p *page) listingLinksInMain() bool {
	changed := false
	for i, l := range p.links {
		if p.recs[l.rec].flags&(fDead|fSkip) != 0 || p.mainLinks != nil && p.mainLinks[i] {
			continue
		}
		p.linkInMain(int32(i))
		changed = true
	}
	return changed
}

// maxContextBytes bounds the paragraph text kept as a link's context.
const maxContextBytes = 1000

// linkContexts sets the Context of every outlink: the text of the nearest
// block element around the link (its paragraph, list item or table cell).
func (p *page) linkContexts(pageURL *url.URL, links []Link) {
	if len(links) == 0 {
		return
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
		if !ok || links[i].Context != "" {
			continue
		}
		b := p.recs[l.rec].parent
		for b >= 0 && p.recs[b].flags&fBlock == 0 {
			b = p.recs[b].parent
		}
		if b < 0 {
			continue
		}
		t, ok := texts[b]
		if !ok {
			t = p.plainText(b)
			if len(t) > maxContextBytes {
				t = t[:maxContextBytes]
				for !utf8.ValidString(t) { // do not cut a UTF-8 sequence
					t = t[:len(t)-1]
				}
			}
			texts[b] = t
		}
		links[i].Context = t
	}
}

// URLDate returns a date found in the path or query of a URL: /2009/09/27/,
// 2009-09-27, 20090927, and, with less precision, /2009/09/ (the first of
// the month). It is how a link gets a time before its page is fetched (Wu &
// Hou); ok is false when the URL has none.
func URLDate(rawURL string) (time.Time, bool) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return time.Time{}, false
	}
	s := u.EscapedPath()
	if u.RawQuery != "" {
		s += "?" + u.RawQuery
	}
	if t, ok := urlDate(s); ok {
		return t, true
	}
	return urlMonth(s)
}

// urlMonth finds /YYYY/MM/ in a path.
func urlMonth(path string) (time.Time, bool) {
	parts := strings.Split(path, "/")
	for i := 0; i+1 < len(parts); i++ {
		y, m := parts[i], parts[i+1]
		if len(y) != 4 || len(m) != 2 || !allDigits(y) || !allDigits(m) {
			continue
		}
		year := int(y[0]-'0')*1000 + int(y[1]-'0')*100 + int(y[2]-'0')*10 + int(y[3]-'0')
		month := int(m[0]-'0')*10 + int(m[1]-'0')
		if year < 1991 || year > 2099 { // the web's years only
			continue
		}
		if t, ok := makeDate(year, month, 1); ok {
			return t, true
		}
	}
	return time.Time{}, false
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
