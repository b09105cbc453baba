package transforms

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/storage"
)

// The state side of a round: its results, the frontier after it and the
// manifest that names the files of both. Every file is written by the
// bundle that produced its values (no shuffle of results or of the
// untouched frontier), under a random name; only files named in the
// manifest are state, so the file of a retried bundle is an orphan nobody
// reads.
//
// A part file is a gob stream of one type (extract.Result or
// extract.Entry): decoding it costs a fraction of JSON's, and a field added
// to either type is simply carried along (gob matches fields by name). The
// driver reads every result back once per round, and a round reads the
// frontier twice.

func init() {
	register.Emitter2[string, extract.Entry]()
	register.Emitter1[string]()
	register.Combiner1[extract.Entry](&mergeEntriesFn{})
	beam.RegisterType(reflect.TypeOf(Discovery{}))
	register.Emitter2[string, Discovery]()
	register.Combiner1[Discovery](&mergeDiscoveriesFn{})
	register.DoFn4x0[context.Context, string, Discovery, func(string, extract.Entry)](&filterSeenFn{})
	register.DoFn6x1[context.Context, extract.Entry, []extract.Entry, func(*string, *extract.Entry) bool, func(string, extract.Entry), func(string), error](&splitFrontierFn{})
	register.Iter2[string, extract.Entry]()
	register.Function2x1(dropEntryKey)
	register.DoFn3x1[context.Context, extract.Entry, func(string), error](&writeFrontierFn{})
	register.DoFn4x1[context.Context, int, func(*string) bool, func(string), error](&writeManifestFn{})
	register.Iter1[string]()
}

// Files and directories a round writes into RoundConfig.OutDir.
const (
	// RoundManifestFile names every part file of the state, one per line:
	// "kind<TAB>path<TAB>count" (kind ManifestResults or ManifestFrontier),
	// sorted.
	RoundManifestFile = "round.manifest"
	ResultsDir        = "results"  // results/part-*.gob: extract.Result values, in no particular order
	FrontierDir       = "frontier" // frontier/part-*.gob: extract.Entry values
)

// WritePart writes values to the part file p (a gob stream), atomically.
func WritePart[T any](ctx context.Context, p string, values []T) error {
	w, err := storage.Create(ctx, p)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	enc := gob.NewEncoder(bw)
	for i := range values {
		if err := enc.Encode(&values[i]); err != nil {
			w.Abort()
			return fmt.Errorf("write %s: %w", p, err)
		}
	}
	if err := bw.Flush(); err != nil {
		w.Abort()
		return fmt.Errorf("write %s: %w", p, err)
	}
	return w.Close()
}

// ReadPart calls each with every value of the part file p, in order.
func ReadPart[T any](ctx context.Context, p string, each func(T) error) error {
	r, err := storage.Open(ctx, p)
	if err != nil {
		return err
	}
	defer r.Close()
	dec := gob.NewDecoder(bufio.NewReaderSize(r, 1<<20))
	for n := 0; ; n++ {
		var v T // a new value each time: gob leaves the fields it does not send alone
		if err := dec.Decode(&v); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("%s, value %d: %w", p, n+1, err)
		}
		if err := each(v); err != nil {
			return err
		}
	}
}

// Kinds of part files in a round manifest.
const (
	ManifestResults  = "results"
	ManifestFrontier = "frontier"
)

// Manifest is a parsed round manifest.
type Manifest struct {
	Results, Frontier         []string // part files, sorted
	ResultCount, FrontierSize int      // lines in them
}

// ManifestLine renders one line of a round manifest.
func ManifestLine(kind, path string, count int) string {
	return kind + "\t" + path + "\t" + strconv.Itoa(count)
}

// ReadManifest reads dir/RoundManifestFile. A missing manifest is an
// error: every complete state has one (a round always has results).
func ReadManifest(ctx context.Context, dir string) (Manifest, error) {
	p := storage.Join(dir, RoundManifestFile)
	data, err := storage.ReadFile(ctx, p)
	if errors.Is(err, fs.ErrNotExist) {
		if old, _ := storage.Exists(ctx, storage.Join(dir, "frontier.manifest")); old {
			return Manifest{}, fmt.Errorf("%s holds state in the format of an older recrawl (frontier.manifest, no %s): delete the work directory or use another --work", dir, RoundManifestFile)
		}
	}
	if err != nil {
		return Manifest{}, fmt.Errorf("round manifest: %w", err)
	}
	var m Manifest
	for i, line := range strings.Split(string(data), "\n") {
		if line == "" {
			continue
		}
		f := strings.Split(line, "\t")
		var n int
		if len(f) == 3 {
			n, err = strconv.Atoi(f[2])
		}
		if len(f) != 3 || err != nil || n < 0 {
			return Manifest{}, fmt.Errorf("%s line %d: want kind<TAB>path<TAB>count, got %q", p, i+1, line)
		}
		switch f[0] {
		case ManifestResults:
			m.Results = append(m.Results, f[1])
			m.ResultCount += n
		case ManifestFrontier:
			m.Frontier = append(m.Frontier, f[1])
			m.FrontierSize += n
		default:
			return Manifest{}, fmt.Errorf("%s line %d: unknown kind %q", p, i+1, f[0])
		}
	}
	return m, nil
}

// WriteManifest writes OutDir/RoundManifestFile from the manifest lines of
// every part file the round wrote.
func WriteManifest(s beam.Scope, outDir string, parts ...beam.PCollection) {
	s = s.Scope("WriteManifest")
	all := beam.Flatten(s, parts...)
	beam.ParDo(s, &writeManifestFn{Path: storage.Join(outDir, RoundManifestFile)}, beam.GroupByKey(s, beam.AddFixedKey(s, all)))
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

// partWriter writes the part file of one bundle: created with a random
// name on the first value, committed (and named in the manifest) when the
// bundle finishes.
type partWriter struct {
	dir, kind string
	w         storage.Writer
	bw        *bufio.Writer
	enc       *gob.Encoder
	n         int
	p         string
}

// write appends one value (a pointer to it).
func (pw *partWriter) write(ctx context.Context, v any) error {
	if pw.w == nil {
		var id [8]byte
		rand.Read(id[:])
		pw.p = storage.Join(pw.dir, "part-"+hex.EncodeToString(id[:])+".gob")
		w, err := storage.Create(ctx, pw.p)
		if err != nil {
			return err
		}
		pw.w, pw.bw, pw.n = w, bufio.NewWriterSize(w, 1<<20), 0
		pw.enc = gob.NewEncoder(pw.bw)
	}
	pw.n++
	if err := pw.enc.Encode(v); err != nil {
		return fmt.Errorf("write %s: %w", pw.p, err)
	}
	return nil
}

// finish commits the file, if any, and emits its manifest line.
func (pw *partWriter) finish(emit func(string)) error {
	if pw.w == nil {
		return nil
	}
	w := pw.w
	pw.w = nil
	if err := pw.bw.Flush(); err != nil {
		w.Abort()
		return fmt.Errorf("write %s: %w", pw.p, err)
	}
	if err := w.Close(); err != nil {
		return err
	}
	emit(ManifestLine(pw.kind, pw.p, pw.n))
	return nil
}

// abort discards an unfinished file (a bundle that failed).
func (pw *partWriter) abort() {
	if pw.w != nil {
		pw.w.Abort()
		pw.w = nil
	}
}

// seenSets caches the seen set of a worker process. The seen files of a
// run only grow (one more per round, never changed once committed), so a
// round copies the set of the one before and reads only the newest files.
// A published set is never modified: DoFns read it without locking.
var seenSets struct {
	sync.Mutex
	files []string
	set   map[string]struct{}
}

// loadSeen returns the union of the keys in files (one per line).
func loadSeen(ctx context.Context, files []string) (map[string]struct{}, error) {
	seenSets.Lock()
	defer seenSets.Unlock()
	c := &seenSets
	prefix := c.set != nil && len(c.files) <= len(files)
	for i := 0; prefix && i < len(c.files); i++ {
		prefix = c.files[i] == files[i]
	}
	if prefix && len(c.files) == len(files) {
		return c.set, nil
	}
	set := map[string]struct{}{}
	from := 0
	if prefix {
		set = make(map[string]struct{}, len(c.set)+1024)
		for k := range c.set {
			set[k] = struct{}{}
		}
		from = len(c.files)
	}
	for _, p := range files[from:] {
		data, err := storage.ReadFile(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("seen URLs: %w", err)
		}
		for len(data) > 0 {
			line := data
			if i := bytes.IndexByte(data, '\n'); i >= 0 {
				line, data = data[:i], data[i+1:]
			} else {
				data = nil
			}
			if len(line) > 0 {
				set[string(line)] = struct{}{}
			}
		}
	}
	c.files, c.set = append([]string(nil), files...), set
	return set, nil
}

// Discovery is what a round learned about one URL: a new entry for it (an
// outlink or a redirect target: HasEntry), that the round took it (it is
// in the batch: Taken), or both, once merged per URL.
type Discovery struct {
	Entry    extract.Entry
	HasEntry bool
	Taken    bool
}

type mergeDiscoveriesFn struct{}

func (mergeDiscoveriesFn) MergeAccumulators(a, b Discovery) Discovery {
	out := Discovery{Taken: a.Taken || b.Taken, HasEntry: a.HasEntry || b.HasEntry}
	switch {
	case a.HasEntry && b.HasEntry:
		out.Entry = extract.Merge(a.Entry, b.Entry)
	case a.HasEntry:
		out.Entry = a.Entry
	case b.HasEntry:
		out.Entry = b.Entry
	}
	return out
}

// MergeFrontier computes the frontier after the round: the old frontier
// without the batch, plus the discovered entries that were neither seen
// before the round nor are in its batch, merged per URL (extract.Merge).
// Old entries no discovered URL touches are written by the bundles that
// read them; only the discovered entries and the old entries they touch are
// shuffled. discovered is KV<SURT key, Discovery>, the round's batch among
// them (Taken), so that dropping what the round took needs no side input
// (see FetchAndScore on prism and side inputs). Returns the manifest lines
// of the frontier files.
func MergeFrontier(s beam.Scope, frontier, batch, discovered beam.PCollection, cfg RoundConfig) beam.PCollection {
	s = s.Scope("MergeFrontier")
	dir := storage.Join(cfg.OutDir, FrontierDir)
	unseen := beam.ParDo(s, &filterSeenFn{SeenFiles: cfg.SeenFiles}, beam.CombinePerKey(s, &mergeDiscoveriesFn{}, discovered))
	touched, untouchedParts := beam.ParDo2(s, &splitFrontierFn{Dir: dir}, frontier, beam.SideInput{Input: batch}, beam.SideInput{Input: unseen})
	merged := beam.CombinePerKey(s, &mergeEntriesFn{}, beam.Flatten(s, unseen, touched))
	mergedParts := beam.ParDo(s, &writeFrontierFn{Dir: dir}, beam.ParDo(s, dropEntryKey, merged))
	return beam.Flatten(s, untouchedParts, mergedParts)
}

func dropEntryKey(_ string, e extract.Entry) extract.Entry { return e }

type mergeEntriesFn struct{}

func (mergeEntriesFn) MergeAccumulators(a, b extract.Entry) extract.Entry { return extract.Merge(a, b) }

// filterSeenFn drops discovered URLs that were seen before the round or
// are in its batch (counted: discovered_already_seen).
type filterSeenFn struct {
	SeenFiles []string

	seen    map[string]struct{}
	skipped beam.Counter
}

func (f *filterSeenFn) Setup(ctx context.Context) error {
	seen, err := loadSeen(ctx, f.SeenFiles)
	if err != nil {
		return err
	}
	f.seen = seen
	f.skipped = beam.NewCounter(CounterNamespaceExtract, "discovered_already_seen")
	return nil
}

func (f *filterSeenFn) ProcessElement(ctx context.Context, key string, d Discovery, emit func(string, extract.Entry)) {
	if !d.HasEntry { // a URL the round took, that no result links to
		return
	}
	if _, seen := f.seen[key]; seen || d.Taken {
		f.skipped.Inc(ctx, 1)
		return
	}
	emit(key, d.Entry)
}

// splitFrontierFn drops the batch from the old frontier, emits the entries
// a discovered URL will merge into, and writes the others (untouched) to a
// frontier file of its bundle.
type splitFrontierFn struct {
	Dir string

	batch, discovered map[string]bool
	pw                partWriter
}

func (f *splitFrontierFn) Setup() {
	f.pw = partWriter{dir: f.Dir, kind: ManifestFrontier}
}

func (f *splitFrontierFn) ProcessElement(ctx context.Context, e extract.Entry, batch []extract.Entry, discovered func(*string, *extract.Entry) bool, touched func(string, extract.Entry), _ func(string)) error {
	if f.batch == nil {
		f.batch = make(map[string]bool, len(batch))
		for _, b := range batch {
			f.batch[b.Key] = true
		}
		f.discovered = map[string]bool{}
		var k string
		var d extract.Entry
		for discovered(&k, &d) {
			f.discovered[k] = true
		}
	}
	switch {
	case f.batch[e.Key]:
	case f.discovered[e.Key]:
		touched(e.Key, e)
	default:
		if err := f.pw.write(ctx, &e); err != nil {
			f.pw.abort()
			return err
		}
	}
	return nil
}

func (f *splitFrontierFn) FinishBundle(_ []extract.Entry, _ func(*string, *extract.Entry) bool, _ func(string, extract.Entry), parts func(string)) error {
	return f.pw.finish(parts)
}

func (f *splitFrontierFn) Teardown() error {
	f.pw.abort()
	return nil
}

// writeFrontierFn writes each bundle's entries to a frontier file of its
// own and emits its manifest line.
type writeFrontierFn struct {
	Dir string
	pw  partWriter
}

func (f *writeFrontierFn) Setup() {
	f.pw = partWriter{dir: f.Dir, kind: ManifestFrontier}
}

// ProcessElement writes one entry; emit is used only by FinishBundle (the
// Go SDK takes a bundle's emitters from ProcessElement's signature).
func (f *writeFrontierFn) ProcessElement(ctx context.Context, e extract.Entry, _ func(string)) error {
	if err := f.pw.write(ctx, &e); err != nil {
		f.pw.abort()
		return err
	}
	return nil
}

func (f *writeFrontierFn) FinishBundle(emit func(string)) error {
	return f.pw.finish(emit)
}

func (f *writeFrontierFn) Teardown() error {
	f.pw.abort()
	return nil
}
