package cdxj

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/recrawl/recrawl/internal/bytecount"
	"github.com/recrawl/recrawl/internal/records"
	"github.com/recrawl/recrawl/internal/testkit/sharedtest"
)

// splitPoints lists the split points a SplitFinder finds from every
// nominal offset of a grid of step bytes.
func splitPoints(t testing.TB, data []byte, step int64) []int64 {
	t.Helper()
	f, err := records.NewSplitFinder(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var points []int64
	for from := step; from < int64(len(data)); from += step {
		c, found, err := f.Next(from, int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		if found && !slices.Contains(points, c) {
			points = append(points, c)
		}
	}
	return points
}

// TestSplitWgetLayout: archives written as wget writes them (request then
// response, naming each other both ways or only the response naming the
// request), and response then request naming each other, have split
// points, and every split gives the whole file's index, POST keys included.
func TestSplitWgetLayout(t *testing.T) {
	for _, layout := range []wgetLayout{bothNamed, responseNames, responseFirst} {
		data := wgetArchive(t, 200, layout)
		name := fmt.Sprintf("wget-%d.warc.gz", layout)
		want := wholeFile(data, name)
		if len(want.lines) < 200 || !slices.ContainsFunc(want.lines, func(l string) bool { return strings.Contains(l, "__wb_method=post") }) {
			t.Fatalf("%s: %d index lines, want 200 with POST keys", name, len(want.lines))
		}
		parts := sameForEverySplit(t, data, name, []int64{90_001, 150_001, int64(len(data) / 3)})
		if parts < 4 {
			t.Errorf("%s (%d bytes): at most %d ranges held records, want at least 4", name, len(data), parts)
		}
		if points := splitPoints(t, data, 50_000); len(points) < 5 {
			t.Errorf("%s (%d bytes): split points %v, want at least 5", name, len(data), points)
		}
	}
}

// TestSplitWgetConformance: the real wget archives of ../shared (ukwa; the
// response names the request, POST requests among them) give the same
// index for every split, and are split before their request records.
func TestSplitWgetConformance(t *testing.T) {
	for _, file := range []string{"conformance/ukwa/main-page.warc.gz", "conformance/ukwa/sopa-wikipedia-homepage.warc.gz", "conformance/ukwa/post-blackout.warc.gz"} {
		data, err := os.ReadFile(sharedtest.Path(t, file))
		if err != nil {
			t.Fatal(err)
		}
		sameForEverySplit(t, data, file, splitSizes(len(data)))
		// The records are 2 to 40 KB: a point every 5 KB finds most of
		// the request records.
		if points := splitPoints(t, data, 5_000); len(points) < 20 {
			t.Errorf("%s (%d bytes): split points %v, want at least 20", file, len(data), points)
		}
	}
}

// TestSplitNoSplitPointReadsItsRange: in an archive where no record can
// start a range (responses naming requests that are not in the file), a
// range that holds no split point is found empty after reading about its
// own bytes, not the rest of the file; the file's ranges together read
// about twice the file (the first range indexes all of it after its end's
// search read it), and give the whole file's index.
func TestSplitNoSplitPointReadsItsRange(t *testing.T) {
	data := wgetArchive(t, 300, responsesOnly)
	size := int64(len(data))
	const rangeBytes = 100_000
	const slack = 256 << 10 // the finder's window and one member
	rs := Split("none.warc.gz", size, rangeBytes)
	total := int64(0)
	for i, rng := range rs {
		in := bytecount.NewReaderAt(bytes.NewReader(data))
		st, err := IndexRange(in, "none.warc.gz", rng, IndexOptions{}, func(Capture) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		total += in.N()
		if i == 0 {
			if whole := wholeFile(data, "none.warc.gz"); st.Captures != len(whole.lines) || st.Captures < 300 {
				t.Errorf("range 0: %d captures, want all %d of the file", st.Captures, len(whole.lines))
			}
			continue
		}
		if st.Records != 0 {
			t.Errorf("range %d: %d records, want none", i, st.Records)
		}
		if got := in.N(); got > rng.End-rng.Start+slack {
			t.Errorf("range %d [%d, %d) of %d bytes: read %d bytes, want at most %d", i, rng.Start, rng.End, size, got, rng.End-rng.Start+slack)
		}
	}
	if total > 2*size+int64(len(rs))*slack {
		t.Errorf("%d ranges of a %d-byte file read %d bytes, want at most %d", len(rs), size, total, 2*size+int64(len(rs))*slack)
	}
	sameForEverySplit(t, data, "none.warc.gz", []int64{rangeBytes, size / 3})
}
