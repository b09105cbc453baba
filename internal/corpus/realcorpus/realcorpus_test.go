package realcorpus

import (
	"bytes"
	"crypto/sha1"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/nlnwa/gowarc"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/testkit/sharedtest"
)

// TestWrite writes a small corpus from the real pages twice and checks that
// the files are byte-identical, that gowarc finds every record valid under
// strict validation with the digests it states (block and payload), and that
// the indexer finds one capture per response.
func TestWrite(t *testing.T) {
	pages := sharedtest.Path(t, "conformance/dates")
	var outs [2]string
	var sums [2][]FileSummary
	for i := range outs {
		outs[i] = t.TempDir()
		var err error
		if sums[i], err = Write(Config{Pages: pages, OutDir: outs[i], Files: 2, FileBytes: 2e6, Seed: 7}); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range sums[0] {
		a, err := os.ReadFile(filepath.Join(outs[0], s.Name))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(outs[1], s.Name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two runs with the same seed differ", s.Name)
		}
		if s.Bytes < 2e6 || s.Bytes != int64(len(a)) || s.Captures < 10 || s.Records != 2*s.Captures+1 {
			t.Errorf("%s: summary %+v for %d bytes", s.Name, s, len(a))
		}
		checkRecords(t, filepath.Join(outs[0], s.Name), s)
	}
}

func checkRecords(t *testing.T, name string, s FileSummary) {
	r, err := gowarc.NewWarcFileReader(name, 0, gowarc.WithStrictValidation())
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]int64{}
	for {
		wr, off, val, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !val.Valid() {
			t.Fatalf("%s at %d: %s", name, off, val)
		}
		types[wr.Type().String()]++
		raw, err := wr.Block().RawBytes()
		if err != nil {
			t.Fatal(err)
		}
		block, err := io.ReadAll(raw)
		if err != nil {
			t.Fatal(err)
		}
		h := wr.WarcHeader()
		if got := digest(sha1.Sum(block)); got != h.Get(gowarc.WarcBlockDigest) {
			t.Errorf("%s at %d: block digest %s, computed %s", name, off, h.Get(gowarc.WarcBlockDigest), got)
		}
		if wr.Type() == gowarc.Response {
			_, payload, ok := bytes.Cut(block, []byte("\r\n\r\n"))
			if got := digest(sha1.Sum(payload)); !ok || got != h.Get(gowarc.WarcPayloadDigest) {
				t.Errorf("%s at %d: payload digest %s, computed %s", name, off, h.Get(gowarc.WarcPayloadDigest), got)
			}
		}
	}
	if types["warcinfo"] != 1 || types["response"] != s.Captures || types["request"] != s.Captures {
		t.Errorf("%s: record types %v, want 1 warcinfo and %d responses and requests", name, types, s.Captures)
	}
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := cdxj.IndexFile(f, filepath.Base(name), cdxj.IndexOptions{}, func(cdxj.Capture) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if int64(st.Captures) != s.Captures {
		t.Errorf("%s: the indexer found %d captures, want %d", name, st.Captures, s.Captures)
	}
}

// TestBadPages: a pages directory whose labels name a missing file is an
// error naming the line.
func TestBadPages(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "labels.tsv"), []byte("url\tfile\tdate\nhttp://example.com/a\tmissing.html.gz\t2020-01-01\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Write(Config{Pages: dir, OutDir: t.TempDir(), Files: 1, FileBytes: 1000})
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("labels.tsv line 2")) {
		t.Errorf("error %v, want one naming labels.tsv line 2", err)
	}
}
