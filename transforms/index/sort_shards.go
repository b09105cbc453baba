package index

import (
	"sort"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/recrawl/recrawl/internal/shardsample"
)

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
	emit(shardsample.Boundaries(sample, f.N))
}

type assignShardFn struct{}

func (assignShardFn) ProcessElement(line string, boundaries []string, emit func(int, string)) {
	emit(shardsample.ShardOf(line, boundaries), line)
}

// sampleKeysFn computes a bottom-k sample of lines (internal/shardsample).
type sampleKeysFn struct {
	K int
}

func (f *sampleKeysFn) CreateAccumulator() shardsample.Sample { return shardsample.Sample{} }

func (f *sampleKeysFn) AddInput(acc shardsample.Sample, line string) shardsample.Sample {
	acc.Add(line, f.K)
	return acc
}

func (f *sampleKeysFn) MergeAccumulators(a, b shardsample.Sample) shardsample.Sample {
	return shardsample.Merge(a, b, f.K)
}

func (f *sampleKeysFn) ExtractOutput(acc shardsample.Sample) []string { return acc.Sorted() }

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
