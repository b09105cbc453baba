package document

import (
	"net/url"
	"strings"

	"golang.org/x/net/html/atom"
)

// linkInMain marks link l as lying inside the main content.
func (p *page) linkInMain(l int32) {
	if p.mainLinks == nil {
		p.mainLinks = make([]bool, len(p.links))
	}
	p.mainLinks[l] = true
}

// outlinks resolves the links of the page (<a href> and <area href>) against
// <base href> and the page URL and returns one Link per target in the order of
// first appearance. Fragments are removed; only http and https links are
// kept. When a target is linked several times, InMain is set if any of the
// links is in the main content, and Anchor is the first non-empty anchor of a
// main-content link, else the first non-empty anchor.
func (p *page) outlinks(pageURL *url.URL) []Link {
	if len(p.links) == 0 {
		return nil
	}
	base := p.base(pageURL)
	out := make([]Link, 0, len(p.links))
	index := make(map[string]int, len(p.links))
	resolved := make(map[string]string, len(p.links)) // raw href → URL ("" if dropped)
	for i, l := range p.links {
		target, seen := resolved[l.href]
		if !seen {
			target = resolve(base, l.href)
			resolved[l.href] = target
		}
		if target == "" {
			continue
		}
		inMain := p.mainLinks != nil && p.mainLinks[i]
		j, dup := index[target]
		if !dup {
			index[target] = len(out)
			out = append(out, Link{URL: target, Anchor: p.anchor(l.rec), InMain: inMain})
			continue
		}
		o := &out[j]
		switch {
		case inMain && !o.InMain:
			o.InMain = true
			if a := p.anchor(l.rec); a != "" {
				o.Anchor = a
			}
		case o.Anchor == "" && inMain == o.InMain:
			o.Anchor = p.anchor(l.rec)
		}
	}
	return out
}

// base is the URL relative links resolve against: <base href> resolved
// against the page URL, else the page URL.
func (p *page) base(pageURL *url.URL) *url.URL {
	base := pageURL
	if h := cleanHref(p.baseHref); h != "" {
		if b, err := url.Parse(h); err == nil {
			if base != nil {
				base = base.ResolveReference(b)
			} else if b.IsAbs() {
				base = b
			}
		}
	}
	return base
}

// anchor is the text of a link element, or the alt text of its first image
// with one when it has no text.
func (p *page) anchor(i int32) string {
	if s := p.plainText(i); s != "" {
		return s
	}
	for j := i + 1; j < p.recs[i].end; j++ {
		r := &p.recs[j]
		if r.flags&fText == 0 && r.n.DataAtom == atom.Img {
			if alt := collapseSpace(attr(r.n, "alt")); alt != "" {
				return alt
			}
		}
	}
	return collapseSpace(attr(p.recs[i].n, "title"))
}

// resolve turns an href into an absolute http(s) URL without fragment, or ""
// if it is empty, a fragment, another scheme, or cannot be resolved.
func resolve(base *url.URL, href string) string {
	h := cleanHref(href)
	if h == "" || h[0] == '#' {
		return ""
	}
	if i := strings.IndexByte(h, '#'); i >= 0 {
		h = h[:i]
	}
	if s, ok := resolveFast(base, h); ok {
		return s
	}
	u, err := url.Parse(h)
	if err != nil {
		return ""
	}
	if base != nil {
		u = base.ResolveReference(u)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.Opaque != "" {
		return ""
	}
	u.Fragment, u.RawFragment = "", ""
	u.Host = strings.ToLower(u.Host)
	return u.String()
}

// cleanHref strips surrounding whitespace and removes tabs and newlines, as
// browsers do (WHATWG URL parser).
func cleanHref(h string) string {
	h = strings.TrimSpace(h)
	if strings.ContainsAny(h, "\t\n\r") {
		h = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(h)
	}
	return h
}

// resolveFast handles the two most common hrefs without net/url: a
// root-relative path ("/world/story.html?id=3") and an absolute http(s) URL
// with a lower-case host, both made only of characters that net/url keeps
// as they are and without dot segments. It returns exactly what the
// net/url path would return; ok is false for anything else.
func resolveFast(base *url.URL, h string) (string, bool) {
	switch {
	case len(h) > 1 && h[0] == '/' && h[1] != '/':
		if base == nil || base.Scheme != "http" && base.Scheme != "https" || base.Host == "" ||
			base.User != nil || !plainPath(h) || strings.ToLower(base.Host) != base.Host {
			return "", false
		}
		return base.Scheme + "://" + base.Host + h, true
	case strings.HasPrefix(h, "http://") || strings.HasPrefix(h, "https://"):
		rest := h[strings.IndexByte(h, ':')+3:]
		end := strings.IndexAny(rest, "/?")
		host := rest
		if end >= 0 {
			host = rest[:end]
		}
		if host == "" || !plainHost(host) {
			return "", false
		}
		if end < 0 {
			return h, true
		}
		if rest[end] != '/' || !plainPath(rest[end:]) {
			return "", false
		}
		return h, true
	}
	return "", false
}

func plainHost(h string) bool {
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// plainPath: path and query of safe characters, no dot segments, no empty
// query ("?" alone is dropped by net/url).
func plainPath(p string) bool {
	q := strings.IndexByte(p, '?')
	path := p
	if q >= 0 {
		path = p[:q]
		if q == len(p)-1 {
			return false
		}
	}
	if strings.Contains(path, "/.") || strings.Contains(path, "//") {
		return false
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("-._~/=&+,;:@!$*()", c) >= 0:
		case c == '?' && i >= q:
		default:
			return false
		}
	}
	return true
}
