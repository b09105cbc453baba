package records

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
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
	got, want := b.appendTo(nil, nil), referenceHeader(lines)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("header of %q:\n got %q\nwant %q", lines, got, want)
	}
	var rec Record
	cl, hasCL := setWARCFields(&rec, got)
	wantRec, wantCL, wantHasCL := referenceFields(want)
	if !reflect.DeepEqual(rec, wantRec) || cl != wantCL || hasCL != wantHasCL {
		t.Fatalf("fields of %q:\n got %+v %q %v\nwant %+v %q %v", lines, rec, cl, hasCL, wantRec, wantCL, wantHasCL)
	}
	checkIndexFields(t, b, lines, want)
}

// checkIndexFields: with only the fields an index reads kept
// (IndexFieldsOnly), the Record fields, WARC-Filename, the HTTP fields the
// index reads and the number of fields are those of the whole header.
func checkIndexFields(t *testing.T, b *headerBuilder, lines [][]byte, want Header) {
	t.Helper()
	defer func() { b.only = nil }()
	b.only = indexWARCField
	b.reset()
	for _, l := range lines {
		b.add(l)
	}
	got := b.appendTo(nil, nil)
	var rec Record
	cl, hasCL := setWARCFields(&rec, got)
	wantRec, wantCL, wantHasCL := referenceFields(want)
	if !reflect.DeepEqual(rec, wantRec) || cl != wantCL || hasCL != wantHasCL || got.Get("WARC-Filename") != want.Get("WARC-Filename") || b.fields != len(want) {
		t.Fatalf("index fields of the WARC header %q:\n got %+v %q %v %q (%d fields)\nwant %+v %q %v %q (%d)", lines,
			rec, cl, hasCL, got.Get("WARC-Filename"), b.fields, wantRec, wantCL, wantHasCL, want.Get("WARC-Filename"), len(want))
	}
	b.only = indexHTTPField
	b.reset()
	for _, l := range lines {
		b.add(l)
	}
	got = b.appendTo(nil, nil)
	for _, name := range []string{"Content-Type", "Content-Length"} {
		if got.Get(name) != want.Get(name) || got.Has(name) != want.Has(name) {
			t.Fatalf("index fields of the HTTP head %q: %s %q (%v), want %q (%v)", lines, name, got.Get(name), got.Has(name), want.Get(name), want.Has(name))
		}
	}
	if b.fields != len(want) {
		t.Fatalf("index fields of the HTTP head %q: %d fields counted, want %d", lines, b.fields, len(want))
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
		// Fields an index leaves out, with continuation lines; names
		// that match only in another case or through Unicode folding.
		{"Set-Cookie: a=1\r\n", " more=2\r\n", "content-type: text/html\r\n", "\tcharset=x\r\n", "CONTENT-LENGTH: 3\r\n"},
		{"WARC-Filename: a.warc.gz\r\n", "X-Long: x\r\n", " y\r\n", "WARC-Payload-Dige\xc5\xbft: sha1:S\r\n", "WARC-Payload-Digest: sha1:T\r\n"},
		{"WARC-Target-URI : http://a/\r\n", "warc-refers-to-date: 2020\r\n", "Content-Type\t: x\r\n", " y\r\n"},
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
		"WARC-Refers-To", "X-Other", "Set-Cookie", ":", ": ", " ", "\t", "\x0b", "\xe9", "\xc3\xa9", "\xff", "value", "1", "\r",
		"WARC-Filename", "content-type", "Content-Le", "ngth", "WARC-Payload-Dige", "\xc5\xbf", "t"}
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

// referenceISOToTimestamp is the isoToTimestamp that split the date into
// strings and parsed them with strconv.Atoi, kept as the reference.
func referenceISOToTimestamp(date string) (string, error) {
	var buf [8]string
	parts := buf[:0]
	start := 0
	for i := 0; i <= len(date); i++ {
		if i == len(date) || date[i] < '0' || date[i] > '9' {
			if len(parts) == len(buf) {
				return "", errors.New("not an ISO 8601 date")
			}
			parts = append(parts, date[start:i])
			start = i + 1
		}
	}
	if n := len(parts); n > 0 && parts[n-1] == "" {
		parts = parts[:n-1]
	}
	if len(parts) < 3 || len(parts) > 7 {
		return "", errors.New("not an ISO 8601 date")
	}
	var nums [6]int
	for i, p := range parts[:min(len(parts), 6)] {
		if p == "" || len(p) > 9 {
			return "", errors.New("not an ISO 8601 date")
		}
		nums[i], _ = strconv.Atoi(p)
	}
	if len(parts) == 7 && parts[6] == "" {
		return "", errors.New("not an ISO 8601 date")
	}
	y, mo, d := nums[0], nums[1], nums[2]
	if y < 1 || y > 9999 || mo < 1 || mo > 12 || d < 1 || d > daysIn(mo, y) || nums[3] > 23 || nums[4] > 59 || nums[5] > 59 {
		return "", errors.New("date out of range")
	}
	return fmt.Sprintf("%04d%02d%02d%02d%02d%02d", y, mo, d, nums[3], nums[4], nums[5]), nil
}

func checkISO(t *testing.T, in string) {
	t.Helper()
	got, err := isoToTimestamp(in)
	want, werr := referenceISOToTimestamp(in)
	if got != want || (err == nil) != (werr == nil) {
		t.Fatalf("isoToTimestamp(%q) = %q, %v; the reference gives %q, %v", in, got, err, want, werr)
	}
}

func TestISOToTimestampEqualsReference(t *testing.T) {
	pieces := []string{"2014", "0", "01", "1", "12", "31", "29", "23", "59", "60", "9999", "0000", "1234567890", "123456789", "-", "T", ":", "Z", ".", "..", "000", "x", ""}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 200000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		checkISO(t, b.String())
	}
}

func FuzzISOToTimestamp(f *testing.F) {
	f.Add("2014-01-03T03:03:21Z")
	f.Add("2014-03-04T19:23:21.000Z")
	f.Fuzz(checkISO)
}

// recordsOf reads every record of data, each copied (with its HTTP head)
// before the next, the payload read as well.
func recordsOf(t *testing.T, data []byte, name string, reuse bool) []Record {
	return recordsOpts(t, data, name, reuse, false)
}

func recordsOpts(t *testing.T, data []byte, name string, reuse, indexOnly bool) []Record {
	t.Helper()
	it, err := NewIterator(bytes.NewReader(data), name, nil)
	if err != nil {
		t.Fatal(err)
	}
	if reuse {
		it.ReuseRecords()
	}
	if indexOnly {
		it.IndexFieldsOnly()
	}
	var out []Record
	for {
		rec, err := it.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		payload, _ := io.ReadAll(rec.Payload())
		if err := it.Finish(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		c := *rec
		c.payload, c.Body = nil, payload
		c.Header = append(Header(nil), rec.Header...)
		if rec.HTTP != nil {
			h := *rec.HTTP
			h.Header = append(Header(nil), rec.HTTP.Header...)
			c.HTTP = &h
		}
		out = append(out, c)
	}
}

// TestReuseRecordsSameRecords: every real archive in ../shared gives the
// same records (fields, headers, HTTP heads, payloads, lengths, damage)
// with and without ReuseRecords.
func TestReuseRecordsSameRecords(t *testing.T) {
	files := sharedArchives(t)
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		fresh, reused := recordsOf(t, data, filepath.Base(f), false), recordsOf(t, data, filepath.Base(f), true)
		if !reflect.DeepEqual(fresh, reused) {
			t.Errorf("%s: the records differ with ReuseRecords", filepath.Base(f))
		}
		n += len(fresh)
	}
	if n < 100 {
		t.Errorf("only %d records compared", n)
	}
}

// TestIndexFieldsOnlySameRecords: every real archive in ../shared gives the
// same records with
// IndexFieldsOnly (and ReuseRecords, as the indexer reads them) as without,
// but for the header fields left out: the same Record fields, HTTP heads
// (present or not, their lines), payloads, lengths and damage, and the same
// values of the fields an index reads.
func TestIndexFieldsOnlySameRecords(t *testing.T) {
	inputs := map[string][]byte{}
	for _, f := range sharedArchives(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs[filepath.Base(f)] = data
	}
	n := 0
	for name, data := range inputs {
		all, only := recordsOpts(t, data, name, false, false), recordsOpts(t, data, name, true, true)
		if len(all) != len(only) {
			t.Fatalf("%s: %d records, %d with IndexFieldsOnly", name, len(all), len(only))
		}
		for i := range all {
			a, o := all[i], only[i]
			if d := indexFieldsDiff(a, o); d != "" {
				t.Fatalf("%s record %d (offset %d): %s", name, i, a.Offset, d)
			}
		}
		n += len(all)
	}
	if n < 100 {
		t.Errorf("only %d records compared", n)
	}
}

// indexFieldsDiff says how o (read with IndexFieldsOnly) differs from a in
// what an index reads; "" if it does not.
func indexFieldsDiff(a, o Record) string {
	if a.Header.Get("WARC-Filename") != o.Header.Get("WARC-Filename") {
		return fmt.Sprintf("WARC-Filename %q, want %q", o.Header.Get("WARC-Filename"), a.Header.Get("WARC-Filename"))
	}
	if (a.HTTP == nil) != (o.HTTP == nil) {
		return fmt.Sprintf("HTTP head %v, want %v", o.HTTP, a.HTTP)
	}
	if a.HTTP != nil {
		for _, name := range []string{"Content-Type", "Content-Length"} {
			if a.HTTP.Header.Get(name) != o.HTTP.Header.Get(name) || a.HTTP.Header.Has(name) != o.HTTP.Header.Has(name) {
				return fmt.Sprintf("HTTP %s %q, want %q", name, o.HTTP.Header.Get(name), a.HTTP.Header.Get(name))
			}
		}
		if a.HTTP.Protocol != o.HTTP.Protocol || a.HTTP.StatusLine != o.HTTP.StatusLine {
			return fmt.Sprintf("HTTP line %q %q, want %q %q", o.HTTP.Protocol, o.HTTP.StatusLine, a.HTTP.Protocol, a.HTTP.StatusLine)
		}
	}
	a.Header, o.Header, a.HTTP, o.HTTP = nil, nil, nil, nil
	if !reflect.DeepEqual(a, o) {
		return fmt.Sprintf("record\n got %+v\nwant %+v", o, a)
	}
	return ""
}

// TestPyIntFastPath: the digits-only fast path of pyInt gives what the
// general parse gives, and the general cases still parse as Python's int().
func TestPyIntFastPath(t *testing.T) {
	slow := func(s string) (int64, error) {
		s = strings.TrimSpace(s)
		t := strings.TrimLeft(s, "+-")
		if len(s)-len(t) > 1 || t == "" || t[0] == '_' || t[len(t)-1] == '_' || strings.Contains(t, "__") {
			return 0, errors.New("invalid")
		}
		return strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 10, 64)
	}
	cases := []string{"0", "7", "0012", "123456789012345678", "999999999999999999", "1234567890123456789", "9223372036854775807",
		"9223372036854775808", "", " 12", "12 ", "+5", "-5", "1_000", "1__0", "_1", "1_", "12a", "\xd9\xa1", "--1", "0x10"}
	for _, c := range cases {
		got, gerr := pyInt(c)
		want, werr := slow(c)
		if got != want || (gerr == nil) != (werr == nil) {
			t.Errorf("pyInt(%q) = %d, %v; want %d, %v", c, got, gerr, want, werr)
		}
	}
}
