package specs

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// HostAllowed reports whether documents of host may enter the collection:
// false if a deny entry matches, else true if allow is empty or an allow
// entry matches. An entry matches its own host and every subdomain of it
// ("spiegel.de" matches "spiegel.de" and "www.spiegel.de", not
// "myspiegel.de"). host may carry a port and a trailing dot; case does not
// matter.
func (s *Spec) HostAllowed(host string) bool {
	h := normalizeHost(host)
	for _, d := range s.Deny {
		if domainMatch(h, d) {
			return false
		}
	}
	if len(s.Allow) == 0 {
		return true
	}
	for _, a := range s.Allow {
		if domainMatch(h, a) {
			return true
		}
	}
	return false
}

// URLAllowed is HostAllowed for the host of an absolute URL; a URL that does
// not parse or has no host is not allowed.
func (s *Spec) URLAllowed(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return false
	}
	return s.HostAllowed(u.Host)
}

// normalizeHost lower-cases host and strips a port, IPv6 brackets and a
// trailing dot.
func normalizeHost(host string) string {
	h := strings.ToLower(strings.TrimSpace(host))
	if hh, _, err := net.SplitHostPort(h); err == nil {
		h = hh
	}
	h = strings.TrimPrefix(strings.TrimSuffix(h, "]"), "[")
	return strings.TrimSuffix(h, ".")
}

// domainMatch reports whether host is domain or a subdomain of it; both are
// normalised.
func domainMatch(host, domain string) bool {
	return host == domain || strings.HasSuffix(host, "."+domain)
}

// parseHostEntry validates and normalises one allow/deny entry.
func parseHostEntry(entry string) (string, error) {
	e := strings.TrimSpace(entry)
	switch {
	case e == "":
		return "", fmt.Errorf("is empty")
	case strings.Contains(e, "://") || strings.ContainsAny(e, "/?#"):
		hint := ""
		if u, err := url.Parse(e); err == nil && u.Hostname() != "" {
			hint = fmt.Sprintf("; write %q", u.Hostname())
		}
		return "", fmt.Errorf("%q is a URL, not a host or domain%s", entry, hint)
	case strings.HasPrefix(e, "*") || strings.HasPrefix(e, "."):
		return "", fmt.Errorf("%q: write %q; an entry always matches the host and all its subdomains", entry, strings.TrimLeft(e, "*."))
	case strings.ContainsAny(e, " \t@"):
		return "", fmt.Errorf("%q is not a host or domain name", entry)
	}
	return normalizeHost(e), nil
}
