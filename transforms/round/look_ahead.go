package round

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/extract/roundstate"
	"github.com/recrawl/recrawl/internal/storage"
)

// LookAhead replaces FetchAndScore in a round with look-ahead (specs
// look_ahead; internal/extract/lookahead.go): the batch holds the round's
// F·K candidates. It reads and scores each (ScoreCandidates, as
// FetchAndScore does) into candidate files of the state
// (OutDir/candidates), chooses what the round keeps from their small
// extract.Candidate values (one global combine gathers them, and
// extract.CommitLookAhead with the round's K chooses), then reads the candidate files again and writes the
// kept results, ranked anew, as the round's results (CommitCandidates). It
// returns what FetchAndScore returns: the discoveries of the kept results
// (their outlinks and Taken) with the candidates not kept as new entries,
// scored (extract.Entry.WithOwnScore), so that MergeFrontier puts them back
// into the frontier; and the manifest lines of the results files.
//
// In a job of several rounds (ExtractRounds), plan is the round's plan and
// its K, known only when the job runs, is the K the choice keeps; in a job
// of one round plan is the zero PCollection and cfg.K is the round's K.
func LookAhead(s beam.Scope, selected beam.PCollection, cfg Config, plan beam.PCollection) (discovered, parts beam.PCollection) {
	s = s.Scope("LookAhead")
	dir := storage.Join(cfg.OutDir, roundstate.CandidatesDir)
	candidates, candidateParts := beam.ParDo2(s.Scope("ScoreCandidates"), &scoreCandidatesFn{JobJSON: cfg.JobJSON, Dir: dir, Learned: cfg.Learned}, selected)
	if !plan.IsValid() {
		plan = beam.Create(s.Scope("Plan"), Plan{Round: cfg.Round, K: cfg.K})
	}
	set := beam.Combine(s.Scope("Choose"), &gatherCandidatesFn{}, candidates)
	commitment := beam.ParDo(s.Scope("Choose"), &chooseCandidatesFn{}, set, beam.SideInput{Input: plan})
	return beam.ParDo2(s.Scope("CommitCandidates"), &commitCandidatesFn{Dir: storage.Join(cfg.OutDir, roundstate.ResultsDir)}, candidateParts, beam.SideInput{Input: commitment})
}

// scoreCandidatesFn reads and scores each selected record as
// fetchAndScoreFn does, writes the results to a candidates file of its
// bundle and emits each one's extract.Candidate.
type scoreCandidatesFn struct {
	JobJSON string
	Dir     string // of the candidate files
	Learned string // extract.Learner.JSON, as fetchAndScoreFn
	proc    *extract.Processor
	pw      roundstate.PartWriter
}

func (f *scoreCandidatesFn) Setup(ctx context.Context) (err error) {
	f.pw, f.proc, err = setupScoring(ctx, f.Dir, f.JobJSON, f.Learned)
	return err
}

func (f *scoreCandidatesFn) ProcessElement(ctx context.Context, in SelectedChunk, candidates func(extract.Candidate), _ func(string)) error {
	return scoreAndWrite(ctx, f.proc, &f.pw, in, func(r *extract.Result) { candidates(extract.CandidateOf(*r)) })
}

// FinishBundle commits the bundle's candidates file and closes the archive
// files the bundle opened (fetchAndScoreFn.FinishBundle says why).
func (f *scoreCandidatesFn) FinishBundle(_ func(extract.Candidate), parts func(string)) error {
	if err := f.pw.Finish(parts); err != nil {
		return err
	}
	return f.proc.Fetcher.Close()
}

func (f *scoreCandidatesFn) Teardown() error {
	f.pw.Abort()
	if f.proc != nil {
		return f.proc.Fetcher.Close()
	}
	return nil
}

// CandidateSet is a round's candidates, gathered by gatherCandidatesFn.
type CandidateSet struct {
	Candidates []extract.Candidate
}

// gatherCandidatesFn gathers a round's candidates into one CandidateSet
// (a global combine: they are small, and MaxBatchSize bounds them).
type gatherCandidatesFn struct{}

func (f *gatherCandidatesFn) CreateAccumulator() CandidateSet { return CandidateSet{} }

func (f *gatherCandidatesFn) AddInput(acc CandidateSet, c extract.Candidate) CandidateSet {
	acc.Candidates = append(acc.Candidates, c)
	return acc
}

func (f *gatherCandidatesFn) MergeAccumulators(a, b CandidateSet) CandidateSet {
	a.Candidates = append(a.Candidates, b.Candidates...)
	return a
}

// chooseCandidatesFn chooses what a look-ahead round keeps of its
// candidates: extract.CommitLookAhead with the K of the round's plan (no
// plan: the round does nothing, and keeps nothing).
type chooseCandidatesFn struct{}

func (f *chooseCandidatesFn) ProcessElement(set CandidateSet, plan []Plan, emit func(extract.Commitment)) {
	k := 0
	if len(plan) == 1 {
		k = plan[0].K
	}
	emit(extract.CommitLookAhead(set.Candidates, k))
}

// commitCandidatesFn reads a candidates file (its manifest line) and
// writes the results the round keeps, with their rank among them, to a
// results file of its bundle; it emits their discoveries as
// fetchAndScoreFn does, and the candidates not kept as scored entries
// (counted: look_ahead_returned).
type commitCandidatesFn struct {
	Dir string // of the results files

	pw   roundstate.PartWriter
	back beam.Counter
}

func (f *commitCandidatesFn) Setup() {
	f.pw = roundstate.NewPartWriter(f.Dir, roundstate.KindResults)
	f.back = beam.NewCounter(CounterNamespace, "look_ahead_returned")
}

func (f *commitCandidatesFn) ProcessElement(ctx context.Context, line string, c extract.Commitment, discovered func(string, Discovery), _ func(string)) error {
	kept, returned := c.Ranks(), map[string]extract.Entry{}
	for _, e := range c.Returned {
		returned[e.Key] = e
	}
	fields := strings.Split(line, "\t")
	if len(fields) != 3 {
		f.pw.Abort()
		return fmt.Errorf("look-ahead: candidates manifest line %q: want kind<TAB>path<TAB>count", line)
	}
	err := roundstate.ReadPart(ctx, fields[1], func(r extract.Result) error {
		key := r.Entry.Key
		if rank, ok := kept[key]; ok {
			r.Rank = rank
			if err := f.pw.Write(ctx, &r); err != nil {
				return err
			}
			discoverTaken(&r, discovered)
			return nil
		}
		e, ok := returned[key]
		if !ok {
			return fmt.Errorf("look-ahead: candidate %s (rank %d) is neither kept nor returned", r.Entry.URL, r.Rank)
		}
		f.back.Inc(ctx, 1)
		discovered(key, Discovery{Entry: e, HasEntry: true})
		return nil
	})
	if err != nil {
		f.pw.Abort()
		return fmt.Errorf("look-ahead: %s: %w", fields[1], err)
	}
	return nil
}

// FinishBundle commits the bundle's results file. (The Go SDK wants
// ProcessElement's side input and emitters here too.)
func (f *commitCandidatesFn) FinishBundle(_ extract.Commitment, _ func(string, Discovery), parts func(string)) error {
	return f.pw.Finish(parts)
}

func (f *commitCandidatesFn) Teardown() error {
	f.pw.Abort()
	return nil
}
