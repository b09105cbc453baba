package archivegen

import (
	"strings"
)

// Template is how a host builds its article pages when Config.Templates is
// set: the layouts real news sites use, where the links between articles
// often sit in boxes that main-text extraction removes as boilerplate. Home,
// section and tag pages (paginated) and the breadcrumbs are common to all.
type Template uint8

// The site templates. Without Config.Templates every host is
// TemplateClassic.
const (
	// TemplateClassic: links to related articles in the article text
	// ("Read more: …") and a related list inside the article element (the
	// generator's original layout).
	TemplateClassic Template = iota
	// TemplateAside: no link in the article text; related stories in an
	// <aside> (a sidebar box on the older layouts) after the article.
	TemplateAside
	// TemplateTeasers: no link in the article text; related stories as a
	// teaser grid under the article: an image link (alt text only), the
	// headline and one sentence.
	TemplateTeasers
	// TemplateFooterFarm: one link in the article text; the related
	// stories and the host's newest articles of every section in a link
	// farm in the footer.
	TemplateFooterFarm
	// TemplateAMPPrint: as TemplateAside, and every article has a print
	// and an AMP variant (captured, with a canonical link to the article;
	// not labelled: they are copies).
	TemplateAMPPrint
	numTemplates
)

var templateNames = [numTemplates]string{"classic", "aside", "teasers", "footer-farm", "amp-print"}

func (t Template) String() string {
	if t < numTemplates {
		return templateNames[t]
	}
	return "unknown"
}

// TemplateNames lists the templates in order.
func TemplateNames() []string { return templateNames[:] }

// assignTemplates gives the hosts their templates in turn (wikis keep
// theirs), and the hosts with a template other than the classic one a
// navigation menu whose labels name the events they cover (their tag pages).
func (w *world) assignTemplates() {
	w.templates = true
	k := 0
	for _, h := range w.hosts {
		if h.Kind == kindWiki {
			continue
		}
		h.Template = Template(k % int(numTemplates))
		k++
		if h.Template == TemplateClassic {
			continue
		}
		for _, t := range w.hostTopics(h) {
			if t.kind == kindEvent && w.hasTagPage(h, t) {
				h.navTopics = append(h.navTopics, t.v[h.Lang].keywords[0])
			}
		}
	}
}

// hasTagPage reports whether the plan gives host h a tag page for topic t
// (newPlan: a host tags only what it writes about).
func (w *world) hasTagPage(h *Host, t *topic) bool {
	return t.kind != kindMention && len(t.v[h.Lang].keywords) > 0 && float64(t.n)*hostShare(h, t) >= 3
}

// relatedInline is how many related articles an article's text links to.
func relatedInline(h *Host, n int) int {
	switch h.Template {
	case TemplateAside, TemplateTeasers, TemplateAMPPrint:
		return 0
	case TemplateFooterFarm:
		return min(n, 1)
	}
	return n
}

// relatedAfter writes the related stories after the article element, as
// the host's template places them.
func (rd *renderer) relatedAfter(dst []byte, a *article, related []int64, r *rng) []byte {
	w, h := rd.w, a.host
	switch h.Template {
	case TemplateAside, TemplateAMPPrint:
		if h.Layout == layoutHTML5 {
			dst = append(dst, "<aside class=\"related-stories\"><h3>"...)
		} else {
			dst = append(dst, "<div class=\"sidebar-box related-stories\"><h3>"...)
		}
		dst = append(dst, ui("related", a.lang)...)
		dst = append(dst, "</h3>\n<ul>\n"...)
		for _, id := range related {
			t := rd.article(id)
			dst = append(dst, "<li>"...)
			dst = appendLink(dst, w.linkTo(h, t, r), t.title)
			dst = append(dst, " <span class=\"date\">"...)
			dst = appendDate(dst, t.pub, h.Lang, 0)
			dst = append(dst, "</span></li>\n"...)
		}
		if h.Layout == layoutHTML5 {
			return append(dst, "</ul></aside>\n"...)
		}
		return append(dst, "</ul></div>\n"...)
	case TemplateTeasers:
		dst = append(dst, "<section class=\"teaser-grid\"><h3>"...)
		dst = append(dst, ui("related", a.lang)...)
		dst = append(dst, "</h3>\n"...)
		for _, id := range related {
			t := rd.article(id)
			href := w.linkTo(h, t, r)
			dst = append(dst, `<div class="teaser-card"><a class="image" href="`...)
			dst = appendEsc(dst, href)
			dst = append(dst, `"><img src="/images/t`...)
			dst = appendInt36(dst, t.id)
			dst = append(dst, `.jpg" alt="`...)
			dst = appendEsc(dst, t.title)
			dst = append(dst, "\"></a><h4>"...)
			dst = appendLink(dst, href, t.title)
			dst = append(dst, "</h4><p>"...)
			dst = w.teaser(dst, t)
			dst = append(dst, "</p></div>\n"...)
		}
		return append(dst, "</section>\n"...)
	}
	return dst
}

// footerFarm writes the link farm of a TemplateFooterFarm host's footer:
// the page's related stories and the host's 24 newest articles.
func (rd *renderer) footerFarm(dst []byte, p *pageCtx) []byte {
	h, w := p.h, rd.w
	key := [2]int64{int64(h.Index), p.at}
	ids, ok := rd.farm[key]
	if !ok {
		if len(rd.farm) > 4096 {
			clear(rd.farm)
		}
		ids = w.listing(h, w.hostTopics(h), -1, p.at, 0, 24)
		rd.farm[key] = ids
	}
	r := newRNG(w.seed, streamMisc+2, uint64(h.Index)<<32^uint64(p.at))
	dst = append(dst, "<div class=\"footer-farm\"><h4>"...)
	dst = append(dst, ui("top", h.Lang)...)
	dst = append(dst, "</h4>\n<ul>\n"...)
	for _, list := range [][]int64{p.related, ids} {
		for _, id := range list {
			a := rd.article(id)
			dst = append(dst, "<li>"...)
			dst = appendLink(dst, w.linkTo(h, a, &r), a.title)
			dst = append(dst, "</li>"...)
		}
	}
	return append(dst, "\n</ul></div>\n"...)
}

// variantURL is the URL of an article's print (amp false) or AMP variant.
func variantURL(a *article, amp bool) string {
	if amp {
		return "http://" + a.host.Name + "/amp" + a.path
	}
	if strings.Contains(a.url, "?") {
		return a.url + "&print=1"
	}
	return a.url + "?print=1"
}

// renderVariant writes the print or AMP variant of an article: its title
// and text without boilerplate, a canonical link to the article and a link
// back to it.
func (rd *renderer) renderVariant(dst []byte, a *article, version int64, amp bool) []byte {
	w, h := rd.w, a.host
	kind := "print"
	if amp {
		kind = "amp"
	}
	p := &pageCtx{h: h, at: h.bucketStart(version), title: a.title, canonical: a.url, kind: kind}
	dst = rd.head(dst, p, nil)
	dst = append(dst, "<h1>"...)
	dst = appendEsc(dst, a.title)
	dst = append(dst, "</h1>\n<div class=\"entry-content\">\n"...)
	g := w.newTextGen(a, streamText)
	for g.words < a.words {
		dst = append(dst, "<p>"...)
		for s, n := 0, 3+g.r.intn(4); s < n; s++ {
			if s > 0 {
				dst = append(dst, ' ')
			}
			dst = g.sentence(dst)
		}
		dst = append(dst, "</p>\n"...)
	}
	dst = append(dst, "</div>\n<p class=\"back\">"...)
	dst = appendLink(dst, a.url, ui("readmore", a.lang)+" "+a.title)
	return append(dst, "</p>\n</body>\n</html>\n"...)
}

func appendInt36(dst []byte, v int64) []byte {
	const digits = "0123456789abcdefghijklmnopqrstuvwxyz"
	if v == 0 {
		return append(dst, '0')
	}
	var buf [16]byte
	i := len(buf)
	for v > 0 {
		i--
		buf[i] = digits[v%36]
		v /= 36
	}
	return append(dst, buf[i:]...)
}
