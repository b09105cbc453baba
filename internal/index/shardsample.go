// Shard boundaries (this file): splits sorted data into key ranges of similar size
// without counting it first: a deterministic bottom-k sample (the k items
// with the smallest hash) picks the range boundaries. It is the pure core of
// the index pipeline's SortIntoShards (the TeraSort scheme): the same input
// always gives the same shards, on every runner, and samples of parts of the
// input merge into the sample of the whole.

package index

import (
	"bytes"
	"sort"

	"github.com/recrawl/recrawl/internal/cdxj"
)

// SampleItem is one sampled line: its hash and its sort prefix.
type SampleItem struct {
	Hash uint64
	Line string
}

// Sample is a bottom-k sample, ordered by (hash, line).
type Sample struct {
	Items []SampleItem
}

// Add offers one line to a sample of at most k items. Only the line's sort
// prefix (key and timestamp) is kept: boundaries need nothing more.
func (s *Sample) Add(line string, k int) {
	s.add(SampleItem{Hash: hash(line), Line: cdxj.LineSortKey(line)}, k)
}

// AddBytes is Add for a line held as bytes (a line of a batch): the line
// becomes a string only if its hash may enter the sample.
func (s *Sample) AddBytes(line []byte, k int) {
	h := hash(line)
	if len(s.Items) >= k && h > s.Items[len(s.Items)-1].Hash {
		return
	}
	s.add(SampleItem{Hash: h, Line: cdxj.LineSortKey(string(line))}, k)
}

func (s *Sample) add(item SampleItem, k int) {
	if len(s.Items) >= k && !less(item, s.Items[len(s.Items)-1]) {
		return
	}
	i := sort.Search(len(s.Items), func(i int) bool { return !less(s.Items[i], item) })
	s.Items = append(s.Items, SampleItem{})
	copy(s.Items[i+1:], s.Items[i:])
	s.Items[i] = item
	if len(s.Items) > k {
		s.Items = s.Items[:k]
	}
}

// MergeSamples returns the sample of the union of two samples' inputs.
func MergeSamples(a, b Sample, k int) Sample {
	merged := make([]SampleItem, 0, len(a.Items)+len(b.Items))
	merged = append(merged, a.Items...)
	merged = append(merged, b.Items...)
	sort.Slice(merged, func(i, j int) bool { return less(merged[i], merged[j]) })
	if len(merged) > k {
		merged = merged[:k]
	}
	return Sample{Items: merged}
}

// Sorted returns the sampled sort prefixes in sort order.
func (s Sample) Sorted() []string {
	out := make([]string, len(s.Items))
	for i, it := range s.Items {
		out[i] = it.Line
	}
	sort.Strings(out)
	return out
}

// Boundaries picks n-1 split keys from a sorted sample: shard i holds the
// lines l with boundaries[i-1] <= l < boundaries[i].
func Boundaries(sortedSample []string, n int) []string {
	if n <= 1 || len(sortedSample) == 0 {
		return nil
	}
	var b []string
	for i := 1; i < n; i++ {
		k := sortedSample[i*len(sortedSample)/n]
		if len(b) == 0 || k > b[len(b)-1] {
			b = append(b, k)
		}
	}
	return b
}

// ShardOf returns the shard of a line for the given boundaries.
func ShardOf(line string, boundaries []string) int {
	return sort.Search(len(boundaries), func(i int) bool { return line < boundaries[i] })
}

// ShardOfBytes is ShardOf for a line held as bytes.
func ShardOfBytes(line []byte, boundaries [][]byte) int {
	return sort.Search(len(boundaries), func(i int) bool { return bytes.Compare(line, boundaries[i]) < 0 })
}

// hash is 64-bit FNV-1a (hash/fnv's New64a), without an allocation.
func hash[T string | []byte](s T) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

func less(a, b SampleItem) bool {
	if a.Hash != b.Hash {
		return a.Hash < b.Hash
	}
	return a.Line < b.Line
}
