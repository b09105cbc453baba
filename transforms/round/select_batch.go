package round

import (
	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/scoring"
)

// SelectBatch takes the K best frontier entries: a singleton
// PCollection<[]extract.Entry> in ranking order. The combiner's accumulator
// is extract.TopK itself.
func SelectBatch(s beam.Scope, frontier beam.PCollection, k, maxPerHost, strategy int) beam.PCollection {
	s = s.Scope("SelectBatch")
	return beam.Combine(s, &topKFn{K: k, MaxPerHost: maxPerHost, Strategy: strategy}, frontier)
}

type topKFn struct {
	K, MaxPerHost, Strategy int
}

func (f *topKFn) CreateAccumulator() extract.TopK {
	return *extract.NewTopK(f.K, f.MaxPerHost, extract.Ranking{Strategy: scoring.Strategy(f.Strategy)})
}

func (f *topKFn) AddInput(acc extract.TopK, e extract.Entry) extract.TopK {
	acc.Add(e)
	return acc
}

func (f *topKFn) MergeAccumulators(a, b extract.TopK) extract.TopK {
	a.Merge(&b)
	return a
}

func (f *topKFn) ExtractOutput(acc extract.TopK) []extract.Entry { return acc.Result() }
