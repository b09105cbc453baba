package records

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"testing"
)

// referenceHeader is the header parser headerBuilder replaced (one string
// per name and value, Header.Get per Record field), kept as the reference
// the new one must equal.
func referenceHeader(lines [][]byte) Header {
	var h Header
	for _, l := range lines {
		l = trimRightSpace(l)
		if len(l) == 0 {
			continue
		}
		if l[0] == ' ' || l[0] == '\t' {
			if len(h) > 0 {
				h[len(h)-1].Value += latin1(l)
			}
			continue
		}
		i := bytes.IndexByte(l, ':')
		if i < 0 {
			continue
		}
		name, value := l[:i], l[i+1:]
		for len(name) > 0 && (name[len(name)-1] == ' ' || name[len(name)-1] == '\t') {
			name = name[:len(name)-1]
		}
		for len(value) > 0 && isSpace(value[0]) {
			value = value[1:]
		}
		h = append(h, Field{latin1(name), latin1(value)})
	}
	return h
}

// referenceFields is what parseWARC took from the header with Header.Get.
func referenceFields(h Header) (rec Record, cl string, hasCL bool) {
	rec.Type = h.Get("WARC-Type")
	rec.TargetURI = h.Get("WARC-Target-URI")
	rec.Date = h.Get("WARC-Date")
	rec.ContentType = h.Get("Content-Type")
	rec.RecordID = h.Get("WARC-Record-ID")
	rec.ConcurrentTo = h.Get("WARC-Concurrent-To")
	rec.PayloadDigest = h.Get("WARC-Payload-Digest")
	rec.RefersTo = h.Get("WARC-Refers-To")
	rec.RefersToTargetURI = h.Get("WARC-Refers-To-Target-URI")
	rec.RefersToDate = h.Get("WARC-Refers-To-Date")
	return rec, h.Get("Content-Length"), h.Has("Content-Length")
}

// checkHeader compares headerBuilder and setWARCFields with the reference
// on the header made of lines.
func checkHeader(t *testing.T, b *headerBuilder, lines [][]byte) {
	t.Helper()
	b.reset()
	for _, l := range lines {
		b.add(l)
	}
	got, want := b.header(), referenceHeader(lines)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("header of %q:\n got %q\nwant %q", lines, got, want)
	}
	var rec Record
	cl, hasCL := setWARCFields(&rec, got)
	wantRec, wantCL, wantHasCL := referenceFields(want)
	if !reflect.DeepEqual(rec, wantRec) || cl != wantCL || hasCL != wantHasCL {
		t.Fatalf("fields of %q:\n got %+v %q %v\nwant %+v %q %v", lines, rec, cl, hasCL, wantRec, wantCL, wantHasCL)
	}
}

func TestHeaderBuilderEqualsReference(t *testing.T) {
	cases := [][]string{
		{},
		{"\r\n"},
		{"WARC-Type: response\r\n", "WARC-Target-URI: http://example.com/\r\n", "WARC-Date: 2024-01-02T03:04:05Z\r\n", "Content-Length: 12\r\n"},
		{"warc-type: request\r\n", "WARC-TYPE: response\r\n", "Content-length:  7 \r\n", "content-length: 9\r\n"},
		{"WARC-Type:\r\n", "WARC-Type: second\r\n"},
		{" continuation before any field\r\n", "X: a\r\n", " b\r\n", "\tc\r\n", "Y : d \t\r\n"},
		{"no colon here\r\n", "Content-Type: text/html; charset=\xe9t\xe9\r\n", "X-\xff\xfe: \xc3\xa9 valid\r\n"},
		{"WARC-Refers-To: <urn:uuid:1>\r\n", "WARC-Refers-To-Target-URI: http://a/\r\n", "WARC-Refers-To-Date: 2020-01-01T00:00:00Z\r\n"},
		{"WARC-Payload-Digest: sha1:ABC\r\n", "WARC-Payload-Digest: sha1:DEF\r\n", "WARC-Record-ID: <urn:uuid:2>\r\n", "WARC-Concurrent-To: <urn:uuid:3>\r\n"},
		{":\r\n", ": value without name\r\n", "name-only:\r\n", " \r\n", "Date: x\r\n", " \xe9\r\n"},
		{"Content-Type:\x0b\x0c text/plain\x0b\r\n", "Server:Apache\n", "ETag: \"x\"\r"},
	}
	var b headerBuilder
	for _, c := range cases {
		lines := make([][]byte, len(c))
		for i, l := range c {
			lines[i] = []byte(l)
		}
		checkHeader(t, &b, lines)
	}
}

// TestHeaderBuilderRandom: random headers made of pieces of real ones and
// of bytes that matter to the parser (colons, blanks, invalid UTF-8).
func TestHeaderBuilderRandom(t *testing.T) {
	pieces := []string{"WARC-Type", "warc-target-uri", "WARC-Date", "Content-Type", "CONTENT-LENGTH", "WARC-Payload-Digest",
		"WARC-Refers-To", "X-Other", "Set-Cookie", ":", ": ", " ", "\t", "\x0b", "\xe9", "\xc3\xa9", "\xff", "value", "1", "\r"}
	rng := rand.New(rand.NewPCG(1, 2))
	var b headerBuilder
	for range 20000 {
		lines := make([][]byte, rng.IntN(8))
		for i := range lines {
			var l []byte
			for range rng.IntN(6) {
				l = append(l, pieces[rng.IntN(len(pieces))]...)
			}
			if rng.IntN(4) > 0 {
				l = append(l, "\r\n"...)
			}
			lines[i] = l
		}
		checkHeader(t, &b, lines)
	}
}

func FuzzHeaderBuilder(f *testing.F) {
	f.Add([]byte("WARC-Type: response\r\nContent-Length: 5\r\n continued\r\nx\r\n"))
	f.Add([]byte("warc-date:\xe9\r\n\tmore\r\n: \r\n"))
	var b headerBuilder
	f.Fuzz(func(t *testing.T, data []byte) {
		checkHeader(t, &b, bytes.SplitAfter(data, []byte("\n")))
	})
}

func TestWARCVersionFold(t *testing.T) {
	for _, c := range []struct {
		line string
		want bool
	}{
		{"WARC/1.0\r\n", true}, {"warc/1.1", true}, {"WaRc/0.17\r\n", true}, {"WARC/0.18", true},
		{"WARC/1.", false}, {"WARC/2.0\r\n", false}, {"WARC/0.1", false}, {"ARC/1.0 x", false}, {"\xffARC/1.0", false},
	} {
		if got := warcVersion([]byte(c.line)); got != c.want {
			t.Errorf("warcVersion(%q) = %v, want %v", c.line, got, c.want)
		}
		// The rule it replaced: the upper-cased first 9 bytes start with a version.
		up := bytes.ToUpper([]byte(c.line)[:min(len(c.line), 9)])
		old := false
		for _, v := range warcVersionLines {
			old = old || len(c.line) >= 8 && bytes.HasPrefix(up, []byte(v))
		}
		if old != c.want {
			t.Errorf("old rule on %q = %v, want %v", c.line, old, c.want)
		}
	}
}
