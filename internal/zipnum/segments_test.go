package zipnum

import (
	"bytes"
	stdgzip "compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"

	"github.com/recrawl/recrawl/internal/cdxj"
)

// blockMember returns the gzip member of block b of r.
func blockMember(t *testing.T, r *Reader, b int) []byte {
	t.Helper()
	e := r.entries[b]
	sf, err := r.shard(e.Shard)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, e.Length)
	if _, err := sf.f.ReadAt(buf, e.Offset); err != nil {
		t.Fatal(err)
	}
	return buf
}

// segmentKeys returns the first keys of the segments of block b of r after
// its first (none for a block without segments).
func segmentKeys(t *testing.T, r *Reader, b int) []string {
	t.Helper()
	x, err := parseSegmentIndex(blockMember(t, r, b))
	if err != nil {
		t.Fatal(err)
	}
	if x == nil {
		return nil
	}
	return x.keys[1:]
}

// shardLines returns the lines of the shard files of the index in dir,
// inflated by inflate, in shard order.
func shardLines(t *testing.T, dir string, inflate func(path string) ([]byte, error)) []string {
	t.Helper()
	shards, err := filepath.Glob(filepath.Join(dir, "cdx-*.gz"))
	if err != nil || len(shards) == 0 {
		t.Fatalf("no shards in %s: %v", dir, err)
	}
	var lines []string
	for _, p := range shards {
		data, err := inflate(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		lines = append(lines, strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")...)
	}
	return lines
}

// TestSegmentedBlocksAreGzip: the shards of an index with segments are
// plain gzip to Go's compress/gzip, to gzip(1) and to Python's gzip, which
// all read the index's lines; every block of two segments or more carries
// the segment index, and each segment inflates on its own from its offset
// in the deflate stream to exactly its lines. An index without segments
// has no extra field and reads the same.
func TestSegmentedBlocksAreGzip(t *testing.T) {
	lines, _ := genLines(150, 9)
	for _, perSegment := range []int{7, 0} {
		dir := t.TempDir()
		if err := BuildSegments(dir, Lines(lines), len(lines)/2+1, 50, perSegment); err != nil {
			t.Fatal(err)
		}
		readers := map[string]func(string) ([]byte, error){
			"compress/gzip": func(p string) ([]byte, error) {
				f, err := os.Open(p)
				if err != nil {
					return nil, err
				}
				defer f.Close()
				zr, err := stdgzip.NewReader(f)
				if err != nil {
					return nil, err
				}
				return io.ReadAll(zr)
			},
			"gzip -t, gzip -dc": func(p string) ([]byte, error) {
				if out, err := exec.Command("gzip", "-t", p).CombinedOutput(); err != nil {
					return nil, fmt.Errorf("gzip -t: %v: %s", err, out)
				}
				return exec.Command("gzip", "-dc", p).Output()
			},
			"python3 gzip": func(p string) ([]byte, error) {
				return exec.Command("python3", "-c", "import gzip, sys; sys.stdout.buffer.write(gzip.open(sys.argv[1]).read())", p).Output()
			},
		}
		for name, inflate := range readers {
			if got := shardLines(t, dir, inflate); !slices.Equal(got, lines) {
				t.Errorf("%d lines a segment: %s reads %d lines, want the %d of the index", perSegment, name, len(got), len(lines))
			}
		}
		r, err := Open(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		segmented := 0
		for b := range r.Blocks() {
			member := blockMember(t, r, b)
			x, err := parseSegmentIndex(member)
			if err != nil {
				t.Fatal(err)
			}
			if perSegment == 0 || x == nil {
				if member[3]&0x04 != 0 {
					t.Errorf("%d lines a segment: block %d has an extra field but no segment index", perSegment, b)
				}
				continue
			}
			segmented++
			whole, err := io.ReadAll(must(gzip.NewReader(bytes.NewReader(member))))
			if err != nil {
				t.Fatal(err)
			}
			for i := range x.segments() {
				fr := flate.NewReader(bytes.NewReader(member[x.deflated[i]:]))
				want := whole[x.inflated[i]:x.inflated[i+1]]
				got := make([]byte, len(want))
				if _, err := io.ReadFull(fr, got); err != nil || !bytes.Equal(got, want) {
					t.Fatalf("block %d segment %d inflated on its own: %v, %q, want %q", b, i, err, truncate(string(got)), truncate(string(want)))
				}
				if !strings.HasPrefix(string(want), x.keys[i]+" ") || (i > 0 && whole[x.inflated[i]-1] != '\n') {
					t.Fatalf("block %d segment %d does not start a line with its key %q", b, i, x.keys[i])
				}
			}
		}
		if perSegment > 0 && segmented < r.Blocks()-2 { // the last block of each shard may be short
			t.Errorf("%d of %d blocks carry a segment index", segmented, r.Blocks())
		}
		r.Close()
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// lookupEqualsScan checks that Lookup of keys on dir equals a scan of lines.
func lookupEqualsScan(t *testing.T, dir string, lines, keys []string) *Reader {
	t.Helper()
	r, err := Open(dir, Options{CacheBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	got, err := r.Lookup(keys)
	if err != nil {
		t.Fatal(err)
	}
	if want := scanLookup(t, lines, keys); !reflect.DeepEqual(got, want) {
		t.Fatalf("Lookup found %d keys, a scan %d", len(got), len(want))
	}
	return r
}

// TestSegmentIndexTooLongForTheHeader: a block whose segment index would
// not fit in the gzip extra field (keys of 9,000 bytes, one a segment) is
// written without segments and looked up whole; with fewer segments the
// index fits and the block is segmented. Both look up as a scan does.
func TestSegmentIndexTooLongForTheHeader(t *testing.T) {
	var lines, keys []string
	for i := range 20 {
		key := fmt.Sprintf("com,example)/%02d/%s", i, strings.Repeat("x", 9000))
		keys = append(keys, key)
		for ts := range 2 {
			lines = append(lines, cdxj.Capture{Key: key, Timestamp: fmt.Sprintf("2020010100000%d", ts), URL: "http://example.com/",
				Status: "200", Length: 10, Filename: "a.warc.gz"}.Line())
		}
	}
	keys = append(keys, "com,example)/05", "com,example)/99", "a")
	for _, c := range []struct {
		perSegment int
		segmented  bool
	}{{1, false}, {10, true}} {
		dir := t.TempDir()
		if err := BuildSegments(dir, Lines(lines), 0, len(lines), c.perSegment); err != nil {
			t.Fatal(err)
		}
		r := lookupEqualsScan(t, dir, lines, keys)
		member := blockMember(t, r, 0)
		if x, err := parseSegmentIndex(member); err != nil || (x != nil) != c.segmented || (member[3]&0x04 != 0) != c.segmented {
			t.Errorf("%d lines a segment: segment index %v (%v), want one: %v", c.perSegment, x != nil, err, c.segmented)
		}
	}
}

// TestLookupInflatesOnlyItsSegments: a key in the middle of a block of 20
// segments is answered by inflating at most the segment its lines start in
// and the one before it; a key across two segments inflates both; an
// absent key before the block's first line inflates nothing.
func TestLookupInflatesOnlyItsSegments(t *testing.T) {
	lines := distinctLines(400)
	dir := t.TempDir()
	if err := BuildSegments(dir, Lines(lines), 0, len(lines), 20); err != nil {
		t.Fatal(err)
	}
	mid, _ := ParseLine(lines[210])
	r := lookupEqualsScan(t, dir, lines, []string{mid.Key})
	blockBytes := int64(len(strings.Join(lines, "\n")) + 1)
	if n := r.InflatedBytes(); n == 0 || n > blockBytes*3/20 {
		t.Errorf("a key of the 11th of 20 segments inflated %d of the block's %d bytes", n, blockBytes)
	}
	r = lookupEqualsScan(t, dir, lines, []string{"a"})
	if n := r.InflatedBytes(); n != 0 {
		t.Errorf("a key before the block's first line inflated %d bytes", n)
	}
}

// TestSegmentIndexOfOthers: an extra field with another subfield, or a
// "ZS" subfield of another version, is not a segment index: the block
// inflates whole. A damaged segment index is an error naming the block.
func TestSegmentIndexOfOthers(t *testing.T) {
	for _, extra := range [][]byte{{'A', 'B', 2, 0, 1, 2}, {'Z', 'S', 3, 0, 9, 2, 0}} {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Extra = extra
		zw.Write([]byte("com,a)/ 20200101000000 {}\n"))
		zw.Close()
		if x, err := parseSegmentIndex(b.Bytes()); x != nil || err != nil {
			t.Errorf("extra field %q: segment index %v, %v; want none", extra, x, err)
		}
	}
	lines := distinctLines(60)
	dir := t.TempDir()
	if err := BuildSegments(dir, Lines(lines), 0, len(lines), 10); err != nil {
		t.Fatal(err)
	}
	shard := filepath.Join(dir, ShardName(0))
	data, err := os.ReadFile(shard)
	if err != nil {
		t.Fatal(err)
	}
	x, err := parseSegmentIndex(data)
	if err != nil || x == nil {
		t.Fatalf("segment index %v, %v", x, err)
	}
	// The deflate offset of the third segment moved one byte on: inside its data.
	field := bytes.Index(data, []byte{segmentSubfieldID1, segmentSubfieldID2}) + 4
	p := field + 3
	for range 2 {
		p += segmentEntryLen + int(data[p+9]) + int(data[p+10])<<8
	}
	data[p+4]++
	if err := os.WriteFile(shard, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(dir, Options{CacheBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	key := x.keys[2] // the key that starts the third segment
	if _, err := r.Lookup([]string{key}); err == nil || !strings.Contains(err.Error(), "shard cdx-00000.gz") {
		t.Errorf("Lookup in a segment at a wrong offset: error %v, want one naming the shard", err)
	} else if errors.Is(err, io.EOF) {
		t.Errorf("error %v is io.EOF", err)
	}
}

// TestSegmentedBlockWithABadGzipHeader: a segmented block whose gzip
// header gzip readers refuse (a reserved flag bit set) is refused by a
// look-up too, with gzip.Reader's error naming the shard, as a block
// without segments is: its segments are not read past the header.
func TestSegmentedBlockWithABadGzipHeader(t *testing.T) {
	lines := distinctLines(60)
	dir := t.TempDir()
	if err := BuildSegments(dir, Lines(lines), 0, len(lines), 10); err != nil {
		t.Fatal(err)
	}
	shard := filepath.Join(dir, ShardName(0))
	data, err := os.ReadFile(shard)
	if err != nil {
		t.Fatal(err)
	}
	x, err := parseSegmentIndex(data)
	if err != nil || x == nil {
		t.Fatalf("segment index %v, %v", x, err)
	}
	data[3] |= 0x80
	if x, err := parseSegmentIndex(data); x != nil || err != nil {
		t.Fatalf("a header with a reserved flag bit: segment index %v, %v; want none", x, err)
	}
	if err := os.WriteFile(shard, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(dir, Options{CacheBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Lookup([]string{x.keys[2]}); !errors.Is(err, gzip.ErrHeader) || !strings.Contains(err.Error(), "shard cdx-00000.gz") {
		t.Errorf("Lookup in a block with a bad header: error %v, want gzip.ErrHeader naming the shard", err)
	}
}

// TestKeySegmentsEqualsAScan: keySegments' binary searches find the
// segments a scan of the segments' first keys finds, for keys in the
// index (across several segments too), between, before and after its
// keys, and keys that are a prefix of one or that one is a prefix of
// ('!' sorts just after the space that ends a key).
func TestKeySegmentsEqualsAScan(t *testing.T) {
	scan := func(x *segmentIndex, key string) (lo, hi int) {
		n, j := x.segments(), 0
		for j < n && belowKeySpace(x.keys[j], key, ' ') {
			j++
		}
		lo = max(j-1, 0)
		if j < n && x.newKey[j] && x.keys[j] == key {
			lo = j
		}
		hi = j
		for hi < n && belowKeySpace(x.keys[hi], key, '!') {
			hi++
		}
		return lo, hi
	}
	r := rand.New(rand.NewSource(4))
	word := func() string {
		b := make([]byte, 1+r.Intn(3))
		for i := range b {
			b[i] = "a!b/"[r.Intn(4)]
		}
		return string(b)
	}
	for range 300 {
		x := &segmentIndex{}
		for range 1 + r.Intn(12) {
			x.keys = append(x.keys, word())
			x.newKey = append(x.newKey, r.Intn(2) == 0)
		}
		slices.Sort(x.keys) // the characters sort after the space: as their lines do
		for range 20 {
			key := word()
			if r.Intn(2) == 0 {
				key = x.keys[r.Intn(len(x.keys))]
			}
			lo, hi := x.keySegments(key)
			if wantLo, wantHi := scan(x, key); lo != wantLo || hi != wantHi {
				t.Fatalf("keys %q, new key %v: key %q in segments [%d, %d), a scan finds [%d, %d)", x.keys, x.newKey, key, lo, hi, wantLo, wantHi)
			}
		}
	}
}

// TestSegmentKeysOutOfLineOrder: a segment index whose keys are in
// order as strings but not as the lines they start ("a" before "a\x01",
// whose lines sort the other way) is damaged: keySegments' binary search
// needs the lines' order.
func TestSegmentKeysOutOfLineOrder(t *testing.T) {
	data := []byte("a 1\na\x01 2\n")
	var deflated bytes.Buffer
	fw := must(flate.NewWriter(&deflated, flate.BestSpeed))
	fw.Write(data)
	fw.Close()
	member := appendSegmentedHeader(nil, data, []int{0, 4}, []int{0, 1})
	member = append(member, deflated.Bytes()...)
	member = binary.LittleEndian.AppendUint32(member, crc32.ChecksumIEEE(data))
	member = binary.LittleEndian.AppendUint32(member, uint32(len(data)))
	if x, err := parseSegmentIndex(member); !errors.Is(err, errSegmentIndex) || !strings.Contains(err.Error(), "does not follow") {
		t.Errorf("segment index %v, error %v; want errSegmentIndex: segment 2 does not follow segment 1", x, err)
	}
}

// distinctLines returns n index lines of n keys.
func distinctLines(n int) []string {
	var lines []string
	for i := range n {
		lines = append(lines, cdxj.Capture{Key: fmt.Sprintf("com,example)/%05d", i), Timestamp: "20200101000000",
			URL: fmt.Sprintf("http://example.com/%05d", i), Status: "200", Length: int64(i), Filename: "a.warc.gz"}.Line())
	}
	return lines
}
