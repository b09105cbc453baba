package archivegen

import (
	"strconv"
	"time"
)

// teaser is the one-sentence summary listing pages show for an article.
func (w *world) teaser(dst []byte, a *article) []byte {
	g := w.newTextGen(a, streamText+2000)
	return g.sentence(dst)
}

// renderArticle writes an article page as it looked in boilerplate bucket
// version: the head, the headline with its byline, the text, and the links
// under it, in the host's layout.
func (rd *renderer) renderArticle(dst []byte, a *article, version int64) []byte {
	w, h := rd.w, a.host
	p := &pageCtx{h: h, at: h.bucketStart(version), title: a.title, canonical: a.url, kind: "article"}
	if a.wiki {
		return rd.renderWiki(dst, a, p)
	}
	g := w.newTextGen(a, streamText)
	r := newRNG(w.seed, streamLinks, uint64(a.id))
	related := w.relatedIDs(a, &r, 4+r.intn(5))
	iso := isoTime(nil, a.pub, a.lang)
	lead := g.sentence(nil)
	p.desc = string(lead)
	dst = rd.head(dst, p, func(dst []byte) []byte { return rd.articleMeta(dst, a, iso) })
	dst = rd.header(dst, p)
	lt := layouts[h.Layout]
	dst = append(dst, lt.mainOpen...)
	dst = append(dst, `<div class="breadcrumb">`...)
	dst = appendLink(dst, "/", ui("home", a.lang))
	dst = append(dst, " &raquo; "...)
	dst = appendLink(dst, sectionPath(h, w, a.main.bg, 1), a.main.v[a.lang].name)
	dst = append(dst, "</div>\n"...)
	dst = append(dst, lt.articleOpen...)
	dst = rd.headline(dst, a, iso, g)
	dst = rd.articleText(dst, a, lead, related, g, &r)
	dst = rd.articleLinks(dst, a, related, &r)
	dst = append(dst, lt.articleClose...)
	dst = rd.relatedAfter(dst, a, related, &r)
	dst = append(dst, lt.mainClose...)
	if h.Template == TemplateFooterFarm {
		p.related = related
	}
	dst = rd.sidebar(dst, p)
	dst = rd.footer(dst, p)
	return dst
}

// articleMeta writes what an article's head says of it: Open Graph tags
// (HTML5 layout), the published time as a meta tag and in JSON-LD where the
// page states it there, and the link to its AMP variant.
func (rd *renderer) articleMeta(dst []byte, a *article, iso []byte) []byte {
	w, h := rd.w, a.host
	if h.Layout == layoutHTML5 {
		dst = append(dst, `<meta property="og:title" content="`...)
		dst = appendEsc(dst, a.title)
		dst = append(dst, "\">\n<meta property=\"og:type\" content=\"article\">\n"...)
	}
	if a.dates&dsMeta != 0 {
		dst = append(dst, `<meta property="article:published_time" content="`...)
		dst = append(dst, iso...)
		dst = append(dst, "\">\n<meta property=\"article:section\" content=\""...)
		dst = append(dst, a.main.v[a.lang].name...)
		dst = append(dst, "\">\n"...)
	}
	if a.dates&dsJSONLD != 0 {
		dst = append(dst, `<script type="application/ld+json">{"@context":"http://schema.org","@type":"NewsArticle","headline":"`...)
		dst = appendEsc(dst, a.title)
		dst = append(dst, `","datePublished":"`...)
		dst = append(dst, iso...)
		dst = append(dst, `","author":{"@type":"Person","name":"`...)
		dst = append(dst, w.authors[a.lang][a.id%int64(len(w.authors[a.lang]))]...)
		dst = append(dst, `"},"publisher":{"@type":"Organization","name":"`...)
		dst = appendEsc(dst, h.Title)
		dst = append(dst, "\"}}</script>\n"...)
	}
	if h.Template == TemplateAMPPrint {
		dst = append(dst, `<link rel="amphtml" href="`...)
		dst = appendEsc(dst, variantURL(a, true))
		dst = append(dst, "\">\n"...)
	}
	return dst
}

// headline writes an article's headline, its byline (with the published
// time where the page states it there) and its figure, if it has one.
func (rd *renderer) headline(dst []byte, a *article, iso []byte, g *textGen) []byte {
	w, h := rd.w, a.host
	dst = append(dst, `<h1 class="headline">`...)
	dst = appendEsc(dst, a.title)
	dst = append(dst, "</h1>\n<p class=\"byline\">"...)
	dst = append(dst, ui("by", a.lang)...)
	dst = append(dst, ` <span class="author">`...)
	dst = append(dst, w.authors[a.lang][a.id%int64(len(w.authors[a.lang]))]...)
	dst = append(dst, "</span>"...)
	if a.dates&dsTime != 0 {
		dst = append(dst, ` | <time datetime="`...)
		dst = append(dst, iso...)
		dst = append(dst, `" pubdate="pubdate">`...)
		dst = appendDate(dst, a.pub, a.lang, h.Index)
		dst = append(dst, "</time>"...)
	}
	dst = append(dst, "</p>\n"...)
	if a.image {
		dst = append(dst, `<div class="figure"><img src="/images/`...)
		dst = strconv.AppendInt(dst, a.id, 36)
		dst = append(dst, `.jpg" width="620" height="350" alt="`...)
		dst = appendEsc(dst, a.title)
		dst = append(dst, "\"><p class=\"caption\">"...)
		dst = g.sentence(dst)
		dst = append(dst, "</p></div>\n"...)
	}
	return dst
}

// articleText writes an article's text: the lead paragraph (after a
// dateline where the page states its date there), a recipe or a results
// table on some food and sports pages, then paragraphs up to a.words, with
// a subheading before every third, the event's mention in the second of a
// grade-1 article, and links to related articles at the end of some.
func (rd *renderer) articleText(dst []byte, a *article, lead []byte, related []int64, g *textGen, r *rng) []byte {
	w, h := rd.w, a.host
	dst = append(dst, "<div class=\"entry-content\">\n<p class=\"lead\">"...)
	if a.dates&dsDateline != 0 {
		dst = rd.dateline(dst, a, &g.r)
	}
	dst = append(dst, lead...)
	dst = append(dst, ' ')
	dst = g.sentence(dst)
	dst = append(dst, "</p>\n"...)
	if a.main.slug == "food" && r.chance(0.6) {
		dst = rd.recipe(dst, a, g)
	}
	if a.main.slug == "sports" && r.chance(0.4) {
		dst = rd.results(dst, a, r)
	}
	inline := relatedInline(h, min(len(related), 1+a.words/400))
	for para := 0; g.words < a.words; para++ {
		if para > 0 && para%3 == 0 {
			dst = append(dst, "<h2>"...)
			dst = append(dst, capitalize(g.keyword())...)
			dst = append(dst, "</h2>\n"...)
		}
		dst = append(dst, "<p>"...)
		if para == 1 && a.grade == 1 {
			dst = mentionParagraph(dst, a, g)
		} else {
			for s, n := 0, 3+g.r.intn(4); s < n; s++ {
				if s > 0 {
					dst = append(dst, ' ')
				}
				dst = g.sentence(dst)
			}
		}
		if para%2 == 1 && inline > 0 {
			inline--
			t := rd.article(related[inline])
			dst = append(dst, ' ')
			dst = append(dst, ui("readmore", a.lang)...)
			dst = append(dst, ' ')
			dst = appendLink(dst, w.linkTo(h, t, r), t.title)
			dst = append(dst, '.')
		}
		dst = append(dst, "</p>\n"...)
	}
	return append(dst, "</div>\n"...)
}

// mentionParagraph writes the sentences of the paragraph that mentions the
// event of a grade-1 article: the mention, then two sentences whose words
// lean to the event.
func mentionParagraph(dst []byte, a *article, g *textGen) []byte {
	saved, savedP := g.topic, g.pTopic
	g.topic, g.pTopic = a.event.v[a.lang], 0.7
	dst = mentionSentence(dst, a.lang, a.event, &g.r)
	dst = append(dst, ' ')
	dst = g.sentence(dst)
	dst = append(dst, ' ')
	dst = g.sentence(dst)
	g.topic, g.pTopic = saved, savedP
	return dst
}

// articleLinks writes the links under an article's text: the related
// articles (classic template), its tags, the share links, the print variant
// (AMP/print template) and the (unarchived) comments.
func (rd *renderer) articleLinks(dst []byte, a *article, related []int64, r *rng) []byte {
	w, h := rd.w, a.host
	if h.Template == TemplateClassic {
		dst = append(dst, "<div class=\"related\"><h3>"...)
		dst = append(dst, ui("related", a.lang)...)
		dst = append(dst, "</h3>\n<ul>\n"...)
		for _, id := range related {
			t := rd.article(id)
			dst = append(dst, "<li>"...)
			dst = appendLink(dst, w.linkTo(h, t, r), t.title)
			dst = append(dst, "</li>\n"...)
		}
		dst = append(dst, "</ul></div>\n"...)
	}
	dst = append(dst, "<div class=\"tags\">"...)
	dst = append(dst, ui("tags", a.lang)...)
	kws := a.topic.v[a.lang].keywords
	for k := 0; k < min(3, len(kws)); k++ {
		dst = append(dst, ' ')
		dst = appendLink(dst, w.href(h, h, tagPath(h, kws[k], 1), r), kws[k])
	}
	dst = append(dst, "</div>\n"...)
	dst = shareLinks(dst, a.url, a.title, a.lang)
	if h.Template == TemplateAMPPrint {
		dst = append(dst, "<p class=\"print\">"...)
		dst = appendLink(dst, variantURL(a, false), "Print")
		dst = append(dst, "</p>\n"...)
	}
	dst = append(dst, "<p class=\"comments\">"...)
	dst = appendLink(dst, unarchivedPath(h, r, a.id), strconv.Itoa(r.intn(80))+" "+ui("comments", a.lang))
	return append(dst, "</p>\n"...)
}

// dateline writes the place and date that open a news text.
func (rd *renderer) dateline(dst []byte, a *article, r *rng) []byte {
	place := pick(r, rd.w.generic[langEN].places)
	if a.lang == langDE {
		place = pick(r, rd.w.generic[langDE].places)
		if a.host.Index%2 == 0 {
			dst = append(dst, place...)
			dst = append(dst, ", "...)
			dst = appendDate(dst, a.pub, langDE, 0) // 27.09.2009
			return append(dst, " - "...)
		}
		dst = append(dst, ui("published", langDE)...)
		dst = append(dst, ' ')
		dst = appendDate(dst, a.pub, langDE, 1) // 5. März 2009
		return append(dst, ". "...)
	}
	for i := 0; i < len(place); i++ {
		c := place[i]
		if c >= 'a' && c <= 'z' {
			c -= 32
		}
		dst = append(dst, c)
	}
	dst = append(dst, ", "...)
	dst = appendDate(dst, a.pub, langEN, a.host.Index)
	return append(dst, " – "...)
}

func (rd *renderer) recipe(dst []byte, a *article, g *textGen) []byte {
	dst = append(dst, "<h2>"...)
	dst = append(dst, ui("ingredients", a.lang)...)
	dst = append(dst, "</h2>\n<ul class=\"ingredients\">\n"...)
	units := [2][]string{wordList("200 g|100 g|2 tbsp|1 tsp|1 cup|3|2|500 ml|1 pinch of"), wordList("200 g|100 g|2 EL|1 TL|1 Tasse|3|2|500 ml|1 Prise")}
	for i, n := 0, 5+g.r.intn(5); i < n; i++ {
		dst = append(dst, "<li>"...)
		dst = append(dst, pick(&g.r, units[a.lang])...)
		dst = append(dst, ' ')
		dst = append(dst, stripArticle(pick(&g.r, g.topic.nouns))...)
		dst = append(dst, "</li>\n"...)
	}
	dst = append(dst, "</ul>\n<h2>"...)
	dst = append(dst, ui("method", a.lang)...)
	dst = append(dst, "</h2>\n<ol class=\"method\">\n"...)
	for i, n := 0, 4+g.r.intn(4); i < n; i++ {
		dst = append(dst, "<li>"...)
		dst = g.sentence(dst)
		dst = append(dst, "</li>\n"...)
	}
	return append(dst, "</ol>\n"...)
}

var teams = []string{"FC Lindenau", "Borussia Altstadt", "SV Hafenstadt", "Eintracht Nordheim", "Union Waldkirch", "VfB Seeburg", "Rot-Weiß Bergen", "SC Talheim", "Athletic Riverside", "Harbour United", "Valley Rovers", "Northfield City"}

func (rd *renderer) results(dst []byte, a *article, r *rng) []byte {
	dst = append(dst, "<h2>"...)
	dst = append(dst, ui("results", a.lang)...)
	dst = append(dst, "</h2>\n<table class=\"results\">\n"...)
	for i, n := 0, 4+r.intn(5); i < n; i++ {
		dst = append(dst, "<tr><td>"...)
		dst = append(dst, pick(r, teams)...)
		dst = append(dst, "</td><td>"...)
		dst = append(dst, pick(r, teams)...)
		dst = append(dst, "</td><td>"...)
		dst = strconv.AppendInt(dst, int64(r.intn(5)), 10)
		dst = append(dst, ':')
		dst = strconv.AppendInt(dst, int64(r.intn(4)), 10)
		dst = append(dst, "</td></tr>\n"...)
	}
	return append(dst, "</table>\n"...)
}

// renderWiki writes an encyclopedia article: infobox, many internal links,
// references to news articles on other hosts, categories, and a "last
// modified" line that changes with the boilerplate bucket.
func (rd *renderer) renderWiki(dst []byte, a *article, p *pageCtx) []byte {
	w, h := rd.w, a.host
	g := w.newTextGen(a, streamText)
	g.pTopic = 0.55
	r := newRNG(w.seed, streamLinks, uint64(a.id))
	internal, refs := w.wikiLinks(a, &r)
	dst = rd.head(dst, p, nil)
	lt := layouts[h.Layout]
	dst = append(dst, lt.mainOpen...)
	dst = append(dst, `<h1 id="firstHeading" class="firstHeading">`...)
	dst = appendEsc(dst, a.title)
	dst = append(dst, "</h1>\n<div id=\"siteSub\">"...)
	if a.lang == langDE {
		dst = append(dst, "Aus Wikiverse, der freien Enzyklopädie"...)
	} else {
		dst = append(dst, "From Wikiverse, the free encyclopedia"...)
	}
	dst = append(dst, "</div>\n<div id=\"mw-content-text\">\n"...)
	if e := a.topic.event; e != nil && a.topic.kind == kindEvent {
		dst = infobox(dst, e, a.lang, &g.r)
	}
	dst = append(dst, "<p><b>"...)
	dst = appendEsc(dst, a.title)
	dst = append(dst, "</b> - "...)
	dst = g.sentence(dst)
	dst = append(dst, "</p>\n"...)
	for para, k := 0, 0; g.words < a.words; para++ {
		if para%2 == 0 {
			dst = append(dst, "<h2><span class=\"mw-headline\">"...)
			dst = append(dst, capitalize(stripArticle(pick(&g.r, g.topic.nouns)))...)
			dst = append(dst, "</span></h2>\n"...)
		}
		dst = append(dst, "<p>"...)
		for s, n := 0, 3+g.r.intn(4); s < n; s++ {
			if s > 0 {
				dst = append(dst, ' ')
			}
			dst = g.sentence(dst)
			if k < len(internal) && g.r.chance(0.5) {
				t := rd.article(internal[k])
				k++
				dst = append(dst, " ("...)
				dst = appendLink(dst, t.path, t.title)
				dst = append(dst, ')')
			}
		}
		dst = append(dst, "</p>\n"...)
	}
	dst = append(dst, "<h2><span class=\"mw-headline\">References</span></h2>\n<ol class=\"references\">\n"...)
	for _, id := range refs {
		t := rd.article(id)
		dst = append(dst, "<li>"...)
		dst = appendLink(dst, w.linkTo(h, t, &r), t.title)
		dst = append(dst, ". <i>"...)
		dst = appendEsc(dst, t.host.Title)
		dst = append(dst, "</i>.</li>\n"...)
	}
	dst = append(dst, "</ol>\n<div id=\"catlinks\">Categories: "...)
	kws := a.topic.v[a.lang].keywords
	for k := 0; k < min(2, len(kws)); k++ {
		dst = appendLink(dst, tagPath(h, kws[k], 1), kws[k])
		dst = append(dst, " | "...)
	}
	dst = append(dst, "</div>\n</div>\n"...)
	dst = append(dst, lt.mainClose...)
	dst = rd.sidebar(dst, p)
	dst = lastModified(dst, a.lang, p.at)
	dst = rd.footer(dst, p)
	return dst
}

// wikiLinks picks the articles an encyclopedia article links to: internal
// links to nearby articles of its topic, and references to news articles on
// the same topic from other hosts (some of them never archived).
func (w *world) wikiLinks(a *article, r *rng) (internal, refs []int64) {
	for range 6 + r.intn(8) {
		if id := w.nearby(a, a.topic, r); id >= 0 && id != a.id {
			internal = append(internal, id)
		}
	}
	for range 3 + r.intn(5) {
		t := a.topic
		if r.chance(0.06) {
			refs = append(refs, w.phantom(t, r))
			continue
		}
		if t.n > 0 {
			refs = append(refs, w.articleID(t, int64(r.intn(int(t.n)))))
		}
	}
	return internal, refs
}

// infobox writes the box of an encyclopedia article about an event: its
// name, dates and a place.
func infobox(dst []byte, e *Event, lang int, r *rng) []byte {
	dst = append(dst, "<table class=\"infobox\"><tr><th colspan=\"2\">"...)
	dst = append(dst, capitalize(e.Names[lang])...)
	dst = append(dst, "</th></tr>\n<tr><td>Date</td><td>"...)
	dst = appendDate(dst, e.Start, lang, 1)
	dst = append(dst, " - "...)
	dst = appendDate(dst, e.End, lang, 1)
	dst = append(dst, "</td></tr>\n<tr><td>Location</td><td>"...)
	dst = append(dst, pick(r, e.v[lang].places)...)
	return append(dst, "</td></tr></table>\n"...)
}

// lastModified writes the "last modified" line of an encyclopedia page,
// which changes with the boilerplate bucket that starts at at.
func lastModified(dst []byte, lang int, at int64) []byte {
	dst = append(dst, "<div id=\"lastmod\">"...)
	if lang == langDE {
		dst = append(dst, "Diese Seite wurde zuletzt am "...)
		dst = appendDate(dst, at, langDE, 1)
		dst = append(dst, " geändert."...)
	} else {
		dst = append(dst, "This page was last modified on "...)
		dst = appendDate(dst, at, langEN, 1)
		dst = append(dst, '.')
	}
	return append(dst, "</div>\n"...)
}

// listKind is the kind of a listing page.
type listKind uint8

const (
	listHome listKind = iota
	listSection
	listTag
)

var listKindNames = [...]string{"home", "section", "tag"}

// listPage is one listing page of a host: its home page, page p of a
// section, or page p of a tag.
type listPage struct {
	host    *Host
	kind    listKind
	bg      int      // section: background topic
	topics  []*topic // topics listed
	keyword string   // tag
	page    int
	pages   int
	perPage int
}

func (lp *listPage) path(w *world) string {
	switch lp.kind {
	case listSection:
		return sectionPath(lp.host, w, lp.bg, lp.page)
	case listTag:
		return tagPath(lp.host, lp.keyword, lp.page)
	}
	return "/"
}

func (lp *listPage) url(w *world) string { return "http://" + lp.host.Name + lp.path(w) }

// renderList writes a listing page as captured on day capDay.
func (rd *renderer) renderList(dst []byte, lp *listPage, capDay, version int64) []byte {
	w, h := rd.w, lp.host
	lang := h.Lang
	p := &pageCtx{h: h, at: h.bucketStart(version), capDay: capDay, canonical: lp.url(w), kind: listKindNames[lp.kind]}
	switch lp.kind {
	case listHome:
		p.title = h.Title
	case listSection:
		p.title = w.topics[lp.bg].v[lang].name
	case listTag:
		p.title = ui("tag", lang) + ": " + lp.keyword
	}
	if lp.page > 1 {
		p.title += " (" + strconv.Itoa(lp.page) + ")"
	}
	r := newRNG(w.seed, streamListing, uint64(h.Index)<<40^uint64(capDay)^uint64(lp.page)<<20^uint64(lp.kind)<<30^uint64(lp.bg)<<10)
	dst = rd.head(dst, p, nil)
	dst = rd.header(dst, p)
	lt := layouts[h.Layout]
	dst = append(dst, lt.mainOpen...)
	dst = append(dst, "<h1>"...)
	dst = appendEsc(dst, p.title)
	dst = append(dst, "</h1>\n"...)
	switch lp.kind {
	case listHome:
		ids := w.listing(h, w.hostTopics(h), -1, capDay, 0, 6)
		dst = append(dst, "<div class=\"top-stories\"><h2>"...)
		dst = append(dst, ui("top", lang)...)
		dst = append(dst, "</h2>\n"...)
		for _, id := range ids {
			dst = rd.teaserItem(dst, h, rd.article(id), &r, true)
		}
		dst = append(dst, "</div>\n"...)
		for _, s := range h.sections {
			ids := w.listing(h, w.sectionTopics(s), s, capDay, 0, 4)
			if len(ids) == 0 {
				continue
			}
			dst = append(dst, "<div class=\"section-box\"><h3>"...)
			dst = appendLink(dst, w.href(h, h, sectionPath(h, w, s, 1), &r), w.topics[s].v[lang].name)
			dst = append(dst, "</h3>\n<ul>\n"...)
			for _, id := range ids {
				a := rd.article(id)
				dst = append(dst, "<li>"...)
				dst = appendLink(dst, w.linkTo(h, a, &r), a.title)
				dst = append(dst, "</li>\n"...)
			}
			dst = append(dst, "</ul></div>\n"...)
		}
		dst = append(dst, "<div class=\"tag-cloud\">"...)
		for _, t := range w.hostTopics(h) {
			if t.kind == kindMention || len(t.v[lang].keywords) == 0 {
				continue
			}
			kw := t.v[lang].keywords[0]
			dst = appendLink(dst, w.href(h, h, tagPath(h, kw, 1), &r), kw)
			dst = append(dst, ' ')
		}
		dst = append(dst, "</div>\n"...)
	case listSection, listTag:
		ids := w.listing(h, lp.topics, lp.bg, capDay, (lp.page-1)*lp.perPage, lp.perPage)
		dst = append(dst, "<div class=\"list\">\n"...)
		for _, id := range ids {
			dst = rd.teaserItem(dst, h, rd.article(id), &r, lp.kind == listSection)
		}
		dst = append(dst, "</div>\n<div class=\"pagination\">"...)
		if lp.page > 1 {
			q := *lp
			q.page--
			dst = appendLink(dst, w.href(h, h, q.path(w), &r), ui("prev", lang))
			dst = append(dst, ' ')
		}
		for k := 1; k <= lp.pages && k <= 10; k++ {
			q := *lp
			q.page = k
			dst = appendLink(dst, w.href(h, h, q.path(w), &r), strconv.Itoa(k))
			dst = append(dst, ' ')
		}
		if lp.page < lp.pages {
			q := *lp
			q.page++
			dst = appendLink(dst, w.href(h, h, q.path(w), &r), ui("next", lang))
		}
		dst = append(dst, "</div>\n"...)
	}
	dst = append(dst, lt.mainClose...)
	dst = rd.sidebar(dst, p)
	dst = rd.footer(dst, p)
	return dst
}

func (rd *renderer) teaserItem(dst []byte, h *Host, a *article, r *rng, withText bool) []byte {
	w := rd.w
	dst = append(dst, "<div class=\"teaser\"><h2>"...)
	dst = appendLink(dst, w.linkTo(h, a, r), a.title)
	dst = append(dst, "</h2>"...)
	if withText {
		dst = append(dst, "<span class=\"date\">"...)
		dst = appendDate(dst, a.pub, h.Lang, 0)
		dst = append(dst, "</span><p>"...)
		dst = w.teaser(dst, a)
		dst = append(dst, "</p>"...)
	}
	return append(dst, "</div>\n"...)
}

// render404 writes the host's "not found" page.
func (rd *renderer) render404(dst []byte, h *Host, u string, version int64) []byte {
	p := &pageCtx{h: h, at: h.bucketStart(version), title: ui("notfound", h.Lang), kind: "error404"}
	dst = rd.head(dst, p, nil)
	dst = rd.header(dst, p)
	lt := layouts[h.Layout]
	dst = append(dst, lt.mainOpen...)
	dst = append(dst, "<h1>"...)
	dst = append(dst, ui("notfound", h.Lang)...)
	dst = append(dst, "</h1>\n<p>"...)
	dst = append(dst, ui("notfoundtext", h.Lang)...)
	dst = append(dst, "</p>\n<p><code>"...)
	dst = appendEsc(dst, u)
	dst = append(dst, "</code></p>\n<p>"...)
	dst = appendLink(dst, "/", ui("home", h.Lang))
	dst = append(dst, "</p>\n"...)
	dst = append(dst, lt.mainClose...)
	dst = rd.footer(dst, p)
	return dst
}

// redirectBody is the body Apache sends with a 301.
func redirectBody(dst []byte, location string) []byte {
	dst = append(dst, "<!DOCTYPE HTML PUBLIC \"-//IETF//DTD HTML 2.0//EN\">\n<html><head>\n<title>301 Moved Permanently</title>\n</head><body>\n<h1>Moved Permanently</h1>\n<p>The document has moved <a href=\""...)
	dst = appendEsc(dst, location)
	return append(dst, "\">here</a>.</p>\n</body></html>\n"...)
}

// cssBody is the host's external style sheet; it changes with the 2011
// redesign.
func cssBody(dst []byte, h *Host, redesign bool) []byte {
	dst = append(dst, "/* site.css */\n"...)
	s := h.styles[0]
	if redesign {
		s = h.styles[1]
	}
	for range 3 {
		dst = append(dst, s...)
	}
	return dst
}

// imageBody is a JPEG-looking blob of incompressible bytes.
func imageBody(dst []byte, seed uint64, id int64) []byte {
	r := newRNG(seed, streamImage, uint64(id))
	n := 3000 + r.intn(22000)
	dst = append(dst, 0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 'J', 'F', 'I', 'F', 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00)
	for i := 0; i < n; i += 8 {
		x := r.next()
		dst = append(dst, byte(x), byte(x>>8), byte(x>>16), byte(x>>24), byte(x>>32), byte(x>>40), byte(x>>48), byte(x>>56))
	}
	return append(dst, 0xFF, 0xD9)
}

// httpDate formats a time for HTTP headers.
func httpDate(dst []byte, t int64) []byte {
	return time.Unix(t, 0).UTC().AppendFormat(dst, "Mon, 02 Jan 2006 15:04:05 GMT")
}
