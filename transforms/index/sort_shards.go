package index

import (
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/recrawl/recrawl/internal/index"
	"github.com/recrawl/recrawl/internal/lookup"
)

// SamplesPerShard is how many sampled keys back each shard boundary: with
// 200 samples per shard, shard sizes vary by a few percent.
const SamplesPerShard = 200

// TempDirPrefix starts the name of the folder of OUTPUT that holds one run's
// sorted runs and part files while the run lasts (".runs-" and a random
// suffix, so a run never writes into, or removes, a folder it did not
// make); the writers remove it at the end.
const TempDirPrefix = lookup.RunTempDirPrefix

// ShardSpec is one key-range shard of the index: its lines l, Lo <= l < Hi
// ("" unbounded), are in Runs.
type ShardSpec struct {
	Shard  int
	Lo, Hi string
	Runs   []index.Run
}

// SortIntoShards splits the sorted runs of IndexArchives into n key ranges
// of similar size, so each shard can be merged on one worker and the shards,
// concatenated in order, are globally sorted (the TeraSort scheme). It
// returns a PCollection<ShardSpec>, one per shard, spread over workers; the
// writers merge each shard's lines from the runs (index.MergeRuns), so no
// line passes through the runner.
//
// Boundaries come from a deterministic bottom-k sample of the lines (the k
// lines with the smallest hash; every run carries the sample of its own
// lines, and samples merge): the same input always gives the same shards,
// on every runner and for any cut of the files, without a pass that counts
// the input. The runs must have been made with SampleK >= n × SamplesPerShard.
func SortIntoShards(s beam.Scope, runs beam.PCollection, n int) beam.PCollection {
	s = s.Scope("SortIntoShards")
	if n < 1 {
		n = 1
	}
	plan := beam.Combine(s, &planShardsFn{K: n * SamplesPerShard, N: n}, runs)
	return beam.Reshuffle(s, beam.ParDo(s, emitShardSpecsFn, plan))
}

// shardPlan gathers the runs and the merged sample of their lines.
type shardPlan struct {
	Runs   []index.Run
	Sample index.Sample
}

// planShardsFn combines the runs into the specs of N shards.
type planShardsFn struct {
	K, N int
}

func (f *planShardsFn) CreateAccumulator() shardPlan { return shardPlan{} }

func (f *planShardsFn) AddInput(acc shardPlan, r SortedRun) shardPlan {
	acc.Runs = append(acc.Runs, r.Run)
	acc.Sample = index.MergeSamples(acc.Sample, r.Sample, f.K)
	return acc
}

func (f *planShardsFn) MergeAccumulators(a, b shardPlan) shardPlan {
	return shardPlan{Runs: append(a.Runs, b.Runs...), Sample: index.MergeSamples(a.Sample, b.Sample, f.K)}
}

func (f *planShardsFn) ExtractOutput(acc shardPlan) []ShardSpec {
	runs := slices.Clone(acc.Runs)
	slices.SortFunc(runs, func(a, b index.Run) int { return strings.Compare(a.Path, b.Path) })
	bounds := index.Boundaries(acc.Sample.Sorted(), f.N)
	specs := make([]ShardSpec, 0, len(bounds)+1)
	for i := 0; i <= len(bounds); i++ {
		spec := ShardSpec{Shard: i, Runs: runs}
		if i > 0 {
			spec.Lo = bounds[i-1]
		}
		if i < len(bounds) {
			spec.Hi = bounds[i]
		}
		specs = append(specs, spec)
	}
	return specs
}

func emitShardSpecsFn(specs []ShardSpec, emit func(ShardSpec)) {
	for _, s := range specs {
		emit(s)
	}
}
