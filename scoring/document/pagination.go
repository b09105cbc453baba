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
	listA, pageA, okA := pagedKeys(page)
	listB, pageB, okB := pagedKeys(link)
	return okA && okB && listA == listB && pageA != pageB
}

// pagedKeys parses rawURL once and returns two keys of it, both with the
// host without "www." and port, the path without a trailing slash and the
// query parameters sorted: list, also without the page number (a trailing
// /page/N, pageParams that hold a number), names the list; page, with it,
// names the page (the same page differs at most in "www.", the port, a
// trailing slash and the order of the query).
func pagedKeys(rawURL string) (list, page string, ok bool) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return "", "", false
	}
	host := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	p := strings.TrimSuffix(u.EscapedPath(), "/")
	query := strings.Split(u.RawQuery, "&")
	slices.Sort(query)
	page = host + p + "?" + strings.Join(query, "&")
	if i := strings.LastIndex(p, "/page/"); i >= 0 && allDigits(p[i+len("/page/"):]) {
		p = p[:i]
	}
	var keep []string
	for _, kv := range query {
		if kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		if slices.Contains(pageParams, strings.ToLower(k)) && allDigits(v) {
			continue
		}
		keep = append(keep, kv)
	}
	return host + p + "?" + strings.Join(keep, "&"), page, true
}
