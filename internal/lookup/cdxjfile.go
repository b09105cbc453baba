package lookup

import (
	"bytes"
	"container/list"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/storage"
	"github.com/recrawl/recrawl/internal/zipnum"
)

// CDXJOptions tune the CDXJ file backend. The zero value is ready to use.
type CDXJOptions struct {
	// MemoryThreshold: files up to this size are read into memory;
	// 0 means 16 MiB, a negative value always searches the file on disk.
	MemoryThreshold int64
	// PageSize and CachePages set the page cache of the on-disk search;
	// 0 means 4 KiB pages and 8192 pages (32 MiB).
	PageSize   int
	CachePages int
}

// OpenCDXJ opens a CDXJ (or CDX) file sorted by its "key timestamp" prefix,
// as pywb and `sort` (with LC_ALL=C) write it.
func OpenCDXJ(path string, opts CDXJOptions) (Index, error) {
	if opts.MemoryThreshold == 0 {
		opts.MemoryThreshold = 16 << 20
	}
	// Local files and gs:// objects alike: the workers of a cluster read
	// the index from GCS.
	f, err := storage.OpenReaderAt(context.Background(), path)
	if err != nil {
		return nil, fmt.Errorf("cdxj index: %w", err)
	}
	size := f.Size()
	if size <= opts.MemoryThreshold {
		defer f.Close()
		data := make([]byte, size) // one read: one request for a gs:// object
		if _, err := f.ReadAt(data, 0); err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("cdxj index %s: %w", path, err)
		}
		return loadCDXJ(path, data)
	}
	if opts.PageSize <= 0 {
		opts.PageSize = 4 << 10
	}
	if opts.CachePages <= 0 {
		opts.CachePages = 8192
	}
	p := &pagedFile{
		r: f, size: size, pageSize: int64(opts.PageSize), maxPages: opts.CachePages,
		pages: map[int64]*list.Element{}, lru: list.New(),
	}
	x := &fileIndex{path: path, f: p, closer: f}
	if err := x.sample(); err != nil {
		f.Close()
		return nil, fmt.Errorf("cdxj index %s: %w", path, err)
	}
	return x, nil
}

// maxSamples bounds the sparse in-memory index of a file searched on disk.
const maxSamples = 1 << 16

// sample builds the sparse in-memory index: the first line starting at or
// after every stride-th byte (at least 64 KiB apart, at most maxSamples
// lines). A look-up then binary-searches the samples in memory and the file
// only between two samples: a few page reads per key instead of one per
// bisection step of the whole file.
//
// Each search for a line start begins after the line sampled last, so the
// bytes of a line longer than the stride are scanned once, not once per
// stride; a line longer than zipnum.MaxLineBytes is an error naming its
// offset.
func (x *fileIndex) sample() error {
	stride := max(int64(64<<10), x.f.size/maxSamples+1)
	var next int64 // the end of the line sampled last: a line start
	for off := int64(0); off < x.f.size; off = max(off+stride, next) {
		s, err := x.f.lineStartFrom(off)
		if errors.Is(err, errNoLineStart) { // off is inside a line too long: name its start
			if start, berr := x.f.lineStartBefore(off, next); berr == nil {
				return lineTooLong(start)
			}
		}
		if err != nil {
			return err
		}
		if s >= x.f.size {
			break
		}
		if s-next > zipnum.MaxLineBytes { // the line ending at s-1 may be too long
			start, err := x.f.lineStartBefore(s-1, next)
			if err != nil {
				return err
			}
			if s-1-start > zipnum.MaxLineBytes {
				return lineTooLong(start)
			}
		}
		line, n, err := x.f.lineAt(s)
		if err != nil {
			return err
		}
		if len(x.samples) > 0 && cdxj.LineSortKey(line) < cdxj.LineSortKey(x.samples[len(x.samples)-1].line) {
			return fmt.Errorf("line at byte %d sorts before the line at byte %d: the file is not sorted (sort it with LC_ALL=C sort)",
				s, x.samples[len(x.samples)-1].off)
		}
		x.samples = append(x.samples, sampleLine{line: line, off: s})
		next = n
	}
	x.f.clear() // the sampled pages are scattered: do not keep them
	return nil
}

// errNoLineStart reports a stretch of more than zipnum.MaxLineBytes bytes
// without a newline.
var errNoLineStart = fmt.Errorf("a line longer than %d bytes (zipnum.MaxLineBytes), not an index line", zipnum.MaxLineBytes)

// lineTooLong reports a line, starting at off, longer than any index line.
func lineTooLong(off int64) error {
	return fmt.Errorf("line at byte %d is longer than %d bytes (zipnum.MaxLineBytes): not an index line", off, zipnum.MaxLineBytes)
}

// memIndex is a small CDXJ file held in memory.
type memIndex struct {
	path  string
	lines []string
}

// loadCDXJ holds the file's data as its lines, checking their order.
func loadCDXJ(path string, data []byte) (*memIndex, error) {
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	prev := ""
	var off int64
	for i, l := range lines {
		if len(l) > zipnum.MaxLineBytes {
			return nil, fmt.Errorf("cdxj index %s:%d: %w", path, i+1, lineTooLong(off))
		}
		off += int64(len(l)) + 1
		k := cdxj.LineSortKey(l)
		if k < prev {
			return nil, fmt.Errorf("cdxj index %s:%d: line sorts before the previous one: the file is not sorted (sort it with LC_ALL=C sort)", path, i+1)
		}
		prev = k
	}
	return &memIndex{path: path, lines: lines}, nil
}

func (m *memIndex) Lookup(ctx context.Context, keys []string) (map[string][]cdxj.Capture, error) {
	out := map[string][]cdxj.Capture{}
	for _, k := range sortedKeys(keys) {
		start, end := k+" ", k+"!"
		for i := sort.SearchStrings(m.lines, start); i < len(m.lines) && m.lines[i] < end; i++ {
			c, err := zipnum.ParseLine(m.lines[i])
			if err != nil {
				return nil, fmt.Errorf("cdxj index %s:%d: %w", m.path, i+1, err)
			}
			out[k] = append(out[k], c)
		}
	}
	sortCaptures(out)
	return out, ctx.Err()
}

func (m *memIndex) Close() error { return nil }

func sortedKeys(keys []string) []string {
	s := slices.Clone(keys)
	slices.Sort(s)
	s = slices.Compact(s)
	if len(s) > 0 && s[0] == "" {
		s = s[1:]
	}
	return s
}

// fileIndex binary-searches a sorted file on disk.
type fileIndex struct {
	path    string
	mu      sync.Mutex // guards f (its page cache)
	f       *pagedFile
	samples []sampleLine // sparse index: lines at known offsets, in file order
	closer  io.Closer
}

type sampleLine struct {
	line string
	off  int64
}

func (x *fileIndex) Lookup(ctx context.Context, keys []string) (map[string][]cdxj.Capture, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	out := map[string][]cdxj.Capture{}
	var lo int64 // keys are sorted: each search starts where the last ended
	for _, k := range sortedKeys(keys) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		start, end := k+" ", k+"!"
		// Narrow [lo, hi) with the samples: the sample before the first
		// sample >= start is < start, the one after is >= start.
		j := sort.Search(len(x.samples), func(i int) bool { return x.samples[i].line >= start })
		hi := x.f.size
		if j < len(x.samples) {
			hi = max(x.samples[j].off, lo)
		}
		if j > 0 {
			lo = max(lo, x.samples[j-1].off)
		}
		off, err := x.f.search(start, lo, hi)
		if err != nil {
			return nil, fmt.Errorf("cdxj index %s: %w", x.path, err)
		}
		for off < x.f.size {
			line, next, err := x.f.lineAt(off)
			if err != nil {
				return nil, fmt.Errorf("cdxj index %s: %w", x.path, err)
			}
			if line >= end {
				break
			}
			if line >= start { // always, unless the file is not sorted
				c, err := zipnum.ParseLine(line)
				if err != nil {
					return nil, fmt.Errorf("cdxj index %s at byte %d: %w", x.path, off, err)
				}
				out[k] = append(out[k], c)
			}
			off = next
		}
		lo = off
	}
	sortCaptures(out)
	return out, nil
}

func (x *fileIndex) Close() error { return x.closer.Close() }

// pagedFile reads lines of a file through an LRU cache of fixed-size pages.
type pagedFile struct {
	r        io.ReaderAt
	size     int64
	pageSize int64
	maxPages int
	pages    map[int64]*list.Element // page number → element holding *page
	lru      *list.List
	visits   int64 // pages asked for, from the cache or read
}

type page struct {
	n    int64
	data []byte
}

func (p *pagedFile) page(n int64) ([]byte, error) {
	p.visits++
	if e, ok := p.pages[n]; ok {
		p.lru.MoveToFront(e)
		return e.Value.(*page).data, nil
	}
	off := n * p.pageSize
	buf := make([]byte, min(p.pageSize, p.size-off))
	if _, err := p.r.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read at %d: %w", off, err)
	}
	p.pages[n] = p.lru.PushFront(&page{n: n, data: buf})
	if p.lru.Len() > p.maxPages {
		old := p.lru.Remove(p.lru.Back()).(*page)
		delete(p.pages, old.n)
	}
	return buf, nil
}

// clear empties the page cache.
func (p *pagedFile) clear() {
	clear(p.pages)
	p.lru.Init()
}

// lineAt returns the line starting at off (without its newline) and the
// offset of the next line; a line longer than zipnum.MaxLineBytes is an
// error.
func (p *pagedFile) lineAt(off int64) (string, int64, error) {
	var b []byte
	for pos := off; pos < p.size; {
		data, err := p.page(pos / p.pageSize)
		if err != nil {
			return "", 0, err
		}
		chunk := data[pos%p.pageSize:]
		if i := bytes.IndexByte(chunk, '\n'); i >= 0 {
			if b == nil {
				return string(chunk[:i]), pos + int64(i) + 1, nil
			}
			b = append(b, chunk[:i]...)
			if len(b) > zipnum.MaxLineBytes {
				return "", 0, lineTooLong(off)
			}
			return string(b), pos + int64(i) + 1, nil
		}
		b = append(b, chunk...)
		if len(b) > zipnum.MaxLineBytes {
			return "", 0, lineTooLong(off)
		}
		pos += int64(len(chunk))
	}
	return string(b), p.size, nil // last line without a newline
}

// lineStartFrom returns the offset of the first line starting at or after
// off (p.size if there is none). It scans at most zipnum.MaxLineBytes
// bytes: a longer stretch without a newline is an error.
func (p *pagedFile) lineStartFrom(off int64) (int64, error) {
	if off == 0 {
		return 0, nil
	}
	for pos := off - 1; pos < p.size; { // a line starts at off if off-1 is '\n'
		if pos-(off-1) > zipnum.MaxLineBytes {
			return 0, fmt.Errorf("%w: no newline in the %d bytes from byte %d", errNoLineStart, pos-(off-1), off-1)
		}
		data, err := p.page(pos / p.pageSize)
		if err != nil {
			return 0, err
		}
		chunk := data[pos%p.pageSize:]
		if i := bytes.IndexByte(chunk, '\n'); i >= 0 {
			return pos + int64(i) + 1, nil
		}
		pos += int64(len(chunk))
	}
	return p.size, nil
}

// lineStartBefore returns the start of the line that ends at end (the
// offset of its newline), given that floor is a line start at or before
// it: the offset after the last newline in [floor, end), or floor. It
// reads the pages from end back to floor, a page at a time.
func (p *pagedFile) lineStartBefore(end, floor int64) (int64, error) {
	for pos := end; pos > floor; {
		n := (pos - 1) / p.pageSize
		data, err := p.page(n)
		if err != nil {
			return 0, err
		}
		lo := max(floor, n*p.pageSize)
		chunk := data[lo-n*p.pageSize : pos-n*p.pageSize]
		if i := bytes.LastIndexByte(chunk, '\n'); i >= 0 {
			return lo + int64(i) + 1, nil
		}
		pos = lo
	}
	return floor, nil
}

// search returns the offset of the first line >= target, given that lo is a
// line start and every line before lo is < target, and that hi is a line
// start (or the file size) and the line there is >= target: the loop's
// invariant.
func (p *pagedFile) search(target string, lo, hi int64) (int64, error) {
	for hi-lo > p.pageSize {
		mid := lo + (hi-lo)/2
		s, err := p.lineStartFrom(mid)
		if err != nil {
			return 0, err
		}
		if s >= hi {
			break // no line starts in [mid, hi): scan [lo, hi) below
		}
		line, next, err := p.lineAt(s)
		if err != nil {
			return 0, err
		}
		if line < target {
			lo = next
		} else {
			hi = s
		}
	}
	for lo < hi {
		line, next, err := p.lineAt(lo)
		if err != nil {
			return 0, err
		}
		if line >= target {
			return lo, nil
		}
		lo = next
	}
	return hi, nil
}
