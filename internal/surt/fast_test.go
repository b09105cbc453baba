package surt

import (
	"bufio"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/recrawl/recrawl/internal/testkit/sharedtest"
)

// checkFast fails when fastKey accepts url and differs from fullKey; it
// reports whether fastKey accepted it.
func checkFast(t *testing.T, url string) bool {
	t.Helper()
	got, ok := fastKey(url)
	if !ok {
		return false
	}
	want, err := fullKey(url)
	if err != nil || got != want {
		t.Errorf("fastKey(%q) = %q; the full pipeline gives %q, %v", url, got, want, err)
	}
	return true
}

func TestFastKeyCases(t *testing.T) {
	for _, c := range []struct {
		in, want string // want "": not taken by fastKey
	}{
		{"http://www.Example.com/A/b/?b=2&a=1", "com,example)/a/b?a=1&b=2"},
		{"https://www2.example.com:443/", "com,example)/"},
		{"http://example.com:443/", "com,example:443)/"},
		{"https://example.com:80/x", "com,example:80)/x"},
		{"http://example.com:0/x", "com,example)/x"},
		{"http://example.com:080/x", "com,example)/x"},
		{"http://example.com", "com,example)/"},
		{"http://example.com?", "com,example)/"},
		{"http://example.com?B", "com,example)/?b"},
		{"http://example.com/?a&b=&&a=1&A", "com,example)/?&a&a&a=1&b="},
		{"http://a.b/./x/../y//z/.", "b,a)/y/z"},
		{"http://a.b/../..", "b,a)/"},
		{"http://a.b/..", "b,a)/.."},
		{"http://a.b/x/../../y/", "b,a)/../y"},
		{"http://a.b//", "b,a)/"},
		{"http://www.123/", "123)/"},
		{"http://www/", "www)/"},
		{"http://wwwx.com/", "com,wwwx)/"},
		{"http://a_b-c.d/", "d,a_b-c)/"},
		{"http://x.com/p?q=1&x=(y)", "com,x)/p?q=1&x=(y)"},
		{"http://x.com/(a)/b.ASPX", ""},
		{"http://x.com/?sid=1", ""},
		{"http://x.com/?cfid=1", ""},
		{"http://1.2.3.4/", ""},
		{"http://10/", ""},
		{"http://a..b/", ""},
		{"http://.a/", ""},
		{"http://a./", ""},
		{"http://u@a.b/", ""},
		{"http://a.b:x/", ""},
		{"http://a.b:/", ""},
		{"http://a.b:70000/", ""},
		{"http://a.b/%41", ""},
		{"http://a.b/#x", ""},
		{"http://a.b/ x", ""},
		{"http://http://a.b/", ""},
		{"http://https://a.b/", ""},
		{"HTTP://a.b/", ""},
		{"ftp://a.b/", ""},
		{"a.b/", ""},
		{"http://", ""},
		{"http:///a", ""},
		{"http://b\u00fccher.ch/", ""},
	} {
		got, ok := fastKey(c.in)
		if c.want == "" {
			if ok {
				t.Errorf("fastKey(%q) = %q; want it left to the full pipeline", c.in, got)
			}
			continue
		}
		if !ok || got != c.want {
			t.Errorf("fastKey(%q) = %q, %v; want %q", c.in, got, ok, c.want)
		}
		checkFast(t, c.in)
	}
}

// TestFastKeyConformance runs the shared SURT vectors and the URLs of
// pywb's reference indexes through both paths.
func TestFastKeyConformance(t *testing.T) {
	var urls []string
	f, err := os.Open(sharedtest.Path(t, "conformance/surt.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if in, _, ok := strings.Cut(sc.Text(), "\t"); ok && !strings.HasPrefix(in, "#") {
			urls = append(urls, in)
		}
	}
	f.Close()
	for _, ref := range referenceLines(t) {
		urls = append(urls, ref.url)
	}
	taken := 0
	for _, u := range urls {
		checkAppend(t, u)
		if checkFast(t, u) {
			taken++
		}
	}
	if taken < len(urls)/4 {
		t.Errorf("fastKey took only %d of %d URLs", taken, len(urls))
	}
	t.Logf("fastKey took %d of %d URLs", taken, len(urls))
}

// TestFastKeyRandom: URLs made of the pieces the rules are about.
func TestFastKeyRandom(t *testing.T) {
	schemes := []string{"http://", "https://", "http://", "HTTP://"}
	labels := []string{"www", "WWW2", "a", "Example", "-", "_", "1", "0", "com", "xn--bcher-kva", "www3x"}
	odd := []string{".", "..", "@", ":", "\u00fc", "%41", "[", "1.2.3"}
	ports := []string{"", "", ":80", ":443", ":8080", ":0", ":", ":99999", ":x"}
	path := []string{"/", "/", "a", "A", ".", "..", "(", ")", "x.aspx", "?", "&", "=", "~", "sid=", "b"}
	oddPath := []string{"%", "%41", "#", " ", "\t", "\u00fc"}
	query := []string{"a", "B", "=", "&", "&", "1", "b=2", "a=1", "A=", "x", "(", "/", "?"}
	oddQuery := []string{"%20", "sid=", "#", "CFID="}
	rng := rand.New(rand.NewPCG(3, 4))
	pick := func(s []string, n int) string {
		var b strings.Builder
		for range rng.IntN(n) {
			b.WriteString(s[rng.IntN(len(s))])
		}
		return b.String()
	}
	taken, n := 0, 100000
	for range n {
		host := pick(labels, 3) + "." + pick(labels, 3)
		if rng.IntN(4) == 0 {
			host += odd[rng.IntN(len(odd))] + pick(labels, 2)
		}
		u := schemes[rng.IntN(len(schemes))] + host + ports[rng.IntN(len(ports))] + "/" + pick(path, 8)
		if rng.IntN(8) == 0 {
			u += oddPath[rng.IntN(len(oddPath))] + pick(path, 2)
		}
		if rng.IntN(2) == 0 {
			u += "?" + pick(query, 8)
			if rng.IntN(8) == 0 {
				u += oddQuery[rng.IntN(len(oddQuery))] + pick(query, 2)
			}
		}
		if checkFast(t, u) {
			taken++
		}
	}
	if taken < n/10 {
		t.Errorf("fastKey took only %d of %d URLs", taken, n)
	}
	t.Logf("fastKey took %d of %d random URLs", taken, n)
}

func FuzzFastKey(f *testing.F) {
	for _, s := range []string{"http://www.example.com/", "https://a.b:443/x/../y//?b&a=1", "http://a.b/(x)/y.aspx", "http://x/?sid=1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) { checkFast(t, in) })
}

func BenchmarkKey(b *testing.B) {
	urls := []string{
		"http://www.example.com/news/2024/01/02/some-article-title.html",
		"https://shop.example.co.uk/products/item?id=1234&ref=home&utm_source=x",
		"http://blog.example.org/",
		"http://cdn.example.net/static/js/app.min.js?v=3",
	}
	b.Run("fast", func(b *testing.B) {
		for b.Loop() {
			for _, u := range urls {
				if _, err := Key(u); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("full", func(b *testing.B) {
		for b.Loop() {
			for _, u := range urls {
				if _, err := fullKey(u); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// checkAppend fails when AppendKey(dst, url) is not dst followed by
// Key(url), or, on an error, not dst as it was.
func checkAppend(t *testing.T, url string) {
	t.Helper()
	want, wantErr := Key(url)
	// Spare capacity, so that a path given up half way has written into it.
	dst := append(make([]byte, 0, 1024), "prefix "...)
	got, err := AppendKey(dst, url)
	switch {
	case (err == nil) != (wantErr == nil):
		t.Errorf("AppendKey(%q): error %v; Key's error %v", url, err, wantErr)
	case err == nil && string(got) != "prefix "+want:
		t.Errorf("AppendKey(%q) = %q; want %q", url, got, "prefix "+want)
	case err != nil && string(got) != "prefix ":
		t.Errorf("AppendKey(%q) = %q on an error; want dst as it was", url, got)
	}
}

// TestAppendKey: the fast path, the full pipeline, the fast path given up
// half way (a session id in an .aspx path) and errors.
func TestAppendKey(t *testing.T) {
	for _, u := range []string{
		"http://www.Example.com/A/b/?b=2&a=1", "https://example.com:8443/x/../y",
		"http://example.com/(S(abcdefghijklmnopqrstuvwx))/page.aspx?b=1&a=2",
		"http://xn--bcher-kva.example/%7Ea", "http://127.0.0.1/x", "dns:example.com",
		"", "   ", "http://example.com:80a/", "http://example.com:70000/",
	} {
		checkAppend(t, u)
	}
}
