package zipnum

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/testkit/sharedtest"
)

// gzipMembers decompresses a multi-member gzip file member by member and
// returns the lines of each member: the independent oracle for the blocks of a
// shard (it does not use the secondary index).
func gzipMembers(t *testing.T, path string) [][]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(bytes.NewReader(data))
	zr, err := gzip.NewReader(br)
	if err != nil {
		t.Fatal(err)
	}
	var members [][]string
	for {
		zr.Multistream(false)
		b, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("%s: member %d: %v", path, len(members)+1, err)
		}
		members = append(members, strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"))
		if err := zr.Reset(br); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	return members
}

func groupByKey(t *testing.T, lines []string) map[string][]cdxj.Capture {
	t.Helper()
	m := map[string][]cdxj.Capture{}
	for _, l := range lines {
		c, err := ParseLine(l)
		if err != nil {
			t.Fatal(err)
		}
		m[c.Key] = append(m[c.Key], c)
	}
	return m
}

func TestPywbSample(t *testing.T) {
	idx := sharedtest.Path(t, "conformance/pywb/zipnum-sample.idx")
	shard := sharedtest.Path(t, "conformance/pywb/zipnum-sample.cdx.gz")
	members := gzipMembers(t, shard)
	var all []string
	for _, m := range members {
		all = append(all, m...)
	}
	want := groupByKey(t, all)
	// 38 blocks of 5 lines, except the last. (The sample's blocks do not end
	// with a newline, so zcat of the shard prints only 150 lines: the last
	// line of each block runs into the first of the next.)
	if len(all) != 188 || len(want) != 36 {
		t.Fatalf("sample has %d lines, %d keys; want 188 lines and 36 keys", len(all), len(want))
	}

	// The .loc names a bad path first; the reader must fall back to the next.
	r, err := Open(filepath.Dir(idx), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Blocks() != len(members) {
		t.Errorf("Blocks() = %d, shard has %d gzip members", r.Blocks(), len(members))
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range want {
			if !yield(k) {
				return
			}
		}
	})
	for _, k := range keys {
		got, err := r.Lookup([]string{k})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got[k], want[k]) {
			t.Errorf("Lookup(%q): got %d captures, want %d\n got %+v\nwant %+v", k, len(got[k]), len(want[k]), got[k], want[k])
		}
		if len(got) != 1 {
			t.Errorf("Lookup(%q) returned %d keys", k, len(got))
		}
	}
	batch := append(slices.Clone(keys),
		"org,iana)/_css",                 // a prefix of existing keys: no captures of its own
		"com,example)/?example=",         // likewise
		"org,iana)/_js/2013.1/iana.js/x", // an existing key is a prefix of it
		"aaa,before)/", "zzz,after)/")
	rand.Shuffle(len(batch), func(i, j int) { batch[i], batch[j] = batch[j], batch[i] })
	got, err := r.Lookup(batch)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("batched Lookup differs from the decompressed sample (got %d keys, want %d)", len(got), len(want))
	}

	first := want["com,example)/"][0]
	if first.Timestamp != "20140127171200" || first.URL != "http://example.com" || first.Mime != "text/html" ||
		first.Status != "200" || first.Digest != "B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A" || first.Length != 1046 ||
		first.Offset != 334 || first.Filename != "dupes.warc.gz" {
		t.Errorf("first capture parsed as %+v", first)
	}
	if rev := want["com,example)/"][1]; rev.Status != "" || rev.Mime != "warc/revisit" {
		t.Errorf("revisit parsed as %+v", rev)
	}
}

// TestPywbSampleReadsOnlyNeededBlocks checks the byte accounting: "org,iana)/"
// has one capture at the end of block 1 and two at the start of block 2, so
// exactly those two blocks (275 + 328 bytes in the sample .idx) are read.
func TestPywbSampleReadsOnlyNeededBlocks(t *testing.T) {
	idx := sharedtest.Path(t, "conformance/pywb/zipnum-sample.idx")
	r, err := Open(idx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := r.Lookup([]string{"org,iana)/"})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(got["org,iana)/"]); n != 3 {
		t.Fatalf("org,iana)/: %d captures, want 3 (in the first two blocks)", n)
	}
	if r.BytesRead() != 275+328 || r.BlocksRead() != 2 {
		t.Errorf("read %d bytes in %d blocks, want 603 bytes in 2 blocks", r.BytesRead(), r.BlocksRead())
	}
	// Cached: a repeated look-up reads nothing.
	if _, err := r.Lookup([]string{"org,iana)/"}); err != nil {
		t.Fatal(err)
	}
	if r.BytesRead() != 603 {
		t.Errorf("repeated look-up read %d more bytes", r.BytesRead()-603)
	}
}

func TestSampleIndexLinesRoundTrip(t *testing.T) {
	idx := sharedtest.Path(t, "conformance/pywb/zipnum-sample.idx")
	data, err := os.ReadFile(idx)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		e, err := ParseEntry(line)
		if err != nil {
			t.Fatal(err)
		}
		if e.Line() != line {
			t.Errorf("ParseEntry(%q).Line() = %q", line, e.Line())
		}
	}
}

// genLines returns sorted CDXJ lines of nKeys keys; key i has a number of
// captures drawn from a skewed distribution, and a few keys have thousands, so
// they span many blocks. Keys that are prefixes of other keys are included.
func genLines(nKeys int, seed uint64) ([]string, map[string][]cdxj.Capture) {
	rng := rand.New(rand.NewPCG(seed, 1))
	want := map[string][]cdxj.Capture{}
	var lines []string
	for i := range nKeys {
		host := fmt.Sprintf("com,host%03d)/", i%97)
		key := fmt.Sprintf("%spage%d", host, i)
		if i%10 == 0 {
			key = fmt.Sprintf("%spage%d", host, i/10) // prefix of ".../page%d0…"
		}
		n := 1 + rng.IntN(4)
		switch {
		case i%500 == 7:
			n = 1200
		case i%50 == 3:
			n = 60
		}
		for j := range n {
			c := cdxj.Capture{
				Key:       key,
				Timestamp: fmt.Sprintf("2016%02d%02d%06d", 1+j%12, 1+j%28, rng.IntN(240000)),
				URL:       "http://" + key,
				Mime:      "text/html",
				Status:    "200",
				Digest:    fmt.Sprintf("D%031d", rng.IntN(1e9)),
				Length:    int64(500 + rng.IntN(5000)),
				Offset:    int64(rng.IntN(1 << 30)),
				Filename:  fmt.Sprintf("crawl-%d.warc.gz", rng.IntN(20)),
			}
			lines = append(lines, c.Line())
		}
	}
	slices.Sort(lines)
	lines = slices.Compact(lines)
	for _, l := range lines {
		c, _ := cdxj.Parse(l)
		want[c.Key] = append(want[c.Key], c)
	}
	return lines, want
}

func TestRoundTrip(t *testing.T) {
	lines, want := genLines(3000, 1)
	dir := t.TempDir()
	const perBlock, perShard = 37, 2000
	if err := Build(dir, Lines(lines), perShard, perBlock); err != nil {
		t.Fatal(err)
	}
	// Every shard is a valid multi-member gzip file whose members are blocks
	// of at most perBlock lines, and together they hold the input.
	var fromShards []string
	shards, _ := filepath.Glob(filepath.Join(dir, "cdx-*.gz"))
	if len(shards) < 3 {
		t.Fatalf("%d shards, want several", len(shards))
	}
	members := 0
	for _, s := range shards {
		for _, m := range gzipMembers(t, s) {
			if len(m) > perBlock {
				t.Errorf("%s: block of %d lines", s, len(m))
			}
			members++
			fromShards = append(fromShards, m...)
		}
	}
	if !slices.Equal(fromShards, lines) {
		t.Fatalf("shards hold %d lines, input had %d", len(fromShards), len(lines))
	}

	r, err := Open(dir, Options{CacheBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Blocks() != members {
		t.Errorf("cluster.idx has %d blocks, shards %d members", r.Blocks(), members)
	}
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	slices.Sort(keys)

	// One batch: every block read exactly once, all captures found.
	got, err := r.Lookup(append(keys, "com,host001)/nope", "com,host001)/page", "a", "zzzz"))
	if err != nil {
		t.Fatal(err)
	}
	if r.BlocksRead() != int64(members) {
		t.Errorf("batched look-up of every key read %d blocks, index has %d", r.BlocksRead(), members)
	}
	for _, k := range keys {
		if !reflect.DeepEqual(got[k], want[k]) {
			t.Fatalf("Lookup(%q): %d captures, want %d", k, len(got[k]), len(want[k]))
		}
	}
	if len(got) != len(want) {
		t.Errorf("Lookup returned %d keys, want %d", len(got), len(want))
	}

	// Single look-ups, among them keys spanning several blocks and shards.
	spanning := 0
	for i, k := range keys {
		if i%7 != 0 && len(want[k]) < 60 {
			continue
		}
		before := r.BlocksRead()
		got, err := r.Lookup([]string{k})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got[k], want[k]) {
			t.Fatalf("Lookup(%q): %d captures, want %d", k, len(got[k]), len(want[k]))
		}
		// At most the blocks holding the key plus the one before.
		read := r.BlocksRead() - before
		if maxBlocks := int64(len(want[k])/perBlock + 3); read > maxBlocks {
			t.Errorf("Lookup(%q) of %d captures read %d blocks, want <= %d", k, len(want[k]), read, maxBlocks)
		}
		if len(want[k]) > perBlock {
			spanning++
		}
	}
	if spanning == 0 {
		t.Fatal("no key spans blocks: the test data does not test what it should")
	}
}

// TestKeyAtBlockBoundary builds blocks of 3 lines so that a key's captures
// start in the middle of one block and continue into the next blocks; a
// binary search that started at the first block whose first key is >= the
// search key would miss the first captures.
func TestKeyAtBlockBoundary(t *testing.T) {
	var lines []string
	add := func(key string, n int) {
		for i := range n {
			lines = append(lines, cdxj.Capture{Key: key, Timestamp: fmt.Sprintf("2020010100%04d", i), URL: "http://x/", Filename: "f.warc.gz", Length: 1, Offset: int64(i)}.Line())
		}
	}
	add("com,a)/", 2)
	add("com,b)/", 5) // lines 3..7: blocks [a a b] [b b b] [b c c]
	add("com,c)/", 2)
	dir := t.TempDir()
	if err := Build(dir, Lines(lines), 0, 3); err != nil {
		t.Fatal(err)
	}
	r, err := Open(filepath.Join(dir, "cluster.idx"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for key, n := range map[string]int{"com,a)/": 2, "com,b)/": 5, "com,c)/": 2, "com,b)": 0, "com,b)/x": 0} {
		got, err := r.Lookup([]string{key})
		if err != nil {
			t.Fatal(err)
		}
		if len(got[key]) != n {
			t.Errorf("Lookup(%q): %d captures, want %d", key, len(got[key]), n)
		}
		for i, c := range got[key] {
			if c.Offset != int64(i) {
				t.Errorf("Lookup(%q)[%d] has offset %d: wrong order", key, i, c.Offset)
			}
		}
	}
}

func TestRangeAndPrefix(t *testing.T) {
	lines, _ := genLines(400, 2)
	dir := t.TempDir()
	if err := Build(dir, Lines(lines), 300, 16); err != nil {
		t.Fatal(err)
	}
	r, err := Open(dir, Options{CacheBytes: 1 << 10}) // tiny cache: evictions happen
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, prefix := range []string{"com,host005)/", "com,host01", "com,host096)/page9", "b", ""} {
		var want []string
		for _, l := range lines {
			if strings.HasPrefix(l, prefix) {
				want = append(want, l)
			}
		}
		var got []string
		for l, err := range r.Prefix(prefix) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, l)
		}
		if !slices.Equal(got, want) {
			t.Errorf("Prefix(%q): %d lines, want %d", prefix, len(got), len(want))
		}
	}
	// Stopping early is allowed.
	n := 0
	for range r.Range("com,host002)/", "") {
		n++
		if n == 5 {
			break
		}
	}
	if n != 5 {
		t.Errorf("Range stopped after %d lines", n)
	}
}

func TestCache(t *testing.T) {
	lines, want := genLines(300, 3)
	dir := t.TempDir()
	if err := Build(dir, Lines(lines), 0, 20); err != nil {
		t.Fatal(err)
	}
	key := "com,host010)/page1"
	if len(want[key]) == 0 {
		t.Fatalf("test key %q has no captures", key)
	}
	for _, tc := range []struct {
		cache      int64
		wantReread bool
	}{{0, false}, {-1, true}} {
		r, err := Open(dir, Options{CacheBytes: tc.cache})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Lookup([]string{key}); err != nil {
			t.Fatal(err)
		}
		b1 := r.BytesRead()
		if b1 == 0 {
			t.Fatal("nothing read")
		}
		if _, err := r.Lookup([]string{key}); err != nil {
			t.Fatal(err)
		}
		if reread := r.BytesRead() > b1; reread != tc.wantReread {
			t.Errorf("cache %d: second look-up re-read blocks: %v, want %v", tc.cache, reread, tc.wantReread)
		}
		r.Close()
		if _, err := r.Lookup([]string{key}); err == nil {
			t.Error("Lookup after Close: no error")
		}
	}
}

func TestWriterErrors(t *testing.T) {
	var buf bytes.Buffer
	w := NewShardWriter(&buf, "s", 10)
	if err := w.WriteLine("com,b)/ 20200101000000 {}"); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteLine("com,a)/ 20200101000000 {}"); err == nil || !strings.Contains(err.Error(), "not sorted") {
		t.Errorf("unsorted input: err = %v", err)
	}
	a := []Entry{{Key: "com,b)/ 1", Shard: "a", Length: 1}}
	b := []Entry{{Key: "com,a)/ 1", Shard: "b", Length: 1}}
	if err := WriteClusterIndex(io.Discard, a, b); err == nil {
		t.Error("shards out of order: no error")
	}
	if _, err := ParseEntry("k 1\tshard\tx\t5\t1"); err == nil {
		t.Error("bad offset: no error")
	}
	if _, err := ParseLine("k 2020 only-three"); err == nil {
		t.Error("short CDX line: no error")
	}
}

func TestShardWriterEntries(t *testing.T) {
	var buf bytes.Buffer
	w := NewShardWriter(&buf, "cdx-00007.gz", 2)
	lines := []string{"a)/ 1 {}", "a)/ 2 {}", "b)/ 1 {}", "c)/ 1 {}", "c)/ 2 {}"}
	for _, l := range lines {
		if err := w.WriteLine(l + "\n"); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	var idx bytes.Buffer
	if err := WriteClusterIndex(&idx, entries[:1], entries[1:]); err != nil {
		t.Fatal(err)
	}
	l1 := fmt.Sprintf("a)/ 1\tcdx-00007.gz\t0\t%d\t1", entries[0].Length)
	if got := strings.Split(idx.String(), "\n"); len(got) != 4 || got[0] != l1 ||
		!strings.HasPrefix(got[1], fmt.Sprintf("b)/ 1\tcdx-00007.gz\t%d\t", entries[0].Length)) ||
		!strings.HasSuffix(got[2], "\t3") || !strings.HasPrefix(got[2], "c)/ 2\t") {
		t.Errorf("cluster.idx:\n%s", idx.String())
	}
	var end int64
	for _, e := range entries {
		if e.Offset != end {
			t.Errorf("block %d at %d, previous ended at %d", e.Seq, e.Offset, end)
		}
		end = e.Offset + e.Length
	}
	if end != int64(buf.Len()) {
		t.Errorf("blocks end at %d, shard has %d bytes", end, buf.Len())
	}
	zr, err := gzip.NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	all, _ := io.ReadAll(zr)
	if string(all) != strings.Join(lines, "\n")+"\n" {
		t.Errorf("zcat of the shard: %q", all)
	}
}

// TestWriteLineBytesSameShard: WriteLineBytes writes the same shard and
// entries as WriteLine, the caller's buffer reused between lines, and
// rejects what WriteLine rejects.
func TestWriteLineBytesSameShard(t *testing.T) {
	var lines []string
	for i := range 500 {
		lines = append(lines, fmt.Sprintf("com,example)/p%03d 2020010100%04d {\"url\": \"http://example.com/p%03d\"}", i/3, i%3, i/3))
	}
	lines = append(lines, "com,z)/", "com,z)/ 1") // no JSON block, no timestamp
	var a, b bytes.Buffer
	wa, wb := NewShardWriter(&a, "s", 7), NewShardWriter(&b, "s", 7)
	buf := make([]byte, 0, 128)
	for _, l := range lines {
		if err := wa.WriteLine(l + "\n"); err != nil {
			t.Fatal(err)
		}
		buf = append(buf[:0], l...)
		buf = append(buf, '\r', '\n')
		if err := wb.WriteLineBytes(buf); err != nil {
			t.Fatal(err)
		}
		clear(buf)
	}
	ea, err := wa.Close()
	if err != nil {
		t.Fatal(err)
	}
	eb, err := wb.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) || fmt.Sprint(ea) != fmt.Sprint(eb) {
		t.Errorf("WriteLineBytes: %d bytes, %d entries; WriteLine: %d bytes, %d entries", b.Len(), len(eb), a.Len(), len(ea))
	}
	w := NewShardWriter(io.Discard, "s", 10)
	if err := w.WriteLineBytes([]byte("com,b)/ 20200101000000 {}")); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteLineBytes([]byte("com,a)/ 20200101000000 {}")); err == nil || !strings.Contains(err.Error(), "not sorted") {
		t.Errorf("unsorted input: err = %v", err)
	}
	if err := w.WriteLineBytes([]byte("com,c)/ 1 {}\nx")); err == nil || !strings.Contains(err.Error(), "newline") {
		t.Errorf("a newline inside: err = %v", err)
	}
}

// TestShardWriterBlockBytes: a block ends before it would grow past
// MaxBlockBytes, however many lines it has, so the reader reads back every
// block it writes; a line over MaxLineBytes is refused.
func TestShardWriterBlockBytes(t *testing.T) {
	dir := t.TempDir()
	pad := strings.Repeat("x", 4<<20)
	var lines []string
	for i := range 20 { // 80 MiB in blocks of up to 3000 lines
		lines = append(lines, fmt.Sprintf("com,example)/%02d 20100414120000 {\"pad\": \"%s\"}", i, pad))
	}
	if err := Build(dir, Lines(lines), 0, 0); err != nil {
		t.Fatal(err)
	}
	r, err := Open(dir, Options{CacheBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Blocks() < 3 {
		t.Errorf("%d blocks for %d MiB of lines; want blocks of at most %d MiB", r.Blocks(), 20*len(pad)>>20, MaxBlockBytes>>20)
	}
	var got []string
	for l, err := range r.Range("", "") {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, l)
	}
	if !slices.Equal(got, lines) {
		t.Errorf("read back %d lines, want the %d written", len(got), len(lines))
	}
	sw := NewShardWriter(io.Discard, "s", 0)
	if err := sw.WriteLine("com,example)/ 20100414120000 " + strings.Repeat("y", MaxLineBytes)); err == nil || !strings.Contains(err.Error(), "MaxLineBytes") {
		t.Errorf("a line over MaxLineBytes: %v", err)
	}
}
