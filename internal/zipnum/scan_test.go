package zipnum

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/recrawl/recrawl/internal/cdxj"
)

// scanLookup is the look-up of keys by a scan of every line of the index
// in order: the reference for Lookup, which finds the lines of a key by
// binary search in the inflated text of the blocks that can hold them.
func scanLookup(t *testing.T, lines, keys []string) map[string][]cdxj.Capture {
	t.Helper()
	want := map[string]bool{}
	for _, k := range keys {
		want[k] = k != ""
	}
	out := map[string][]cdxj.Capture{}
	for _, l := range lines {
		key, _, _ := strings.Cut(l, " ")
		if !want[key] {
			continue
		}
		c, err := ParseLine(l)
		if err != nil {
			t.Fatal(err)
		}
		out[key] = append(out[key], c)
	}
	return out
}

// TestLookupEqualsScan: Lookup on indexes of blocks of 1 to 400 lines, with
// and without a block cache (so blocks are inflated whole and in part, and
// found in the cache whole and in part: every batch follows a batch of
// every other key of it), gives for every key exactly the
// captures a scan of all lines finds, in the same order: keys present,
// absent (before the first, after the last, between two keys, a prefix of
// a key), the first and last keys of blocks, keys whose lines span blocks,
// and duplicates in a batch. Range over random bounds equals the scan too.
func TestLookupEqualsScan(t *testing.T) {
	lines, byKey := genLines(150, 9)
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range byKey {
			if !yield(k) {
				return
			}
		}
	})
	absent := []string{"a", "com,host000)", "com,host001)/page1 ", "com,host001)/page1!", "com,host050)/page", "com,host096)/page9~", "zzz"}
	rng := rand.New(rand.NewPCG(9, 10))
	for _, size := range []struct{ perBlock, perSegment int }{{1, 0}, {3, 0}, {50, 1}, {50, 7}, {400, 0}, {400, 30}} {
		perBlock := size.perBlock
		dir := t.TempDir()
		if err := BuildSegments(dir, Lines(lines), len(lines)/3+1, perBlock, size.perSegment); err != nil {
			t.Fatal(err)
		}
		for _, cache := range []int64{-1, int64(perBlock) * 300, 0} { // none, a block and a half, 64 MiB
			r, err := Open(dir, Options{CacheBytes: cache})
			if err != nil {
				t.Fatal(err)
			}
			var edges []string // the keys of the first and last lines of every block and segment
			for b := range r.Blocks() {
				first, _, _ := strings.Cut(r.entries[b].Key, " ")
				edges = append(edges, first)
				if b > 0 {
					edges = append(edges, keyBefore(lines, first))
				}
				for _, k := range segmentKeys(t, r, b) {
					edges = append(edges, k, keyBefore(lines, k))
				}
			}
			batches := [][]string{slices.Concat(edges, absent, edges[:len(edges)/2])}
			for range 8 {
				var batch []string
				for range 40 {
					batch = append(batch, keys[rng.IntN(len(keys))])
				}
				batch = append(batch, absent[rng.IntN(len(absent))], batch[0], "")
				batches = append(batches, batch)
			}
			batches = append(batches, keys, []string{keys[len(keys)-1]}, []string{keys[0]})
			var steps [][]string // each batch after every other key of it: blocks cached in part, then needed further
			for _, batch := range batches {
				sorted := slices.Sorted(slices.Values(batch))
				var half []string
				for i := 0; i < len(sorted); i += 2 {
					half = append(half, sorted[i])
				}
				steps = append(steps, half, batch)
			}
			for i, batch := range steps {
				got, err := r.Lookup(batch)
				if err != nil {
					t.Fatal(err)
				}
				if want := scanLookup(t, lines, batch); !reflect.DeepEqual(got, want) {
					for k := range want {
						if !reflect.DeepEqual(got[k], want[k]) {
							t.Errorf("%q: got %d captures, the scan %d", k, len(got[k]), len(want[k]))
						}
					}
					t.Fatalf("%d lines a block, %d a segment, cache %d, batch %d of %d keys: Lookup found %d keys, the scan %d", perBlock, size.perSegment, cache, i, len(batch), len(got), len(want))
				}
			}
			for range 20 {
				start, end := lines[rng.IntN(len(lines))][:20+rng.IntN(20)], lines[rng.IntN(len(lines))]
				if rng.IntN(4) == 0 {
					end = ""
				}
				var got []string
				for l, err := range r.Range(start, end) {
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, l)
				}
				var want []string
				for _, l := range lines {
					if l >= start && (end == "" || l < end) {
						want = append(want, l)
					}
				}
				if !slices.Equal(got, want) {
					t.Fatalf("%d lines a block, cache %d: Range(%q, %q): %d lines, the scan %d", perBlock, cache, start, end, len(got), len(want))
				}
			}
			r.Close()
		}
	}
}

// keyBefore returns the key of the line before the first line of key.
func keyBefore(lines []string, key string) string {
	i := sort.SearchStrings(lines, key+" ")
	k, _, _ := strings.Cut(lines[max(i-1, 0)], " ")
	return k
}

// TestBlockSearch: block.search finds the first line a bound is not above,
// as sort.Search does on the split lines, for every bound and starting
// line, in sorted blocks with empty lines, one line, no line, and a last line
// without or with its newline (trimmed as inflate trims it).
func TestBlockSearch(t *testing.T) {
	for _, text := range []string{"", "a", "a\nb", "\nb\nc", "\n\na\nb", "a\nb\n", "a\nb\nb\nb\nc\ndd\ne", "b\nb\nb", "\n\n", "\na\nab\nabc\nb"} {
		data := strings.TrimSuffix(text, "\n")
		var split []string
		if data != "" {
			split = strings.Split(data, "\n")
		}
		blk := &block{data: data}
		var offs []int // the offset of each line, then linesEnd
		for off := 0; off < blk.linesEnd(); {
			line, next := blk.line(off)
			offs = append(offs, off)
			if line != split[len(offs)-1] {
				t.Fatalf("%q: line %d is %q, want %q", text, len(offs)-1, line, split[len(offs)-1])
			}
			off = next
		}
		if len(offs) != len(split) {
			t.Fatalf("%q: %d lines, want %d", text, len(offs), len(split))
		}
		offs = append(offs, blk.linesEnd())
		if last, ok := blk.lastLine(); ok != (len(split) > 0) || (ok && last != split[len(split)-1]) {
			t.Errorf("%q: last line %q, %v", text, last, ok)
		}
		for _, bound := range []string{"", "\x00", "a", "a\x00", "ab", "abd", "b", "b\x00", "c", "dd", "e", "z"} {
			for from := range len(split) + 1 {
				want := from + sort.Search(len(split)-from, func(i int) bool { return split[from+i] >= bound })
				if got := blk.search(offs[from], func(l string) bool { return l < bound }); got != offs[want] {
					t.Errorf("%q: search for %q from line %d: offset %d, want %d (line %d)", text, bound, from, got, offs[want], want)
				}
			}
		}
	}
}

// TestLookupInflatesAsFarAsItsKeysWithACache: with a block cache, small or
// with room for the whole index, a look-up inflates a block only as far as
// its keys, and the look-ups of the same keys after it find those first
// lines in the cache.
func TestLookupInflatesAsFarAsItsKeysWithACache(t *testing.T) {
	lines, want := genLines(300, 8)
	dir := t.TempDir()
	if err := Build(dir, Lines(lines), 0, len(lines)); err != nil { // one block
		t.Fatal(err)
	}
	blockBytes := int64(len(strings.Join(lines, "\n")) + 1)
	first, _ := ParseLine(lines[0])
	for _, cache := range []int64{blockBytes / 2, 0} {
		r, err := Open(dir, Options{CacheBytes: cache})
		if err != nil {
			t.Fatal(err)
		}
		for range 4 {
			got, err := r.Lookup([]string{first.Key})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got[first.Key], want[first.Key]) {
				t.Fatalf("Lookup(%q): %d captures, want %d", first.Key, len(got[first.Key]), len(want[first.Key]))
			}
		}
		if n := r.InflatedBytes(); n > blockBytes/4 {
			t.Errorf("cache %d: 4 look-ups of a key in the first lines of a block of %d bytes inflated %d bytes", cache, blockBytes, n)
		}
		if r.BlocksRead() != 1 {
			t.Errorf("cache %d: 4 look-ups of the same key read %d blocks, want 1", cache, r.BlocksRead())
		}
		r.Close()
	}
}
