package lookup

import (
	"context"
	"errors"
	"fmt"

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

// openPart opens one part of a file index as it is, with nothing left out.
func openPart(ctx context.Context, spec Spec) (Index, error) {
	switch spec.Kind {
	case KindCDXJ:
		return OpenCDXJ(spec.Location, CDXJOptions{})
	case KindZipNum:
		r, err := zipnum.OpenContext(ctx, spec.Location, zipnum.Options{})
		if err != nil {
			return nil, fmt.Errorf("index %q: %w", spec, err)
		}
		return NewZipNum(r), nil
	}
	return nil, fmt.Errorf("index %q: not a file index", spec)
}

// openFileIndex opens a CDXJ or ZipNum index: one part as it is, several
// (a base and its segments) as a segmentedIndex.
func openFileIndex(ctx context.Context, spec Spec) (Index, error) {
	parts, err := IndexParts(ctx, spec)
	if err != nil {
		return nil, err
	}
	if len(parts) == 1 && len(parts[0].Removed) == 0 {
		return openPart(ctx, parts[0].Spec)
	}
	s := &segmentedIndex{}
	for _, p := range parts {
		idx, err := openPart(ctx, p.Spec)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.parts = append(s.parts, openedPart{Part: p, idx: idx})
	}
	return s, nil
}

// segmentedIndex reads the parts of an index as one: the captures of a key
// from every part, those of removed files left out, in the package's
// order, which is a total order on distinct records, so the answer is that
// of one index built from all the files.
type segmentedIndex struct {
	parts []openedPart
}

type openedPart struct {
	Part
	idx Index
}

func (s *segmentedIndex) Lookup(ctx context.Context, keys []string) (map[string][]cdxj.Capture, error) {
	keys = sortedKeys(keys) // once: each part's own sort then finds them in order
	// One part after the other: each part's look-up already reads its
	// blocks in parallel, and on a busy machine parts looked up at once
	// measured three times slower (scripts/bench.sh incremental).
	found := make([]map[string][]cdxj.Capture, len(s.parts))
	for i, p := range s.parts {
		m, err := p.idx.Lookup(ctx, keys)
		if err != nil {
			return nil, fmt.Errorf("index part %s: %w", p.Spec, err)
		}
		found[i] = m
	}
	out := map[string][]cdxj.Capture{}
	for i, m := range found {
		p := s.parts[i]
		for key, cs := range m { // the order is set by sortCaptures below
			for _, c := range cs {
				if !p.Drops(c.Filename) {
					out[key] = append(out[key], c)
				}
			}
		}
	}
	sortCaptures(out)
	return out, nil
}

func (s *segmentedIndex) Close() error {
	var errs []error
	for _, p := range s.parts {
		errs = append(errs, p.idx.Close())
	}
	return errors.Join(errs...)
}
