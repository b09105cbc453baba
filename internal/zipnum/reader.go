package zipnum

import (
	"bufio"
	"bytes"
	"container/list"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/recrawl/recrawl/internal/bytecount"
	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/inflate"
	"github.com/recrawl/recrawl/internal/storage"
)

// DefaultCacheBytes bounds the decompressed blocks a [Reader] keeps: 64 MiB,
// about 100 blocks of 3000 CDXJ lines.
const DefaultCacheBytes = 64 << 20

// MaxBlockBytes bounds the inflated size of one block the reader accepts
// (and, with [MaxLineBytes], the blocks [ShardWriter] writes): 32 MiB. A block
// of DefaultLinesPerBlock CDXJ lines is about 1 MB (318 bytes a line in the
// benchmark corpus), so only a damaged or hostile block comes near it; a
// larger one is an error naming the shard, the block and the limit, so
// memory stays bounded whatever the index says.
const MaxBlockBytes = 32 << 20

// MaxCompressedBlockBytes bounds the length of a block's gzip member: gzip
// expands incompressible data by at most 5 bytes per 64 KiB stored block plus
// its header and trailer, so a member of a block within MaxBlockBytes is
// never longer.
const MaxCompressedBlockBytes = MaxBlockBytes + MaxBlockBytes/1024 + 1<<10

// ErrBlockTooLarge reports a block over MaxBlockBytes (inflated) or
// MaxCompressedBlockBytes (its gzip member).
var ErrBlockTooLarge = errors.New("block too large")

// Options tune a [Reader]. The zero value is ready to use.
type Options struct {
	// CacheBytes bounds the decompressed blocks kept in the LRU cache;
	// 0 means DefaultCacheBytes, a negative value disables the cache.
	CacheBytes int64
	// Cache, when set, is the block cache the reader keeps its blocks in,
	// shared with other readers (the parts of one index): they all stay
	// within its one budget, and CacheBytes is not used.
	Cache *BlockCache
}

// Reader looks up captures in a ZipNum index. It is safe for concurrent use.
type Reader struct {
	idxPath string
	entries []Entry // the secondary index, in key order
	keys    []string
	lineNos []int // line of each entry in the secondary index

	locs   map[string][]string // shard name → candidate paths
	mu     sync.Mutex          // guards shards, closed
	shards map[string]*shardFile
	closed bool
	cache  *BlockCache // its own, or shared with other readers
	owner  uint64      // the reader's key in cache

	indexBytes    int64 // size of the secondary index, read whole by Open
	bytesRead     atomic.Int64
	blocksRead    atomic.Int64
	inflatedBytes atomic.Int64
}

// shardFile is an open shard: a local file or a gs:// object, read with one
// ReadAt (for gs://: one ranged GET) per block.
type shardFile struct {
	path string
	f    storage.ReaderAt
	size int64 // the file's size, which every block must end within
}

// Open is [OpenContext] with a background context.
func Open(p string, opts Options) (*Reader, error) {
	return OpenContext(context.Background(), p, opts)
}

// OpenContext opens the ZipNum index at p, a local path or a gs:// URI:
// a secondary index file (*.idx, *.summary), or a directory (for gs://, a
// prefix) holding cluster.idx or exactly one *.idx file. The location file
// is the secondary index's name with .loc; without one, shards are looked for
// next to the secondary index. The secondary index is read whole; shard
// files are opened when first needed and read one block at a time, so a
// look-up downloads only the blocks it needs. ctx bounds the opening only:
// later reads of gs:// shards are not cancelled with it.
func OpenContext(ctx context.Context, p string, opts Options) (*Reader, error) {
	idx, err := findSecondaryIndex(ctx, p)
	if err != nil {
		return nil, err
	}
	r := &Reader{idxPath: idx, shards: map[string]*shardFile{}}
	if err := r.loadIndex(ctx); err != nil {
		return nil, err
	}
	if err := r.loadLoc(ctx); err != nil {
		return nil, err
	}
	r.cache = opts.Cache
	if r.cache == nil {
		cb := opts.CacheBytes
		if cb == 0 {
			cb = DefaultCacheBytes
		}
		r.cache = NewBlockCache(cb)
	}
	r.owner = r.cache.newOwner()
	return r, nil
}

// isDirectory reports whether p is a directory: for a local path, what the
// file system says; for gs://, a URI with a trailing slash, a bare bucket, or
// one that names no object (it is then a prefix), unless its name is that of
// a secondary index file, which must exist.
func isDirectory(ctx context.Context, p string) (bool, error) {
	if !storage.IsGCS(p) {
		st, err := os.Stat(p)
		if err != nil {
			return false, fmt.Errorf("zipnum: %w", err)
		}
		return st.IsDir(), nil
	}
	if strings.HasSuffix(p, "/") || !strings.Contains(strings.TrimPrefix(p, "gs://"), "/") {
		return true, nil
	}
	_, err := storage.Size(ctx, p)
	switch {
	case err == nil:
		return false, nil
	case errors.Is(err, fs.ErrNotExist) && !isSecondaryIndexName(p):
		return true, nil
	default:
		return false, fmt.Errorf("zipnum: secondary index: %w", err)
	}
}

// isSecondaryIndexName reports whether p names a secondary index file.
func isSecondaryIndexName(p string) bool {
	ext := path.Ext(p)
	return ext == ".idx" || ext == ".summary"
}

func findSecondaryIndex(ctx context.Context, p string) (string, error) {
	isDir, err := isDirectory(ctx, p)
	if err != nil {
		return "", err
	}
	if !isDir {
		return p, nil
	}
	dir := p // storage.Join drops a trailing slash
	cluster := storage.Join(dir, "cluster.idx")
	if ok, err := storage.Exists(ctx, cluster); err != nil {
		return "", fmt.Errorf("zipnum: %w", err)
	} else if ok {
		return cluster, nil
	}
	var found []string
	for _, pat := range []string{"*.idx", "*.summary"} {
		m, err := storage.Glob(ctx, storage.Join(dir, pat))
		if err != nil {
			return "", fmt.Errorf("zipnum: %w", err)
		}
		found = append(found, m...)
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", fmt.Errorf("zipnum: %s: no cluster.idx (or other *.idx / *.summary file)", p)
	default:
		return "", fmt.Errorf("zipnum: %s: no cluster.idx and several secondary indexes (%s): name the one to use",
			p, strings.Join(found, ", "))
	}
}

func (r *Reader) loadIndex(ctx context.Context) error {
	f, err := storage.Open(ctx, r.idxPath)
	if err != nil {
		return fmt.Errorf("zipnum: secondary index: %w", err)
	}
	defer f.Close()
	cr := bytecount.NewReader(f)
	sc := bufio.NewScanner(cr)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		if sc.Text() == "" {
			continue
		}
		e, err := ParseEntry(sc.Text())
		if err != nil {
			return fmt.Errorf("zipnum: %s:%d: %w", r.idxPath, n, err)
		}
		if len(r.entries) > 0 && e.Key < r.entries[len(r.entries)-1].Key {
			return fmt.Errorf("zipnum: %s:%d: key %q sorts before the previous line's: secondary index is not sorted", r.idxPath, n, e.Key)
		}
		r.entries = append(r.entries, e)
		r.keys = append(r.keys, e.Key)
		r.lineNos = append(r.lineNos, n)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("zipnum: %s: %w", r.idxPath, err)
	}
	r.indexBytes = cr.N()
	return nil
}

func (r *Reader) loadLoc(ctx context.Context) error {
	dir := storage.Dir(r.idxPath)
	r.locs = map[string][]string{}
	locPath := strings.TrimSuffix(r.idxPath, path.Ext(r.idxPath)) + ".loc"
	data, err := storage.ReadFile(ctx, locPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // shards next to the secondary index
	}
	if err != nil {
		return fmt.Errorf("zipnum: location file: %w", err)
	}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		parts := strings.Split(line, "\t")
		if len(parts) < 2 {
			return fmt.Errorf("zipnum: %s:%d: want \"shard<TAB>path\", got %q", locPath, i+1, truncate(line))
		}
		for _, p := range parts[1:] {
			switch {
			case storage.IsGCS(p), filepath.IsAbs(p):
			case strings.Contains(p, "://"):
				continue // http:// and other remote locations are not read by this reader
			default:
				p = storage.Join(dir, p) // relative to the location file
			}
			r.locs[parts[0]] = append(r.locs[parts[0]], p)
		}
	}
	return nil
}

// Blocks returns the number of blocks in the index.
func (r *Reader) Blocks() int { return len(r.entries) }

// BytesRead returns the compressed bytes read from shard files so far
// (the secondary index, read by Open, not counted: see [Reader.IndexBytes]).
func (r *Reader) BytesRead() int64 { return r.bytesRead.Load() }

// IndexBytes returns the size of the secondary index, which Open reads whole.
func (r *Reader) IndexBytes() int64 { return r.indexBytes }

// BlocksRead returns the number of blocks read and decompressed so far
// (cache hits not counted).
func (r *Reader) BlocksRead() int64 { return r.blocksRead.Load() }

// InflatedBytes returns the bytes decompressed so far: the whole of each
// block Range reads, the part of each block Lookup needs.
func (r *Reader) InflatedBytes() int64 { return r.inflatedBytes.Load() }

// CachedBytes returns the bytes of the reader's blocks in its block cache.
func (r *Reader) CachedBytes() int64 { return r.cache.ownerBytes(r.owner) }

// Close closes the shard files and drops the reader's blocks from its
// block cache.
func (r *Reader) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	r.cache.drop(r.owner)
	var errs []error
	for _, sf := range r.shards {
		if err := sf.f.Close(); err != nil {
			errs = append(errs, fmt.Errorf("zipnum: close %s: %w", sf.path, err))
		}
	}
	r.shards = map[string]*shardFile{}
	return errors.Join(errs...)
}

// blockRange returns the blocks [lo, hi) that can hold lines in [start, end).
func (r *Reader) blockRange(start, end string) (lo, hi int) {
	j := sort.SearchStrings(r.keys, start) // first block whose first key >= start
	lo = max(j-1, 0)                       // lines >= start may end the block before it
	hi = j + sort.SearchStrings(r.keys[j:], end)
	if hi < lo {
		hi = lo
	}
	return lo, hi
}

// Lookup returns all captures of each key (an exact SURT key), in index
// order (by timestamp). Keys without captures are absent from the map.
//
// The keys are sorted and mapped to the blocks that can hold them, so each
// block is read and inflated at most once per call however many keys it
// answers. Blocks that lie end to end in a shard are read with one ranged
// read of up to maxRunBytes; each block is inflated only up to the first
// line past the last key it answers, then every key in it is answered and
// those first lines of the block dropped or kept in the cache (a later
// look-up that needs lines past them inflates the block again, further),
// so a call holds at most one inflated block per reading goroutine
// (2×GOMAXPROCS of them). Inflating only that far measured fewer bytes
// inflated than inflating whole blocks for the cache, cold and warm, on
// random keys and on the batches of real rounds (docs/scaling.md, "The
// look-ups of a round").
func (r *Reader) Lookup(keys []string) (map[string][]cdxj.Capture, error) {
	sorted := slices.Clone(keys)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	if len(sorted) > 0 && sorted[0] == "" {
		sorted = sorted[1:]
	}
	found, err := LookupSorted([]*Reader{r}, [][]string{sorted})
	if err != nil {
		return nil, err
	}
	out := make(map[string][]cdxj.Capture)
	for i, cs := range found[0] {
		if len(cs) > 0 {
			out[sorted[i]] = cs
		}
	}
	return out, nil
}

// LookupSorted looks up keys[i] in readers[i] for every i, in one pass: the
// parts of one index. keys[i] must be sorted, distinct and not empty. The
// blocks of every reader are planned first, then the blocks not in the
// cache are read by one pool of 2×GOMAXPROCS goroutines for all readers
// together, as [Reader.Lookup] reads those of one. It returns, for each
// reader, the captures of each of its keys (by index in keys[i]; nil for
// none), in index order.
func LookupSorted(readers []*Reader, keys [][]string) ([][][]cdxj.Capture, error) {
	plans := make([]*lookupPlan, len(readers))
	var runs []planRun
	for i, r := range readers {
		pl, err := r.plan(keys[i])
		if err != nil {
			return nil, err
		}
		plans[i] = pl
		for j := range pl.runs {
			runs = append(runs, planRun{pl, j})
		}
	}
	if err := readRuns(runs); err != nil {
		return nil, err
	}
	out := make([][][]cdxj.Capture, len(readers))
	for i, pl := range plans {
		res := make([][]cdxj.Capture, len(pl.sorted))
		for _, kcs := range pl.found { // blocks in index order: a key's captures stay in line order
			for _, kc := range kcs {
				res[kc.key] = append(res[kc.key], kc.captures...)
			}
		}
		out[i] = res
	}
	return out, nil
}

// lookupPlan is the look-up of sorted keys in one reader: the blocks that
// can hold them, what the cached ones answered, and the runs of the others
// to read.
type lookupPlan struct {
	r      *Reader
	sorted []string
	needs  []blockNeed
	found  [][]keyCaptures // by need
	runs   [][]int         // indices in needs, grouped by groupRuns
}

// planRun is one run of one plan.
type planRun struct {
	plan *lookupPlan
	run  int
}

// plan maps the sorted keys to blocks and answers those in the cache.
func (r *Reader) plan(sorted []string) (*lookupPlan, error) {
	pl := &lookupPlan{r: r, sorted: sorted, needs: r.planBlocks(sorted)}
	pl.found = make([][]keyCaptures, len(pl.needs))
	var toRead []int // indices in needs of the blocks not answered from the cache
	for i, need := range pl.needs {
		blk, err := r.cachedBlock(need.n, func(b *block) bool { return b.answers(sorted, need) })
		if err != nil {
			return nil, err
		}
		if blk == nil {
			toRead = append(toRead, i)
			continue
		}
		if pl.found[i], err = r.answer(blk, sorted, need); err != nil {
			return nil, err
		}
	}
	pl.runs = r.groupRuns(pl.needs, toRead)
	return pl, nil
}

// blockNeed is a block a look-up reads and the keys it answers there.
type blockNeed struct {
	n int
	// keys [first, last] (indices in the sorted keys) may have lines in
	// block n.
	first, last int
	// end bounds the lines of those keys: once a line >= end is inflated,
	// the rest of the block answers none of them.
	end string
}

// keyCaptures are the captures one block holds for one key.
type keyCaptures struct {
	key      int // index in the sorted keys
	captures []cdxj.Capture
}

// planBlocks returns the blocks that can hold lines of the sorted keys, in
// index order, each with the keys it answers (a run of consecutive keys,
// since both ends of a key's block range grow with the key).
func (r *Reader) planBlocks(sorted []string) []blockNeed {
	var needs []blockNeed
	for i, k := range sorted {
		lo, hi := r.keyBlockRange(k)
		for b := lo; b < hi; b++ {
			if len(needs) > 0 && needs[len(needs)-1].n == b {
				needs[len(needs)-1].last = i
				continue
			}
			if len(needs) > 0 && needs[len(needs)-1].n > b {
				continue // cannot happen: the ranges of sorted keys are ordered
			}
			needs = append(needs, blockNeed{n: b, first: i, last: i})
		}
	}
	for i := range needs {
		needs[i].end = sorted[needs[i].last] + "!"
	}
	return needs
}

// keyBlockRange is blockRange(key+" ", key+"!"), the blocks that can hold
// lines of key, without building the bounds.
func (r *Reader) keyBlockRange(key string) (lo, hi int) {
	j := sort.Search(len(r.keys), func(i int) bool { return !belowKeyBound(r.keys[i], key, ' ') })
	lo = max(j-1, 0)
	hi = j + sort.Search(len(r.keys)-j, func(i int) bool { return !belowKeyBound(r.keys[j+i], key, '!') })
	if hi < lo {
		hi = lo
	}
	return lo, hi
}

// belowKeyBound reports whether s < key+string(sep), without building it.
func belowKeyBound(s, key string, sep byte) bool {
	if len(s) <= len(key) {
		return s <= key // a prefix of key, or key itself, is below key+sep
	}
	if c := strings.Compare(s[:len(key)], key); c != 0 {
		return c < 0
	}
	return s[len(key)] < sep
}

// maxRunBytes bounds one read of adjacent blocks (compressed bytes): a few
// blocks of DefaultLinesPerBlock lines, one ranged GET on gs://. A block
// longer than it is read alone.
const maxRunBytes = 1 << 20

// groupRuns cuts the needs to read (indices in needs, ascending) into runs
// of blocks that lie end to end in one shard, each run at most maxRunBytes
// long unless it is a single block.
func (r *Reader) groupRuns(needs []blockNeed, toRead []int) [][]int {
	var runs [][]int
	var runBytes int64
	for _, i := range toRead {
		e := r.entries[needs[i].n]
		if len(runs) > 0 {
			run := runs[len(runs)-1]
			prev := r.entries[needs[run[len(run)-1]].n]
			if prev.Shard == e.Shard && prev.Offset+prev.Length == e.Offset && runBytes+e.Length <= maxRunBytes {
				runs[len(runs)-1] = append(run, i)
				runBytes += e.Length
				continue
			}
		}
		runs = append(runs, []int{i})
		runBytes = e.Length
	}
	return runs
}

// readRuns reads the runs, 2×GOMAXPROCS at a time (the goroutines beyond
// the cores wait on reads, which matters for gs:// shards), and fills the
// found of each run's plan for each block read. The error returned is that
// of the first failing run in order.
func readRuns(runs []planRun) error {
	errs := make([]error, len(runs))
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	for range min(2*runtime.GOMAXPROCS(0), len(runs)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(runs) || failed.Load() {
					return
				}
				pl := runs[i].plan
				if errs[i] = pl.r.readRun(pl.sorted, pl.needs, pl.runs[runs[i].run], pl.found); errs[i] != nil {
					failed.Store(true)
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// readRun reads one run of adjacent blocks with one ranged read, then
// inflates and answers its blocks one at a time.
func (r *Reader) readRun(sorted []string, needs []blockNeed, run []int, found [][]keyCaptures) error {
	first, last := r.entries[needs[run[0]].n], r.entries[needs[run[len(run)-1]].n]
	sf, err := r.shard(first.Shard)
	if err != nil {
		return err
	}
	for _, i := range run {
		if err := r.checkBlockLength(needs[i].n, sf); err != nil {
			return err
		}
	}
	length := last.Offset + last.Length - first.Offset
	bufp := getBuf(int(length))
	defer bufPool.Put(bufp)
	buf := (*bufp)[:length]
	m, err := sf.f.ReadAt(buf, first.Offset)
	r.bytesRead.Add(int64(m))
	if err != nil && !(errors.Is(err, io.EOF) && int64(m) == length) {
		if len(run) == 1 {
			return fmt.Errorf("zipnum: %s: %w", r.describeBlock(needs[run[0]].n, sf), err)
		}
		return fmt.Errorf("zipnum: %s, and the %d blocks after it: %w", r.describeBlock(needs[run[0]].n, sf), len(run)-1, err)
	}
	for _, i := range run {
		e := r.entries[needs[i].n]
		blk, err := r.inflateForKeys(needs[i].n, sf, buf[e.Offset-first.Offset:][:e.Length], sorted[needs[i].first:needs[i].last+1], needs[i].end)
		if err != nil {
			return err
		}
		if found[i], err = r.answer(blk, sorted, needs[i]); err != nil {
			return err
		}
	}
	return nil
}

// answer finds the captures of the keys of need in blk, which holds every
// line of block need.n below need.end.
func (r *Reader) answer(blk *block, sorted []string, need blockNeed) ([]keyCaptures, error) {
	var out []keyCaptures
	from := 0 // the keys are sorted: each one's lines start at or after the previous one's
	for i := need.first; i <= need.last; i++ {
		key := sorted[i]
		var caps []cdxj.Capture
		lines := blk.keyLines(key)
		if lines != blk {
			from = 0 // a run of segments, searched on its own
		}
		from = lines.search(from, func(line string) bool { return belowKeyBound(line, key, ' ') })
		for off := from; off < lines.linesEnd(); {
			line, next := lines.line(off)
			if !belowKeyBound(line, key, '!') {
				break
			}
			c, err := ParseLine(line)
			if err != nil {
				e := r.entries[need.n]
				return nil, fmt.Errorf("zipnum: shard %s block at %d: %w", e.Shard, e.Offset, err)
			}
			caps = append(caps, c)
			off = next
		}
		if len(caps) > 0 {
			out = append(out, keyCaptures{key: i, captures: caps})
		}
	}
	return out, nil
}

// Range iterates over the index lines in [start, end) (byte-wise order of
// whole lines; end "" means to the end of the index). It stops at the first
// error, which it yields.
func (r *Reader) Range(start, end string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		lo, hi := r.blockRange(start, end)
		if end == "" {
			hi = len(r.entries)
		}
		for b := lo; b < hi; b++ {
			blk, err := r.block(b)
			if err != nil {
				yield("", err)
				return
			}
			for off := blk.search(0, func(line string) bool { return line < start }); off < blk.linesEnd(); {
				line, next := blk.line(off)
				if end != "" && line >= end {
					return
				}
				if !yield(line, nil) {
					return
				}
				off = next
			}
		}
	}
}

// Prefix iterates over the index lines that start with prefix, e.g. all
// captures of a host ("com,example)/") or of a domain ("com,example,").
func (r *Reader) Prefix(prefix string) iter.Seq2[string, error] {
	return r.Range(prefix, prefixEnd(prefix))
}

// prefixEnd returns the smallest string greater than every string with the
// given prefix, or "" if there is none.
func prefixEnd(prefix string) string {
	b := []byte(prefix)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1])
		}
	}
	return ""
}

// block is one decompressed block, or the first lines of one, kept as the
// inflated text: its lines are found by binary search on the bytes, so a
// look-up of a few keys in a block of thousands of lines splits none of
// them.
type block struct {
	n int
	// data is the block's lines, sorted, each but the last followed by
	// '\n' ("" for a block without lines).
	data string
	// size is the memory data holds, which the block cache counts.
	size int64
	// complete: data is the whole block. Otherwise it ends with the first
	// line the look-up that inflated it needed no further than, and
	// answers only look-ups bounded below that line (see covers), or, if
	// segs is set, it holds runs of the block's segments.
	complete bool
	// segs is the segment index of a block inflated in runs of segments;
	// runs are those runs, end to end in data, each ending with a newline.
	// It answers only the keys whose segments one run holds (see answers).
	segs *segmentIndex
	runs []segmentRun
}

// linesEnd is the offset past the block's last line: a line starts at
// every offset below it that line returns.
func (b *block) linesEnd() int {
	if b.data == "" {
		return 0
	}
	return len(b.data) + 1
}

// line returns the line that starts at offset off (< linesEnd) and the
// offset of the next one.
func (b *block) line(off int) (line string, next int) {
	i := strings.IndexByte(b.data[off:], '\n')
	if i < 0 {
		return b.data[off:], len(b.data) + 1
	}
	return b.data[off : off+i], off + i + 1
}

// search returns the offset of the first line at or after from (a line's
// offset, or linesEnd) for which below is false, or linesEnd if there is
// none. below must be true for a prefix of the lines and false after it,
// as it is for a bound on sorted lines.
func (b *block) search(from int, below func(line string) bool) int {
	// Lines before lo are below; lines from hi on are not. lo and hi are
	// offsets of lines (or linesEnd); the line holding the middle byte of
	// [lo, hi) starts after the last '\n' before it.
	lo, hi := from, b.linesEnd()
	for lo < hi {
		mid := lo + (hi-lo)/2
		start := lo + strings.LastIndexByte(b.data[lo:mid], '\n') + 1
		line, next := b.line(start)
		if below(line) {
			lo = next
		} else {
			hi = start
		}
	}
	return lo
}

// lastLine returns the block's last line; ok is false if it has none.
func (b *block) lastLine() (line string, ok bool) {
	if b.data == "" {
		return "", false
	}
	return b.data[strings.LastIndexByte(b.data, '\n')+1:], true
}

// covers reports whether b holds every line of its block that sorts below
// end.
func (b *block) covers(end string) bool {
	if b.complete {
		return true
	}
	last, ok := b.lastLine()
	return ok && last >= end
}

// answers reports whether b holds every line of its block that the keys
// of need (in sorted) can have.
func (b *block) answers(sorted []string, need blockNeed) bool {
	switch {
	case b.complete:
		return true
	case b.segs != nil:
		for _, k := range sorted[need.first : need.last+1] {
			if lo, hi := b.segs.keySegments(k); lo < hi && b.runOf(lo, hi) < 0 {
				return false
			}
		}
		return true
	default:
		return b.covers(need.end)
	}
}

// runOf returns the index of the run of b that holds segments [lo, hi), or
// -1 if none does.
func (b *block) runOf(lo, hi int) int {
	for i, run := range b.runs {
		if run.lo <= lo && hi <= run.hi {
			return i
		}
	}
	return -1
}

// keyLines returns the part of b that holds the lines of key: b itself, or
// for a block inflated in segments, the run of segments that holds them.
func (b *block) keyLines(key string) *block {
	if b.segs == nil {
		return b
	}
	lo, hi := b.segs.keySegments(key)
	if lo == hi {
		return &block{n: b.n}
	}
	run := b.runs[b.runOf(lo, hi)] // answers checked that there is one
	from := run.off + b.segs.inflated[lo] - b.segs.inflated[run.lo]
	to := run.off + b.segs.inflated[hi] - b.segs.inflated[run.lo]
	return &block{n: b.n, data: b.data[from : to-1]} // without the last line's newline
}

// cachedBlock returns block n from the cache if the cache holds enough of
// it for ok, else nil.
func (r *Reader) cachedBlock(n int, ok func(*block) bool) (*block, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, errors.New("zipnum: reader is closed")
	}
	if b := r.cache.get(r.owner, n); b != nil && ok(b) {
		return b, nil
	}
	return nil, nil
}

// block returns the whole of block n, from the cache or read from its shard.
func (r *Reader) block(n int) (*block, error) {
	if b, err := r.cachedBlock(n, func(b *block) bool { return b.complete }); b != nil || err != nil {
		return b, err
	}
	e := r.entries[n]
	sf, err := r.shard(e.Shard)
	if err != nil {
		return nil, err
	}
	if err := r.checkBlockLength(n, sf); err != nil {
		return nil, err
	}
	bufp := getBuf(int(e.Length))
	defer bufPool.Put(bufp)
	buf := (*bufp)[:e.Length]
	m, err := sf.f.ReadAt(buf, e.Offset)
	r.bytesRead.Add(int64(m))
	if err != nil && !(errors.Is(err, io.EOF) && int64(m) == e.Length) {
		return nil, fmt.Errorf("zipnum: %s: %w", r.describeBlock(n, sf), err)
	}
	return r.inflate(n, sf, buf, "")
}

// inflateForKeys decompresses what block n's gzip member data holds of the
// lines of keys (sorted), all bounded below end: if the block has a segment
// index, only the segments that can hold them (unless that is all of
// them); else the block as far as the first line >= end.
func (r *Reader) inflateForKeys(n int, sf *shardFile, data []byte, keys []string, end string) (*block, error) {
	segs, err := parseSegmentIndex(data)
	if err != nil {
		return nil, fmt.Errorf("zipnum: %s: %w", r.describeBlock(n, sf), err)
	}
	if segs == nil {
		return r.inflate(n, sf, data, end)
	}
	runs := segs.segmentRuns(keys)
	if len(runs) == 1 && runs[0].lo == 0 && runs[0].hi == segs.segments() {
		return r.inflate(n, sf, data, end)
	}
	s, err := inflateSegments(data, segs, runs)
	r.inflatedBytes.Add(int64(len(s)))
	if err != nil {
		return nil, fmt.Errorf("zipnum: %s: %w", r.describeBlock(n, sf), err)
	}
	r.blocksRead.Add(1)
	b := &block{n: n, data: s, size: int64(len(s)), segs: segs, runs: runs}
	r.keep(b)
	return b, nil
}

// inflate decompresses block n from its gzip member data, as far as the
// first line >= stop (the whole block if stop is ""), and caches it.
func (r *Reader) inflate(n int, sf *shardFile, data []byte, stop string) (*block, error) {
	s, held, inflated, complete, err := gunzip(data, MaxBlockBytes, stop)
	r.inflatedBytes.Add(int64(inflated))
	if errors.Is(err, ErrBlockTooLarge) {
		return nil, fmt.Errorf("zipnum: %s inflates to more than %d bytes (MaxBlockBytes): %w", r.describeBlock(n, sf), MaxBlockBytes, err)
	}
	if err != nil {
		return nil, fmt.Errorf("zipnum: %s: %w", r.describeBlock(n, sf), err)
	}
	r.blocksRead.Add(1)
	s = strings.TrimSuffix(s, "\n")
	b := &block{n: n, data: s, size: held, complete: complete}
	r.keep(b)
	return b, nil
}

// keep puts an inflated block in the cache, unless the reader is closed.
func (r *Reader) keep(b *block) {
	r.mu.Lock()
	closed := r.closed
	r.mu.Unlock()
	if !closed {
		r.cache.put(r.owner, b)
	}
}

// describeBlock names block n for an error: its shard (name and file), its
// place in the shard, and its line and first key in the secondary index.
func (r *Reader) describeBlock(n int, sf *shardFile) string {
	e := r.entries[n]
	return fmt.Sprintf("shard %s (%s): block %d at %d+%d (%s line %d, first key %q)",
		e.Shard, sf.path, e.Seq, e.Offset, e.Length, r.idxPath, r.lineNos[n], truncate(e.Key))
}

// checkBlockLength checks, before any buffer is made for it, that block n
// lies within its shard file and that its gzip member is not longer than
// MaxCompressedBlockBytes: the secondary index is input, and a length
// field of 2^63-1 must not become an allocation.
func (r *Reader) checkBlockLength(n int, sf *shardFile) error {
	e := r.entries[n]
	if e.Offset > sf.size || e.Length > sf.size-e.Offset {
		return fmt.Errorf("zipnum: %s: ends past the end of the shard file (%d bytes)", r.describeBlock(n, sf), sf.size)
	}
	if e.Length > MaxCompressedBlockBytes {
		return fmt.Errorf("zipnum: %s: gzip member longer than %d bytes (MaxCompressedBlockBytes): %w",
			r.describeBlock(n, sf), int64(MaxCompressedBlockBytes), ErrBlockTooLarge)
	}
	return nil
}

// Buffers and gzip readers are pooled: a look-up decompresses hundreds of
// kilobytes per block, and allocating them anew made the garbage collector
// a main cost in a process with a large heap.
var (
	bufPool sync.Pool // *[]byte
	outPool sync.Pool // *[]byte
)

func getBuf(n int) *[]byte {
	if v := bufPool.Get(); v != nil {
		if p := v.(*[]byte); cap(*p) >= n {
			return p
		}
	}
	b := make([]byte, n)
	return &b
}

// gunzip decompresses a block into one string (the only allocation that
// stays: the lines of a cached block point into it) and returns the bytes
// that string holds (its length, or the capacity of the buffer it shares).
// With stop not "", it ends after the first whole line >= stop and reports
// the block incomplete (unless the block ended there). A block that
// inflates to more than limit bytes is ErrBlockTooLarge, found after
// reading at most limit+1 bytes of it. The gzip trailer (CRC-32 and
// length) is checked when the whole block is inflated.
//
// The output buffer is sized once from the member's trailer (see
// inflatedSizeHint), so it is not grown and copied as it fills. If the
// text fills at least half of it, the buffer becomes the string without a
// copy; otherwise (the first lines of a block) the text is copied out and
// the buffer pooled for the next block.
func gunzip(buf []byte, limit int64, stop string) (s string, held int64, inflated int, complete bool, err error) {
	zr := getBlockReader(buf)
	defer blockReaders.Put(zr)
	var past func([]byte) int
	if stop != "" {
		past = func(out []byte) int { return endOfLineAtLeast(out, stop) }
	}
	out, complete, err := readAtMost(zr, getOutBuf(inflatedSizeHint(buf, limit)+1), limit, past)
	inflated = len(out)
	if err != nil {
		putOutBuf(out)
		return "", 0, inflated, false, err
	}
	if !complete {
		out = out[:endOfLineAtLeast(out, stop)]
	}
	if len(out) >= cap(out)/2 {
		// out is not written again: the string may share its bytes.
		return unsafe.String(unsafe.SliceData(out), len(out)), int64(cap(out)), inflated, complete, nil
	}
	s = string(out)
	putOutBuf(out)
	return s, int64(len(s)), inflated, complete, nil
}

// getOutBuf returns an empty buffer of capacity at least n for inflating a
// block: a pooled one unless it is more than twice that, else a new one.
func getOutBuf(n int) []byte {
	if p, _ := outPool.Get().(*[]byte); p != nil && cap(*p) >= n && cap(*p) <= 2*n {
		return (*p)[:0]
	}
	return make([]byte, 0, n)
}

// putOutBuf pools a buffer no string shares.
func putOutBuf(b []byte) { outPool.Put(&b) }

// inflatedSizeHint returns the inflated size a block's gzip data announces
// in its trailer (ISIZE, the last 4 bytes of a member: the size modulo
// 2^32), bounded by limit and by deflate's largest ratio (1032:1), so that
// a hostile trailer cannot make a larger buffer than the data can fill.
// It is a hint: a block of several members announces only its last one's
// size, and readAtMost grows the buffer past it if it must.
func inflatedSizeHint(member []byte, limit int64) int {
	const minMember = 18 // a gzip header and trailer
	if len(member) < minMember {
		return 0
	}
	isize := int64(binary.LittleEndian.Uint32(member[len(member)-4:]))
	return int(min(isize, limit, int64(len(member))*1032))
}

// blockReader inflates one block's gzip data with the engine of the build
// (internal/inflate: pure Go, or ISA-L with -tags isal). A block is one gzip
// member; it reads on through further members, so blocks written as
// several members (some tools do) work too.
type blockReader struct {
	src     *bufio.Reader
	data    bytes.Reader
	member  inflate.Member
	started bool
}

var blockReaders sync.Pool // *blockReader

// blockReaderBuffer is the input window of a blockReader: a Read of the
// ISA-L engine gives at most half of it.
const blockReaderBuffer = 64 << 10

func getBlockReader(buf []byte) *blockReader {
	zr, _ := blockReaders.Get().(*blockReader)
	if zr == nil {
		zr = &blockReader{member: inflate.New()}
		zr.src = bufio.NewReaderSize(&zr.data, blockReaderBuffer)
	}
	zr.data.Reset(buf)
	zr.src.Reset(&zr.data)
	zr.started = false
	return zr
}

func (z *blockReader) Read(p []byte) (int, error) {
	for {
		if !z.started {
			if err := z.member.Reset(z.src); err != nil {
				if errors.Is(err, io.EOF) {
					err = io.ErrUnexpectedEOF // a block is at least one member
				}
				return 0, err
			}
			z.started = true
		}
		n, err := z.member.Read(p)
		if !errors.Is(err, io.EOF) {
			return n, err
		}
		if _, perr := z.src.Peek(1); perr != nil {
			return n, io.EOF // the last member ended
		}
		z.started = false // another member follows
		if n > 0 {
			return n, nil
		}
	}
}

// endOfLineAtLeast returns the length of the prefix of out that ends with
// its last whole line if that line is >= stop, else -1. The lines of a block
// are sorted, so the first time a read ends past such a line, no line after
// it is below stop.
func endOfLineAtLeast(out []byte, stop string) int {
	end := bytes.LastIndexByte(out, '\n')
	if end < 0 {
		return -1
	}
	start := bytes.LastIndexByte(out[:end], '\n') + 1
	if string(out[start:end]) >= stop {
		return end + 1
	}
	return -1
}

// readAtMost appends what r yields to buf, growing buf to at most limit+1
// bytes (so a block at the limit never needs twice the limit), and returns
// ErrBlockTooLarge once r yields more than limit bytes. If past is not nil,
// it is asked after each read of new lines whether the bytes read so far
// are enough (a length >= 0): the reading then stops, with complete false.
// complete is true when r was read to its end.
func readAtMost(r io.Reader, buf []byte, limit int64, past func([]byte) int) (_ []byte, complete bool, _ error) {
	for {
		if len(buf) == cap(buf) {
			grown := make([]byte, len(buf), min(max(2*int64(cap(buf)), 64<<10), limit+1))
			copy(grown, buf)
			buf = grown
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return buf, false, ErrBlockTooLarge
		}
		if errors.Is(err, io.EOF) {
			return buf, true, nil
		}
		if err != nil {
			return buf, false, err
		}
		if past != nil && bytes.IndexByte(buf[len(buf)-n:], '\n') >= 0 {
			if past(buf) >= 0 {
				return buf, false, nil
			}
		}
	}
}

// shard returns the open file of a shard, opening it on first use. It
// opens without holding r.mu (for gs:// an open is a request); when two
// goroutines open the same shard at once, the second's handle is closed.
func (r *Reader) shard(name string) (*shardFile, error) {
	r.mu.Lock()
	sf, ok := r.shards[name]
	r.mu.Unlock()
	if ok {
		return sf, nil
	}
	paths, ok := r.locs[name]
	if !ok {
		paths = []string{storage.Join(storage.Dir(r.idxPath), name)}
	}
	var errs []error
	for _, p := range paths {
		// The reader outlives any caller's context, as do its shard handles.
		f, err := storage.OpenReaderAt(context.Background(), p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.closed {
			f.Close()
			return nil, errors.New("zipnum: reader is closed")
		}
		if prev, ok := r.shards[name]; ok {
			f.Close()
			return prev, nil
		}
		sf := &shardFile{path: p, f: f, size: f.Size()}
		r.shards[name] = sf
		return sf, nil
	}
	return nil, fmt.Errorf("zipnum: shard %s: no location opens: %w", name, errors.Join(errs...))
}

// BlockCache is an LRU cache of decompressed blocks bounded in bytes. A
// [Reader] has its own unless [Options] gives it one; an index of several
// parts gives one to all of its readers, so that the budget is the
// index's, not each part's. It is safe for concurrent use.
type BlockCache struct {
	mu        sync.Mutex
	max, size int64
	ll        *list.List // front: most recently used
	m         map[blockKey]*list.Element
	owners    map[uint64]int64 // bytes held per reader
	lastOwner uint64
}

// blockKey names a block in a cache: its reader and its number there.
type blockKey struct {
	owner uint64
	n     int
}

// cachedBlockEntry is an element of the cache's list.
type cachedBlockEntry struct {
	key blockKey
	b   *block
}

// NewBlockCache returns a cache of at most maxBytes of decompressed blocks;
// maxBytes <= 0 keeps none.
func NewBlockCache(maxBytes int64) *BlockCache {
	return &BlockCache{max: maxBytes, ll: list.New(), m: map[blockKey]*list.Element{}, owners: map[uint64]int64{}}
}

// Bytes returns the bytes of the blocks the cache holds, never more than
// its bound.
func (c *BlockCache) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.size
}

// MaxBytes returns the cache's bound.
func (c *BlockCache) MaxBytes() int64 { return c.max }

func (c *BlockCache) newOwner() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lastOwner++
	return c.lastOwner
}

func (c *BlockCache) ownerBytes(owner uint64) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.owners[owner]
}

func (c *BlockCache) get(owner uint64, n int) *block {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[blockKey{owner, n}]; ok {
		c.ll.MoveToFront(e)
		return e.Value.(*cachedBlockEntry).b
	}
	return nil
}

func (c *BlockCache) put(owner uint64, b *block) {
	if c.max <= 0 || b.size > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	key := blockKey{owner, b.n}
	if e, ok := c.m[key]; ok { // filled concurrently, or a part of the block
		c.ll.MoveToFront(e)
		ce := e.Value.(*cachedBlockEntry)
		old := ce.b
		if old.complete || (!b.complete && old.segs == nil && b.segs == nil && len(old.data) >= len(b.data)) {
			return
		}
		ce.b = b // the longer first lines replace the shorter; runs of segments replace any part
		c.size += b.size - old.size
		c.owners[owner] += b.size - old.size
		c.evict()
		return
	}
	c.m[key] = c.ll.PushFront(&cachedBlockEntry{key: key, b: b})
	c.size += b.size
	c.owners[owner] += b.size
	c.evict()
}

// evict drops the least recently used blocks until the cache fits its bound.
func (c *BlockCache) evict() {
	for c.size > c.max {
		c.remove(c.ll.Back())
	}
}

func (c *BlockCache) remove(e *list.Element) {
	ce := e.Value.(*cachedBlockEntry)
	c.ll.Remove(e)
	delete(c.m, ce.key)
	c.size -= ce.b.size
	if c.owners[ce.key.owner] -= ce.b.size; c.owners[ce.key.owner] == 0 {
		delete(c.owners, ce.key.owner)
	}
}

// drop removes the blocks of one reader.
func (c *BlockCache) drop(owner uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for e := c.ll.Front(); e != nil; {
		next := e.Next()
		if e.Value.(*cachedBlockEntry).key.owner == owner {
			c.remove(e)
		}
		e = next
	}
}

// KeyRange returns the SURT keys of the first and last lines of the index:
// no line of it has a key outside [first, last]. The first comes from the
// secondary index, the last from the last block, which it reads (into the
// cache, like any block). ok is false for an index without lines.
func (r *Reader) KeyRange() (first, last string, ok bool, err error) {
	if len(r.entries) == 0 {
		return "", "", false, nil
	}
	blk, err := r.block(len(r.entries) - 1)
	if err != nil {
		return "", "", false, err
	}
	lastLine, ok := blk.lastLine()
	if !ok {
		return "", "", false, fmt.Errorf("zipnum: %s: the last block holds no line", r.idxPath)
	}
	first, _, _ = strings.Cut(r.entries[0].Key, " ")
	last, _, _ = strings.Cut(lastLine, " ")
	return first, last, true, nil
}
