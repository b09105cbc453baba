package records

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"
)

func TestParseARCHeader(t *testing.T) {
	h, err := ParseARCHeader([]byte("http://example.com/a b 1.2.3.4 20080430204825 text/html 12\n"))
	if err != nil || h.URL != "http://example.com/a b" || h.Length != 12 {
		t.Errorf("URL with space: %+v %v", h, err)
	}
	h, err = ParseARCHeader([]byte("http://example.com/ 1.2.3.4 20080430204825 text/html 200 ABCD - 1234 f.arc 77"))
	if err != nil || h.Length != 77 || len(h.Extra) != 5 || h.ContentType != "text/html" {
		t.Errorf("v2: %+v %v", h, err)
	}
	for _, bad := range []string{"", "HTTP/1.1 200 OK", "a b c d e", "http://x/ 1.2.3.4 2008 text/html 1"} {
		if _, err := ParseARCHeader([]byte(bad)); err == nil {
			t.Errorf("ParseARCHeader(%q) succeeded", bad)
		}
	}
}

// arcRecord is what the ARC tests check of a record the Iterator returns.
type arcRecord struct {
	uri            string
	offset, length int64
	contentLength  int64
	damaged        bool
}

// iterateARC reads every record of data, as iterate does, keeping also
// each record's Archive-length and whether Finish found it damaged.
func iterateARC(t *testing.T, data []byte, name string) ([]arcRecord, []Skip) {
	t.Helper()
	var skips []Skip
	it, err := NewIterator(bytes.NewReader(data), name, func(s Skip) { skips = append(skips, s) })
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var out []arcRecord
	for {
		rec, err := it.Next()
		if err == io.EOF {
			return out, skips
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := it.Finish(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if rec.Format != ARC {
			t.Fatalf("%s: record at %d is %v, want arc", name, rec.Offset, rec.Format)
		}
		out = append(out, arcRecord{rec.TargetURI, rec.Offset, rec.Length, rec.ContentLength, rec.Damage != nil})
	}
}

// TestARCPywbOffsets checks the offsets and lengths of ARC captures against
// pywb's reference index (example-arc-test.cdx, and pywb's test_indexing
// doctest for bad.arc).
func TestARCPywbOffsets(t *testing.T) {
	for _, c := range []struct {
		file      string
		filedesc  int64       // the filedesc record's length
		want      []arcRecord // the captures
		badLength []int64     // offsets of the bad-content-length skips
	}{
		{"conformance/pywb/example.arc", 150, []arcRecord{{"http://example.com/", 151, 1656, 1591, false}}, nil},
		{"conformance/pywb/example.arc.gz", 171, []arcRecord{{"http://example.com/", 171, 856, 1591, false}}, nil},
		{"conformance/pywb/bad.arc", 133, []arcRecord{{"http://example.com/", 134, 67, -1, false}, {"http://example.com/", 202, 59, 1, false}, {"http://example.com/", 262, 68, -1, false}}, []int64{134, 262}},
	} {
		recs, skips := iterateARC(t, load(t, c.file), c.file)
		if len(recs) == 0 || !strings.HasPrefix(recs[0].uri, "filedesc://") || recs[0].offset != 0 || recs[0].length != c.filedesc {
			t.Fatalf("%s: first record %+v is not the filedesc record at 0, %d bytes", c.file, recs, c.filedesc)
		}
		if g := recs[1:]; len(g) != len(c.want) {
			t.Fatalf("%s: records %+v, want %+v", c.file, g, c.want)
		}
		for i, w := range c.want {
			if recs[i+1] != w {
				t.Errorf("%s: record %d = %+v, want %+v", c.file, i+1, recs[i+1], w)
			}
		}
		var bad []int64
		for _, s := range skips {
			if s.Kind != KindBadContentLength {
				t.Errorf("%s: unexpected skip %v", c.file, s)
			}
			bad = append(bad, s.Offset)
		}
		if !slices.Equal(bad, c.badLength) {
			t.Errorf("%s: bad-content-length skips at %v, want %v", c.file, bad, c.badLength)
		}
	}
}

// TestARCTruncatedUKWA reads UKWA's truncated ARC file: every record starts
// where the one before it ends.
func TestARCTruncatedUKWA(t *testing.T) {
	const file = "conformance/ukwa/IAH-20080430204825-00000-blackbook-truncated.arc.gz"
	recs, skips := iterateARC(t, load(t, file), "blackbook")
	if len(recs) < 5 {
		t.Fatalf("only %d records", len(recs))
	}
	for i := 1; i < len(recs); i++ {
		if recs[i].offset != recs[i-1].offset+recs[i-1].length {
			t.Errorf("record %d at %d does not follow record %d (%d+%d)", i, recs[i].offset, i-1, recs[i-1].offset, recs[i-1].length)
		}
	}
	t.Logf("%d records, %d skips: %v", len(recs), len(skips), skips)
}

// TestARCDamage builds damaged ARC files from example.arc and checks that
// the Iterator skips the damage, says where, and finds the records after
// it.
func TestARCDamage(t *testing.T) {
	plain := load(t, "conformance/pywb/example.arc")
	_, rec1, _ := bytes.Cut(plain, []byte("\nhttp://example.com/ "))
	record := append([]byte("http://example.com/ "), rec1...)

	// Garbage between records: one skip of its two lines.
	const garbage = "this is not an ARC header\nnor this\n\n"
	spliced := append(append(append([]byte{}, plain...), garbage...), record...)
	recs, skips := iterateARC(t, spliced, "spliced.arc")
	if len(recs) != 3 || len(skips) != 1 || skips[0].Kind != KindGarbage || skips[0].Offset != int64(len(plain)) || skips[0].Bytes != int64(len(garbage)-1) {
		t.Errorf("spliced: %+v, skips %v", recs, skips)
	}
	if len(recs) == 3 && recs[2].offset != int64(len(plain)+len(garbage)) {
		t.Errorf("spliced: last record at %d, want %d", recs[2].offset, len(plain)+len(garbage))
	}

	// Per-record gzip with a truncated member in the middle.
	var members [][]byte
	filedesc := plain[:len(plain)-len(record)]
	for _, part := range [][]byte{filedesc, record, record, record} {
		members = append(members, gzipMember(part))
	}
	cut := int64(len(members[0]) + len(members[1]))
	damaged := bytes.Join([][]byte{members[0], members[1], members[2][:len(members[2])/2], members[3]}, nil)
	recs, skips = iterateARC(t, damaged, "damaged.arc.gz")
	if len(recs) != 4 || !strings.Contains(kinds(skips), KindBadGzip) {
		t.Fatalf("damaged: %+v, skips %v", recs, skips)
	}
	for _, s := range skips {
		if s.Offset != cut {
			t.Errorf("damaged: skip %v, want it at the cut member's offset %d", s, cut)
		}
	}
	if last, want := recs[3], int64(len(members[0])+len(members[1])+len(members[2])/2); last.offset != want || last.length != int64(len(members[3])) || last.damaged {
		t.Errorf("damaged: last record %+v, want offset %d length %d", last, want, len(members[3]))
	}
	if recs[1].offset != int64(len(members[0])) || recs[1].length != int64(len(members[1])) || recs[1].damaged {
		t.Errorf("damaged: record 1 %+v, want member %d+%d", recs[1], len(members[0]), len(members[1]))
	}
	if recs[2].offset != cut || !recs[2].damaged {
		t.Errorf("damaged: record 2 %+v, want the damaged record at %d", recs[2], cut)
	}

	// Whole-file gzip: offsets are positions in the decompressed stream.
	recs, skips = iterateARC(t, gzipMember(append(append([]byte{}, plain...), record...)), "whole.arc.gz")
	if len(recs) != 3 || len(skips) != 0 || recs[1].offset != 151 || recs[2].offset != int64(len(plain)) {
		t.Errorf("whole-file gzip: %+v, skips %v", recs, skips)
	}

	// Empty file.
	if recs, skips := iterateARC(t, nil, "empty.arc"); len(recs) != 0 || kinds(skips) != KindEmptyFile {
		t.Errorf("empty file: %+v, skips %v", recs, skips)
	}
}
