package zipnum

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/storage"
)

// perKeyLookup is the look-up of one key at a time through Range, which
// reads whole blocks: the reference the batched Lookup must equal.
func perKeyLookup(t *testing.T, r *Reader, keys []string) map[string][]cdxj.Capture {
	t.Helper()
	out := map[string][]cdxj.Capture{}
	for _, k := range keys {
		if _, done := out[k]; done || k == "" {
			continue
		}
		for l, err := range r.Range(k+" ", k+"!") {
			if err != nil {
				t.Fatal(err)
			}
			c, err := ParseLine(l)
			if err != nil {
				t.Fatal(err)
			}
			out[k] = append(out[k], c)
		}
	}
	return out
}

// TestLookupBatchEqualsPerKey looks up sorted and shuffled batches on an
// index of 7-line blocks in several shards (so keys span blocks and blocks
// lie end to end) and checks that each batch gives exactly the captures, in
// the same order, of one look-up per key, whatever the block cache holds:
// none, a few blocks, or the first lines of blocks that a later batch needs
// further.
func TestLookupBatchEqualsPerKey(t *testing.T) {
	lines, want := genLines(1200, 5)
	dir := t.TempDir()
	if err := Build(dir, Lines(lines), 900, 7); err != nil {
		t.Fatal(err)
	}
	ref, err := Open(dir, Options{CacheBytes: 1 << 30}) // Range caches whole blocks only
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range want {
			if !yield(k) {
				return
			}
		}
	})
	var firstKeys []string // keys equal to a block's first key
	for _, e := range ref.entries {
		k, _, _ := strings.Cut(e.Key, " ")
		firstKeys = append(firstKeys, k)
	}
	spanning := 0
	for _, k := range keys {
		if lo, hi := ref.blockRange(k+" ", k+"!"); hi-lo >= 2 && len(want[k]) > 1 {
			spanning++
		}
	}
	if spanning < 10 || len(firstKeys) < 100 {
		t.Fatalf("%d keys span blocks, %d blocks: the test data does not test what it should", spanning, len(firstKeys))
	}
	absent := []string{"a", "zzz", "com,host001)/page", "com,host001)/page1/x", "com,host050)/", "com,host096)/page9~"}

	rng := rand.New(rand.NewPCG(5, 6))
	var batches [][]string
	batches = append(batches, append(slices.Concat(keys, firstKeys, absent, keys[:50]), "")) // everything, duplicates
	for range 6 {
		var b []string
		for range 80 {
			b = append(b, keys[rng.IntN(len(keys))])
		}
		b = append(b, firstKeys[rng.IntN(len(firstKeys))], absent[rng.IntN(len(absent))], b[0])
		batches = append(batches, b)
	}
	batches = append(batches, []string{keys[0]}, []string{keys[len(keys)-1]}, nil)
	for _, cache := range []int64{-1, 4 << 10, 0} {
		r, err := Open(dir, Options{CacheBytes: cache})
		if err != nil {
			t.Fatal(err)
		}
		for i, b := range append(slices.Clone(batches[1:]), batches...) { // the first lines of blocks cached before all of them are needed
			if i%2 == 1 {
				slices.Sort(b)
			}
			got, err := r.Lookup(b)
			if err != nil {
				t.Fatal(err)
			}
			if exp := perKeyLookup(t, ref, b); !reflect.DeepEqual(got, exp) {
				for k := range exp {
					if !reflect.DeepEqual(got[k], exp[k]) {
						t.Errorf("%q:\n got %v\nwant %v", k, got[k], exp[k])
					}
				}
				t.Fatalf("cache %d, batch %d of %d keys: Lookup found %d keys, one look-up per key %d", cache, i, len(b), len(got), len(exp))
			}
			for _, k := range b {
				if cache != -1 {
					break // got equals exp, which the run without a cache held to want
				}
				if !reflect.DeepEqual(got[k], want[k]) {
					t.Fatalf("cache %d, batch %d: Lookup(%q): %d captures, the generated index has %d", cache, i, k, len(got[k]), len(want[k]))
				}
			}
		}
		r.Close()
	}
}

// countingReaderAt counts the reads of a shard file.
type countingReaderAt struct {
	storage.ReaderAt
	reads *atomic.Int64
}

func (c countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	c.reads.Add(1)
	return c.ReaderAt.ReadAt(p, off)
}

// TestLookupReadsAdjacentBlocksAtOnce: blocks that lie end to end in a
// shard are read with one read of up to maxRunBytes, not one read each.
func TestLookupReadsAdjacentBlocksAtOnce(t *testing.T) {
	lines, want := genLines(300, 7)
	dir := t.TempDir()
	if err := Build(dir, Lines(lines), 0, 20); err != nil { // one shard
		t.Fatal(err)
	}
	r, err := Open(dir, Options{CacheBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var reads atomic.Int64
	sf, err := r.shard(r.entries[0].Shard)
	if err != nil {
		t.Fatal(err)
	}
	sf.f = countingReaderAt{sf.f, &reads}
	shardBytes := sf.size
	if r.Blocks() < 10 || shardBytes > maxRunBytes {
		t.Fatalf("%d blocks in %d bytes: want at least 10 blocks within maxRunBytes", r.Blocks(), shardBytes)
	}
	keys := slices.Collect(func(yield func(string) bool) {
		for k := range want {
			if !yield(k) {
				return
			}
		}
	})
	got, err := r.Lookup(keys)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Errorf("found %d keys, want %d", len(got), len(want))
	}
	if n := reads.Load(); n != 1 {
		t.Errorf("a look-up of every key read the shard of %d blocks with %d reads, want 1", r.Blocks(), n)
	}
	if r.BytesRead() != shardBytes {
		t.Errorf("read %d bytes of the shard's %d", r.BytesRead(), shardBytes)
	}

	// Every other block: no two needed blocks are adjacent, one read each.
	reads.Store(0)
	var every2 []string
	for n := 0; n < r.Blocks(); n += 2 {
		k, _, _ := strings.Cut(r.entries[n].Key, " ")
		if lo, hi := r.blockRange(k+" ", k+"!"); lo == n && hi == n+1 {
			every2 = append(every2, k)
		}
	}
	if _, err := r.Lookup(every2); err != nil {
		t.Fatal(err)
	}
	if n := reads.Load(); n != int64(len(every2)) {
		t.Errorf("%d keys in separate blocks: %d reads, want %d", len(every2), n, len(every2))
	}
}

// TestLookupInflatesOnlyWhatItNeeds: a key at the start of a block is
// answered from the block's first lines; without a block cache (or once it
// is full) the rest is not inflated. A later look-up further into the
// block, and a Range over all of it, see every line.
func TestLookupInflatesOnlyWhatItNeeds(t *testing.T) {
	lines, want := genLines(300, 8)
	dir := t.TempDir()
	if err := Build(dir, Lines(lines), 0, len(lines)); err != nil { // one block
		t.Fatal(err)
	}
	r, err := Open(dir, Options{CacheBytes: -1}) // no cache: blocks inflate as far as their keys
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Blocks() != 1 {
		t.Fatalf("%d blocks, want 1", r.Blocks())
	}
	blockBytes := int64(len(strings.Join(lines, "\n")) + 1)
	first, _ := ParseLine(lines[0])
	got, err := r.Lookup([]string{first.Key})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got[first.Key], want[first.Key]) {
		t.Fatalf("Lookup(%q): %d captures, want %d", first.Key, len(got[first.Key]), len(want[first.Key]))
	}
	if n := r.InflatedBytes(); n > blockBytes/4 {
		t.Errorf("a key in the first lines of a block of %d bytes inflated %d of them", blockBytes, n)
	}
	last, _ := ParseLine(lines[len(lines)-1])
	got, err = r.Lookup([]string{first.Key, last.Key})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got[last.Key], want[last.Key]) || !reflect.DeepEqual(got[first.Key], want[first.Key]) {
		t.Errorf("after the first lines were cached, Lookup of the last key: %d captures, want %d", len(got[last.Key]), len(want[last.Key]))
	}
	var all []string
	for l, err := range r.Range("", "") {
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, l)
	}
	if !slices.Equal(all, lines) {
		t.Errorf("Range over the block read %d lines, want %d", len(all), len(lines))
	}
}

// TestLookupBlockOverLimit: a block that inflates past MaxBlockBytes before
// the lines a look-up needs end is an error naming the shard and the limit,
// found within the limit; a look-up answered by the lines before it is not.
func TestLookupBlockOverLimit(t *testing.T) {
	dir := t.TempDir()
	var shard bytes.Buffer
	member := func(data ...string) int64 {
		start := shard.Len()
		zw, _ := gzip.NewWriterLevel(&shard, gzip.BestSpeed)
		for _, d := range data {
			zw.Write([]byte(d))
		}
		zw.Close()
		return int64(shard.Len() - start)
	}
	line := func(key string) string {
		return key + ` 20100414120000 {"url": "http://x/", "status": "200", "offset": "0", "length": "1", "filename": "a.warc.gz"}` + "\n"
	}
	n1 := member(line("com,a)/"))
	n2 := member(line("com,c)/"), line("com,c)/a"), "com,c)/x 20100414120000 ", strings.Repeat("y", MaxBlockBytes), "\n")
	if err := os.WriteFile(filepath.Join(dir, "cdx.gz"), shard.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	idx := fmt.Sprintf("com,a)/ 20100414120000\tcdx.gz\t0\t%d\t1\ncom,c)/ 20100414120000\tcdx.gz\t%d\t%d\t2\n", n1, n1, n2)
	if err := os.WriteFile(filepath.Join(dir, "cluster.idx"), []byte(idx), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(dir, Options{CacheBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := r.Lookup([]string{"com,a)/", "com,c)/"})
	if err != nil || len(got["com,a)/"]) != 1 || len(got["com,c)/"]) != 1 {
		t.Errorf("look-up before the long line: %d and %d captures, %v; want 1, 1, no error", len(got["com,a)/"]), len(got["com,c)/"]), err)
	}
	_, err = r.Lookup([]string{"com,a)/", "com,c)/x"})
	if !errors.Is(err, ErrBlockTooLarge) || !strings.Contains(err.Error(), filepath.Join(dir, "cdx.gz")) || !strings.Contains(err.Error(), "MaxBlockBytes") {
		t.Errorf("look-up of the line past MaxBlockBytes: %v", err)
	}
	if n := r.InflatedBytes(); n > MaxBlockBytes+1<<20 {
		t.Errorf("inflated %d bytes in all, block limit %d", n, MaxBlockBytes)
	}
}

// TestBelowKeyBound: belowKeyBound(s, key, sep) is s < key+string(sep).
func TestBelowKeyBound(t *testing.T) {
	words := []string{"", "a", "a ", "a!", "a b", "a!b", "ab", "a)", "b", "a\x1f", "com,x)/", "com,x)/ 2020", "com,x)/a"}
	for _, s := range words {
		for _, key := range words {
			for _, sep := range []byte{' ', '!'} {
				if got, want := belowKeyBound(s, key, sep), s < key+string(sep); got != want {
					t.Errorf("belowKeyBound(%q, %q, %q) = %v, want %v", s, key, sep, got, want)
				}
			}
		}
	}
}
