package transforms

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/lookup"
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
//	FetchRecord       → the record's payload, or a missing URL / a redirect
//	Score             → a collected document with its outlinks
//	WriteRoundResults results → results.jsonl, in rank order
//	MergeFrontier     frontier − batch + unseen outlinks (max priority) → new state files
//
// The whole frontier is read twice per round (for SelectBatch and for
// MergeFrontier) and written once; only the batch and the round's new
// outlinks are shuffled, so a round costs O(frontier) reads, not a
// shuffle of the frontier.

func init() {
	for _, t := range []any{extract.Entry{}, extract.Selected{}, extract.Fetched{}, Ranked{}, Resolved{}, topKAccum{}, cdxj.Capture{}, extract.Choice{}} {
		beam.RegisterType(reflect.TypeOf(t))
	}
	register.DoFn3x1[context.Context, string, func(extract.Entry), error](&readFrontierFn{})
	register.Emitter1[extract.Entry]()
	register.Combiner3[topKAccum, extract.Entry, []extract.Entry](&topKFn{})
	register.DoFn2x0[[]extract.Entry, func([]Ranked)](&explodeBatchFn{})
	register.Emitter1[[]Ranked]()
	register.DoFn3x1[context.Context, []Ranked, func([]Resolved), error](&lookupSnapshotsFn{})
	register.Emitter1[[]Resolved]()
	register.DoFn3x0[[]Resolved, func([]extract.Selected), func(int, string)](&selectSnapshotFn{})
	register.Emitter1[[]extract.Selected]()
	register.Emitter2[int, string]()
	register.DoFn4x1[context.Context, []extract.Selected, func([]extract.Fetched), func(int, string), error](&fetchRecordFn{})
	register.Emitter1[[]extract.Fetched]()
	register.DoFn3x1[context.Context, []extract.Fetched, func(int, string), error](&scoreFn{})
	register.DoFn4x1[context.Context, int, func(*KVRankResult) bool, func(string), error](&writeRoundResultsFn{})
	register.Function2x1(toRankResult)
	register.Iter1[KVRankResult]()
	register.DoFn3x1[int, string, func(string, extract.Entry), error](&newEntriesFn{})
	register.Emitter2[string, extract.Entry]()
	register.Combiner1[extract.Entry](&mergeEntriesFn{})
	register.DoFn5x0[string, extract.Entry, []extract.Entry, func(string, extract.Entry), func(string)](&filterSeenFn{})
	register.DoFn5x0[extract.Entry, []extract.Entry, func(*string) bool, func(extract.Entry), func(string, extract.Entry)](&splitFrontierFn{})
	register.Iter1[string]()
	register.Function2x1(dropEntryKey)
	register.DoFn3x1[context.Context, extract.Entry, func(string), error](&writeFrontierFn{})
	register.DoFn4x1[context.Context, int, func(*string) bool, func(string), error](&writeManifestFn{})
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
	SeenFile      string   // SURT keys seen before the round, one per line
	OutDir        string   // state directory written by the round
	JoinMode      string   // lookup or cogroup
	IndexSpec     string   // for ResolveSnapshots
}

// Files a round writes into RoundConfig.OutDir.
const (
	RoundResultsFile     = "results.jsonl"
	FrontierManifestFile = "frontier.manifest"
	FrontierDir          = "frontier"
)

// ExtractRound adds one round of the extraction to the pipeline.
func ExtractRound(s beam.Scope, cfg RoundConfig) {
	s = s.Scope(fmt.Sprintf("Round%d", cfg.Round))
	frontier := ReadFrontier(s, cfg.FrontierFiles)
	batch := SelectBatch(s, frontier, cfg.K, cfg.MaxPerHost, cfg.Strategy)
	resolved := ResolveSnapshots(s, batch, cfg)
	selected, missing := SelectSnapshot(s, resolved, cfg.JobJSON, cfg.Round)
	fetched, notFetched := FetchRecord(s, selected, cfg.JobJSON)
	scored := Score(s, fetched, cfg.JobJSON)
	results := beam.Flatten(s, missing, notFetched, scored)
	WriteRoundResults(s, results, cfg.OutDir)
	MergeFrontier(s, ReadFrontier(s, cfg.FrontierFiles), batch, results, cfg)
}

// ReadFrontier reads frontier state files (JSON lines of extract.Entry).
func ReadFrontier(s beam.Scope, files []string) beam.PCollection {
	s = s.Scope("ReadFrontier")
	if len(files) == 0 {
		files = []string{}
	}
	return beam.ParDo(s, &readFrontierFn{}, beam.CreateList(s, files))
}

type readFrontierFn struct{}

func (f *readFrontierFn) ProcessElement(ctx context.Context, file string, emit func(extract.Entry)) error {
	r, err := storage.Open(ctx, file)
	if err != nil {
		return fmt.Errorf("frontier state: %w", err)
	}
	defer r.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	line := 0
	for sc.Scan() {
		line++
		var e extract.Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return fmt.Errorf("frontier state %s line %d: %w", file, line, err)
		}
		emit(e)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("frontier state %s: %w", file, err)
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
// give the same captures in the same order.
func ResolveSnapshots(s beam.Scope, batch beam.PCollection, cfg RoundConfig) beam.PCollection {
	s = s.Scope("ResolveSnapshots")
	chunks := beam.Reshuffle(s, beam.ParDo(s, &explodeBatchFn{}, batch))
	if cfg.JoinMode == "cogroup" {
		return cogroupResolve(s, chunks, cfg.IndexSpec)
	}
	return beam.ParDo(s, &lookupSnapshotsFn{IndexSpec: cfg.IndexSpec}, chunks)
}

type lookupSnapshotsFn struct {
	IndexSpec string
	idx       lookup.Index
	lookups   beam.Counter
}

func (f *lookupSnapshotsFn) Setup(ctx context.Context) error {
	idx, err := lookup.Open(ctx, f.IndexSpec)
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
	p := &extract.Processor{Settings: job.Settings(), Fetcher: extract.NewFetcher(job.Archives)}
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

// resultLine encodes a finished step for WriteRoundResults.
func resultLine(r extract.Result) (int, string) {
	b, err := json.Marshal(r)
	if err != nil {
		panic(fmt.Sprintf("encode result of %s: %v", r.Entry.URL, err)) // plain structs: cannot fail
	}
	return r.Rank, string(b)
}

// SelectSnapshot chooses each URL's capture (extract.SelectSnapshot).
// Returns the selected snapshots and the results of URLs that are missing.
func SelectSnapshot(s beam.Scope, resolved beam.PCollection, jobJSON string, round int) (beam.PCollection, beam.PCollection) {
	s = s.Scope("SelectSnapshot")
	return beam.ParDo2(s, &selectSnapshotFn{JobJSON: jobJSON, Round: round}, resolved)
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

func (f *selectSnapshotFn) ProcessElement(chunk []Resolved, emit func([]extract.Selected), done func(int, string)) {
	var selected []extract.Selected
	for _, r := range chunk {
		sel, res := f.proc.SelectSnapshot(r.Ranked.Entry, r.Captures, f.Round, r.Ranked.Rank)
		if res != nil {
			done(resultLine(*res))
			continue
		}
		selected = append(selected, sel)
	}
	if len(selected) > 0 {
		emit(selected)
	}
}

// FetchRecord reads each selected record. Returns the fetched records and
// the results of URLs finished here (record problems, redirects). A missing
// archive file fails the round.
func FetchRecord(s beam.Scope, selected beam.PCollection, jobJSON string) (beam.PCollection, beam.PCollection) {
	s = s.Scope("FetchRecord")
	return beam.ParDo2(s, &fetchRecordFn{JobJSON: jobJSON}, selected)
}

type fetchRecordFn struct {
	JobJSON string
	proc    *extract.Processor
}

func (f *fetchRecordFn) Setup(ctx context.Context) error {
	var err error
	f.proc, err = processorFor(ctx, f.JobJSON, false)
	return err
}

func (f *fetchRecordFn) ProcessElement(ctx context.Context, chunk []extract.Selected, emit func([]extract.Fetched), done func(int, string)) error {
	type outcome struct {
		fetched extract.Fetched
		res     *extract.Result
		err     error
	}
	outs := make([]outcome, len(chunk))
	inParallel(len(chunk), func(i int) {
		outs[i].fetched, outs[i].res, outs[i].err = f.proc.FetchRecord(ctx, chunk[i])
	})
	var fetched []extract.Fetched
	for i, o := range outs {
		if o.err != nil {
			return fmt.Errorf("round %d: %s: %w", chunk[i].Round, chunk[i].Entry.URL, o.err)
		}
		if o.res != nil {
			beam.NewCounter(CounterNamespaceExtract, "missing_"+o.res.ReasonCode).Inc(ctx, 1)
			done(resultLine(*o.res))
			continue
		}
		fetched = append(fetched, o.fetched)
	}
	if len(fetched) > 0 {
		emit(fetched)
	}
	return nil
}

func (f *fetchRecordFn) Teardown() error {
	if f.proc != nil {
		return f.proc.Fetcher.Close()
	}
	return nil
}

// Score scores each fetched document (extract.Processor.Score).
func Score(s beam.Scope, fetched beam.PCollection, jobJSON string) beam.PCollection {
	s = s.Scope("Score")
	return beam.ParDo(s, &scoreFn{JobJSON: jobJSON}, fetched)
}

type scoreFn struct {
	JobJSON string
	proc    *extract.Processor
}

func (f *scoreFn) Setup(ctx context.Context) error {
	var err error
	f.proc, err = processorFor(ctx, f.JobJSON, true)
	return err
}

func (f *scoreFn) ProcessElement(ctx context.Context, chunk []extract.Fetched, emit func(int, string)) error {
	results := make([]extract.Result, len(chunk))
	inParallel(len(chunk), func(i int) { results[i] = f.proc.Score(chunk[i]) })
	for _, res := range results {
		if res.Outcome == extract.OutcomeCollected {
			beam.NewCounter(CounterNamespaceExtract, "collected").Inc(ctx, 1)
		} else {
			beam.NewCounter(CounterNamespaceExtract, "missing_"+res.ReasonCode).Inc(ctx, 1)
		}
		emit(resultLine(res))
	}
	return nil
}

// inParallel runs fn(0..n-1) on GOMAXPROCS goroutines. Reading records and
// scoring them are independent per URL, and a round's chunk arrives as one
// element: without this, a worker would use one core for the whole round.
// Results are written by index, so their order never depends on scheduling.
func inParallel(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := 0; i < n; i++ {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				fn(i)
			}
		}()
	}
	wg.Wait()
}

// KVRankResult is a result line with its rank.
type KVRankResult struct {
	Rank int
	JSON string
}

func toRankResult(rank int, js string) KVRankResult { return KVRankResult{rank, js} }

// WriteRoundResults writes the round's results, in rank order, to
// OutDir/results.jsonl.
func WriteRoundResults(s beam.Scope, results beam.PCollection, outDir string) {
	s = s.Scope("WriteRoundResults")
	grouped := beam.GroupByKey(s, beam.AddFixedKey(s, beam.ParDo(s, toRankResult, results)))
	beam.ParDo(s, &writeRoundResultsFn{Path: storage.Join(outDir, RoundResultsFile)}, grouped)
}

type writeRoundResultsFn struct {
	Path string
}

func (f *writeRoundResultsFn) ProcessElement(ctx context.Context, _ int, results func(*KVRankResult) bool, emit func(string)) error {
	var all []KVRankResult
	var r KVRankResult
	for results(&r) {
		all = append(all, r)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Rank < all[j].Rank })
	lines := make([]string, len(all))
	for i, r := range all {
		lines[i] = r.JSON
	}
	if err := writeLines(ctx, f.Path, lines); err != nil {
		return err
	}
	emit(f.Path)
	return nil
}

// MergeFrontier computes the frontier after the round: the old frontier
// without the batch, plus the round's new entries that were never seen,
// merged per URL (highest priority; depth, path and parent of the first
// discovery). Only the new entries and the old entries they touch are
// shuffled. The result is written as state files plus a manifest.
func MergeFrontier(s beam.Scope, frontier, batch, results beam.PCollection, cfg RoundConfig) {
	s = s.Scope("MergeFrontier")
	discovered := beam.CombinePerKey(s, &mergeEntriesFn{}, beam.ParDo(s, &newEntriesFn{}, results))
	unseen, unseenKeys := beam.ParDo2(s, &filterSeenFn{SeenFile: cfg.SeenFile}, discovered, beam.SideInput{Input: batch})
	untouched, touched := beam.ParDo2(s, &splitFrontierFn{}, frontier, beam.SideInput{Input: batch}, beam.SideInput{Input: unseenKeys})
	merged := beam.CombinePerKey(s, &mergeEntriesFn{}, beam.Flatten(s, unseen, touched))
	next := beam.Flatten(s, untouched, beam.ParDo(s, dropEntryKey, merged))
	parts := beam.ParDo(s, &writeFrontierFn{Dir: storage.Join(cfg.OutDir, FrontierDir)}, next)
	beam.ParDo(s, &writeManifestFn{Path: storage.Join(cfg.OutDir, FrontierManifestFile)}, beam.GroupByKey(s, beam.AddFixedKey(s, parts)))
}

func dropEntryKey(_ string, e extract.Entry) extract.Entry { return e }

type newEntriesFn struct{}

func (newEntriesFn) ProcessElement(_ int, js string, emit func(string, extract.Entry)) error {
	var r extract.Result
	if err := json.Unmarshal([]byte(js), &r); err != nil {
		return fmt.Errorf("decode round result: %w", err)
	}
	for _, e := range r.NewEntries {
		emit(e.Key, e)
	}
	return nil
}

type mergeEntriesFn struct{}

func (mergeEntriesFn) MergeAccumulators(a, b extract.Entry) extract.Entry { return extract.Merge(a, b) }

// filterSeenFn drops discovered URLs that were seen before the round or are
// in its batch; it emits the survivors and their keys.
type filterSeenFn struct {
	SeenFile string
	seen     map[string]bool
}

func (f *filterSeenFn) Setup(ctx context.Context) error {
	f.seen = map[string]bool{}
	if f.SeenFile == "" {
		return nil
	}
	data, err := storage.ReadFile(ctx, f.SeenFile)
	if err != nil {
		return fmt.Errorf("seen URLs: %w", err)
	}
	for _, k := range strings.Split(string(data), "\n") {
		if k != "" {
			f.seen[k] = true
		}
	}
	return nil
}

func (f *filterSeenFn) ProcessElement(key string, e extract.Entry, batch []extract.Entry, emit func(string, extract.Entry), emitKey func(string)) {
	if f.seen[key] {
		return
	}
	for _, b := range batch {
		if b.Key == key {
			return
		}
	}
	emit(key, e)
	emitKey(key)
}

// splitFrontierFn drops the batch from the old frontier and separates the
// entries a discovered URL will merge into from the untouched ones.
type splitFrontierFn struct {
	batch      map[string]bool
	discovered map[string]bool
}

func (f *splitFrontierFn) ProcessElement(e extract.Entry, batch []extract.Entry, discovered func(*string) bool, untouched func(extract.Entry), touched func(string, extract.Entry)) {
	if f.batch == nil {
		f.batch = map[string]bool{}
		for _, b := range batch {
			f.batch[b.Key] = true
		}
		f.discovered = map[string]bool{}
		var k string
		for discovered(&k) {
			f.discovered[k] = true
		}
	}
	switch {
	case f.batch[e.Key]:
	case f.discovered[e.Key]:
		touched(e.Key, e)
	default:
		untouched(e)
	}
}

// writeFrontierFn writes each bundle's entries to a file of its own and
// emits "name<TAB>count"; only files named in the manifest are state (a
// retried bundle's file is an orphan nobody reads).
type writeFrontierFn struct {
	Dir string
	w   storage.Writer
	bw  *bufio.Writer
	n   int
	p   string
}

func (f *writeFrontierFn) StartBundle(ctx context.Context, _ func(string)) error {
	var id [8]byte
	rand.Read(id[:])
	f.p = storage.Join(f.Dir, "part-"+hex.EncodeToString(id[:])+".jsonl")
	w, err := storage.Create(ctx, f.p)
	if err != nil {
		return err
	}
	f.w, f.bw, f.n = w, bufio.NewWriterSize(w, 1<<20), 0
	return nil
}

// ProcessElement writes one entry; emit is used only by FinishBundle (the
// Go SDK takes a bundle's emitters from ProcessElement's signature).
func (f *writeFrontierFn) ProcessElement(ctx context.Context, e extract.Entry, _ func(string)) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	f.bw.Write(b)
	f.n++
	return f.bw.WriteByte('\n')
}

func (f *writeFrontierFn) FinishBundle(ctx context.Context, emit func(string)) error {
	if err := f.bw.Flush(); err != nil {
		f.w.Abort()
		return fmt.Errorf("write %s: %w", f.p, err)
	}
	if f.n == 0 {
		f.w.Abort()
		return nil
	}
	if err := f.w.Close(); err != nil {
		return err
	}
	emit(fmt.Sprintf("%s\t%d", f.p, f.n))
	return nil
}

type writeManifestFn struct {
	Path string
}

func (f *writeManifestFn) ProcessElement(ctx context.Context, _ int, parts func(*string) bool, emit func(string)) error {
	var all []string
	var p string
	for parts(&p) {
		all = append(all, p)
	}
	sort.Strings(all)
	if err := writeLines(ctx, f.Path, all); err != nil {
		return err
	}
	emit(f.Path)
	return nil
}
