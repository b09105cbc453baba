package specs

import "testing"

func TestHostAllowed(t *testing.T) {
	s := Defaults()
	if !s.HostAllowed("anything.example") {
		t.Error("empty allow and deny must allow every host")
	}
	s.Allow = []string{"spiegel.de", "tagesschau.de", "de"}
	s.Deny = []string{"forum.spiegel.de", "wikipedia.de"}
	for host, want := range map[string]bool{
		"spiegel.de":            true,
		"www.spiegel.de":        true,
		"WWW.Spiegel.DE.":       true,
		"www.spiegel.de:8080":   true,
		"forum.spiegel.de":      false, // deny wins over allow
		"a.forum.spiegel.de":    false,
		"myforum.spiegel.de":    true,
		"myspiegel.com":         false,
		"example.de":            true, // "de" allows the whole TLD
		"wikipedia.de":          false,
		"de.wikipedia.org":      false,
		"tagesschau.de.evil.io": false,
		"":                      false,
	} {
		if got := s.HostAllowed(host); got != want {
			t.Errorf("HostAllowed(%q) = %v, want %v", host, got, want)
		}
	}
	for u, want := range map[string]bool{
		"http://www.spiegel.de/politik/": true,
		"https://forum.spiegel.de/t/1":   false,
		"not a url":                      false,
		"/relative/path":                 false,
	} {
		if got := s.URLAllowed(u); got != want {
			t.Errorf("URLAllowed(%q) = %v, want %v", u, got, want)
		}
	}
	// Deny only.
	s.Allow = nil
	if !s.HostAllowed("example.com") || s.HostAllowed("www.wikipedia.de") {
		t.Error("deny-only list")
	}
}

func TestParseHostEntry(t *testing.T) {
	for in, want := range map[string]string{"Spiegel.DE.": "spiegel.de", " a.b ": "a.b", "127.0.0.1": "127.0.0.1"} {
		if got, err := parseHostEntry(in); err != nil || got != want {
			t.Errorf("parseHostEntry(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "http://a.de", "a.de/path", "*.a.de", ".a.de", "a b.de", "user@a.de"} {
		if _, err := parseHostEntry(in); err == nil {
			t.Errorf("parseHostEntry(%q) succeeded", in)
		}
	}
}
