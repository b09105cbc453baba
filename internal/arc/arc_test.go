package arc

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/recrawl/recrawl/internal/sharedtest"
)

type got struct {
	url           string
	offset, lengh int64
	body          int
}

func readAll(t testing.TB, data []byte, name string) ([]got, *Reader, error) {
	r, err := NewReader(bytes.NewReader(data), name)
	if err != nil {
		return nil, nil, err
	}
	var out []got
	var prev *Record
	for {
		rec, err := r.Next()
		if prev != nil {
			out[len(out)-1].lengh = prev.Length
		}
		if err != nil {
			if err == io.EOF {
				return out, r, nil
			}
			return out, r, err
		}
		b, _ := io.ReadAll(rec.Body)
		out = append(out, got{url: rec.URL, offset: rec.Offset, body: len(b)})
		prev = rec
	}
}

func load(t *testing.T, rel string) []byte {
	b, err := os.ReadFile(sharedtest.Path(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPywbOffsets checks offsets and lengths against pywb's reference index
// (example-arc-test.cdx, and pywb's test_indexing doctest for bad.arc).
func TestPywbOffsets(t *testing.T) {
	for _, c := range []struct {
		file string
		want []got // non-filedesc records
	}{
		{"conformance/pywb/example.arc", []got{{"http://example.com/", 151, 1656, 1591}}},
		{"conformance/pywb/example.arc.gz", []got{{"http://example.com/", 171, 856, 1591}}},
		{"conformance/pywb/bad.arc", []got{{"http://example.com/", 134, 67, 0}, {"http://example.com/", 202, 59, 1}, {"http://example.com/", 262, 68, 0}}},
	} {
		recs, r, err := readAll(t, load(t, c.file), c.file)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if len(recs) == 0 || !strings.HasPrefix(recs[0].url, "filedesc://") || recs[0].offset != 0 {
			t.Fatalf("%s: first record %+v is not the filedesc record at 0", c.file, recs)
		}
		if g := recs[1:]; len(g) != len(c.want) {
			t.Fatalf("%s: records %+v, want %+v", c.file, g, c.want)
		}
		for i, w := range c.want {
			if recs[i+1] != w {
				t.Errorf("%s: record %d = %+v, want %+v", c.file, i+1, recs[i+1], w)
			}
		}
		if c.file == "conformance/pywb/bad.arc" && len(r.Problems) != 3 {
			t.Errorf("bad.arc: problems %v, want 3 invalid lengths", r.Problems)
		}
	}
}

func TestTruncatedUKWA(t *testing.T) {
	data := load(t, "conformance/ukwa/IAH-20080430204825-00000-blackbook-truncated.arc.gz")
	recs, r, err := readAll(t, data, "blackbook")
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) < 5 {
		t.Fatalf("only %d records", len(recs))
	}
	for i := 1; i < len(recs); i++ {
		if recs[i].offset != recs[i-1].offset+recs[i-1].lengh {
			t.Errorf("record %d at %d does not follow record %d (%d+%d)", i, recs[i].offset, i-1, recs[i-1].offset, recs[i-1].lengh)
		}
	}
	t.Logf("%d records, %d problems: %v", len(recs), len(r.Problems), r.Problems)
}

// TestDamage builds damaged files from example.arc and checks that the reader
// skips the damage, says where, and finds the records after it.
func TestDamage(t *testing.T) {
	plain := load(t, "conformance/pywb/example.arc")
	_, rec1, _ := bytes.Cut(plain, []byte("\nhttp://example.com/ "))
	record := append([]byte("http://example.com/ "), rec1...)

	// Garbage between records.
	const garbage = "this is not an ARC header\nnor this\n\n"
	spliced := append(append(append([]byte{}, plain...), garbage...), record...)
	recs, r, err := readAll(t, spliced, "spliced.arc")
	if err != nil || len(recs) != 3 || len(r.Problems) != 2 || r.Skipped != int64(len(garbage)-1) {
		t.Errorf("spliced: %+v, problems %v, skipped %d, err %v", recs, r.Problems, r.Skipped, err)
	}
	if len(recs) == 3 && recs[2].offset != int64(len(plain)+len(garbage)) {
		t.Errorf("spliced: last record at %d, want %d", recs[2].offset, len(plain)+len(garbage))
	}

	// Per-record gzip with a truncated member in the middle.
	var members [][]byte
	filedesc := plain[:len(plain)-len(record)]
	for _, part := range [][]byte{filedesc, record, record, record} {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write(part)
		w.Close()
		members = append(members, b.Bytes())
	}
	damaged := append(append(append(append([]byte{}, members[0]...), members[1]...), members[2][:len(members[2])/2]...), members[3]...)
	recs, r, err = readAll(t, damaged, "damaged.arc.gz")
	if err != nil || len(recs) < 3 || len(r.Problems) == 0 {
		t.Fatalf("damaged: %+v, problems %v, err %v", recs, r.Problems, err)
	}
	if last, want := recs[len(recs)-1], int64(len(members[0])+len(members[1])+len(members[2])/2); last.offset != want || last.lengh != int64(len(members[3])) {
		t.Errorf("damaged: last record %+v, want offset %d length %d; problems %v", last, want, len(members[3]), r.Problems)
	}
	if recs[1].offset != int64(len(members[0])) || recs[1].lengh != int64(len(members[1])) {
		t.Errorf("damaged: record 1 %+v, want member %d+%d", recs[1], len(members[0]), len(members[1]))
	}

	// Whole-file gzip: offsets are positions in the decompressed stream.
	var whole bytes.Buffer
	w := gzip.NewWriter(&whole)
	w.Write(spliced[:len(plain)])
	w.Write(record)
	w.Close()
	recs, _, err = readAll(t, whole.Bytes(), "whole.arc.gz")
	if err != nil || len(recs) != 3 || recs[1].offset != 151 || recs[2].offset != int64(len(plain)) {
		t.Errorf("whole-file gzip: %+v, %v", recs, err)
	}

	// Empty file.
	if _, _, err := readAll(t, nil, "empty.arc"); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("empty file: err %v", err)
	}
}

func TestParseHeader(t *testing.T) {
	h, err := ParseHeader([]byte("http://example.com/a b 1.2.3.4 20080430204825 text/html 12\n"))
	if err != nil || h.URL != "http://example.com/a b" || h.Length != 12 {
		t.Errorf("URL with space: %+v %v", h, err)
	}
	h, err = ParseHeader([]byte("http://example.com/ 1.2.3.4 20080430204825 text/html 200 ABCD - 1234 f.arc 77"))
	if err != nil || h.Length != 77 || len(h.Extra) != 5 || h.ContentType != "text/html" {
		t.Errorf("v2: %+v %v", h, err)
	}
	for _, bad := range []string{"", "HTTP/1.1 200 OK", "a b c d e", "http://x/ 1.2.3.4 2008 text/html 1"} {
		if _, err := ParseHeader([]byte(bad)); err == nil {
			t.Errorf("ParseHeader(%q) succeeded", bad)
		}
	}
}

func FuzzReader(f *testing.F) {
	for _, p := range []string{"conformance/pywb/example.arc", "conformance/pywb/bad.arc", "conformance/pywb/example.arc.gz"} {
		if b, err := os.ReadFile(sharedtest.Root() + "/" + p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("filedesc://x 0 20080101000000 text/plain 0\n\nhttp://a/ 1 20080101000000 text/html 3\nabc\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewReader(bytes.NewReader(data), "fuzz")
		if err != nil {
			t.Fatal(err)
		}
		var last int64 = -1
		for i := 0; ; i++ {
			rec, err := r.Next()
			if err != nil {
				if errors.Is(err, io.EOF) || strings.Contains(err.Error(), "empty file") {
					return
				}
				t.Fatalf("unexpected error %v", err)
			}
			if rec.Offset < last || rec.Offset > int64(len(data)) && !r.s.Continuous {
				t.Fatalf("record %d offset %d after %d (file %d bytes)", i, rec.Offset, last, len(data))
			}
			last = rec.Offset
			io.Copy(io.Discard, rec.Body)
		}
	})
}
