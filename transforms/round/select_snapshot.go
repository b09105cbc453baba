package round

import (
	"context"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/scoring"
)

// scorers caches the scorers of a worker process by job: every round of a
// run is a new pipeline with new DoFn instances but the same job, and
// building a scorer (dictionaries, reference vectors) costs far more than a
// round's fixed work. A Scorer is safe for concurrent use. Fetchers are not
// cached: each round resolves its archive files anew, so a file that went
// missing stops the round.
var scorers struct {
	sync.Mutex
	byJob map[string]*scoring.Scorer
}

// processorFor builds a step processor from a job in a DoFn's Setup.
func processorFor(ctx context.Context, jobJSON string, withScorer bool) (*extract.Processor, error) {
	job, err := extract.UnmarshalJob(jobJSON)
	if err != nil {
		return nil, err
	}
	p := &extract.Processor{Settings: job.Settings(), Fetcher: job.NewFetcher()}
	if !withScorer {
		return p, nil
	}
	scorers.Lock()
	defer scorers.Unlock()
	if sc, ok := scorers.byJob[jobJSON]; ok {
		p.Scorer = sc
		return p, nil
	}
	if p.Scorer, err = job.NewScorer(ctx); err != nil {
		return nil, err
	}
	if scorers.byJob == nil {
		scorers.byJob = map[string]*scoring.Scorer{}
	}
	scorers.byJob[jobJSON] = p.Scorer
	return p, nil
}

// SelectedChunk is a chunk of the batch after SelectSnapshot: the URLs
// with a capture to read, and the results of the URLs finished (missing).
type SelectedChunk struct {
	Selected []extract.Selected
	Done     []extract.Result
}

// countResult counts a finished URL by its outcome.
func countResult(ctx context.Context, r *extract.Result) {
	switch r.Outcome {
	case extract.OutcomeCollected, extract.OutcomeListing:
		beam.NewCounter(CounterNamespace, r.Outcome).Inc(ctx, 1)
	default:
		beam.NewCounter(CounterNamespace, "missing_"+r.ReasonCode).Inc(ctx, 1)
	}
}

// SelectSnapshot chooses each URL's capture (extract.SelectSnapshot):
// PCollection<SelectedChunk>, with the results of URLs that are missing.
func SelectSnapshot(s beam.Scope, resolved beam.PCollection, jobJSON string, round int) beam.PCollection {
	s = s.Scope("SelectSnapshot")
	return beam.ParDo(s, &selectSnapshotFn{JobJSON: jobJSON, Round: round}, resolved)
}

type selectSnapshotFn struct {
	JobJSON string
	Round   int
	proc    *extract.Processor
}

func (f *selectSnapshotFn) Setup(ctx context.Context) error {
	var err error
	f.proc, err = processorFor(ctx, f.JobJSON, false)
	return err
}

func (f *selectSnapshotFn) ProcessElement(ctx context.Context, chunk []Resolved, emit func(SelectedChunk)) {
	var out SelectedChunk
	for _, r := range chunk {
		sel, res := f.proc.SelectSnapshot(r.Ranked.Entry, r.Captures, f.Round, r.Ranked.Rank)
		if res != nil {
			countResult(ctx, res)
			out.Done = append(out.Done, *res)
			continue
		}
		out.Selected = append(out.Selected, sel)
	}
	emit(out)
}
