package surt

import "bytes"

// fastKey is Key for the URLs most web archive records have: "http://" or
// "https://", a host name of letters, digits, '-', '.' and '_', an optional
// port, and a path and query of printable ASCII without '%' or '#'. For
// those, the python pipeline's unescaping, escaping, IDNA and IP steps
// change nothing, so what is left (lower case, "www" label, default port,
// "." and ".." segments, empty segments, trailing slash, sorted query) is
// done here in one pass with one allocation, the key's string. Any other
// URL, and any URL whose path or query may hold a session id, gives
// ok == false and goes through the full pipeline; FuzzFastKey holds the two
// equal on every URL fastKey accepts.
func fastKey(raw string) (key string, ok bool) {
	var arr [512]byte
	b, ok := appendFastKey(arr[:0], raw)
	if !ok {
		return "", false
	}
	return string(b), true
}

// appendFastKey is fastKey appending the key to dst; when ok is false, dst
// is returned as it was (its spare capacity may have been written).
func appendFastKey(dst []byte, raw string) (_ []byte, ok bool) {
	start := len(dst)
	fail := func() ([]byte, bool) { return dst[:start], false }
	var rest string
	var https bool
	switch {
	case len(raw) > 7 && raw[:7] == "http://":
		rest = raw[7:]
	case len(raw) > 8 && raw[:8] == "https://":
		rest, https = raw[8:], true
	default:
		return fail()
	}
	if hasPrefix(rest, "http://") || hasPrefix(rest, "https://") {
		return fail() // collapsed by parse
	}
	for i := 0; i < len(raw); i++ {
		if c := raw[i]; c <= ' ' || c >= 0x7f || c == '%' || c == '#' {
			return fail()
		}
	}

	// netloc: host and port.
	end := len(rest)
	for i := 0; i < len(rest); i++ {
		if rest[i] == '/' || rest[i] == '?' {
			end = i
			break
		}
	}
	netloc, rest := rest[:end], rest[end:]
	host, port := netloc, -1
	for i := 0; i < len(netloc); i++ {
		if netloc[i] == ':' {
			host = netloc[:i]
			p, ok := fastPort(netloc[i+1:])
			if !ok {
				return fail()
			}
			if p != 0 && !(p == 80 && !https) && !(p == 443 && https) {
				port = p
			}
			break
		}
	}
	if !fastHost(host) {
		return fail()
	}
	path, query := rest, ""
	for i := 0; i < len(rest); i++ {
		if rest[i] == '?' {
			path, query = rest[:i], rest[i+1:]
			break
		}
	}
	if len(query) > 0 {
		for _, lit := range querySessionLiterals {
			if mayContainFold(query, lit) {
				return fail()
			}
		}
	}

	out := dst
	// Host labels reversed, lower case, without a leading "www" label.
	lower := func(c byte) byte {
		if 'A' <= c && c <= 'Z' {
			return c + 'a' - 'A'
		}
		return c
	}
	host = stripWWW(host)
	for j := len(host); j > 0; {
		i := j - 1
		for i >= 0 && host[i] != '.' {
			i--
		}
		if j < len(host) {
			out = append(out, ',')
		}
		for k := i + 1; k < j; k++ {
			out = append(out, lower(host[k]))
		}
		j = i
	}
	if port >= 0 {
		out = appendInt(append(out, ':'), port)
	}
	out = append(out, ')')

	// Path: "." and ".." resolved, empty segments dropped except the last,
	// lower case, no trailing slash.
	pathStart := len(out)
	var segs [64]struct{ s, e int }
	n := 0
	for i := 0; i < len(path); {
		// path[i] == '/': the segment after it.
		j := i + 1
		for j < len(path) && path[j] != '/' {
			j++
		}
		switch seg := path[i+1 : j]; seg {
		case ".":
		case "..":
			if n > 0 {
				n--
			} else {
				segs[n] = struct{ s, e int }{i + 1, j}
				n++
			}
		default:
			if n == len(segs) {
				return fail()
			}
			segs[n] = struct{ s, e int }{i + 1, j}
			n++
		}
		i = j
	}
	out = append(out, '/')
	for k := 0; k < n; k++ {
		s := segs[k]
		if k < n-1 && s.e == s.s {
			continue
		}
		for m := s.s; m < s.e; m++ {
			out = append(out, lower(path[m]))
		}
		if k < n-1 {
			out = append(out, '/')
		}
	}
	if p := out[pathStart:]; len(p) > 1 && p[len(p)-1] == '/' {
		out = out[:len(out)-1]
	}
	if p := out[pathStart:]; hasByte(p, '(') && mayContainFold(p, ".aspx") {
		return fail() // a session id may be in the path
	}

	// Query: lower case, its arguments sorted.
	if len(query) > 0 {
		out = append(out, '?')
		if len(query) == 1 {
			out = append(out, lower(query[0]))
		} else {
			var args [64]struct{ s, e int }
			n := 0
			for i := 0; i <= len(query); {
				j := i
				for j < len(query) && query[j] != '&' {
					j++
				}
				if n == len(args) {
					return fail()
				}
				args[n] = struct{ s, e int }{i, j}
				n++
				i = j + 1
			}
			var qarr [512]byte
			q := qarr[:0]
			for i := 0; i < len(query); i++ {
				q = append(q, lower(query[i]))
			}
			// Insertion sort: stable, as python's sort.
			for i := 1; i < n; i++ {
				for k := i; k > 0 && compareArg(q[args[k-1].s:args[k-1].e], q[args[k].s:args[k].e]) > 0; k-- {
					args[k-1], args[k] = args[k], args[k-1]
				}
			}
			for k := 0; k < n; k++ {
				if k > 0 {
					out = append(out, '&')
				}
				out = append(out, q[args[k].s:args[k].e]...)
			}
		}
	}
	return out, true
}

func hasPrefix(s, prefix string) bool { return len(s) >= len(prefix) && s[:len(prefix)] == prefix }

func hasByte(b []byte, c byte) bool {
	for _, x := range b {
		if x == c {
			return true
		}
	}
	return false
}

// fastPort parses a port of one to five digits; 0 stands for none.
func fastPort(p string) (int, bool) {
	if len(p) == 0 || len(p) > 5 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n <= 65535
}

// fastHost reports whether host is one fastKey handles: letters, digits,
// '-', '_' and '.', no empty label, and not all digits and dots (which
// the IP rules would rewrite).
func fastHost(host string) bool {
	if len(host) == 0 || host[0] == '.' || host[len(host)-1] == '.' {
		return false
	}
	letter := false
	for i := 0; i < len(host); i++ {
		c := host[i]
		switch {
		case c|0x20 >= 'a' && c|0x20 <= 'z' || c == '-' || c == '_':
			letter = true
		case c >= '0' && c <= '9':
		case c == '.':
			if host[i-1] == '.' {
				return false
			}
		default:
			return false
		}
	}
	return letter
}

// compareArg orders two query arguments as alphaReorderQuery does: by
// name, then an argument without '=' first, then by value.
func compareArg(a, b []byte) int {
	an, av, aok := bytes.Cut(a, []byte("="))
	bn, bv, bok := bytes.Cut(b, []byte("="))
	if c := bytes.Compare(an, bn); c != 0 {
		return c
	}
	switch {
	case !aok && !bok:
		return 0
	case !aok:
		return -1
	case !bok:
		return 1
	}
	return bytes.Compare(av, bv)
}

func appendInt(b []byte, n int) []byte {
	var d [5]byte
	i := len(d)
	for {
		i--
		d[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	return append(b, d[i:]...)
}
