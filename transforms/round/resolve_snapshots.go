package round

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/lookup"
)

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

// ResolveSnapshots finds all captures of each batch URL: with batched
// look-ups in the index (lookup), or by joining the batch with every line of
// the index (cogroup, for batches too large to look up one by one). Both
// give the same captures in the same order. With several named archives,
// both read every archive's index and tag each capture with its archive
// (internal/lookup/multi.go). The result is PCollection<[]Resolved>, chunks
// of the batch.
func ResolveSnapshots(s beam.Scope, batch beam.PCollection, cfg Config) beam.PCollection {
	s = s.Scope("ResolveSnapshots")
	chunks := beam.Reshuffle(s, beam.ParDo(s, &explodeBatchFn{}, batch))
	return resolveChunks(s, chunks, cfg, "index_lookups")
}

// resolveChunks gives each entry of chunks (PCollection<[]Ranked>) all
// captures of its URL, by cfg.JoinMode, as PCollection<[]Resolved>;
// lookups names the counter of the URLs looked up (lookup mode).
func resolveChunks(s beam.Scope, chunks beam.PCollection, cfg Config, lookups string) beam.PCollection {
	if cfg.JoinMode == "cogroup" {
		return cogroupResolve(s, chunks, cfg.Sources)
	}
	return beam.ParDo(s, &lookupSnapshotsFn{Sources: cfg.Sources, Counter: lookups}, chunks)
}

// explodeBatchFn cuts the batch into chunks of ranked entries, each a
// range of SURT keys (in rank order inside the chunk). A sorted look-up
// inflates each index block it needs once (internal/zipnum); chunks of
// consecutive ranks would each span the whole key space, so that every
// chunk of a round inflated most of the same blocks again. Cut by key, the
// chunks of a round together inflate about as many blocks as the whole
// batch in one look-up, and still spread over the workers. Which URLs share
// a chunk changes nothing in the results: the driver orders them by rank.
type explodeBatchFn struct{}

func (explodeBatchFn) ProcessElement(batch []extract.Entry, emit func([]Ranked)) {
	byKey := make([]Ranked, len(batch))
	for i, e := range batch {
		byKey[i] = Ranked{Rank: i, Entry: e}
	}
	slices.SortStableFunc(byKey, func(a, b Ranked) int { return strings.Compare(a.Entry.Key, b.Entry.Key) })
	for start := 0; start < len(byKey); start += lookupChunk {
		chunk := slices.Clone(byKey[start:min(start+lookupChunk, len(byKey))])
		slices.SortFunc(chunk, func(a, b Ranked) int { return a.Rank - b.Rank })
		emit(chunk)
	}
}

// lookupSnapshotsFn looks up a chunk's URLs in the index, in one call,
// counting them in the counter named Counter.
type lookupSnapshotsFn struct {
	Sources []lookup.Source
	Counter string
	idx     lookup.Index
	lookups beam.Counter
}

func (f *lookupSnapshotsFn) Setup(ctx context.Context) error {
	idx, err := openIndex(ctx, f.Sources) // shared by the rounds of the process
	if err != nil {
		return err
	}
	f.idx = idx
	f.lookups = beam.NewCounter(CounterNamespace, f.Counter)
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

// indexes caches the open snapshot indexes of a worker process, by their
// sources: every round of a run is a new pipeline with new DoFn instances but
// the same index, and an index opened anew each round starts with a cold
// block cache (a ZipNum round of 1,000 URLs then inflates nearly every block
// of the index again). Every lookup.Index is safe for concurrent use. The
// cached indexes stay open for the life of the process.
var indexes struct {
	sync.Mutex
	bySources map[string]lookup.Index
}

// openIndex returns the process's open index for sources, opening it on
// first use. Closing what it returns does nothing.
func openIndex(ctx context.Context, sources []lookup.Source) (lookup.Index, error) {
	var key strings.Builder
	for _, s := range sources {
		key.WriteString(s.Name + "=" + s.Spec + "\n")
	}
	indexes.Lock()
	defer indexes.Unlock()
	if idx, ok := indexes.bySources[key.String()]; ok {
		return sharedIndex{idx}, nil
	}
	idx, err := lookup.OpenSources(ctx, sources)
	if err != nil {
		return nil, err
	}
	if indexes.bySources == nil {
		indexes.bySources = map[string]lookup.Index{}
	}
	indexes.bySources[key.String()] = idx
	return sharedIndex{idx}, nil
}

// sharedIndex is a cached index as a DoFn holds it: its Close leaves it open.
type sharedIndex struct{ lookup.Index }

func (sharedIndex) Close() error { return nil }

// cogroupResolve joins the batch with every line of the indexes by SURT
// key; the captures of a key from all archives are merged in the order of
// lookup.SortCaptures, as the multi-index merges them.
func cogroupResolve(s beam.Scope, chunks beam.PCollection, sources []lookup.Source) beam.PCollection {
	entries := beam.ParDo(s, &rankedByKeyFn{}, chunks)
	lines := ReadIndexLines(s, sources)
	var archives []string
	for _, src := range sources {
		if src.Name != "" {
			archives = append(archives, src.Name)
		}
	}
	return beam.ParDo(s, &cogroupResolveFn{Archives: archives}, beam.CoGroupByKey(s, entries, lines))
}

type rankedByKeyFn struct{}

func (rankedByKeyFn) ProcessElement(chunk []Ranked, emit func(string, Ranked)) {
	for _, r := range chunk {
		emit(r.Entry.Key, r)
	}
}

// cogroupResolveFn gives each batch URL the captures of its key; Archives
// are the archive names in the order given (none for a single unnamed one).
type cogroupResolveFn struct {
	Archives []string
}

func (f *cogroupResolveFn) ProcessElement(key string, ranked func(*Ranked) bool, lines func(*IndexLine) bool, emit func([]Resolved)) error {
	var rs []Ranked
	var r Ranked
	for ranked(&r) {
		rs = append(rs, r)
	}
	if len(rs) == 0 {
		return nil // an index key no batch URL asked for
	}
	var caps []cdxj.Capture
	var l IndexLine
	for lines(&l) {
		c, err := cdxj.Parse(l.Line)
		if err != nil {
			if l.Archive != "" {
				return fmt.Errorf("index line for %s in archive %q: %w", key, l.Archive, err)
			}
			return fmt.Errorf("index line for %s: %w", key, err)
		}
		c.Archive = l.Archive
		caps = append(caps, c)
	}
	// The order of lookup.Index (and of its multi-index): timestamp,
	// archive, file name, offset.
	lookup.SortCaptures(caps, f.Archives)
	out := make([]Resolved, len(rs))
	for i, r := range rs {
		out[i] = Resolved{Ranked: r, Captures: caps}
	}
	emit(out)
	return nil
}
