package archivegen

import (
	"net/url"
	"strconv"
	"strings"
	"time"
)

// renderer turns page descriptions into HTML. Each worker owns one; its
// caches only save work, they never change the output.
type renderer struct {
	w        *world
	mostRead map[[2]int64][]int64 // (host, boilerplate bucket) → article ids
	arts     map[int64]*article   // small cache of derived articles
	farm     map[[2]int64][]int64 // (host, boilerplate bucket) → footer farm article ids
}

func newRenderer(w *world) *renderer {
	return &renderer{w: w, mostRead: map[[2]int64][]int64{}, arts: map[int64]*article{}, farm: map[[2]int64][]int64{}}
}

func (rd *renderer) article(id int64) *article {
	if a, ok := rd.arts[id]; ok {
		return a
	}
	if len(rd.arts) > 50000 {
		clear(rd.arts)
	}
	a := rd.w.article(id)
	rd.arts[id] = &a
	return &a
}

// bucket is the boilerplate version of a host at time t: the sidebar, the
// banners and the footer change from one bucket to the next.
func (h *Host) bucket(t int64) int64      { return (t + h.phase) / h.period }
func (h *Host) bucketStart(b int64) int64 { return b*h.period - h.phase }

type layoutTags struct {
	doctype                                        string
	headerOpen, headerClose, navOpen, navClose     string
	mainOpen, mainClose, articleOpen, articleClose string
	asideOpen, asideClose, footerOpen, footerClose string
}

var layouts = [3]layoutTags{
	layoutHTML5: {
		doctype:    "<!DOCTYPE html>\n",
		headerOpen: `<header id="masthead" class="site-header">`, headerClose: "</header>\n",
		navOpen: `<nav class="main-navigation" role="navigation">`, navClose: "</nav>\n",
		mainOpen: `<main id="main" class="site-main">` + "\n", mainClose: "</main>\n",
		articleOpen: `<article class="story">` + "\n", articleClose: "</article>\n",
		asideOpen: `<aside id="secondary" class="sidebar widget-area">` + "\n", asideClose: "</aside>\n",
		footerOpen: `<footer id="colophon" class="site-footer">` + "\n", footerClose: "</footer>\n",
	},
	layoutDiv: {
		doctype:    `<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">` + "\n",
		headerOpen: `<div id="header">`, headerClose: "</div>\n",
		navOpen: `<div id="navigation" class="menu">`, navClose: "</div>\n",
		mainOpen: `<div id="content">` + "\n", mainClose: "</div>\n",
		articleOpen: `<div class="article">` + "\n", articleClose: "</div>\n",
		asideOpen: `<div id="sidebar">` + "\n", asideClose: "</div>\n",
		footerOpen: `<div id="footer">` + "\n", footerClose: "</div>\n",
	},
	layoutTable: {
		doctype:    `<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN" "http://www.w3.org/TR/html4/loose.dtd">` + "\n",
		headerOpen: `<table id="header" width="100%" cellpadding="0" cellspacing="0"><tr><td>`, headerClose: "</td></tr></table>\n",
		navOpen: `<table class="nav" width="100%"><tr><td>`, navClose: "</td></tr></table>\n",
		mainOpen: `<table width="100%" cellspacing="0" cellpadding="4"><tr><td id="content" valign="top">` + "\n", mainClose: "</td>\n",
		articleOpen: `<div class="text">` + "\n", articleClose: "</div>\n",
		asideOpen: `<td id="sidebar" width="240" valign="top">` + "\n", asideClose: "</td></tr></table>\n",
		footerOpen: `<table id="footer" width="100%"><tr><td>` + "\n", footerClose: "</td></tr></table>\n",
	},
}

// Localised boilerplate strings.
var (
	monthsDE   = [...]string{"Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober", "November", "Dezember"}
	weekdaysDE = [...]string{"Sonntag", "Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag"}
	uiText     = map[string][2]string{
		"home": {"Home", "Startseite"}, "by": {"By", "Von"}, "related": {"Related articles", "Mehr zum Thema"},
		"mostread": {"Most read", "Meistgelesen"}, "newsletter": {"Newsletter", "Newsletter"}, "subscribe": {"Subscribe", "Abonnieren"},
		"about": {"About us", "Über uns"}, "contact": {"Contact", "Kontakt"}, "privacy": {"Privacy policy", "Datenschutz"},
		"imprint": {"Imprint", "Impressum"}, "partners": {"Partner sites:", "Partnerseiten:"}, "rights": {"All rights reserved.", "Alle Rechte vorbehalten."},
		"cookie": {"This website uses cookies to improve your experience. By continuing to browse the site you agree to our use of cookies.", "Diese Website verwendet Cookies. Wenn Sie die Website weiter nutzen, stimmen Sie der Verwendung von Cookies zu."},
		"more":   {"Find out more", "Mehr erfahren"}, "readmore": {"Read more:", "Lesen Sie auch:"}, "tags": {"Tags:", "Themen:"},
		"share": {"Share", "Teilen"}, "comments": {"comments", "Kommentare"}, "search": {"Search", "Suche"}, "tag": {"Tag", "Thema"},
		"notfound": {"Page not found", "Seite nicht gefunden"}, "notfoundtext": {"Sorry, the page you requested could not be found. It may have been moved or deleted.", "Die angeforderte Seite wurde leider nicht gefunden. Möglicherweise wurde sie verschoben oder gelöscht."},
		"top": {"Top stories", "Top-Themen"}, "next": {"Next page", "Nächste Seite"}, "prev": {"Previous page", "Vorherige Seite"},
		"ingredients": {"Ingredients", "Zutaten"}, "method": {"Method", "Zubereitung"}, "results": {"Results", "Ergebnisse"},
		"published": {"Published:", "Veröffentlicht am"}, "video": {"Video", "Video"}, "blogroll": {"Blogroll", "Blogroll"},
	}
)

func ui(key string, lang int) string { return uiText[key][lang] }

// appendEsc appends s escaped for HTML text and attribute values.
func appendEsc(dst []byte, s string) []byte {
	if !needsEscape(s) {
		return append(dst, s...)
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '&':
			dst = append(dst, "&amp;"...)
		case '<':
			dst = append(dst, "&lt;"...)
		case '>':
			dst = append(dst, "&gt;"...)
		case '"':
			dst = append(dst, "&quot;"...)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '&' || c == '<' || c == '>' || c == '"' {
			return true
		}
	}
	return false
}

func appendLink(dst []byte, href, text string) []byte {
	dst = append(dst, `<a href="`...)
	dst = appendEsc(dst, href)
	dst = append(dst, `">`...)
	dst = appendEsc(dst, text)
	return append(dst, "</a>"...)
}

// appendDate writes a date the way a host's readers expect it.
func appendDate(dst []byte, t int64, lang int, style int) []byte {
	tm := time.Unix(t, 0).UTC()
	if lang == langDE {
		if style%2 == 0 {
			return tm.AppendFormat(dst, "02.01.2006")
		}
		dst = strconv.AppendInt(dst, int64(tm.Day()), 10)
		dst = append(dst, ". "...)
		dst = append(dst, monthsDE[tm.Month()-1]...)
		dst = append(dst, ' ')
		return strconv.AppendInt(dst, int64(tm.Year()), 10)
	}
	if style%2 == 0 {
		return tm.AppendFormat(dst, "January 2, 2006")
	}
	return tm.AppendFormat(dst, "2 January 2006")
}

// isoTime formats the publication time with the host's time zone.
func isoTime(dst []byte, t int64, lang int) []byte {
	if lang == langDE {
		tm := time.Unix(t, 0).UTC()
		off := 3600
		if m := tm.Month(); m >= time.April && m <= time.October {
			off = 7200
		}
		return tm.In(time.FixedZone("", off)).AppendFormat(dst, "2006-01-02T15:04:05-07:00")
	}
	return time.Unix(t, 0).UTC().AppendFormat(dst, "2006-01-02T15:04:05Z")
}

// sectionPath is the URL path of page p of a host's section.
func sectionPath(h *Host, w *world, bg int, p int) string {
	name := w.topics[bg].section[h.Lang]
	switch h.URLStyle {
	case styleWiki:
		s := "/wiki/Portal:" + capitalize(name)
		if p > 1 {
			s += "?page=" + strconv.Itoa(p)
		}
		return s
	case styleBlog:
		s := "/category/" + name + "/"
		if p > 1 {
			s += "page/" + strconv.Itoa(p) + "/"
		}
		return s
	}
	s := "/" + name + "/"
	if p > 1 {
		s += "?page=" + strconv.Itoa(p)
	}
	return s
}

// tagPath is the URL path of page p of a host's tag page.
func tagPath(h *Host, keyword string, p int) string {
	var s string
	switch {
	case h.URLStyle == styleWiki:
		s = "/wiki/Category:" + wikiEscape(strings.ReplaceAll(keyword, " ", "_"))
		if p > 1 {
			s += "?page=" + strconv.Itoa(p)
		}
		return s
	case h.Lang == langDE:
		s = "/thema/" + slugify(keyword, 5) + "/"
	default:
		s = "/tag/" + slugify(keyword, 5) + "/"
	}
	if p > 1 {
		s += "page/" + strconv.Itoa(p) + "/"
	}
	return s
}

// pageCtx carries what the boilerplate of one page depends on.
type pageCtx struct {
	h         *Host
	at        int64 // bucket start: the boilerplate depends on it only
	capDay    int64 // capture day shown on listing pages, 0 for articles
	title     string
	canonical string
	desc      string
	kind      string
	r         rng
	related   []int64 // an article's related stories (the footer farm of TemplateFooterFarm)
}

func (rd *renderer) head(dst []byte, p *pageCtx, extra func([]byte) []byte) []byte {
	h := p.h
	lt := layouts[h.Layout]
	dst = append(dst, lt.doctype...)
	dst = append(dst, `<html lang="`...)
	dst = append(dst, langCodes[h.Lang]...)
	dst = append(dst, "\">\n<head>\n"...)
	switch h.Charset {
	case charsetUTF8, charsetUTF8Meta:
		if h.Layout == layoutHTML5 {
			dst = append(dst, "<meta charset=\"utf-8\">\n"...)
		} else {
			dst = append(dst, "<meta http-equiv=\"Content-Type\" content=\"text/html; charset=utf-8\">\n"...)
		}
	case charsetLatin1Meta:
		dst = append(dst, "<meta http-equiv=\"Content-Type\" content=\"text/html; charset=iso-8859-1\">\n"...)
	}
	dst = append(dst, "<title>"...)
	dst = appendEsc(dst, p.title)
	dst = append(dst, " | "...)
	dst = appendEsc(dst, h.Title)
	dst = append(dst, "</title>\n"...)
	if h.Layout == layoutHTML5 {
		dst = append(dst, "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"...)
	}
	if p.desc != "" {
		dst = append(dst, `<meta name="description" content="`...)
		dst = appendEsc(dst, p.desc)
		dst = append(dst, "\">\n"...)
	}
	if extra != nil {
		dst = extra(dst)
	}
	if p.canonical != "" {
		dst = append(dst, `<link rel="canonical" href="`...)
		dst = appendEsc(dst, p.canonical)
		dst = append(dst, "\">\n"...)
	}
	if h.baseHref {
		dst = append(dst, `<base href="http://`...)
		dst = append(dst, h.Name...)
		dst = append(dst, "/\">\n"...)
	}
	dst = append(dst, "<link rel=\"stylesheet\" type=\"text/css\" href=\"/css/site.css\">\n"...)
	dst = append(dst, `<link rel="alternate" type="application/rss+xml" title="RSS" href="/rss.xml">`+"\n"...)
	dst = append(dst, "<style type=\"text/css\">\n"...)
	if p.at >= day(2011, 1, 1) {
		dst = append(dst, h.styles[1]...)
	} else {
		dst = append(dst, h.styles[0]...)
	}
	dst = append(dst, "</style>\n"...)
	dst = append(dst, `<script type="text/javascript" src="http://ads.adnet-example.com/show.js?site=`...)
	dst = strconv.AppendInt(dst, int64(h.Index), 10)
	dst = append(dst, "\"></script>\n</head>\n<body class=\""...)
	dst = append(dst, p.kind...)
	dst = append(dst, "\">\n"...)
	return dst
}

// header writes the cookie banner (after the cookie law), the masthead and the
// navigation.
func (rd *renderer) header(dst []byte, p *pageCtx) []byte {
	h, w := p.h, rd.w
	lt := layouts[h.Layout]
	if p.at >= cookieLawDay {
		dst = append(dst, `<div id="cookie-notice" class="cookie-banner"><p>`...)
		dst = append(dst, ui("cookie", h.Lang)...)
		dst = append(dst, ' ')
		dst = appendLink(dst, "/privacy/", ui("more", h.Lang))
		dst = append(dst, "</p><button type=\"button\" onclick=\"acceptCookies()\">OK</button></div>\n"...)
	}
	dst = append(dst, lt.headerOpen...)
	dst = append(dst, `<div class="logo"><a href="/" title="`...)
	dst = appendEsc(dst, h.Title)
	dst = append(dst, `"><img src="/images/logo.png" alt="`...)
	dst = appendEsc(dst, h.Title)
	dst = append(dst, "\"></a></div>\n"...)
	if p.capDay != 0 {
		tm := time.Unix(p.capDay, 0).UTC()
		dst = append(dst, `<div class="datebar">`...)
		if h.Lang == langDE {
			dst = append(dst, weekdaysDE[tm.Weekday()]...)
			dst = append(dst, ", "...)
			dst = appendDate(dst, p.capDay, langDE, 1)
		} else {
			dst = tm.AppendFormat(dst, "Monday, 2 January 2006")
		}
		dst = append(dst, "</div>\n"...)
	}
	dst = append(dst, `<form class="search" action="/search" method="get"><input type="text" name="q"><input type="submit" value="`...)
	dst = append(dst, ui("search", h.Lang)...)
	dst = append(dst, "\"></form>\n"...)
	dst = append(dst, lt.headerClose...)
	dst = append(dst, lt.navOpen...)
	dst = append(dst, "<ul class=\"menu\">\n<li>"...)
	dst = appendLink(dst, "/", ui("home", h.Lang))
	dst = append(dst, "</li>\n"...)
	for _, s := range h.sections {
		dst = append(dst, "<li>"...)
		dst = appendLink(dst, sectionPath(h, w, s, 1), w.topics[s].v[h.Lang].name)
		dst = append(dst, "</li>\n"...)
	}
	for _, kw := range h.navTopics {
		dst = append(dst, "<li class=\"topic\">"...)
		dst = appendLink(dst, tagPath(h, kw, 1), kw)
		dst = append(dst, "</li>\n"...)
	}
	if p.at >= day(2010, 3, 1) && h.Kind != kindWiki && h.Kind != kindBlog {
		dst = append(dst, "<li>"...)
		dst = appendLink(dst, "/video/", ui("video", h.Lang))
		dst = append(dst, "</li>\n"...)
	}
	dst = append(dst, "</ul>\n"...)
	dst = append(dst, lt.navClose...)
	return dst
}

// sidebar writes the "most read" box (changes with the bucket), a newsletter
// form, an ad and, on blogs, a blogroll.
func (rd *renderer) sidebar(dst []byte, p *pageCtx) []byte {
	h, w := p.h, rd.w
	lt := layouts[h.Layout]
	dst = append(dst, lt.asideOpen...)
	key := [2]int64{int64(h.Index), p.at}
	ids, ok := rd.mostRead[key]
	if !ok {
		if len(rd.mostRead) > 4096 {
			clear(rd.mostRead)
		}
		ids = w.listing(h, w.hostTopics(h), -1, p.at, 2, 8)
		rd.mostRead[key] = ids
	}
	r := newRNG(w.seed, streamMisc, uint64(h.Index)<<32^uint64(p.at))
	if len(ids) > 0 {
		dst = append(dst, "<div class=\"widget most-read\"><h3>"...)
		dst = append(dst, ui("mostread", h.Lang)...)
		dst = append(dst, "</h3>\n<ol>\n"...)
		for _, id := range ids {
			a := rd.article(id)
			dst = append(dst, "<li>"...)
			dst = appendLink(dst, w.linkTo(h, a, &r), a.title)
			dst = append(dst, "</li>\n"...)
		}
		dst = append(dst, "</ol></div>\n"...)
	}
	dst = append(dst, `<div class="widget newsletter"><h3>`...)
	dst = append(dst, ui("newsletter", h.Lang)...)
	dst = append(dst, `</h3><form action="/newsletter/subscribe" method="post"><input type="text" name="email" value=""><input type="submit" value="`...)
	dst = append(dst, ui("subscribe", h.Lang)...)
	dst = append(dst, "\"></form></div>\n"...)
	dst = append(dst, `<div class="ad"><iframe src="http://ads.adnet-example.com/serve?zone=`...)
	dst = strconv.AppendInt(dst, int64(r.between(1000, 9999)), 10)
	dst = append(dst, "\" width=\"300\" height=\"250\" frameborder=\"0\" scrolling=\"no\"></iframe></div>\n"...)
	if h.Kind == kindBlog {
		dst = append(dst, "<div class=\"widget blogroll\"><h3>"...)
		dst = append(dst, ui("blogroll", h.Lang)...)
		dst = append(dst, "</h3><ul>\n"...)
		for _, o := range w.hosts {
			if o != h && (o.Kind == kindBlog || o.Index%7 == h.Index%7) {
				dst = append(dst, "<li>"...)
				dst = appendLink(dst, "http://"+o.Name+"/", o.Title)
				dst = append(dst, "</li>\n"...)
			}
		}
		dst = append(dst, "</ul></div>\n"...)
	}
	dst = append(dst, lt.asideClose...)
	return dst
}

func (rd *renderer) footer(dst []byte, p *pageCtx) []byte {
	h, w := p.h, rd.w
	lt := layouts[h.Layout]
	dst = append(dst, lt.footerOpen...)
	if h.Template == TemplateFooterFarm {
		dst = rd.footerFarm(dst, p)
	}
	dst = append(dst, "<ul class=\"footer-links\">"...)
	for _, k := range [...]struct{ path, key string }{{"/about/", "about"}, {"/contact/", "contact"}, {"/privacy/", "privacy"}, {"/imprint/", "imprint"}} {
		dst = append(dst, "<li>"...)
		dst = appendLink(dst, k.path, ui(k.key, h.Lang))
		dst = append(dst, "</li>"...)
	}
	dst = append(dst, "</ul>\n<p class=\"partners\">"...)
	dst = append(dst, ui("partners", h.Lang)...)
	for k := 1; k <= 4 && k < len(w.hosts); k++ {
		o := w.hosts[(h.Index+k*7)%len(w.hosts)]
		if o == h {
			continue
		}
		dst = append(dst, ' ')
		host := o.Name
		if k == 2 {
			host = o.Alt // partner links do not care which twin they use
		}
		dst = appendLink(dst, "http://"+host+"/", o.Title)
	}
	dst = append(dst, "</p>\n<p class=\"copyright\">&copy; 2003-"...)
	dst = strconv.AppendInt(dst, int64(time.Unix(p.at, 0).UTC().Year()), 10)
	dst = append(dst, ' ')
	dst = appendEsc(dst, h.Title)
	dst = append(dst, ". "...)
	dst = append(dst, ui("rights", h.Lang)...)
	dst = append(dst, "</p>\n"...)
	dst = append(dst, lt.footerClose...)
	dst = append(dst, `<script type="text/javascript">
var _stq = _stq || [];
_stq.push(['_setAccount', 'ST-`...)
	dst = strconv.AppendInt(dst, int64(100000+h.Index*7919), 10)
	dst = append(dst, `-1']);
_stq.push(['_trackPageview']);
(function() {
  var st = document.createElement('script'); st.type = 'text/javascript'; st.async = true;
  st.src = 'http://stats.sitetracker-example.com/st.js';
  var s = document.getElementsByTagName('script')[0]; s.parentNode.insertBefore(st, s);
})();
function acceptCookies() { document.cookie = 'cookies_ok=1; path=/; max-age=31536000'; document.getElementById('cookie-notice').style.display = 'none'; }
</script>
</body>
</html>
`...)
	return dst
}

// hostStyle is the inline style sheet of a host, which changes with the
// site's redesign in 2011.
func (w *world) hostStyle(h *Host, at int64) string {
	r := newRNG(w.seed, streamMisc+1, uint64(h.Index))
	c1 := strconv.FormatInt(int64(0x100000+r.intn(0xefffff)), 16)
	c2 := strconv.FormatInt(int64(0x100000+r.intn(0xefffff)), 16)
	if at >= day(2011, 1, 1) {
		c1, c2 = c2, c1
	}
	var b strings.Builder
	for _, sel := range []string{"body", "#header, #masthead", ".menu li", ".menu li a", "h1, .headline", "h2", "h3", ".byline", ".lead", ".teaser", ".sidebar, #sidebar", ".widget", ".most-read li", ".footer-links li", ".copyright", ".cookie-banner", ".related", ".tags a", ".share a", ".ad"} {
		b.WriteString(sel)
		b.WriteString(" { color: #")
		b.WriteString(c1)
		b.WriteString("; background-color: #")
		b.WriteString(c2)
		b.WriteString("; margin: ")
		b.WriteString(strconv.Itoa(r.intn(20)))
		b.WriteString("px ")
		b.WriteString(strconv.Itoa(r.intn(20)))
		b.WriteString("px; font-family: Georgia, 'Times New Roman', serif; }\n")
	}
	return b.String()
}

// encodeBody converts a UTF-8 page into the host's charset in place.
func encodeBody(b []byte, c charset) []byte {
	if !c.latin1() {
		return b
	}
	out := b[:0]
	for i := 0; i < len(b); {
		c := b[i]
		if c < 0x80 {
			out = append(out, c)
			i++
			continue
		}
		r, n := rune(0xFFFD), 1
		if c&0xE0 == 0xC0 && i+1 < len(b) {
			r, n = rune(c&0x1F)<<6|rune(b[i+1]&0x3F), 2
		} else if c&0xF0 == 0xE0 {
			n = 3
		} else if c&0xF8 == 0xF0 {
			n = 4
		}
		if r <= 0xFF {
			out = append(out, byte(r))
		} else {
			out = append(out, '?')
		}
		i += n
	}
	return out
}

func shareLinks(dst []byte, u, title string, lang int) []byte {
	dst = append(dst, "<div class=\"share\">"...)
	dst = append(dst, ui("share", lang)...)
	dst = append(dst, ": "...)
	dst = appendLink(dst, "http://www.sharebook-example.com/sharer.php?u="+url.QueryEscape(u), "Sharebook")
	dst = append(dst, " "...)
	dst = appendLink(dst, "http://chirp-example.com/share?url="+url.QueryEscape(u)+"&text="+url.QueryEscape(title), "Chirp")
	return append(dst, "</div>\n"...)
}
