package transforms

import (
	"bytes"
	"context"
	"encoding/gob"
	"fmt"
	"reflect"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/lookup"
	"github.com/recrawl/recrawl/internal/parallel"
	"github.com/recrawl/recrawl/internal/storage"
	"github.com/recrawl/recrawl/scoring"
)

// One round of the extraction (Algorithm 1 with K URLs at a time), as the
// composites below, in order:
//
//	ReadFrontier      frontier state files → entries
//	SelectBatch       the K best entries (TopK combiner: heap-like, exact under merging)
//	ResolveSnapshots  batch → captures per URL (batched look-ups, or CoGroupByKey with the index)
//	SelectSnapshot    → the capture to read, or a missing URL
//	FetchAndScore     → the record's payload, or a missing URL / a redirect;
//	                    → a collected document with its outlinks;
//	                    results → results part files, outlinks → MergeFrontier
//	MergeFrontier     frontier − batch + unseen outlinks (merged per URL) → frontier part files
//	WriteManifest     the part files of the state → round.manifest
//
// The per-URL steps pass whole chunks of the batch, with the results of the
// URLs already finished, from one to the next inside one fused stage: a
// result is a Go value until FetchAndScore writes it, once, to the results
// file of the bundle that made it (extract_state.go). Nothing of a result is
// shuffled but its outlinks. The whole frontier is read twice per round (for
// SelectBatch and for MergeFrontier; holding it in the runner between the
// two would cost more memory than reading it again) and written once, by
// the bundles that read it; only the batch and the round's new outlinks are
// shuffled, so a round costs O(frontier) reads, not a shuffle of the
// frontier.

func init() {
	for _, t := range []any{extract.Entry{}, extract.Selected{}, extract.Fetched{}, Ranked{}, Resolved{}, topKAccum{}, cdxj.Capture{}, extract.Choice{}, lookup.Source{}} {
		beam.RegisterType(reflect.TypeOf(t))
	}
	register.DoFn3x1[context.Context, string, func(extract.Entry), error](&readFrontierFn{})
	register.Emitter1[extract.Entry]()
	register.Combiner3[topKAccum, extract.Entry, []extract.Entry](&topKFn{})
	register.DoFn2x0[[]extract.Entry, func([]Ranked)](&explodeBatchFn{})
	register.Emitter1[[]Ranked]()
	register.DoFn3x1[context.Context, []Ranked, func([]Resolved), error](&lookupSnapshotsFn{})
	register.Emitter1[[]Resolved]()
	register.DoFn3x0[context.Context, []Resolved, func(SelectedChunk)](&selectSnapshotFn{})
	register.Emitter1[SelectedChunk]()
	register.DoFn4x1[context.Context, SelectedChunk, func(string, Discovery), func(string), error](&fetchAndScoreFn{})
	// The chunks stay inside the fused per-URL stage; should a runner ever
	// move one between stages, it travels as gob (the results hold pointers
	// and whatever fields the steps add). The SDK also encodes the first
	// elements of every bundle to sample their size: gob is the cheap way.
	beam.RegisterCoder(reflect.TypeOf(SelectedChunk{}), encodeSelectedChunk, decodeSelectedChunk)
}

// Counter namespace of the extraction rounds.
const CounterNamespaceExtract = "extract"

// RoundConfig is everything one round's pipeline needs.
type RoundConfig struct {
	JobJSON       string   // extract.Job, JSON
	Round         int      // number of this round (from 0)
	K             int      // URLs to take
	MaxPerHost    int      // at most this many URLs of one host (0: no limit)
	Strategy      int      // scoring.Strategy
	FrontierFiles []string // state files of the frontier before the round
	SeenFiles     []string // files of the SURT keys seen before the round (one per line); their union is the seen set
	OutDir        string   // state directory written by the round
	JoinMode      string   // lookup or cogroup
	IndexSpec     string   // for ResolveSnapshots (a job with named archives names its indexes itself)
}

// ExtractRound adds one round of the extraction to the pipeline.
func ExtractRound(s beam.Scope, cfg RoundConfig) {
	s = s.Scope(fmt.Sprintf("Round%d", cfg.Round))
	frontier := ReadFrontier(s, cfg.FrontierFiles)
	batch := SelectBatch(s, frontier, cfg.K, cfg.MaxPerHost, cfg.Strategy)
	resolved := ResolveSnapshots(s, batch, cfg)
	selected := SelectSnapshot(s, resolved, cfg.JobJSON, cfg.Round)
	discovered, resultParts := FetchAndScore(s, selected, cfg)
	frontierParts := MergeFrontier(s, ReadFrontier(s, cfg.FrontierFiles), batch, discovered, cfg)
	WriteManifest(s, cfg.OutDir, resultParts, frontierParts)
}

// ReadFrontier reads frontier state files (part files of extract.Entry).
func ReadFrontier(s beam.Scope, files []string) beam.PCollection {
	s = s.Scope("ReadFrontier")
	if len(files) == 0 {
		files = []string{}
	}
	return beam.ParDo(s, &readFrontierFn{}, beam.CreateList(s, files))
}

type readFrontierFn struct{}

func (f *readFrontierFn) ProcessElement(ctx context.Context, file string, emit func(extract.Entry)) error {
	err := ReadPart(ctx, file, func(e extract.Entry) error {
		emit(e)
		return nil
	})
	if err != nil {
		return fmt.Errorf("frontier state: %w", err)
	}
	return nil
}

// SelectBatch takes the K best frontier entries: a singleton
// PCollection<[]extract.Entry> in ranking order.
func SelectBatch(s beam.Scope, frontier beam.PCollection, k, maxPerHost, strategy int) beam.PCollection {
	s = s.Scope("SelectBatch")
	return beam.Combine(s, &topKFn{K: k, MaxPerHost: maxPerHost, Strategy: strategy}, frontier)
}

type topKAccum struct {
	Entries []extract.Entry
}

type topKFn struct {
	K, MaxPerHost, Strategy int
}

func (f *topKFn) topK(es []extract.Entry) *extract.TopK {
	t := extract.NewTopK(f.K, f.MaxPerHost, extract.Ranking{Strategy: scoring.Strategy(f.Strategy)})
	for _, e := range es {
		t.Add(e)
	}
	return t
}

func (f *topKFn) CreateAccumulator() topKAccum { return topKAccum{} }

func (f *topKFn) AddInput(acc topKAccum, e extract.Entry) topKAccum {
	acc.Entries = append(acc.Entries, e)
	if len(acc.Entries) >= 4*f.K+64 {
		acc.Entries = append([]extract.Entry(nil), f.topK(acc.Entries).Result()...)
	}
	return acc
}

func (f *topKFn) MergeAccumulators(a, b topKAccum) topKAccum {
	all := append(append([]extract.Entry(nil), a.Entries...), b.Entries...)
	return topKAccum{Entries: f.topK(all).Result()}
}

func (f *topKFn) ExtractOutput(acc topKAccum) []extract.Entry {
	return f.topK(acc.Entries).Result()
}

// Ranked is a batch entry with its rank in the round.
type Ranked struct {
	Rank  int
	Entry extract.Entry
}

// Resolved is a batch entry with all captures of its URL. The per-URL steps
// pass chunks of up to lookupChunk of them, processed in parallel.
type Resolved struct {
	Ranked   Ranked
	Captures []cdxj.Capture
}

// lookupChunk is how many URLs one look-up call resolves.
const lookupChunk = 256

type explodeBatchFn struct{}

func (explodeBatchFn) ProcessElement(batch []extract.Entry, emit func([]Ranked)) {
	for start := 0; start < len(batch); start += lookupChunk {
		end := min(start+lookupChunk, len(batch))
		chunk := make([]Ranked, 0, end-start)
		for i := start; i < end; i++ {
			chunk = append(chunk, Ranked{Rank: i, Entry: batch[i]})
		}
		emit(chunk)
	}
}

// ResolveSnapshots finds all captures of each batch URL: with batched
// look-ups in the index (lookup), or by joining the batch with every line of
// the index (cogroup, for batches too large to look up one by one). Both
// give the same captures in the same order. With several named archives,
// both read every archive's index and tag each capture with its archive
// (internal/lookup/multi.go).
func ResolveSnapshots(s beam.Scope, batch beam.PCollection, cfg RoundConfig) beam.PCollection {
	s = s.Scope("ResolveSnapshots")
	chunks := beam.Reshuffle(s, beam.ParDo(s, &explodeBatchFn{}, batch))
	sources := indexSources(cfg)
	if cfg.JoinMode == "cogroup" {
		return cogroupResolve(s, chunks, sources)
	}
	return beam.ParDo(s, &lookupSnapshotsFn{Sources: sources}, chunks)
}

// indexSources are the indexes a round resolves URLs in: the job's named
// archives, else the single index cfg.IndexSpec (unnamed).
func indexSources(cfg RoundConfig) []lookup.Source {
	if job, err := extract.UnmarshalJob(cfg.JobJSON); err == nil && len(job.Sources) > 0 {
		return job.IndexSources()
	}
	return []lookup.Source{{Spec: cfg.IndexSpec}}
}

type lookupSnapshotsFn struct {
	Sources []lookup.Source
	idx     lookup.Index
	lookups beam.Counter
}

func (f *lookupSnapshotsFn) Setup(ctx context.Context) error {
	idx, err := openIndex(ctx, f.Sources) // shared by the rounds of the process
	if err != nil {
		return err
	}
	f.idx = idx
	f.lookups = beam.NewCounter(CounterNamespaceExtract, "index_lookups")
	return nil
}

func (f *lookupSnapshotsFn) ProcessElement(ctx context.Context, chunk []Ranked, emit func([]Resolved)) error {
	keys := make([]string, len(chunk))
	for i, r := range chunk {
		keys[i] = r.Entry.Key
	}
	found, err := f.idx.Lookup(ctx, keys)
	if err != nil {
		return fmt.Errorf("index look-up of %d URLs: %w", len(keys), err)
	}
	f.lookups.Inc(ctx, int64(len(keys)))
	out := make([]Resolved, len(chunk))
	for i, r := range chunk {
		out[i] = Resolved{Ranked: r, Captures: found[r.Entry.Key]}
	}
	emit(out)
	return nil
}

func (f *lookupSnapshotsFn) Teardown() error {
	if f.idx != nil {
		return f.idx.Close()
	}
	return nil
}

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

func encodeSelectedChunk(c SelectedChunk) ([]byte, error) { return gobEncode(c) }
func decodeSelectedChunk(b []byte) (c SelectedChunk, err error) {
	err = gob.NewDecoder(bytes.NewReader(b)).Decode(&c)
	return c, err
}

func gobEncode(v any) ([]byte, error) {
	var buf bytes.Buffer
	err := gob.NewEncoder(&buf).Encode(v)
	return buf.Bytes(), err
}

// countResult counts a finished URL by its outcome.
func countResult(ctx context.Context, r *extract.Result) {
	switch r.Outcome {
	case extract.OutcomeCollected, extract.OutcomeListing:
		beam.NewCounter(CounterNamespaceExtract, r.Outcome).Inc(ctx, 1)
	default:
		beam.NewCounter(CounterNamespaceExtract, "missing_"+r.ReasonCode).Inc(ctx, 1)
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

// FetchAndScore reads each selected record (extract.Processor.FetchRecord)
// and scores it (extract.Processor.Score), one URL after the other on each
// of the worker's cores, and writes the results of every URL of each chunk,
// the chunk's earlier ones included, to the results file of its bundle
// (OutDir/results; in no particular order: the driver orders them by rank).
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
func FetchAndScore(s beam.Scope, selected beam.PCollection, cfg RoundConfig) (discovered, parts beam.PCollection) {
	s = s.Scope("FetchAndScore")
	return beam.ParDo2(s, &fetchAndScoreFn{JobJSON: cfg.JobJSON, Dir: storage.Join(cfg.OutDir, ResultsDir)}, selected)
}

type fetchAndScoreFn struct {
	JobJSON string
	Dir     string // of the results files
	proc    *extract.Processor
	pw      partWriter
}

func (f *fetchAndScoreFn) Setup(ctx context.Context) error {
	f.pw = partWriter{dir: f.Dir, kind: ManifestResults}
	var err error
	f.proc, err = processorFor(ctx, f.JobJSON, true)
	return err
}

func (f *fetchAndScoreFn) ProcessElement(ctx context.Context, in SelectedChunk, discovered func(string, Discovery), _ func(string)) error {
	chunk := in.Selected
	results := make([]extract.Result, len(in.Done)+len(chunk))
	copy(results, in.Done)
	finished := results[len(in.Done):]
	errs := make([]error, len(chunk))
	// Reading records and scoring them are independent per URL, and a
	// round's chunk arrives as one element: without this, a worker would
	// use one core for the whole round.
	parallel.For(len(chunk), func(i int) {
		fetched, res, err := f.proc.FetchRecord(ctx, chunk[i])
		switch {
		case err != nil:
			errs[i] = err
		case res != nil: // a record problem or a redirect
			finished[i] = *res
		default:
			finished[i] = f.proc.Score(fetched)
		}
	})
	for i, err := range errs {
		if err != nil {
			f.pw.abort()
			return fmt.Errorf("round %d: %s: %w", chunk[i].Round, chunk[i].Entry.URL, err)
		}
	}
	for i := range finished {
		countResult(ctx, &finished[i])
	}
	for i := range results {
		if err := f.pw.write(ctx, &results[i]); err != nil {
			f.pw.abort()
			return err
		}
		discovered(results[i].Entry.Key, Discovery{Taken: true})
		for _, e := range results[i].NewEntries {
			discovered(e.Key, Discovery{Entry: e, HasEntry: true})
		}
	}
	return nil
}

// FinishBundle commits the bundle's results file. (The Go SDK wants
// ProcessElement's emitters here too.)
func (f *fetchAndScoreFn) FinishBundle(_ func(string, Discovery), parts func(string)) error {
	return f.pw.finish(parts)
}

func (f *fetchAndScoreFn) Teardown() error {
	f.pw.abort()
	if f.proc != nil {
		return f.proc.Fetcher.Close()
	}
	return nil
}
