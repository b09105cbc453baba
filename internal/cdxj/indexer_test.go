package cdxj

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recrawl/recrawl/internal/records"
	"github.com/recrawl/recrawl/internal/testkit/sharedtest"
)

func indexBytes(t testing.TB, data []byte, name string) ([]Capture, IndexStats, []records.Skip) {
	t.Helper()
	var out []Capture
	var skips []records.Skip
	st, err := IndexFile(bytes.NewReader(data), name, IndexOptions{OnSkip: func(s records.Skip) { skips = append(skips, s) }},
		func(c Capture) error { out = append(out, c); return nil })
	if err != nil {
		t.Fatalf("IndexFile(%s): %v (skips %v)", name, err, skips)
	}
	return out, st, skips
}

func indexShared(t *testing.T, rel string) ([]Capture, []records.Skip) {
	t.Helper()
	data, err := os.ReadFile(sharedtest.Path(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	c, _, skips := indexBytes(t, data, filepath.Base(rel))
	return c, skips
}

// reference reads a pywb reference index (.cdxj or 11-field .cdx). hasMime
// tells, per line, whether the line has mime/status fields at all (pywb's
// minimal mode leaves them out).
func reference(t *testing.T, rel string) (caps []Capture, hasMime []bool) {
	t.Helper()
	data, err := os.ReadFile(sharedtest.Path(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		if strings.HasPrefix(line, " CDX") || line == "" {
			continue
		}
		var c Capture
		if strings.HasSuffix(rel, ".cdx") {
			c, err = ParseCDX11(line)
			hasMime = append(hasMime, true)
		} else {
			c, err = Parse(line)
			hasMime = append(hasMime, strings.Contains(line, `"mime"`))
		}
		if err != nil {
			t.Fatal(err)
		}
		caps = append(caps, c)
	}
	return caps, hasMime
}

// exception is a deliberate difference from a reference, with its reason.
type exception struct {
	reason string
	fix    func(ref *Capture) // rewrites the reference value we differ on
}

func compare(t *testing.T, name string, got, want []Capture, hasMime []bool, ex *exception) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d captures, reference has %d", name, len(got), len(want))
		for _, c := range got {
			t.Logf("  got  %s", c.Line())
		}
		for _, c := range want {
			t.Logf("  want %s", c.Line())
		}
		return
	}
	for i := range want {
		w, g := want[i], got[i]
		if ex != nil {
			ex.fix(&w)
		}
		if hasMime != nil && !hasMime[i] {
			g.Mime, g.Status = "", ""
		}
		if g != w {
			t.Errorf("%s line %d:\n got  %s\n want %s", name, i+1, g.Line(), w.Line())
		}
	}
}

func sorted(c []Capture) []Capture {
	c = append([]Capture(nil), c...)
	Sort(c)
	return c
}

func TestConformance(t *testing.T) {
	for _, c := range []struct {
		warcs []string
		ref   string
		order string // "sorted" (pywb --sort) or "file" (unsorted reference)
		ex    *exception
	}{
		{[]string{"example.warc.gz"}, "example.cdxj", "sorted", nil},
		{[]string{"example.warc.gz"}, "example.cdx", "sorted", nil},
		{[]string{"iana.warc.gz"}, "iana.cdxj", "sorted", nil},
		{[]string{"iana.warc.gz"}, "iana.cdx", "sorted", nil},
		{[]string{"dupes.warc.gz"}, "dupes.cdxj", "sorted", nil},
		{[]string{"dupes.warc.gz"}, "dupes.cdx", "sorted", nil},
		// post-test.cdxj was written without --sort: it is in file order.
		{[]string{"post-test.warc.gz"}, "post-test.cdxj", "file", nil},
		{[]string{"post-test.warc.gz"}, "post-test.cdx", "sorted", nil},
		{[]string{"missing-status-text.warc"}, "missing-status-text.cdxj", "sorted", nil},
		{[]string{"httpbin-resource.warc.gz"}, "httpbin-resource.cdxj", "sorted", nil},
		{[]string{"example2.warc.gz"}, "example2.cdxj", "sorted", nil},
		{[]string{"example-url-agnostic-orig.warc.gz", "example-url-agnostic-revisit.warc.gz"}, "url-agnost-example.cdxj", "sorted", nil},
		{[]string{"example-url-agnostic-orig.warc.gz", "example-url-agnostic-revisit.warc.gz"}, "url-agnost-example.cdx", "sorted", nil},
		{[]string{"example.arc", "example.arc.gz"}, "example-arc-test.cdx", "file", &exception{
			reason: `pywb's test setup indexes these files under the keys "com,example,test,arc)/" and "com,example,test,gz,arc)/"; the key of http://example.com/ is com,example)/`,
			fix:    func(ref *Capture) { ref.Key = "com,example)/" },
		}},
	} {
		var got []Capture
		for _, w := range c.warcs {
			caps, skips := indexShared(t, "conformance/pywb/"+w)
			if len(skips) > 0 {
				t.Errorf("%s: unexpected problems %v", w, skips)
			}
			got = append(got, caps...)
		}
		if c.order == "sorted" {
			got = sorted(got)
		}
		want, hasMime := reference(t, "conformance/pywb/"+c.ref)
		compare(t, c.ref, got, want, hasMime, c.ex)
	}
}

// TestPywbDoctests compares with the expected output in pywb's own indexer
// tests (pywb/indexer/test/test_indexing.py) for files that have no
// reference index in ../shared, in pywb's (unsorted, file) order.
func TestPywbDoctests(t *testing.T) {
	for _, c := range []struct {
		file  string
		lines []string
		why   string
	}{
		{"example.warc", []string{
			"com,example)/?example=1 20140103030321 http://example.com?example=1 text/html 200 B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A - - 1987 460 example.warc",
			"com,example)/?example=1 20140103030341 http://example.com?example=1 warc/revisit - B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A - - 896 3161 example.warc",
			"org,iana)/domains/example 20140128051539 http://www.iana.org/domains/example text/html 302 JZ622UA23G5ZU6Y3XAKH4LINONUEICEG - - 854 4771 example.warc",
		}, ""},
		// example-extra.cdx in ../shared holds only the first two of these
		// four captures (it is a hand-kept pywb test index); pywb's doctest
		// for the same file lists all four, without -p. With -p (pywb's
		// cdx-indexer -j -p, which IndexFile follows) the third response's
		// request, "GETX /?example=2", puts its method into the key.
		{"example-extra.warc", []string{
			"com,example)/?example=2 20140103030321 http://example.com?example=2 text/html 200 B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A - - 1987 0 example-extra.warc",
			"com,example)/?example=2 20140603030341 http://example.com?example=2 warc/revisit - B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A - - 504 2701 example-extra.warc",
			"com,example)/?__wb_method=getx&example=2 20140103030321 http://example.com?example=2 text/html 200 B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A - - 1987 3207 example-extra.warc",
			"com,example)/?example=2 20140603030341 http://example.com?example=2 warc/revisit - B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A - - 504 5910 example-extra.warc",
		}, ""},
		{"example-wget-1-14.warc.gz", []string{
			"com,example)/ 20140216012908 http://example.com/ text/html 200 B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A - - 1151 792 example-wget-1-14.warc.gz",
			"org,gnu)/software/wget/warc/manifest.txt 20140216012908 metadata://gnu.org/software/wget/warc/MANIFEST.txt text/plain - SWUF4CK2XMZSOKSA7SDT7M7NUGWH2TRE - - 315 1943 example-wget-1-14.warc.gz",
			"org,gnu)/software/wget/warc/wget_arguments.txt 20140216012908 metadata://gnu.org/software/wget/warc/wget_arguments.txt text/plain - UCXDCGORD6K4RJT5NUQGKE2PKEG4ZZD6 - - 340 2258 example-wget-1-14.warc.gz",
			"org,gnu)/software/wget/warc/wget.log 20140216012908 metadata://gnu.org/software/wget/warc/wget.log text/plain - 2ULE2LD5UOWDXGACCT624TU5BVKACRQ4 - - 599 2598 example-wget-1-14.warc.gz",
		}, ""},
		// pywb keeps "urn:" URLs as they are only when the SURT library fails
		// on them; the library it used then wrote "urn:X-wpull:log"; the
		// current library lowercases it ("urn:x-wpull:log"), as Key does.
		{"example-wpull.warc.gz", []string{
			"com,example)/ 20150330235046 http://example.com/ text/html 200 B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A - - 1150 2031 example-wpull.warc.gz",
			"urn:x-wpull:log 20150330235046 urn:X-wpull:log text/plain - Q32A3PBAN6S7I26HWZDX5CDCB6MN6UN6 - - 557 3181 example-wpull.warc.gz",
		}, "urn key lowercased"},
		{"bad.arc", []string{
			"com,example)/ 20140401000000 http://example.com/ text/html 200 3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ - - 67 134 bad.arc",
			"com,example)/ 20140102000000 http://example.com/ text/plain 200 3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ - - 59 202 bad.arc",
			"com,example)/ 20140401000000 http://example.com/ text/html 200 3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ - - 68 262 bad.arc",
		}, ""},
	} {
		data, err := os.ReadFile(sharedtest.Path(t, "conformance/pywb/"+c.file))
		if err != nil {
			t.Fatal(err)
		}
		got, _, _ := indexBytes(t, data, c.file)
		var want []Capture
		for _, l := range c.lines {
			w, err := ParseCDX11(l)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, w)
		}
		compare(t, c.file, got, want, nil, nil)
	}
	// The two lines of the shared example-extra.cdx are among them.
	ref, _ := reference(t, "conformance/pywb/example-extra.cdx")
	got, _ := indexShared(t, "conformance/pywb/example-extra.warc")
	compare(t, "example-extra.cdx", got[:2], ref, nil, nil)
}

// TestOtherArchives indexes real archives without references: all must
// index without problems and give plausible counts.
func TestOtherArchives(t *testing.T) {
	for _, c := range []struct {
		file    string
		min     int
		allowed int // problems allowed (truncated test files)
	}{
		{"conformance/ukwa/IAH-20080430204825-00000-blackbook-truncated.arc.gz", 5, 0},
		{"conformance/ukwa/IAH-20080430204825-00000-blackbook-truncated.warc.gz", 5, 0},
		{"conformance/ukwa/IAH-urls-wget.warc.gz", 3, 0},
		{"conformance/ukwa/main-page.warc.gz", 3, 0},
		{"conformance/ukwa/post-blackout.warc.gz", 3, 0},
		{"conformance/ukwa/sopa-wikipedia-homepage.warc.gz", 3, 0},
		{"conformance/commoncrawl/whirlwind.warc.gz", 1, 0},
		{"conformance/commoncrawl/whirlwind.warc.wat.gz", 1, 0},
		{"conformance/commoncrawl/whirlwind.warc.wet.gz", 1, 0},
		{"conformance/pywb/example-wget-1-14.warc.gz", 4, 0},
	} {
		caps, skips := indexShared(t, c.file)
		if len(caps) < c.min || len(skips) > c.allowed {
			t.Errorf("%s: %d captures (want ≥ %d), problems %v", c.file, len(caps), c.min, skips)
		}
		for _, cp := range caps {
			if cp.Key == "" || len(cp.Timestamp) != 14 || cp.Length <= 0 || cp.Digest == "" {
				t.Errorf("%s: implausible capture %s", c.file, cp.Line())
			}
		}
		t.Logf("%s: %d captures", filepath.Base(c.file), len(caps))
	}
}
