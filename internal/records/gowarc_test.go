package records

import (
	"bytes"
	"io"
	"testing"

	"github.com/nlnwa/gowarc"
)

// TestAgainstGowarc checks offsets and headers against an independent WARC
// reader (gowarc) on files it can read.
func TestAgainstGowarc(t *testing.T) {
	for _, rel := range []string{"conformance/pywb/iana.warc.gz", "conformance/pywb/dupes.warc.gz", "conformance/ukwa/post-blackout.warc.gz", "conformance/commoncrawl/whirlwind.warc.gz"} {
		data := load(t, rel)
		r, err := gowarc.NewWarcFileReaderFromStream(bytes.NewReader(data), 0, gowarc.WithSyntaxErrorPolicy(gowarc.ErrIgnore), gowarc.WithSpecViolationPolicy(gowarc.ErrIgnore))
		if err != nil {
			t.Fatal(err)
		}
		it, err := NewIterator(bytes.NewReader(data), rel, func(s Skip) { t.Errorf("%v", s) })
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for {
			want, off, _, werr := r.Next()
			got, gerr := it.Next()
			if werr == io.EOF || gerr == io.EOF {
				if werr != gerr {
					t.Errorf("%s: gowarc %v, records %v after %d records", rel, werr, gerr, n)
				}
				break
			}
			if werr != nil || gerr != nil {
				t.Fatalf("%s record %d: gowarc %v, records %v", rel, n, werr, gerr)
			}
			h := want.WarcHeader()
			if got.Offset != off || got.Type != h.Get("WARC-Type") || got.TargetURI != h.Get("WARC-Target-URI") ||
				got.Date != h.Get("WARC-Date") || got.RecordID != h.Get("WARC-Record-ID") ||
				got.PayloadDigest != "" && got.PayloadDigest != h.Get("WARC-Payload-Digest") { // gowarc adds digests the file lacks
				t.Errorf("%s record %d: got %d %s %s %s %s %q, gowarc %d %s %s %s %s %q", rel, n, got.Offset, got.Type, got.TargetURI, got.Date, got.RecordID, got.PayloadDigest,
					off, h.Get("WARC-Type"), h.Get("WARC-Target-URI"), h.Get("WARC-Date"), h.Get("WARC-Record-ID"), h.Get("WARC-Payload-Digest"))
			}
			n++
		}
		if n == 0 {
			t.Errorf("%s: no records compared", rel)
		}
	}
}
