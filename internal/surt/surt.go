// Package surt turns URLs into canonical SURT keys, the sort keys of a
// snapshot index, exactly as the Internet Archive's python "surt" library does
// with the defaults pywb uses (surt.surt(url): no scheme, no trailing comma).
//
//	http://www.Example.com:80/a/b/?b=2&a=1#frag  →  com,example)/a/b?a=1&b=2
//
// The pipeline is the python library's, step for step, so that keys written by
// this package and keys written by pywb's cdx-indexer agree byte for byte:
//
//  1. parse (handyurl.parse): trim, drop TAB/CR/LF, add "http://" when there is
//     no scheme, collapse repeated "http://https://", split with the RFC 2396
//     regular expression, take host and port as urllib does, and repair
//     "http:////host" URLs. User info is dropped by the parser.
//  2. Google canonicalisation: drop the fragment; unescape the query and path
//     repeatedly and escape them once; unescape the host, convert IDN hosts to
//     punycode, collapse "..", turn numeric hosts into dotted quads; resolve
//     "." and ".." path segments and drop empty ones.
//  3. IA canonicalisation: lowercase host, path and query; strip a leading
//     "www", "www2", … label; drop the default port; strip session ids from
//     path and query; drop a trailing slash; sort the query arguments; drop an
//     empty query.
//  4. SURT form: host labels reversed and joined by commas, then ")" and the
//     path and query. URLs without a host (dns:, mailto:, warcinfo:) keep their
//     scheme; "filedesc" URLs are returned unchanged.
//
// Most URLs in web archives are plain http(s) URLs for which steps 1 and 2
// change nothing: Key takes those through one pass with one allocation
// (fastKey) and every other URL through the whole pipeline; the tests hold
// the two equal on the shared vectors, random URLs and a fuzzer.
//
// The python library works on bytes; so does this package. Where the python
// library asks the operating system (socket.gethostbyname_ex for numeric hosts
// such as "10.0.258"), this package applies the same inet_aton rules without a
// lookup, which is what glibc does for all-digit names. IDNA conversion uses
// golang.org/x/net/idna with transitional (IDNA 2003 compatible) mapping;
// python's codec implements IDNA 2003, and the two differ only for code points
// that IDNA 2003 does not assign.
package surt

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/net/idna"
)

// ErrEmpty is returned for an empty URL (python's surt returns "-" for it,
// which is no usable index key).
var ErrEmpty = errors.New("surt: empty URL")

// Key returns the canonical SURT key of rawURL, as pywb writes it into CDXJ
// indexes. It fails only for URLs that the python library rejects too (an
// empty URL, a non-numeric or out-of-range port).
func Key(rawURL string) (string, error) {
	if rawURL == "" {
		return "", ErrEmpty
	}
	if k, ok := fastKey(rawURL); ok {
		return k, nil
	}
	return fullKey(rawURL)
}

// AppendKey appends Key(rawURL) to dst: the index builds its keys into
// shared chunks with it, without a string per key. On an error dst is
// returned as it was.
func AppendKey(dst []byte, rawURL string) ([]byte, error) {
	if rawURL == "" {
		return dst, ErrEmpty
	}
	if b, ok := appendFastKey(dst, rawURL); ok {
		return b, nil
	}
	k, err := fullKey(rawURL)
	if err != nil {
		return dst, err
	}
	return append(dst, k...), nil
}

// fullKey is Key by the python library's whole pipeline.
func fullKey(rawURL string) (string, error) {
	if strings.HasPrefix(rawURL, "filedesc") {
		return rawURL, nil
	}
	u, err := parse([]byte(rawURL))
	if err != nil {
		return "", fmt.Errorf("surt key of %q: %w", truncate(rawURL), err)
	}
	u.googleCanonicalize()
	u.iaCanonicalize()
	return string(u.surt()), nil
}

func truncate(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// url is python's handyurl: nil slices stand for None, port -1 for None.
// Fragment and "last delimiter" are always dropped by the default
// canonicalisers, so they are not kept.
type url struct {
	scheme []byte
	host   []byte
	port   int
	path   []byte
	query  []byte
}

// parse is handyurl.parse.
func parse(raw []byte) (*url, error) {
	raw = bytes.Trim(raw, " \t\n\r\x0b\x0c")
	if bytes.ContainsAny(raw, "\n\r\t") {
		raw = bytes.Map(func(r rune) rune {
			if r == '\n' || r == '\r' || r == '\t' {
				return -1
			}
			return r
		}, raw)
	}
	if len(raw) == 0 {
		return nil, errors.New("no URL left after trimming white space")
	}
	if schemeLen(raw) < 0 {
		raw = append([]byte("http://"), raw...)
	}
	raw = collapseProtocols(raw)

	// RFC 2396 split; a scheme is always present here.
	i := schemeLen(raw)
	u := &url{scheme: raw[:i], port: -1}
	rest := raw[i+1:]
	var netloc []byte
	if bytes.HasPrefix(rest, []byte("//")) {
		rest = rest[2:]
		end := bytes.IndexAny(rest, "/?#")
		if end < 0 {
			end = len(rest)
		}
		netloc, rest = rest[:end], rest[end:]
	}
	if j := bytes.IndexByte(rest, '#'); j >= 0 {
		rest = rest[:j] // fragment: dropped by the canonicaliser
	}
	path := rest
	if j := bytes.IndexByte(rest, '?'); j >= 0 {
		path = rest[:j]
		if q := rest[j+1:]; len(q) > 0 {
			u.query = q
		}
	}

	netloc = bytes.TrimRight(netloc, ":")
	hostname, port := hostinfo(netloc)
	if port != nil {
		p, err := parsePort(port)
		if err != nil {
			return nil, err
		}
		if p != 0 {
			u.port = p
		}
	}
	if len(hostname) > 0 {
		before, after, found := bytes.Cut(hostname, []byte("%"))
		h := bytes.ToLower(before)
		if found {
			h = append(append(h, '%'), after...)
		}
		u.host = h
	}
	if len(path) > 0 {
		u.path = path
	}
	if bytes.HasPrefix(u.scheme, []byte("http")) && u.host == nil && u.path != nil {
		// "http:////www.example.com": the host ended up in the path.
		p := bytes.TrimLeft(u.path, "/")
		h, rest, _ := bytes.Cut(p, []byte("/"))
		u.host = append([]byte{}, h...)
		u.path = append([]byte("/"), rest...)
	}
	return u, nil
}

// schemeLen returns the length of a leading "scheme" followed by ':' or -1.
func schemeLen(b []byte) int {
	if len(b) == 0 || !isAlpha(b[0]) {
		return -1
	}
	for i := 1; i < len(b); i++ {
		c := b[i]
		switch {
		case c == ':':
			return i
		case isAlpha(c) || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.':
		default:
			return -1
		}
	}
	return -1
}

func isAlpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// collapseProtocols replaces a run of "http://" / "https://" prefixes by the
// last one ("http://https://host" → "https://host").
func collapseProtocols(b []byte) []byte {
	last, pos := -1, 0
	for {
		switch {
		case bytes.HasPrefix(b[pos:], []byte("http://")):
			last, pos = pos, pos+7
		case bytes.HasPrefix(b[pos:], []byte("https://")):
			last, pos = pos, pos+8
		default:
			if last <= 0 {
				return b
			}
			return b[last:]
		}
	}
}

// hostinfo is urllib's SplitResult._hostinfo: host and port after the last '@'.
func hostinfo(netloc []byte) (host, port []byte) {
	if i := bytes.LastIndexByte(netloc, '@'); i >= 0 {
		netloc = netloc[i+1:]
	}
	if _, bracketed, ok := bytes.Cut(netloc, []byte("[")); ok {
		h, rest, _ := bytes.Cut(bracketed, []byte("]"))
		_, port, _ = bytes.Cut(rest, []byte(":"))
		host = h
	} else {
		host, port, _ = bytes.Cut(netloc, []byte(":"))
	}
	if len(port) == 0 {
		port = nil
	}
	return host, port
}

func parsePort(p []byte) (int, error) {
	n := 0
	for _, c := range p {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("port %q is not a number", p)
		}
		n = n*10 + int(c-'0')
		if n > 65535 {
			return 0, fmt.Errorf("port %q out of range 0-65535", p)
		}
	}
	return n, nil
}

// googleCanonicalize is GoogleURLCanonicalizer.canonicalize.
func (u *url) googleCanonicalize() {
	if len(u.query) > 0 {
		u.query = escapeOnce(unescapeRepeatedly(u.query))
	}
	if len(u.host) > 0 {
		host := unescapeRepeatedly(u.host)
		if !isASCII(host) {
			if a, ok := toASCII(host); ok {
				host = a
			}
		}
		host = bytes.Trim(bytes.ReplaceAll(host, []byte(".."), []byte(".")), ".")
		if ip, ok := attemptIPFormats(host); ok {
			host = ip
		} else {
			host = escapeOnce(bytes.ToLower(host))
		}
		u.host = host
	}
	path := unescapeRepeatedly(u.path)
	if len(u.host) > 0 {
		path = normalizePath(path)
	}
	u.path = escapeOnce(path)
}

var idnaProfile = idna.New(idna.MapForLookup(), idna.Transitional(true))

// toASCII is python's host.decode('utf-8', 'ignore').encode('idna').
func toASCII(host []byte) ([]byte, bool) {
	s := strings.ToValidUTF8(string(host), "")
	trailingDot := strings.HasSuffix(s, ".")
	s = strings.TrimSuffix(s, ".")
	for _, label := range strings.Split(s, ".") {
		if len(label) == 0 { // python: "label empty or too long"
			return nil, false
		}
	}
	a, err := idnaProfile.ToASCII(s)
	if err != nil {
		return nil, false
	}
	for _, label := range strings.Split(a, ".") {
		if len(label) == 0 || len(label) > 63 {
			return nil, false
		}
	}
	if trailingDot {
		a += "."
	}
	return []byte(a), true
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// normalizePath resolves "." and ".." segments and drops empty segments, but
// keeps a trailing slash; nil becomes "/".
func normalizePath(path []byte) []byte {
	if len(path) == 0 {
		return []byte("/")
	}
	parts := bytes.Split(path, []byte("/"))[1:]
	kept := parts[:0:0]
	for _, p := range parts {
		switch string(p) {
		case ".":
		case "..":
			if len(kept) > 0 {
				kept = kept[:len(kept)-1]
			} else {
				kept = append(kept, p)
			}
		default:
			kept = append(kept, p)
		}
	}
	out := []byte("/")
	for i, p := range kept {
		if i == len(kept)-1 {
			out = append(out, p...)
		} else if len(p) > 0 {
			out = append(append(out, p...), '/')
		}
	}
	return out
}

// safe marks the bytes escapeOnce leaves alone: python's quote_from_bytes with
// safe=`!"$&'()*+,-./:;<=>?@[\]^_` + "`{|}~" plus letters and digits.
var safe = func() (t [256]bool) {
	for c := 0x21; c < 0x7f; c++ {
		t[c] = true
	}
	t['#'], t['%'] = false, false
	return t
}()

// escapeOnce percent-encodes everything outside 0x21..0x7e and '#' and '%'.
func escapeOnce(b []byte) []byte {
	n := 0
	for _, c := range b {
		if !safe[c] {
			n++
		}
	}
	if n == 0 {
		return b
	}
	const hex = "0123456789ABCDEF"
	out := make([]byte, 0, len(b)+2*n)
	for _, c := range b {
		if safe[c] {
			out = append(out, c)
		} else {
			out = append(out, '%', hex[c>>4], hex[c&15])
		}
	}
	return out
}

// unescapeRepeatedly percent-decodes until nothing changes.
func unescapeRepeatedly(b []byte) []byte {
	for {
		un, changed := unquote(b)
		if !changed {
			return b
		}
		b = un
	}
}

// unquote is urllib's unquote_to_bytes: %XX with two hex digits is decoded,
// anything else is kept. It reports whether anything was decoded.
func unquote(b []byte) ([]byte, bool) {
	i := bytes.IndexByte(b, '%')
	if i < 0 {
		return b, false
	}
	out := append(make([]byte, 0, len(b)), b[:i]...)
	changed := false
	for ; i < len(b); i++ {
		c := b[i]
		if c == '%' && i+2 < len(b) && isHex(b[i+1]) && isHex(b[i+2]) {
			out = append(out, unhex(b[i+1])<<4|unhex(b[i+2]))
			i += 2
			changed = true
			continue
		}
		out = append(out, c)
	}
	return out, changed
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'f'
}

func unhex(c byte) byte {
	if c <= '9' {
		return c - '0'
	}
	return c | 0x20 - 'a' + 10
}

// iaCanonicalize is IAURLCanonicalizer.canonicalize with its defaults.
func (u *url) iaCanonicalize() {
	if len(u.host) > 0 {
		u.host = bytes.ToLower(u.host)
		if string(u.scheme) != "dns" {
			u.host = stripWWW(u.host)
		}
	}
	if u.port >= 0 && u.port == defaultPort(u.scheme) {
		u.port = -1
	}
	if len(u.path) > 0 {
		u.path = bytes.ToLower(u.path)
		u.path = stripPathSessionID(u.path)
		if len(u.path) > 1 && u.path[len(u.path)-1] == '/' {
			u.path = u.path[:len(u.path)-1]
		}
	}
	if len(u.query) > 0 {
		u.query = stripQuerySessionID(u.query)
		u.query = bytes.ToLower(u.query)
		u.query = alphaReorderQuery(u.query)
	}
	if u.query != nil && len(u.query) == 0 {
		u.query = nil
	}
}

// stripWWW strips a leading "www.", "www2.", "www34." label, in any case
// (the full pipeline lowercases the host first; fastKey does not).
func stripWWW[T ~string | ~[]byte](h T) T {
	if len(h) < 4 || h[0]|0x20 != 'w' || h[1]|0x20 != 'w' || h[2]|0x20 != 'w' {
		return h
	}
	i := 3
	for i < len(h) && h[i] >= '0' && h[i] <= '9' {
		i++
	}
	if i < len(h) && h[i] == '.' {
		return h[i+1:]
	}
	return h
}

func defaultPort(scheme []byte) int {
	switch strings.ToLower(string(scheme)) {
	case "http":
		return 80
	case "https":
		return 443
	}
	return 0
}

var pathSessionID = []*regexp.Regexp{
	regexp.MustCompile(`(?i)^(.*/)(\((?:[a-z]\([0-9a-z]{24}\))+\)/)([^\?]+\.aspx.*)$`),
	regexp.MustCompile(`(?i)^(.*/)(\([0-9a-z]{24}\)/)([^\?]+\.aspx.*)$`),
}

func stripPathSessionID(path []byte) []byte {
	// Both patterns need a '(' and ".aspx": most paths have neither, and
	// the backtracking patterns are a visible cost of every key.
	if bytes.IndexByte(path, '(') < 0 || !mayContainFold(path, ".aspx") {
		return path
	}
	for _, re := range pathSessionID {
		if m := re.FindSubmatchIndex(path); m != nil {
			path = append(append([]byte{}, path[m[2]:m[3]]...), path[m[6]:m[7]]...)
		}
	}
	return path
}

var querySessionID = []*regexp.Regexp{
	regexp.MustCompile(`(?i)^(.*)(?:jsessionid=[0-9a-zA-Z]{32})(?:&(.*))?$`),
	regexp.MustCompile(`(?i)^(.*)(?:phpsessid=[0-9a-zA-Z]{32})(?:&(.*))?$`),
	regexp.MustCompile(`(?i)^(.*)(?:sid=[0-9a-zA-Z]{32})(?:&(.*))?$`),
	regexp.MustCompile(`(?i)^(.*)(?:ASPSESSIONID[a-zA-Z]{8}=[a-zA-Z]{24})(?:&(.*))?$`),
	regexp.MustCompile(`(?i)^(.*)(?:cfid=[^&]+&cftoken=[^&]+)(?:&(.*))?$`),
}

// querySessionLiterals[i] is a text querySessionID[i] cannot match without
// (in any case).
var querySessionLiterals = []string{"jsessionid=", "phpsessid=", "sid=", "aspsessionid", "cfid="}

func stripQuerySessionID(q []byte) []byte {
	for i, re := range querySessionID {
		if !mayContainFold(q, querySessionLiterals[i]) {
			continue
		}
		m := re.FindSubmatchIndex(q)
		if m == nil {
			continue
		}
		out := append([]byte{}, q[m[2]:m[3]]...)
		if m[4] >= 0 && m[5] > m[4] {
			out = append(out, q[m[4]:m[5]]...)
		}
		q = out
	}
	return q
}

// mayContainFold reports whether s may contain lit (lower-case ASCII) under
// the case folding of a (?i) regexp: false only when s is pure ASCII and
// holds lit in no mix of cases. Non-ASCII input always gives true, since
// the regexp also folds some non-ASCII runes to ASCII letters (U+017F to s,
// U+212A to k).
func mayContainFold[T string | []byte](s T, lit string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return true
		}
	}
	n := len(lit)
outer:
	for i := 0; i+n <= len(s); i++ {
		for j := 0; j < n; j++ {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != lit[j] {
				continue outer
			}
		}
		return true
	}
	return false
}

// alphaReorderQuery sorts the '&'-separated arguments as python sorts the
// tuples (name,) and (name, value).
func alphaReorderQuery(q []byte) []byte {
	if len(q) <= 1 {
		return q
	}
	args := bytes.Split(q, []byte("&"))
	slices.SortStableFunc(args, compareArg)
	return bytes.Join(args, []byte("&"))
}

// surt formats the canonical URL as a SURT without scheme and trailing comma.
func (u *url) surt() []byte {
	var out []byte
	if len(u.host) == 0 {
		out = append(append(out, u.scheme...), ':')
	} else {
		labels := bytes.Split(u.host, []byte("."))
		slices.Reverse(labels)
		out = append(out, bytes.Join(labels, []byte(","))...)
		if u.port >= 0 {
			out = fmt.Appendf(out, ":%d", u.port)
		}
		out = append(out, ')')
	}
	if len(u.path) > 0 {
		out = append(out, u.path...)
	} else if u.query != nil {
		out = append(out, '/')
	}
	if u.query != nil {
		out = append(append(out, '?'), u.query...)
	}
	return out
}
