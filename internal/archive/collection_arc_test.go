package archive

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha1"
	"encoding/base32"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/records"
	"github.com/recrawl/recrawl/internal/testkit/sharedtest"
)

// TestWriteCollectionARC: a collection of every capture of the real ARC
// files (pywb's example.arc.gz and example.arc, the UKWA blackbook ARC)
// holds each of them as a WARC/1.0 response record that names its origin;
// collection.cdxj indexes them with the URL, time, status, media type and
// payload digest the ARC file's own index has; writing it again gives the
// same bytes.
func TestWriteCollectionARC(t *testing.T) {
	ctx := context.Background()
	for _, rel := range []string{"conformance/pywb/example.arc.gz", "conformance/pywb/example.arc", "conformance/ukwa/IAH-20080430204825-00000-blackbook-truncated.arc.gz"} {
		path := sharedtest.Path(t, rel)
		name := filepath.Base(path)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var caps []cdxj.Capture
		if _, err := cdxj.IndexFile(bytes.NewReader(data), name, cdxj.IndexOptions{}, func(c cdxj.Capture) error {
			caps = append(caps, c)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if len(caps) == 0 {
			t.Fatalf("%s: no captures", rel)
		}
		var recs []Record
		for _, c := range caps {
			recs = append(recs, Record{URL: c.URL, File: c.Filename, Offset: c.Offset, Length: c.Length})
		}
		f := NewFetcher([]string{filepath.Dir(path)})
		out := t.TempDir()
		if err := WriteCollection(ctx, out, recs, f); err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		f.Close()
		got, err := os.ReadFile(filepath.Join(out, CollectionCDXJ))
		if err != nil {
			t.Fatal(err)
		}
		// The fields an index line has apart from where the record is.
		what := func(c cdxj.Capture) string {
			return strings.Join([]string{c.Key, c.Timestamp, c.URL, c.Status, c.Mime, c.Digest}, " ")
		}
		var want, have []string
		for _, c := range caps {
			want = append(want, what(c))
		}
		for _, l := range strings.Split(strings.TrimSpace(string(got)), "\n") {
			c, err := cdxj.Parse(l)
			if err != nil {
				t.Fatalf("%s: collection.cdxj line %q: %v", rel, l, err)
			}
			have = append(have, what(c))
		}
		slices.Sort(want)
		slices.Sort(have)
		if !slices.Equal(want, have) {
			t.Errorf("%s: the collection's index\n%s\nwant the ARC file's\n%s", rel, strings.Join(have, "\n"), strings.Join(want, "\n"))
		}
		warc, err := os.ReadFile(filepath.Join(out, CollectionWARC))
		if err != nil {
			t.Fatal(err)
		}
		checkConvertedRecords(t, rel, warc, name, caps)
		again := t.TempDir()
		f = NewFetcher([]string{filepath.Dir(path)})
		if err := WriteCollection(ctx, again, recs, f); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if warc2, _ := os.ReadFile(filepath.Join(again, CollectionWARC)); !bytes.Equal(warc, warc2) {
			t.Errorf("%s: a second collection of the same captures differs", rel)
		}
	}
}

// checkConvertedRecords reads the collection WARC: every record is a
// WARC/1.0 response (application/http, or text/dns for a DNS lookup) with
// the WARC fields of a converted ARC record, its
// origin, and a block digest that matches its block.
func checkConvertedRecords(t *testing.T, rel string, warc []byte, file string, caps []cdxj.Capture) {
	t.Helper()
	it, err := records.NewIterator(bytes.NewReader(warc), CollectionWARC, func(s records.Skip) { t.Errorf("%s: collection WARC: %v", rel, s) })
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for ; ; n++ {
		rec, err := it.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		h := rec.Header
		if rec.Version != "WARC/1.0" || rec.Type != "response" || (h.Get("Content-Type") != "application/http;msgtype=response") != strings.HasPrefix(rec.TargetURI, "dns:") ||
			h.Get(FieldSourceFile) != file || h.Get(FieldSourceOffset) != fmt.Sprint(caps[n].Offset) ||
			!strings.HasPrefix(h.Get("WARC-Record-ID"), "<urn:uuid:") || rec.TargetURI != caps[n].URL || rec.Timestamp != caps[n].Timestamp {
			t.Errorf("%s: record %d: %v %v\n%v\nwant a response for %s at %s from %s offset %d", rel, n, rec.Version, rec.Type, h, caps[n].URL, caps[n].Timestamp, file, caps[n].Offset)
		}
		if err := it.Finish(); err != nil {
			t.Fatal(err)
		}
		// The block digest, from the member's bytes.
		zr, err := gzip.NewReader(bytes.NewReader(warc[rec.Offset : rec.Offset+rec.Length]))
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(zr)
		_, block, _ := bytes.Cut(raw, []byte("\r\n\r\n"))
		block = block[:rec.ContentLength]
		if want := "sha1:" + sha1Base32(block); h.Get("WARC-Block-Digest") != want {
			t.Errorf("%s: record %d: WARC-Block-Digest %s, the block's is %s", rel, n, h.Get("WARC-Block-Digest"), want)
		}
	}
	if n != len(caps) {
		t.Errorf("%s: %d records in the collection WARC, want %d", rel, n, len(caps))
	}
}

func sha1Base32(b []byte) string {
	sum := sha1.Sum(b)
	return base32.StdEncoding.EncodeToString(sum[:])
}

// TestWriteCollectionEmpty: a collection without a record (none given, or
// only an ARC file's filedesc record, which is no capture) is an empty
// collection.warc.gz and an empty collection.cdxj, not an error.
func TestWriteCollectionEmpty(t *testing.T) {
	ctx := context.Background()
	path := sharedtest.Path(t, "conformance/pywb/example.arc.gz")
	f := NewFetcher([]string{filepath.Dir(path)})
	defer f.Close()
	filedesc := Record{URL: "filedesc://live-web-example.arc.gz", File: filepath.Base(path), Offset: 0, Length: 171}
	for _, recs := range [][]Record{nil, {filedesc}} {
		out := t.TempDir()
		if err := WriteCollection(ctx, out, recs, f); err != nil {
			t.Fatalf("%d records: %v", len(recs), err)
		}
		for _, name := range []string{CollectionWARC, CollectionCDXJ} {
			if b, err := os.ReadFile(filepath.Join(out, name)); err != nil || len(b) != 0 {
				t.Errorf("%d records: %s: %d bytes, %v; want it empty", len(recs), name, len(b), err)
			}
		}
	}
}
