package records

import (
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"encoding/base32"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/recrawl/recrawl/internal/testkit/sharedtest"
)

type span struct {
	typ, uri       string
	offset, length int64
}

func iterate(t testing.TB, data []byte, name string) ([]span, []Skip, error) {
	var skips []Skip
	it, err := NewIterator(bytes.NewReader(data), name, func(s Skip) { skips = append(skips, s) })
	if err != nil {
		return nil, skips, err
	}
	var out []span
	for {
		rec, err := it.Next()
		if err == io.EOF {
			return out, skips, nil
		}
		if err != nil {
			return out, skips, err
		}
		if err := it.Finish(); err != nil {
			return out, skips, err
		}
		out = append(out, span{rec.Type, rec.TargetURI, rec.Offset, rec.Length})
	}
}

func load(t testing.TB, rel string) []byte {
	b, err := os.ReadFile(sharedtest.Path(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSpansTile checks that in per-record gzip files the records tile the
// file exactly, and that ReadRecordAt reads every record back.
func TestSpansTile(t *testing.T) {
	for _, rel := range []string{"conformance/pywb/iana.warc.gz", "conformance/pywb/example.warc.gz", "conformance/pywb/post-test.warc.gz",
		"conformance/ukwa/main-page.warc.gz", "conformance/commoncrawl/whirlwind.warc.wat.gz", "conformance/pywb/example.arc.gz"} {
		data := load(t, rel)
		spans, skips, err := iterate(t, data, rel)
		if err != nil || len(skips) > 0 {
			t.Fatalf("%s: %v, %v", rel, err, skips)
		}
		var next int64
		for i, s := range spans {
			if s.offset != next {
				t.Errorf("%s: record %d at %d, previous ended at %d", rel, i, s.offset, next)
			}
			next = s.offset + s.length
			if s.typ == "filedesc" {
				continue
			}
			rec, err := ReadRecordAt(bytes.NewReader(data), s.offset, s.length, rel)
			if err != nil {
				t.Fatalf("%s: ReadRecordAt(%d): %v", rel, s.offset, err)
			}
			if rec.Type != s.typ || rec.TargetURI != s.uri {
				t.Errorf("%s: ReadRecordAt(%d) = %s %s, want %s %s", rel, s.offset, rec.Type, rec.TargetURI, s.typ, s.uri)
			}
		}
		if next != int64(len(data)) {
			t.Errorf("%s: records end at %d, file has %d bytes", rel, next, len(data))
		}
	}
}

func TestReadRecordAt(t *testing.T) {
	data := load(t, "conformance/pywb/example.warc.gz")
	rec, err := ReadRecordAt(bytes.NewReader(data), 333, 1043, "example.warc.gz")
	if err != nil {
		t.Fatal(err)
	}
	if rec.HTTP == nil || rec.HTTP.StatusCode() != "200" || !bytes.Contains(rec.Body, []byte("<title>Example Domain</title>")) || rec.Timestamp != "20140103030321" {
		t.Errorf("record at 333: %+v body %q", rec.HTTP, clip(rec.Body))
	}
	sum := sha1.Sum(rec.Body)
	if d := base32.StdEncoding.EncodeToString(sum[:]); "sha1:"+d != rec.PayloadDigest {
		t.Errorf("body digest %s, header says %s", d, rec.PayloadDigest)
	}
	rev, err := ReadRecordAt(bytes.NewReader(data), 1864, 553, "example.warc.gz")
	if err != nil || rev.Type != "revisit" || rev.RefersToTargetURI != "" && rev.RefersToTargetURI != "http://example.com?example=1" {
		t.Errorf("revisit: %+v %v", rev, err)
	}
	for _, off := range []int64{334, 100, 1 << 20} {
		if _, err := ReadRecordAt(bytes.NewReader(data), off, 0, "example.warc.gz"); err == nil || !strings.Contains(err.Error(), "not the start of a WARC record") || !strings.Contains(err.Error(), fmt.Sprint(off)) {
			t.Errorf("offset %d: error %v, want 'not the start of a WARC record' naming the offset", off, err)
		}
	}
	plain := load(t, "conformance/pywb/example.warc")
	if rec, err := ReadRecordAt(bytes.NewReader(plain), 4771, 854, "example.warc"); err != nil || rec.HTTP.StatusCode() != "302" {
		t.Errorf("plain record: %v %v", rec, err)
	}
	if _, err := ReadRecordAt(bytes.NewReader(plain), 4772, 0, "example.warc"); err == nil || !strings.Contains(err.Error(), "not the start") {
		t.Errorf("misaligned plain offset: %v", err)
	}
	// A member that fails its CRC-32 is named by its offset in the file.
	bad := bytes.Clone(data)
	bad[1856] ^= 0xff // the CRC-32 of the member at 1376
	if _, err := ReadRecordAt(bytes.NewReader(bad), 1376, 488, "example.warc.gz"); err == nil || !strings.Contains(err.Error(), "gzip member at offset 1376:") {
		t.Errorf("member at 1376 with a bad CRC-32: %v; want an error naming the gzip member at offset 1376", err)
	}
	if _, err := ReadRecordAt(bytes.NewReader(data), -5, 0, "example.warc.gz"); err == nil || !strings.Contains(err.Error(), "negative offset") {
		t.Errorf("offset -5: %v, want a negative offset error", err)
	}
	uag := load(t, "conformance/pywb/example-url-agnostic-revisit.warc.gz")
	if rec, err := ReadRecordAt(bytes.NewReader(uag), 355, 591, "x"); err != nil || rec.RefersToTargetURI != "http://example.iana.org/" || rec.RefersToDate != "2013-07-02T19:54:02Z" {
		t.Errorf("url-agnostic revisit: %+v %v", rec, err)
	}
}

func TestDecodeBody(t *testing.T) {
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte("hello world"))
	w.Close()
	chunked := fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", gz.Len(), gz.String())
	h := &HTTP{Header: Header{{"Transfer-Encoding", "chunked"}, {"Content-Encoding", "gzip"}}}
	if b, cut, err := decodeBody(h, []byte(chunked), false, 1<<20); err != nil || cut || string(b) != "hello world" {
		t.Errorf("chunked gzip: %q %v", b, err)
	}
	h = &HTTP{Header: Header{{"Content-Encoding", "br"}}}
	if b, _, err := decodeBody(h, []byte("xyz"), false, 1<<20); err == nil || string(b) != "xyz" {
		t.Errorf("unsupported coding: %q %v", b, err)
	}
}

func gzipMember(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func kinds(skips []Skip) string {
	var k []string
	for _, s := range skips {
		k = append(k, s.Kind)
	}
	return strings.Join(k, ",")
}

// TestDamage builds damaged files from example.warc and checks what is
// reported and what is still read.
func TestDamage(t *testing.T) {
	// example.warc has a stray line after its second request record (pywb's
	// test of an off-by-one Content-Length); build a clean copy first.
	orig := load(t, "conformance/pywb/example.warc")
	origSpans, skips, _ := iterate(t, orig, "example.warc")
	if len(skips) != 1 || skips[0].Kind != KindGarbage || skips[0].Offset != 4764 {
		t.Errorf("example.warc: skips %v, want the garbage line at 4764", skips)
	}
	var recs [][]byte
	for _, s := range origSpans {
		recs = append(recs, append(append([]byte{}, orig[s.offset:s.offset+s.length]...), "\r\n\r\n"...))
	}
	plain := bytes.Join(recs, nil)
	good, skips, _ := iterate(t, plain, "clean.warc")
	if len(good) != 6 || len(skips) != 0 {
		t.Fatalf("clean copy of example.warc: %v %v", good, skips)
	}

	cases := []struct {
		name      string
		data      []byte
		records   int
		wantKinds string
	}{
		{"garbage between records", bytes.Join([][]byte{recs[0], recs[1], []byte("garbage line\r\nmore\r\n"), recs[2], recs[3], recs[4], recs[5]}, nil), 6, KindGarbage},
		{"truncated at the end", plain[:len(plain)-300], 6, KindTruncatedRecord},
		{"Content-Length too short", bytes.Replace(plain, []byte("Content-Length: 1610"), []byte("Content-Length: 1000"), 1), 6, KindGarbage},
		{"Content-Length not a number", bytes.Replace(plain, []byte("Content-Length: 1610"), []byte("Content-Length: abc"), 1), 6, KindBadContentLength + "," + KindGarbage},
		{"bad date", bytes.Replace(plain, []byte("WARC-Date: 2014-01-03T03:03:21Z"), []byte("WARC-Date: yesterday"), 1), 6, KindBadDate},
		{"empty", nil, 0, KindEmptyFile},
		{"only garbage", []byte("hello\nworld\n"), 0, KindGarbage},
	}
	var members [][]byte
	for _, r := range recs {
		members = append(members, gzipMember(r))
	}
	gz := bytes.Join(members, nil)
	trunc := bytes.Join([][]byte{members[0], members[1], members[2][:len(members[2])/2], members[3], members[4], members[5]}, nil)
	cases = append(cases,
		struct {
			name      string
			data      []byte
			records   int
			wantKinds string
		}{"gzip member truncated in the middle", trunc, 6, KindTruncatedRecord + "," + KindBadGzip},
		struct {
			name      string
			data      []byte
			records   int
			wantKinds string
		}{"gzip truncated at the end", gz[:len(gz)-40], 6, KindTruncatedGzip},
		struct {
			name      string
			data      []byte
			records   int
			wantKinds string
		}{"garbage between gzip members", bytes.Join([][]byte{members[0], members[1], []byte("\x00\x01garbage"), members[2], members[3], members[4], members[5]}, nil), 6, KindBadGzip},
	)
	for _, c := range cases {
		spans, skips, err := iterate(t, c.data, c.name)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if len(spans) != c.records || !strings.HasPrefix(kinds(skips), c.wantKinds) {
			t.Errorf("%s: %d records, skips %v; want %d records, kinds %s", c.name, len(spans), skips, c.records, c.wantKinds)
		}
		for _, s := range skips {
			if s.File != c.name || s.Err == nil {
				t.Errorf("%s: skip without file or reason: %+v", c.name, s)
			}
		}
	}
	// The per-record gzip file indexes the same records at member offsets.
	spans, skips, _ := iterate(t, gz, "gz")
	if len(spans) != len(good) || len(skips) > 0 || spans[1].offset != int64(len(members[0])) {
		t.Errorf("per-record gzip: %+v %v", spans, skips)
	}
	// Whole-file gzip: same offsets and lengths as the plain file.
	whole, skips, err := iterate(t, gzipMember(plain), "whole.warc.gz")
	if err != nil || len(skips) > 0 || fmt.Sprint(whole) != fmt.Sprint(good) {
		t.Errorf("whole-file gzip: %v %v %v\nplain: %v", whole, skips, err, good)
	}
	for _, s := range whole {
		if _, err := ReadRecordAt(bytes.NewReader(gzipMember(plain)), s.offset, 0, "whole.warc.gz"); err != nil {
			t.Errorf("whole-file gzip ReadRecordAt(%d): %v", s.offset, err)
		}
	}
	// Empty gzip members between records are skipped silently (pywb test).
	empty := []byte("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\x03\x00\x00\x00\x00\x00\x00\x00\x00\x00")
	two := load(t, "conformance/pywb/example2.warc.gz")
	spans, skips, err = iterate(t, bytes.Join([][]byte{empty, two, empty, empty, two}, nil), "empties")
	if err != nil || len(skips) > 0 || len(spans) != 6 {
		t.Errorf("empty members: %v %v %v", spans, skips, err)
	}
}

func TestExampleBad(t *testing.T) {
	// pywb refuses this file (a gzip member holding several records).
	data := load(t, "conformance/pywb/example-bad.warc.gz.bad")
	spans, skips, err := iterate(t, data, "example-bad.warc.gz.bad")
	if err != nil || len(spans) < 2 {
		t.Fatalf("%v %v %v", spans, skips, err)
	}
	t.Logf("%d records, skips %v", len(spans), skips)
}

func TestAllSharedArchives(t *testing.T) {
	files := sharedArchives(t)
	for _, f := range files {
		data, _ := os.ReadFile(f)
		spans, skips, err := iterate(t, data, filepath.Base(f))
		if err != nil || len(spans) == 0 {
			t.Errorf("%s: %d records, %v, %v", f, len(spans), skips, err)
		}
		if len(skips) > 0 && !strings.Contains(f, "bad") && !strings.HasSuffix(f, "/example.warc") {
			t.Errorf("%s: unexpected problems %v", filepath.Base(f), skips)
		}
	}
}

func TestISODate(t *testing.T) {
	for in, want := range map[string]string{"2014-01-03T03:03:21Z": "20140103030321", "2014-03-04T19:23:21.000Z": "20140304192321", "2013-12-26T10:11:12": "20131226101112", "2014-01-03": "20140103000000"} {
		if got, err := isoToTimestamp(in); err != nil || got != want {
			t.Errorf("isoToTimestamp(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "yesterday", "2014-13-01", "2014--01-01", "2014"} {
		if got, err := isoToTimestamp(in); err == nil {
			t.Errorf("isoToTimestamp(%q) = %q, want error", in, got)
		}
	}
}

func fuzzSeeds(f *testing.F, names ...string) {
	for _, n := range names {
		if b, err := os.ReadFile(filepath.Join(sharedtest.Root(), "conformance/pywb", n)); err == nil {
			f.Add(b)
		}
	}
}

func fuzzIterate(t *testing.T, data []byte) {
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			buf := make([]byte, 1<<20)
			panic(fmt.Sprintf("hang on %q\n%s", data, buf[:runtime.Stack(buf, true)]))
		}
	}()
	spans, _, err := iterate(t, data, "fuzz")
	if err != nil && !errors.Is(err, ErrNoRecords) {
		t.Fatalf("error %v", err)
	}
	for i, s := range spans {
		if s.offset < 0 || s.length < 0 {
			t.Fatalf("negative span %+v", s)
		}
		if i > 0 && s.offset < spans[i-1].offset {
			t.Fatalf("record %d at %d before record %d at %d", i, s.offset, i-1, spans[i-1].offset)
		}
		// Reading a record back at its offset must not panic.
		ReadRecordAt(bytes.NewReader(data), s.offset, s.length, "fuzz")
	}
}

func FuzzWARC(f *testing.F) {
	fuzzSeeds(f, "example.warc", "missing-status-text.warc", "example.warc.gz", "httpbin-resource.warc.gz")
	f.Add([]byte("WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://a/\r\nWARC-Date: 2014-01-01T00:00:00Z\r\nContent-Length: 20\r\n\r\nHTTP/1.1 200 OK\r\n\r\nab\r\n\r\n"))
	f.Fuzz(fuzzIterate)
}

func FuzzARC(f *testing.F) {
	fuzzSeeds(f, "example.arc", "bad.arc", "example.arc.gz")
	f.Add([]byte("filedesc://x 0 20080101000000 text/plain 0\n\nhttp://a/ 1 20080101000000 text/html 3\nabc\n"))
	f.Fuzz(fuzzIterate)
}

// TestISOToTimestampAsTime: the timestamp is what time.Date and Format give,
// and a date they would normalise (Feb 30, 24:00, second 60) is refused.
func TestISOToTimestampAsTime(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for i := 0; i < 20000; i++ {
		y, mo, d, h, mi, s := 1+r.Intn(9999), r.Intn(14), r.Intn(33), r.Intn(26), r.Intn(62), r.Intn(62)
		in := fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02dZ", y, mo, d, h, mi, s)
		got, err := isoToTimestamp(in)
		tm := time.Date(y, time.Month(mo), d, h, mi, s, 0, time.UTC)
		valid := tm.Year() == y && int(tm.Month()) == mo && tm.Day() == d && tm.Hour() == h && tm.Minute() == mi && tm.Second() == s
		if valid != (err == nil) || valid && got != tm.Format("20060102150405") {
			t.Fatalf("isoToTimestamp(%q) = %q, %v; time says valid=%v %s", in, got, err, valid, tm.Format("20060102150405"))
		}
	}
	for _, in := range []string{"2009", "2009-01", "1-2-3-4-5-6-7-8", "1-2-3-4-5-6-7-8-", "2009-01-01T00:00:00:00:00"} {
		if got, err := isoToTimestamp(in); err == nil {
			t.Errorf("isoToTimestamp(%q) = %q, want an error", in, got)
		}
	}
}

// sharedArchives lists the real WARC and ARC files of ../shared's
// conformance sets (pywb's, UKWA's and Common Crawl's).
func sharedArchives(t *testing.T) []string {
	var files []string
	for _, dir := range []string{"conformance/pywb", "conformance/ukwa", "conformance/commoncrawl"} {
		m, _ := filepath.Glob(filepath.Join(sharedtest.Path(t, dir), "*arc*"))
		for _, f := range m {
			if !strings.Contains(f, ".cdx") {
				files = append(files, f)
			}
		}
	}
	return files
}
