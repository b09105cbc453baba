package document

import (
	"net/url"
	"slices"
	"strings"
)

// pageParams are the query parameters that number the pages of a list
// (?page=2, WordPress's ?paged=2, ?start=20, German sites' ?seite=2). "p"
// is not one: WordPress uses ?p=123 for a post.
var pageParams = []string{"page", "paged", "pg", "pagenum", "start", "offset", "seite"}

// SamePagedList reports whether link is another page of the same paginated
// list as page: the two URLs differ only in a page number, given as one of
// pageParams with a numeric value or as a trailing /page/N path segment
// (/tag/flu/ and /tag/flu/?page=2, /politics/page/3/ and /politics/). The
// links of a list's pagination ("2", "next", "»") carry no words of their
// own, so a crawl that ranks links by their text cannot tell them apart
// from any other navigation; this tells it that the link continues the
// list it is reading.
func SamePagedList(page, link string) bool {
	a, okA := unpaged(page)
	b, okB := unpaged(link)
	return okA && okB && a == b && !sameURL(page, link)
}

// unpaged is rawURL without its page number: host without "www." and
// port 80, the path without a trailing /page/N, the query without
// pageParams that hold a number (the other parameters sorted).
func unpaged(rawURL string) (string, bool) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return "", false
	}
	host := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	p := strings.TrimSuffix(u.EscapedPath(), "/")
	if i := strings.LastIndex(p, "/page/"); i >= 0 && allDigits(p[i+len("/page/"):]) {
		p = p[:i]
	}
	var keep []string
	for _, kv := range strings.Split(u.RawQuery, "&") {
		if kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		if slices.Contains(pageParams, strings.ToLower(k)) && allDigits(v) {
			continue
		}
		keep = append(keep, kv)
	}
	slices.Sort(keep)
	return host + p + "?" + strings.Join(keep, "&"), true
}

// sameURL reports whether a and b are the same page (they differ at most in
// "www.", the port, a trailing slash and the order of the query).
func sameURL(a, b string) bool {
	ua, errA := url.Parse(a)
	ub, errB := url.Parse(b)
	if errA != nil || errB != nil {
		return a == b
	}
	norm := func(u *url.URL) string {
		q := strings.Split(u.RawQuery, "&")
		slices.Sort(q)
		return strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.") + strings.TrimSuffix(u.EscapedPath(), "/") + "?" + strings.Join(q, "&")
	}
	return norm(ua) == norm(ub)
}
