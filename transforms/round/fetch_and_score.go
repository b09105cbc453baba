package round

import (
	"runtime"

	"context"
	"fmt"
	"golang.org/x/sync/errgroup"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/extract/roundstate"
	"github.com/recrawl/recrawl/internal/storage"
)

// FetchAndScore reads each selected record (extract.Processor.FetchRecord)
// and scores it (extract.Processor.Score), one URL after the other on each
// of the worker's cores, and writes the results of every URL of each chunk,
// the chunk's earlier ones included, to the results file of its bundle
// (OutDir/results, internal/extract/roundstate; in no particular order: the driver orders them by rank).
// It returns
//
//   - discovered: KV<SURT key, Discovery>, the new entries of the results
//     (seen before or not) and the URLs of the chunk (Taken), not merged
//     per key;
//   - parts: the manifest lines of the results files.
//
// Reading, scoring and writing are one DoFn so that neither a record's
// bytes nor a result ever becomes an element: the SDK encodes the first
// elements of every bundle to sample their size, and a chunk of records or
// results is several MB. It takes no side input on purpose: prism's
// scheduler re-checks a stage with side inputs in a busy loop for as long as
// one of its bundles runs, which for this stage, the longest of a round,
// would cost a core. A missing archive file fails the round.
func FetchAndScore(s beam.Scope, selected beam.PCollection, cfg Config) (discovered, parts beam.PCollection) {
	s = s.Scope("FetchAndScore")
	return beam.ParDo2(s, &fetchAndScoreFn{JobJSON: cfg.JobJSON, Dir: storage.Join(cfg.OutDir, roundstate.ResultsDir), Learned: cfg.Learned}, selected)
}

type fetchAndScoreFn struct {
	JobJSON string
	Dir     string // of the results files
	// Learned: what was learned before the round (learn_links, feedback;
	// extract.Learner.JSON).
	Learned string
	proc    *extract.Processor
	pw      roundstate.PartWriter
}

func (f *fetchAndScoreFn) Setup(ctx context.Context) (err error) {
	f.pw, f.proc, err = setupScoring(ctx, f.Dir, f.JobJSON, f.Learned)
	return err
}

// setupScoring makes what a DoFn that reads and scores records needs: a
// writer of results part files in dir, and the job's processor with what
// was learned before the round (learned: extract.Learner.JSON).
func setupScoring(ctx context.Context, dir, jobJSON, learned string) (roundstate.PartWriter, *extract.Processor, error) {
	pw := roundstate.NewPartWriter(dir, roundstate.KindResults)
	proc, err := processorFor(ctx, jobJSON, true)
	if err != nil {
		return pw, nil, err
	}
	l, err := extract.DecodeLearned(learned)
	proc.Use(l)
	return pw, proc, err
}

func (f *fetchAndScoreFn) ProcessElement(ctx context.Context, in SelectedChunk, discovered func(string, Discovery), _ func(string)) error {
	return scoreAndWrite(ctx, f.proc, &f.pw, in, func(r *extract.Result) { discoverTaken(r, discovered) })
}

// discoverTaken emits what a result the round takes discovers: its own key
// taken, and its outlinks as new entries.
func discoverTaken(r *extract.Result, discovered func(string, Discovery)) {
	discovered(r.Entry.Key, Discovery{Taken: true})
	for _, e := range r.NewEntries {
		discovered(e.Key, Discovery{Entry: e, HasEntry: true})
	}
}

// scoreAndWrite scores a chunk (scoreChunk), counts the results of its
// selected URLs, writes every result to pw and hands each to written once
// it is written. On an error it aborts pw.
func scoreAndWrite(ctx context.Context, proc *extract.Processor, pw *roundstate.PartWriter, in SelectedChunk, written func(*extract.Result)) error {
	results, err := scoreChunk(ctx, proc, in)
	if err != nil {
		pw.Abort()
		return err
	}
	for i := range results[len(in.Done):] {
		countResult(ctx, &results[len(in.Done)+i])
	}
	for i := range results {
		if err := pw.Write(ctx, &results[i]); err != nil {
			pw.Abort()
			return err
		}
		written(&results[i])
	}
	return nil
}

// scoreChunk reads and scores the records of a chunk and returns the
// results of every URL of it: the chunk's finished ones (in.Done), then
// those of in.Selected in order.
func scoreChunk(ctx context.Context, proc *extract.Processor, in SelectedChunk) ([]extract.Result, error) {
	chunk := in.Selected
	results := make([]extract.Result, len(in.Done)+len(chunk))
	copy(results, in.Done)
	finished := results[len(in.Done):]
	errs := make([]error, len(chunk))
	// Reading records and scoring them are independent per URL, and a
	// round's chunk arrives as one element: without this, a worker would
	// use one core for the whole round.
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range chunk {
		g.Go(func() error {
			fetched, res, err := proc.FetchRecord(ctx, chunk[i])
			switch {
			case err != nil:
				errs[i] = err
			case res != nil: // a record problem or a redirect
				finished[i] = *res
			default:
				finished[i] = proc.Score(fetched)
			}
			return nil
		})
	}
	g.Wait() // errors are kept per URL, to report the first in rank order
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("round %d: %s: %w", chunk[i].Round, chunk[i].Entry.URL, err)
		}
	}
	return results, nil
}

// FinishBundle commits the bundle's results file and closes the archive
// files the bundle opened: the Go SDK harness keeps the DoFn after its last
// bundle until the worker ends, without Teardown, so files left open would
// stay open for every round of a job of several rounds. (The Go SDK wants
// ProcessElement's emitters here too.)
func (f *fetchAndScoreFn) FinishBundle(_ func(string, Discovery), parts func(string)) error {
	if err := f.pw.Finish(parts); err != nil {
		return err
	}
	return f.proc.Fetcher.Close()
}

func (f *fetchAndScoreFn) Teardown() error {
	f.pw.Abort()
	if f.proc != nil {
		return f.proc.Fetcher.Close()
	}
	return nil
}
