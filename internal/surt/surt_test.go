package surt

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recrawl/recrawl/internal/testkit/sharedtest"
)

// TestConformanceTSV checks every row of the shared SURT vectors.
func TestConformanceTSV(t *testing.T) {
	f, err := os.Open(sharedtest.Path(t, "conformance/surt.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		in, want, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("surt.tsv line %q has no tab", line)
		}
		n++
		if got, err := Key(in); err != nil || got != want {
			t.Errorf("Key(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if n < 20 {
		t.Fatalf("only %d vectors read from surt.tsv", n)
	}
}

// TestPythonLibraryVectors holds cases from the python library's own tests
// (tests/test_surt.py, ported from WaybackURLKeyMakerTest.java and the
// canonicaliser tests) run through the whole default pipeline.
func TestPythonLibraryVectors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"filedesc:/foo.arc.gz", "filedesc:/foo.arc.gz"},
		{"filedesc://foo.arc.gz", "filedesc://foo.arc.gz"},
		{"http://visit.webhosting.yahoo.com/visit.gif?&r=http%3A//web.archive.org/web/20090517140029/http%3A//anthonystewarthead.electric-chi.com/&b=Netscape%205.0%20%28Windows%3B%20en-US%29&s=1366x768&o=Win32&c=24&j=true&v=1.2",
			"com,yahoo,webhosting,visit)/visit.gif?&b=netscape%205.0%20(windows;%20en-us)&c=24&j=true&o=win32&r=http://web.archive.org/web/20090517140029/http://anthonystewarthead.electric-chi.com/&s=1366x768&v=1.2"},
		{"ftp://www.example.com/", "com,example)/"},
		// Google canonicaliser cases.
		{"http://host/%25%32%35", "host)/%25"},
		{"http://host/%25%32%35%25%32%35", "host)/%25%25"},
		{"http://host/%2525252525252525", "host)/%25"},
		{"http://host/asdf%25%32%35asd", "host)/asdf%25asd"},
		{"http://host/%%%25%32%35asd%%", "host)/%25%25%25asd%25%25"},
		{"http://%31%36%38%2e%31%38%38%2e%39%39%2e%32%36/%2E%73%65%63%75%72%65/%77%77%77%2E%65%62%61%79%2E%63%6F%6D/", "26,99,188,168)/.secure/www.ebay.com"},
		{"http://host%23.com/%257Ea%2521b%2540c%2523d%2524e%25f%255E00%252611%252A22%252833%252944_55%252B", "com,host%23)/~a!b@c%23d$e%25f^00&11*22(33)44_55+"},
		{"http://3279880203/blah", "11,0,127,195)/blah"},
		{"http://www.google.com/blah/..", "com,google)/"},
		{"www.google.com/", "com,google)/"},
		{"www.google.com", "com,google)/"},
		{"http://www.evil.com/blah#frag", "com,evil)/blah"},
		{"http://www.GOOgle.com/", "com,google)/"},
		{"http://www.google.com.../", "com,google)/"},
		{"http://www.google.com/foo\tbar\rbaz\n2", "com,google)/foobarbaz2"},
		{"http://www.google.com/q?", "com,google)/q"},
		{"http://www.google.com/q?r?", "com,google)/q?r?"},
		{"http://evil.com/foo#bar#baz", "com,evil)/foo"},
		{"http://evil.com/foo;", "com,evil)/foo;"},
		{"http://evil.com/foo?bar;", "com,evil)/foo?bar;"},
		{"http://\u0001\u0080.com/", "com,%01%c2%80)/"},
		{"B\u00fccher.ch:8080", "ch,xn--bcher-kva:8080)/"},
		{"\u2603.com", "com,xn--n3h)/"},
		{"http://www.t%EF%BF%BD%04.82.net/", "net,82,t%ef%bf%bd%04)/"},
		{"http://notrailingslash.com", "com,notrailingslash)/"},
		{"http://www.gotaport.com:1234/", "com,gotaport:1234)/"},
		{"  http://www.google.com/  ", "com,google)/"},
		{"http:// leadingspace.com/", "com,%20leadingspace)/"},
		{"http://%20leadingspace.com/", "com,%20leadingspace)/"},
		{"%20leadingspace.com/", "com,%20leadingspace)/"},
		{"https://www.securesite.com/", "com,securesite)/"},
		{"http://host.com/ab%23cd", "com,host)/ab%23cd"},
		{"http://host.com//twoslashes?more//slashes", "com,host)/twoslashes?more//slashes"},
		// Parser cases.
		{"http:////////////////www.vikings.com", "com,vikings)/"},
		{"http://https://order.1and1.com", "com,1and1,order)/"},
		{"http://mineral.galleries.com:/minerals/silicate/chabazit/chabazit.htm", "com,galleries,mineral)/minerals/silicate/chabazit/chabazit.htm"},
		// IA canonicaliser cases.
		{"https://www.archive.org:80/", "org,archive:80)/"},
		{"http://www.archive.org:443/", "org,archive:443)/"},
		{"dns:www.archive.org", "dns:www.archive.org"},
		{"http://www2.www2foo.com/", "com,www2foo)/"},
		{"http://example.com/(S(4hqa0555fwsecu455xqckv45))/mileg.aspx", "com,example)/mileg.aspx"},
		{"http://example.com/(4hqa0555fwsecu455xqckv45)/mileg.aspx", "com,example)/mileg.aspx"},
		{"http://example.com/photos/36050182@N05/", "com,example)/photos/36050182@n05"},
		{"http://example.com/?jsessionid=0123456789abcdefghijklemopqrstuv&x=y", "com,example)/?x=y"},
		{"http://example.com/?one=two&jsessionid=0123456789abcdefghijklemopqrstuv", "com,example)/?&one=two"},
		{"http://example.com/?aspsessionidABCDEFGH=ABCDEFGHIJKLMNOPQRSTUVWX&x=y", "com,example)/?x=y"},
		{"http://example.com/?sid=9682993c8daa2c5497996114facdc805&jsessionid=0123456789abcdefghijklemopqrstuv", "com,example)/"},
		{"http://example.com/?CFID=1169580&CFTOKEN=48630702&dtstamp=22%2F08%2F2006%7C06%3A58%3A11", "com,example)/?dtstamp=22/08/2006|06:58:11"},
		{"http://example.com/foo?X=Y", "com,example)/foo?x=y"},
		// Numeric hosts.
		{"http://017.0.0.1/", "1,0,0,15)/"},
		{"http://10.0.258/", "2,1,0,10)/"},
		{"http://1.2.3.256/", "256,3,2,1)/"},
		{"http://39024579298/", "226,210,11,22)/"},
		// User info is dropped; percent-encoding is normalised.
		{"http://test@example.com/", "com,example)/"},
		{"http://user:pass@www.example.com:8080/A%7eB", "com,example:8080)/a~b"},
		{"http://example.com/a b", "com,example)/a%20b"},
		{"http://example.com/index.html", "com,example)/index.html"},
		{"HTTP://EXAMPLE.COM/", "com,example)/"},
		{"urn:X-wpull:log", "urn:x-wpull:log"},
		{"metadata://gnu.org/software/wget/warc/MANIFEST.txt", "org,gnu)/software/wget/warc/manifest.txt"},
	} {
		if got, err := Key(c.in); err != nil || got != c.want {
			t.Errorf("Key(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

func TestErrors(t *testing.T) {
	for _, in := range []string{"", "   ", "http://example.com:80a/", "http://example.com:70000/"} {
		if got, err := Key(in); err == nil {
			t.Errorf("Key(%q) = %q, want an error", in, got)
		}
	}
}

// TestReferenceIndexKeys checks that every key in pywb's reference indexes is
// the key of the URL on its line. Keys with pywb's POST suffix are derived
// from the request body and are checked in internal/cdxj; the example-arc-test
// keys carry pywb's test setup ("test,arc") and are skipped.
func TestReferenceIndexKeys(t *testing.T) {
	checked := 0
	for _, ref := range referenceLines(t) {
		if strings.Contains(ref.file, "example-arc-test") || strings.Contains(ref.key, "__wb_method=") {
			continue
		}
		checked++
		if got, err := Key(ref.url); err != nil || got != ref.key {
			t.Errorf("%s: Key(%q) = %q, %v; reference has %q", filepath.Base(ref.file), ref.url, got, err, ref.key)
		}
	}
	if checked < 300 {
		t.Errorf("only %d reference keys checked", checked)
	}
}

// referenceLine is one line of pywb's reference CDX/CDXJ files: its key and URL.
type referenceLine struct{ file, key, url string }

// referenceLines reads every uncompressed reference index in
// conformance/pywb.
func referenceLines(t *testing.T) []referenceLine {
	files, _ := filepath.Glob(filepath.Join(sharedtest.Path(t, "conformance/pywb"), "*.cdx*"))
	var refs []referenceLine
	for _, file := range files {
		if strings.HasSuffix(file, ".gz") {
			continue
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if line == "" || strings.HasPrefix(line, " CDX") {
				continue
			}
			key, url := referenceKeyURL(t, file, line)
			refs = append(refs, referenceLine{file, key, url})
		}
	}
	return refs
}

func referenceKeyURL(t *testing.T, file, line string) (key, url string) {
	fields := strings.Fields(line)
	if strings.HasSuffix(file, ".cdx") {
		return fields[0], fields[2]
	}
	_, js, _ := strings.Cut(line[len(fields[0])+1:], " ")
	var m map[string]string
	if err := json.Unmarshal([]byte(js), &m); err != nil {
		t.Fatalf("%s: %q: %v", file, line, err)
	}
	return fields[0], m["url"]
}

func FuzzKey(f *testing.F) {
	for _, s := range []string{"http://www.example.com/", "dns:example.com", "http://[::1]:80/a?b=c#d", "http://%zz%2/..//./?a&b=&&", "http://xn--bcher-kva.ch/", "B\u00fccher.ch", "http://1.2.3.4.5/", "http://0x10/", "filedesc:x", "http://a..b...c/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		k, err := Key(in)
		if err != nil {
			return
		}
		if strings.HasPrefix(in, "filedesc") {
			return
		}
		for i := 0; i < len(k); i++ {
			if k[i] <= ' ' || k[i] >= 0x7f {
				t.Fatalf("Key(%q) = %q has a raw byte %#x", in, k, k[i])
			}
		}
		if k2, err := Key(in); err != nil || k2 != k {
			t.Fatalf("Key(%q) not deterministic: %q then %q, %v", in, k, k2, err)
		}
	})
}
