package transforms

import (
	"hash/fnv"
	"reflect"
	"sort"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
)

func init() {
	register.Combiner3[keySample, string, []string](&sampleKeysFn{})
	register.DoFn3x0[string, []string, func(int, string)](&assignShardFn{})
	register.Emitter2[int, string]()
	register.Iter1[string]()
	register.DoFn2x0[[]string, func([]string)](&shardBoundariesFn{})
	register.Emitter1[[]string]()
	beam.RegisterType(reflect.TypeOf((*keySample)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*sampledKey)(nil)).Elem())
}

// samplesPerShard is how many sampled keys back each shard boundary: with
// 200 samples per shard, shard sizes vary by a few percent.
const samplesPerShard = 200

// SortIntoShards splits CDXJ lines into n key ranges of similar size and
// groups each range, so each shard can be sorted on one worker and the shards,
// concatenated in order, are globally sorted (the TeraSort scheme).
//
// Boundaries come from a deterministic bottom-k sample of the lines (the k
// lines with the smallest hash): the same input always gives the same shards,
// on every runner, without a first pass that counts the input.
// The result is a PCollection<KV<int, iterable<string>>>: shard number → its
// lines, unsorted; SortedShard sorts them.
func SortIntoShards(s beam.Scope, lines beam.PCollection, n int) beam.PCollection {
	s = s.Scope("SortIntoShards")
	if n < 1 {
		n = 1
	}
	sample := beam.Combine(s, &sampleKeysFn{K: n * samplesPerShard}, lines)
	boundaries := beam.ParDo(s, &shardBoundariesFn{N: n}, sample)
	keyed := beam.ParDo(s, &assignShardFn{}, lines, beam.SideInput{Input: boundaries})
	return beam.GroupByKey(s, keyed)
}

// shardBoundariesFn turns the sorted sample into shard boundaries.
type shardBoundariesFn struct{ N int }

func (f *shardBoundariesFn) ProcessElement(sample []string, emit func([]string)) {
	emit(ShardBoundaries(sample, f.N))
}

// ShardBoundaries picks n-1 split keys from a sorted sample: shard i holds
// the lines l with boundaries[i-1] <= l < boundaries[i].
func ShardBoundaries(sortedSample []string, n int) []string {
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

type assignShardFn struct{}

func (assignShardFn) ProcessElement(line string, boundaries []string, emit func(int, string)) {
	emit(ShardOf(line, boundaries), line)
}

// sampledKey is one line of the sample with its hash.
type sampledKey struct {
	Hash uint64
	Line string
}

// keySample is a bottom-k sample: the K lines with the smallest hashes,
// ordered by (hash, line).
type keySample struct {
	Items []sampledKey
}

// sampleKeysFn computes a bottom-k sample of lines. Only the sort prefix of
// each line (key and timestamp) is kept: boundaries need nothing more.
type sampleKeysFn struct {
	K int
}

func lineHash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

func (f *sampleKeysFn) CreateAccumulator() keySample { return keySample{} }

func (f *sampleKeysFn) AddInput(acc keySample, line string) keySample {
	item := sampledKey{Hash: lineHash(line), Line: sortPrefix(line)}
	if len(acc.Items) >= f.K {
		last := acc.Items[len(acc.Items)-1]
		if !lessSample(item, last) {
			return acc
		}
	}
	i := sort.Search(len(acc.Items), func(i int) bool { return !lessSample(acc.Items[i], item) })
	acc.Items = append(acc.Items, sampledKey{})
	copy(acc.Items[i+1:], acc.Items[i:])
	acc.Items[i] = item
	if len(acc.Items) > f.K {
		acc.Items = acc.Items[:f.K]
	}
	return acc
}

func (f *sampleKeysFn) MergeAccumulators(a, b keySample) keySample {
	merged := make([]sampledKey, 0, len(a.Items)+len(b.Items))
	merged = append(merged, a.Items...)
	merged = append(merged, b.Items...)
	sort.Slice(merged, func(i, j int) bool { return lessSample(merged[i], merged[j]) })
	if len(merged) > f.K {
		merged = merged[:f.K]
	}
	return keySample{Items: merged}
}

func (f *sampleKeysFn) ExtractOutput(acc keySample) []string {
	out := make([]string, len(acc.Items))
	for i, it := range acc.Items {
		out[i] = it.Line
	}
	sort.Strings(out)
	return out
}

func lessSample(a, b sampledKey) bool {
	if a.Hash != b.Hash {
		return a.Hash < b.Hash
	}
	return a.Line < b.Line
}

// sortPrefix returns "KEY TIMESTAMP" of a CDXJ line.
func sortPrefix(line string) string {
	if i := strings.IndexByte(line, ' '); i >= 0 {
		if j := strings.IndexByte(line[i+1:], ' '); j >= 0 {
			return line[:i+1+j]
		}
	}
	return line
}

// SortedShard drains a shard's lines and sorts them as pywb sorts an index:
// by the whole line, bytewise, which orders by key, then timestamp, then the
// JSON block (so equal key and timestamp still sort deterministically).
func SortedShard(iter func(*string) bool) []string {
	var lines []string
	var l string
	for iter(&l) {
		lines = append(lines, l)
	}
	sort.Strings(lines)
	return lines
}
