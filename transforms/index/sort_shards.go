package index

import (
	"bytes"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/recrawl/recrawl/internal/shardsample"
)

// samplesPerShard is how many sampled keys back each shard boundary: with
// 200 samples per shard, shard sizes vary by a few percent.
const samplesPerShard = 200

// SortIntoShards splits batches of CDXJ lines (IndexArchives) into n key
// ranges of similar size and groups each range, so each shard can be sorted
// on one worker and the shards, concatenated in order, are globally sorted
// (the TeraSort scheme).
//
// Boundaries come from a deterministic bottom-k sample of the lines (the k
// lines with the smallest hash): the same input always gives the same shards,
// on every runner, without a first pass that counts the input.
// The result is a PCollection<KV<int, iterable<[]byte>>>: shard number → its
// lines in batches, unsorted; SortedShard sorts them.
func SortIntoShards(s beam.Scope, batches beam.PCollection, n int) beam.PCollection {
	s = s.Scope("SortIntoShards")
	if n < 1 {
		n = 1
	}
	sample := beam.Combine(s, &sampleKeysFn{K: n * samplesPerShard}, batches)
	boundaries := beam.ParDo(s, &shardBoundariesFn{N: n}, sample)
	// Each batch is cut into one batch per shard it has lines of.
	keyed := beam.ParDo(s, &assignShardFn{}, batches, beam.SideInput{Input: boundaries})
	return beam.GroupByKey(s, keyed)
}

// shardBoundariesFn turns the sorted sample into shard boundaries.
type shardBoundariesFn struct{ N int }

func (f *shardBoundariesFn) ProcessElement(sample []string, emit func([]string)) {
	emit(shardsample.Boundaries(sample, f.N))
}

// assignShardFn cuts a batch of lines into batches per shard.
type assignShardFn struct {
	bounds [][]byte // the side input as bytes, kept across elements
	key    []string
}

func (f *assignShardFn) ProcessElement(batch []byte, boundaries []string, emit func(int, []byte)) {
	if !slices.Equal(f.key, boundaries) {
		f.key = boundaries
		f.bounds = f.bounds[:0]
		for _, b := range boundaries {
			f.bounds = append(f.bounds, []byte(b))
		}
	}
	if len(f.bounds) == 0 {
		emit(0, batch)
		return
	}
	parts := make([][]byte, len(f.bounds)+1)
	forEachLine(batch, func(line []byte) {
		i := shardsample.ShardOfBytes(line, f.bounds)
		parts[i] = append(append(parts[i], line...), '\n')
	})
	for i, p := range parts {
		if len(p) > 0 {
			emit(i, p)
		}
	}
}

// sampleKeysFn computes a bottom-k sample of the lines of batches
// (internal/shardsample).
type sampleKeysFn struct {
	K int
}

func (f *sampleKeysFn) CreateAccumulator() shardsample.Sample { return shardsample.Sample{} }

func (f *sampleKeysFn) AddInput(acc shardsample.Sample, batch []byte) shardsample.Sample {
	forEachLine(batch, func(line []byte) { acc.AddBytes(line, f.K) })
	return acc
}

func (f *sampleKeysFn) MergeAccumulators(a, b shardsample.Sample) shardsample.Sample {
	return shardsample.Merge(a, b, f.K)
}

func (f *sampleKeysFn) ExtractOutput(acc shardsample.Sample) []string { return acc.Sorted() }

// SortedShard drains a shard's batches and returns its lines (without
// newlines) sorted as pywb sorts an index: by the whole line, bytewise,
// which orders by key, then timestamp, then the JSON block (so equal key and
// timestamp still sort deterministically). The lines point into the
// batches: nothing is copied.
func SortedShard(iter func(*[]byte) bool) [][]byte {
	var lines [][]byte
	var batch []byte
	for iter(&batch) {
		forEachLine(batch, func(line []byte) { lines = append(lines, line) })
	}
	slices.SortFunc(lines, bytes.Compare)
	return lines
}
