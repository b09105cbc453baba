package index

import (
	"fmt"
	"hash/fnv"
	"math/rand"
	"sort"
	"testing"

	"github.com/recrawl/recrawl/internal/cdxj"
)

func TestShardBoundariesBalanceAndOrder(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var lines []string
	for i := 0; i < 20000; i++ {
		lines = append(lines, fmt.Sprintf("com,host%03d)/page/%d 2009%010d {}", rng.Intn(300), rng.Intn(1000), rng.Intn(1e9)))
	}
	const k = 8 * 200
	// Two samples merged must equal one over everything (combiner lifting).
	var a, b, whole Sample
	for i, l := range lines {
		if i%2 == 0 {
			a.Add(l, k)
		} else {
			b.Add(l, k)
		}
		whole.Add(l, k)
	}
	merged := MergeSamples(a, b, k).Sorted()
	if fmt.Sprint(merged) != fmt.Sprint(whole.Sorted()) {
		t.Fatal("sample of merged samples differs from the sample of all input")
	}
	bounds := Boundaries(merged, 8)
	if len(bounds) != 7 || !sort.StringsAreSorted(bounds) {
		t.Fatalf("boundaries = %v", bounds)
	}
	counts := make([]int, 8)
	for _, l := range lines {
		counts[ShardOf(l, bounds)]++
	}
	for i, c := range counts {
		if c < 20000/8*7/10 || c > 20000/8*13/10 {
			t.Errorf("shard %d has %d lines, want about %d: %v", i, c, 20000/8, counts)
		}
	}
	// Concatenating sorted shards must give the globally sorted list.
	byShard := make([][]string, 8)
	for _, l := range lines {
		i := ShardOf(l, bounds)
		byShard[i] = append(byShard[i], l)
	}
	var concat []string
	for _, sh := range byShard {
		sort.Strings(sh)
		concat = append(concat, sh...)
	}
	if !sort.StringsAreSorted(concat) {
		t.Error("concatenated shards are not globally sorted")
	}
}

func TestShardBoundariesDegenerate(t *testing.T) {
	if b := Boundaries(nil, 4); b != nil {
		t.Errorf("no sample: %v", b)
	}
	if b := Boundaries([]string{"a", "b"}, 1); b != nil {
		t.Errorf("one shard: %v", b)
	}
	// Duplicate sample keys must not give duplicate (empty-range) boundaries.
	b := Boundaries([]string{"a", "a", "a", "a", "b", "b"}, 4)
	for i := 1; i < len(b); i++ {
		if b[i] <= b[i-1] {
			t.Errorf("boundaries not strictly increasing: %v", b)
		}
	}
	if got := cdxj.LineSortKey("com,a)/ 20090101000000 {\"url\": \"x y\"}"); got != "com,a)/ 20090101000000" {
		t.Errorf("sortPrefix = %q", got)
	}
}

// TestAddBytesEqualsAdd: lines offered as bytes give the sample and the
// shards that the same lines as strings give, and the hash is FNV-1a.
func TestAddBytesEqualsAdd(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	const k = 300
	var s, b Sample
	var lines []string
	for i := 0; i < 5000; i++ {
		l := fmt.Sprintf("org,site%02d)/%d 2010%010d {}", rng.Intn(50), rng.Intn(500), rng.Intn(1e9))
		lines = append(lines, l)
		s.Add(l, k)
		b.AddBytes([]byte(l), k)
	}
	if fmt.Sprint(s) != fmt.Sprint(b) {
		t.Fatal("AddBytes gave another sample than Add")
	}
	bounds := Boundaries(s.Sorted(), 5)
	var bb [][]byte
	for _, x := range bounds {
		bb = append(bb, []byte(x))
	}
	for _, l := range lines {
		if ShardOf(l, bounds) != ShardOfBytes([]byte(l), bb) {
			t.Fatalf("ShardOfBytes(%q) differs from ShardOf", l)
		}
	}
	f := fnv.New64a()
	f.Write([]byte(lines[0]))
	if hash(lines[0]) != f.Sum64() {
		t.Error("hash is not FNV-1a")
	}
}
