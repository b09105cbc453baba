package cdxj

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/recrawl/recrawl/internal/corpus/archivegen"
	"github.com/recrawl/recrawl/internal/records"
	"github.com/recrawl/recrawl/internal/testkit/sharedtest"
)

// indexed is what indexing produced: sorted index lines and skips
// ("offset kind").
type indexed struct {
	lines, skips []string
	err          error
}

func wholeFile(data []byte, name string) indexed {
	var out indexed
	_, out.err = IndexFile(bytes.NewReader(data), name, IndexOptions{OnSkip: func(s records.Skip) {
		out.skips = append(out.skips, fmt.Sprintf("%d %s", s.Offset, s.Kind))
	}}, func(c Capture) error { out.lines = append(out.lines, c.Line()); return nil })
	slices.Sort(out.lines)
	slices.Sort(out.skips)
	return out
}

// inRanges indexes the ranges of Split(rangeBytes) last to first.
func inRanges(t *testing.T, data []byte, name string, rangeBytes int64) (indexed, int) {
	t.Helper()
	var out indexed
	rs := Split(name, int64(len(data)), rangeBytes)
	nonEmpty := 0
	for i := len(rs) - 1; i >= 0; i-- {
		st, err := IndexRange(bytes.NewReader(data), name, rs[i], IndexOptions{OnSkip: func(s records.Skip) {
			out.skips = append(out.skips, fmt.Sprintf("%d %s", s.Offset, s.Kind))
		}}, func(c Capture) error { out.lines = append(out.lines, c.Line()); return nil })
		if err != nil && out.err == nil {
			out.err = err
		}
		if st.Records > 0 {
			nonEmpty++
		}
	}
	slices.Sort(out.lines)
	slices.Sort(out.skips)
	return out, nonEmpty
}

// sameForEverySplit checks that every split size gives the whole file's
// index lines and skips, and returns the most ranges that held records.
func sameForEverySplit(t *testing.T, data []byte, name string, sizes []int64) int {
	t.Helper()
	want := wholeFile(data, name)
	most := 0
	for _, size := range sizes {
		got, parts := inRanges(t, data, name, size)
		most = max(most, parts)
		if (got.err == nil) != (want.err == nil) {
			t.Errorf("%s, ranges of %d bytes: error %v, whole file: %v", name, size, got.err, want.err)
		}
		if !slices.Equal(got.lines, want.lines) {
			t.Errorf("%s, ranges of %d bytes (%d with records): %d lines, whole file %d; first difference:\n%s",
				name, size, parts, len(got.lines), len(want.lines), firstDiff(got.lines, want.lines))
		}
		if !slices.Equal(got.skips, want.skips) {
			t.Errorf("%s, ranges of %d bytes: skips %v, whole file %v", name, size, got.skips, want.skips)
		}
	}
	return most
}

func firstDiff(a, b []string) string {
	for i := range max(len(a), len(b)) {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return fmt.Sprintf("  split: %s\n  whole: %s", x, y)
		}
	}
	return ""
}

// splitSizes are tiny to large range sizes for a file of n bytes, down to
// 1 byte, and at most 300 ranges (40 for files over 64 KB: each range
// confirms two split points).
func splitSizes(n int) []int64 {
	most := int64(300)
	if n > 64<<10 {
		most = 40
	}
	var sizes []int64
	for _, s := range []int64{1, 2, 3, 7, 64, 500, 1000, 4096} {
		if int64(n)/s <= most {
			sizes = append(sizes, s)
		}
	}
	for _, d := range []int{int(most), 13, 5, 2} {
		sizes = append(sizes, int64(n/d+1))
	}
	return append(sizes, int64(n), int64(n)+1)
}

// TestSplitConformance: every real file of ../shared (WARC, ARC, plain,
// gzip per record, whole-file gzip, damaged, POST pairs) gives the same
// index for every split.
func TestSplitConformance(t *testing.T) {
	files := sharedtest.ConformanceArchives(t)
	if len(files) < 20 {
		t.Fatalf("only %d archive files in ../shared/conformance", len(files))
	}
	split := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if parts := sameForEverySplit(t, data, filepath.Base(f), splitSizes(len(data))); parts > 1 {
			split++
		}
	}
	// Most of them are per-record gzip and must really be split.
	if split < 10 {
		t.Errorf("only %d of %d files were split into more than one range with records", split, len(files))
	}
	// The same files damaged: a byte flipped in a member's CRC-32, in its
	// compressed data, in its gzip header, and all of these at once.
	damaged := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) > 64<<10 {
			continue
		}
		if l, err := records.FileLayout(bytes.NewReader(data), int64(len(data))); err != nil || l != records.LayoutGzipPerRecord {
			continue
		}
		n := int64(len(data))
		for i, bad := range damagedCopies(t, data) {
			sameForEverySplit(t, bad, fmt.Sprintf("%s-damaged-%d", filepath.Base(f), i), []int64{n/100 + 1, n/7 + 1, n/2 + 1, n})
			damaged++
		}
	}
	if damaged < 30 {
		t.Errorf("only %d damaged copies of gzip files tested", damaged)
	}
}

// damagedCopies returns copies of a per-record gzip file with bytes flipped
// (XOR 0xff) at several places of its second and last members: the CRC-32
// in the trailer, the middle of the compressed data, the gzip header's
// flags; and a copy with all of them.
func damagedCopies(t *testing.T, data []byte) [][]byte {
	t.Helper()
	var members [][2]int64 // offset, length
	it, err := records.NewIterator(bytes.NewReader(data), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	for {
		rec, err := it.Next()
		if err != nil {
			break
		}
		if err := it.Finish(); err != nil {
			t.Fatal(err)
		}
		if rec.Offset+rec.Length <= int64(len(data)) {
			members = append(members, [2]int64{rec.Offset, rec.Length})
		}
	}
	if len(members) < 3 {
		return nil
	}
	var at []int64
	for _, m := range [][2]int64{members[1], members[len(members)-1]} {
		off, n := m[0], m[1]
		at = append(at, off+n-8, off+n/2, off+3)
	}
	var out [][]byte
	all := slices.Clone(data)
	for _, p := range at {
		c := slices.Clone(data)
		c[p] ^= 0xff
		all[p] ^= 0xff
		out = append(out, c)
	}
	return append(out, all)
}

// TestSplitDamagedCRC: a flipped byte in the CRC-32 of the member at 1376 of
// pywb's example.warc.gz; the revisit at 1864 after it is indexed once
// whatever the ranges.
func TestSplitDamagedCRC(t *testing.T) {
	data, err := os.ReadFile(sharedtest.Path(t, "conformance/pywb/example.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	data[1856] ^= 0xff
	if want := wholeFile(data, "example.warc.gz"); len(want.lines) != 3 {
		t.Errorf("whole file: %d lines, want 3:\n%s", len(want.lines), strings.Join(want.lines, "\n"))
	}
	sameForEverySplit(t, data, "example.warc.gz", []int64{1, 100, 500})
}

// generatedArchive writes a small synthetic archive (several MB, so that
// confirming a split point stops after records.ConfirmBytes, not at the end
// of the file) and returns its files.
func generatedArchive(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	_, err := archivegen.Generate(context.Background(), archivegen.Config{OutDir: dir, Pages: 300, Seed: 3,
		MaxFileSize: 3 << 20, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.warc.gz"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no generated files: %v", err)
	}
	return files
}

func TestSplitGenerated(t *testing.T) {
	for _, f := range generatedArchive(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) < 2*records.ConfirmBytes {
			continue
		}
		parts := sameForEverySplit(t, data, filepath.Base(f), []int64{100_000, 333_333, int64(len(data) / 3)})
		if parts < 3 {
			t.Errorf("%s (%d bytes) was split into %d ranges with records, want several", f, len(data), parts)
		}
	}
}

// TestSplitGeneratedDamaged: a generated archive cut to its first 600 KB of
// members, with bytes flipped in several members (CRC-32, compressed data,
// gzip header), indexed in ranges of 2,000 to 8,000 bytes: the same index
// as the whole file.
func TestSplitGeneratedDamaged(t *testing.T) {
	file := generatedArchive(t)[0]
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	ends := memberEnds(t, data, 600<<10)
	if len(ends) < 50 {
		t.Fatalf("only %d members in the first 600 KB", len(ends))
	}
	data = data[:ends[len(ends)-1]]
	n := len(ends)
	for i, at := range []int64{ends[n/5] - 8, (ends[2*n/5] + ends[2*n/5+1]) / 2, ends[3*n/5] + 3, ends[4*n/5] - 6} {
		data[at] ^= 0xff
		if i == 0 {
			if got := wholeFile(data, "gen.warc.gz"); !slices.Contains(got.skips, fmt.Sprintf("%d %s", ends[n/5-1], records.KindBadGzip)) {
				t.Fatalf("the flipped CRC-32 is not reported: %v", got.skips)
			}
		}
	}
	sameForEverySplit(t, data, "gen.warc.gz", []int64{2000, 5000, 8000})

	// A range that starts mid-file names the damaged members by their
	// offsets in the file: the whole generated file, with CRC-32s flipped
	// in members far enough apart for split points between them.
	whole, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	ends = memberEnds(t, whole, int64(len(whole)))
	n = len(ends)
	for _, i := range []int{n / 3, n / 2, 3 * n / 4} {
		whole[ends[i]-8] ^= 0xff
	}
	checked := 0
	for _, rng := range Split("gen.warc.gz", int64(len(whole)), 300_000) {
		IndexRange(bytes.NewReader(whole), "gen.warc.gz", rng, IndexOptions{OnSkip: func(s records.Skip) {
			if s.Kind != records.KindBadGzip {
				return
			}
			start, _ := records.SplitPoint(bytes.NewReader(whole), int64(len(whole)), rng.Start)
			if start > 0 {
				checked++
			}
			if msg := s.Err.Error(); !strings.Contains(msg, fmt.Sprintf("gzip member at offset %d:", s.Offset)) {
				t.Errorf("range from %d: the damaged member at %d is reported as %q", start, s.Offset, msg)
			}
		}}, func(Capture) error { return nil })
	}
	if checked < 2 {
		t.Errorf("%d damaged members reported in ranges that start mid-file, want 2 or more", checked)
	}
}

// memberEnds returns the offsets where the members of a per-record gzip
// file end, up to the first member that starts after limit.
func memberEnds(t *testing.T, data []byte, limit int64) []int64 {
	t.Helper()
	var ends []int64
	it, err := records.NewIterator(bytes.NewReader(data), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	for {
		rec, err := it.Next()
		if err != nil || rec.Offset > limit {
			break
		}
		if err := it.Finish(); err != nil {
			t.Fatal(err)
		}
		ends = append(ends, rec.Offset+rec.Length)
	}
	return ends
}

// TestSplitStoredInnerArchive: a record whose payload is a whole .warc.gz,
// stored without compression, holds valid gzip members verbatim; none of
// them may be taken for a split point.
func TestSplitStoredInnerArchive(t *testing.T) {
	files := generatedArchive(t)
	inner, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	conf, err := os.ReadFile(sharedtest.Path(t, "conformance/pywb/example.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	var file bytes.Buffer
	file.Write(conf)
	var members [][2]int // the outer members holding the inner archive: start, end
	for i, level := range []int{gzip.NoCompression, gzip.HuffmanOnly, gzip.DefaultCompression} {
		start := file.Len()
		body := append([]byte("HTTP/1.1 200 OK\r\nContent-Type: application/warc\r\n\r\n"), inner...)
		rec := fmt.Sprintf("WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:%08d-0000-0000-0000-000000000000>\r\n"+
			"WARC-Target-URI: http://example.com/crawl-%d.warc.gz\r\nWARC-Date: 2020-01-02T03:04:05Z\r\n"+
			"Content-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n", i, i, len(body))
		zw, err := gzip.NewWriterLevel(&file, level)
		if err != nil {
			t.Fatal(err)
		}
		zw.Write([]byte(rec))
		zw.Write(body)
		zw.Write([]byte("\r\n\r\n"))
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		members = append(members, [2]int{start, file.Len()})
		file.Write(conf)
	}
	data := file.Bytes()
	if !bytes.Contains(data, inner[:4096]) {
		t.Fatal("the stored record does not hold the inner archive verbatim; the test tests nothing")
	}
	want := wholeFile(data, "outer.warc.gz")
	if len(want.skips) != 0 {
		t.Fatalf("the outer file has skips: %v", want.skips)
	}
	sameForEverySplit(t, data, "outer.warc.gz", []int64{400_000, 1_000_000})

	// A byte flipped in the stored inner archive (the member's CRC-32 then
	// fails) or in the member's length field (ISIZE): the damaged record is
	// left out, and the search for the next member starts after the
	// damaged one, not inside its stored data.
	for _, m := range []int{0, 2} {
		for _, at := range []int{(members[m][0] + members[m][1]) / 2, members[m][1] - 2} {
			bad := slices.Clone(data)
			bad[at] ^= 0xff
			got := wholeFile(bad, "outer.warc.gz")
			var gone []string
			for _, l := range want.lines {
				if !slices.Contains(got.lines, l) {
					gone = append(gone, l)
				}
			}
			if len(got.lines) != len(want.lines)-1 || len(gone) != 1 || !strings.Contains(gone[0], fmt.Sprintf(`"offset": "%d"`, members[m][0])) {
				t.Errorf("byte %d of the member at %d flipped: %d lines, want %d (all but the damaged record); lines not in the undamaged index:\n%s",
					at, members[m][0], len(got.lines), len(want.lines)-1, strings.Join(firstLines(got.lines, want.lines), "\n"))
			}
			if want := []string{fmt.Sprintf("%d %s", members[m][0], records.KindBadGzip)}; !slices.Equal(got.skips, want) {
				t.Errorf("byte %d of the member at %d flipped: skips %v, want %v", at, members[m][0], got.skips, want)
			}
			sameForEverySplit(t, bad, "outer.warc.gz", []int64{400_000, 1_000_000})
		}
	}
}

// firstLines returns up to 5 of the lines of a that are not in b.
func firstLines(a, b []string) []string {
	var out []string
	for _, l := range a {
		if !slices.Contains(b, l) && len(out) < 5 {
			out = append(out, l)
		}
	}
	return out
}

func TestSplitRanges(t *testing.T) {
	rs := Split("f", 10, 3)
	if len(rs) != 4 || rs[0].Start != 0 || rs[3].End != 10 {
		t.Fatalf("Split(10, 3) = %v", rs)
	}
	for i := 1; i < len(rs); i++ {
		if rs[i].Start != rs[i-1].End {
			t.Fatalf("Split(10, 3): gap or overlap: %v", rs)
		}
	}
	if rs := Split("f", 10, 0); len(rs) != 1 || !rs[0].Whole() {
		t.Fatalf("Split(10, 0) = %v", rs)
	}
	// An empty file is one range, reported as IndexFile reports it.
	var skips []records.Skip
	_, err := IndexRange(bytes.NewReader(nil), "empty.warc", Split("empty.warc", 0, 100)[0],
		IndexOptions{OnSkip: func(s records.Skip) { skips = append(skips, s) }}, func(Capture) error { return nil })
	if !errors.Is(err, records.ErrNoRecords) || len(skips) != 1 || skips[0].Kind != records.KindEmptyFile {
		t.Errorf("IndexRange(empty file) = %v, skips %v; want ErrNoRecords and an empty-file skip", err, skips)
	}
}

// TestFileLayout: the layouts of real files.
func TestFileLayout(t *testing.T) {
	for file, want := range map[string]records.Layout{
		"conformance/pywb/example.warc.gz": records.LayoutGzipPerRecord,
		"conformance/pywb/example.warc":    records.LayoutPlain,
		"conformance/pywb/example.arc.gz":  records.LayoutGzipPerRecord,
	} {
		data, err := os.ReadFile(sharedtest.Path(t, file))
		if err != nil {
			t.Fatal(err)
		}
		got, err := records.FileLayout(bytes.NewReader(data), int64(len(data)))
		if err != nil || got != want {
			t.Errorf("FileLayout(%s) = %v, %v; want %v", file, got, err, want)
		}
	}
	// Whole-file gzip: the plain file compressed as one member.
	plain, err := os.ReadFile(sharedtest.Path(t, "conformance/pywb/example.warc"))
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(plain)
	zw.Close()
	if got, err := records.FileLayout(bytes.NewReader(z.Bytes()), int64(z.Len())); err != nil || got != records.LayoutGzipWholeFile {
		t.Errorf("FileLayout(whole-file gzip) = %v, %v", got, err)
	}
	sameForEverySplit(t, z.Bytes(), "whole.warc.gz", []int64{100, 1000})
}
