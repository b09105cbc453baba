package lookup

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/storage"
	"github.com/recrawl/recrawl/internal/zipnum"
)

// Part is one part of a file index: the base or a segment (filelist.go).
type Part struct {
	Segment string // "" for the base
	// Spec opens the part alone: cdxj:DIR/index.cdxj or zipnum:DIR.
	Spec Spec
	// Removed names the archive files of the part whose captures are
	// left out (FileList.Removed).
	Removed map[string]bool
}

// Drops reports whether a capture of the part is left out: its file was
// removed from the index.
func (p Part) Drops(filename string) bool { return p.Removed[filename] }

// IndexParts returns the parts of the file index a spec names, with the
// files removed from each: for a folder with a FileListFile, the base (if
// the list names files in it) and every segment it names; otherwise the
// one part the spec names, with nothing removed. The spec of a segmented
// index is cdxj:DIR/index.cdxj or zipnum:DIR (or zipnum:DIR/cluster.idx).
func IndexParts(ctx context.Context, spec Spec) ([]Part, error) {
	whole := []Part{{Spec: spec}}
	dir, ok := segmentedDir(spec)
	if !ok {
		return whole, nil
	}
	l, err := ReadFileList(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("index %q: %w", spec, err)
	}
	if l == nil {
		return whole, nil
	}
	if l.Header.Format != spec.Kind {
		return nil, fmt.Errorf("index %q: %s says the index is %s, not %s", spec, storage.Join(dir, FileListFile), l.Header.Format, spec.Kind)
	}
	removed := l.Removed()
	var segments []string
	if l.HasBase() {
		segments = append(segments, "")
	}
	segments = append(segments, l.Segments()...)
	parts := make([]Part, 0, len(segments))
	for _, s := range segments {
		loc := SegmentDir(dir, s)
		if spec.Kind == KindCDXJ {
			loc = storage.Join(loc, CDXJFileName)
		}
		parts = append(parts, Part{Segment: s, Spec: Spec{Kind: spec.Kind, Location: loc}, Removed: removed[s]})
	}
	return parts, nil
}

// CDXJFileName is the name of the sorted index file of a CDXJ index
// folder, as the index pipeline writes it.
const CDXJFileName = "index.cdxj"

// segmentedDir returns the folder whose FileListFile may make the spec's
// index one of several parts: that of DIR/index.cdxj, or zipnum:DIR.
func segmentedDir(spec Spec) (string, bool) {
	switch spec.Kind {
	case KindCDXJ:
		if storage.Base(spec.Location) == CDXJFileName {
			return storage.Dir(spec.Location), true
		}
	case KindZipNum:
		if storage.Base(spec.Location) == "cluster.idx" {
			return storage.Dir(spec.Location), true
		}
		if !isIdxName(spec.Location) {
			return spec.Location, true
		}
	}
	return "", false
}

func isIdxName(p string) bool {
	b := storage.Base(p)
	return len(b) > 4 && b[len(b)-4:] == ".idx"
}

// openPart opens one part of a file index as it is, with nothing left
// out; a ZipNum part keeps its blocks in cache (nil: a cache of its own).
func openPart(ctx context.Context, spec Spec, cache *zipnum.BlockCache) (Index, error) {
	switch spec.Kind {
	case KindCDXJ:
		return OpenCDXJ(spec.Location, CDXJOptions{})
	case KindZipNum:
		r, err := zipnum.OpenContext(ctx, spec.Location, zipnum.Options{Cache: cache})
		if err != nil {
			return nil, fmt.Errorf("index %q: %w", spec, err)
		}
		return NewZipNum(r), nil
	}
	return nil, fmt.Errorf("index %q: not a file index", spec)
}

// openFileIndex opens a CDXJ or ZipNum index: one part as it is, several
// (a base and its segments) as a segmentedIndex whose ZipNum parts share
// one block cache of zipnum.DefaultCacheBytes.
func openFileIndex(ctx context.Context, spec Spec) (Index, error) {
	return openFileIndexCache(ctx, spec, zipnum.DefaultCacheBytes)
}

// openFileIndexCache is openFileIndex with the block cache budget of a
// segmented ZipNum index.
func openFileIndexCache(ctx context.Context, spec Spec, cacheBytes int64) (Index, error) {
	parts, err := IndexParts(ctx, spec)
	if err != nil {
		return nil, err
	}
	if len(parts) == 1 && len(parts[0].Removed) == 0 {
		return openPart(ctx, parts[0].Spec, nil)
	}
	s := &segmentedIndex{}
	if spec.Kind == KindZipNum {
		s.cache = zipnum.NewBlockCache(cacheBytes)
	}
	for _, p := range parts {
		idx, err := openPart(ctx, p.Spec, s.cache)
		if err != nil {
			s.Close()
			return nil, err
		}
		op := openedPart{Part: p, idx: idx}
		if op.first, op.last, op.ranged, err = keyRange(idx); err != nil {
			idx.Close()
			s.Close()
			return nil, fmt.Errorf("index part %s: %w", p.Spec, err)
		}
		s.parts = append(s.parts, op)
	}
	return s, nil
}

// keyRange returns the keys of the first and last lines of an open part.
// ranged is false when the part holds no line or its kind keeps no range:
// every key is then looked up in it.
func keyRange(idx Index) (first, last string, ranged bool, err error) {
	switch x := idx.(type) {
	case zipnumIndex:
		return x.r.KeyRange()
	case *memIndex:
		if len(x.lines) == 0 || x.lines[0] == "" {
			return "", "", false, nil
		}
		return lineKey(x.lines[0]), lineKey(x.lines[len(x.lines)-1]), true, nil
	case *fileIndex:
		return x.keyRange()
	}
	return "", "", false, nil
}

// lineKey is the SURT key of an index line: up to its first space.
func lineKey(line string) string {
	k, _, _ := strings.Cut(line, " ")
	return k
}

// keyRange reads the first line and the last line of the file: the last
// from the last sample on.
func (x *fileIndex) keyRange() (first, last string, ranged bool, err error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(x.samples) == 0 {
		return "", "", false, nil
	}
	first = lineKey(x.samples[0].line)
	for off := x.samples[len(x.samples)-1].off; off < x.f.size; {
		line, next, err := x.f.lineAt(off)
		if err != nil {
			return "", "", false, fmt.Errorf("cdxj index %s: %w", x.path, err)
		}
		if line != "" {
			last = lineKey(line)
		}
		off = next
	}
	x.f.clear()
	return first, last, first != "" && last != "", nil
}

// segmentedIndex reads the parts of an index as one: the captures of a key
// from every part, those of removed files left out, in the package's
// order, which is a total order on distinct records, so the answer is that
// of one index built from all the files.
type segmentedIndex struct {
	parts []openedPart
	cache *zipnum.BlockCache // of the ZipNum parts, shared; nil for CDXJ
}

type openedPart struct {
	Part
	idx Index
	// first and last are the keys of the part's first and last lines
	// when ranged: a key outside them has no capture in the part, which is
	// then not asked for it.
	first, last string
	ranged      bool
}

// keysIn returns the part of the sorted keys [lo, hi) that can have
// captures in the part.
func (p openedPart) keysIn(sorted []string) (lo, hi int) {
	if !p.ranged {
		return 0, len(sorted)
	}
	lo = sort.SearchStrings(sorted, p.first)
	hi = lo + sort.Search(len(sorted)-lo, func(i int) bool { return sorted[lo+i] > p.last })
	return lo, hi
}

// Lookup looks the keys up in every part in one pass: the keys are sorted
// once, each part is asked only for those within its key range (a part
// whose range holds none is not touched), and the blocks the ZipNum parts
// need are read together by one pool of readers (zipnum.LookupSorted).
func (s *segmentedIndex) Lookup(ctx context.Context, keys []string) (map[string][]cdxj.Capture, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	keys = sortedKeys(keys)
	found := make([][]cdxj.Capture, len(keys)) // by key
	add := func(p openedPart, i int, cs []cdxj.Capture) {
		for _, c := range cs {
			if !p.Drops(c.Filename) {
				found[i] = append(found[i], c)
			}
		}
	}
	var readers []*zipnum.Reader
	var readerKeys [][]string
	var readerParts []openedPart
	var readerLo []int
	for _, p := range s.parts {
		lo, hi := p.keysIn(keys)
		if lo == hi {
			continue
		}
		if z, ok := p.idx.(zipnumIndex); ok {
			readers, readerKeys = append(readers, z.r), append(readerKeys, keys[lo:hi])
			readerParts, readerLo = append(readerParts, p), append(readerLo, lo)
			continue
		}
		m, err := p.idx.Lookup(ctx, keys[lo:hi])
		if err != nil {
			return nil, fmt.Errorf("index part %s: %w", p.Spec, err)
		}
		for i := lo; i < hi; i++ {
			add(p, i, m[keys[i]])
		}
	}
	if len(readers) > 0 {
		res, err := zipnum.LookupSorted(readers, readerKeys)
		if err != nil {
			return nil, err
		}
		for j, byKey := range res {
			for i, cs := range byKey {
				add(readerParts[j], readerLo[j]+i, cs)
			}
		}
	}
	out := map[string][]cdxj.Capture{}
	for i, cs := range found {
		if len(cs) > 0 {
			SortCaptures(cs, nil)
			out[keys[i]] = cs
		}
	}
	return out, nil
}

func (s *segmentedIndex) Close() error {
	var errs []error
	for _, p := range s.parts {
		errs = append(errs, p.idx.Close())
	}
	return errors.Join(errs...)
}
