package lookup

// Several archives at once: an extraction may read a national archive and
// a special collection together, each with its own index. The multi-index
// below asks every named index for the same keys, tags each capture with
// the name of the archive it came from (cdxj.Capture.Archive) and merges
// the captures of a key into one list, so captures of the same URL from all
// archives compete in snapshot selection.
//
// The merged order extends the package's order: timestamp, then the
// archive's position in the list the indexes were given in (the order of
// --index on the command line), then file name and offset. Ties between
// archives are thus decided by the order the user named them in, never by
// which index answered first.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/recrawl/recrawl/internal/cdxj"
)

// Source is one snapshot index of several: Name is the archive's name
// (tagged on its captures), Spec an index spec as Open takes it.
type Source struct {
	Name string
	Spec string
}

// OpenSources opens the indexes of sources as one Index. A single source
// without a name is opened as it is (its captures are not tagged, so its
// results are exactly Open's); anything else is a multi-index whose
// captures carry their archive's name. An error names the archive whose
// index failed to open.
func OpenSources(ctx context.Context, sources []Source) (Index, error) {
	switch {
	case len(sources) == 0:
		return nil, errors.New("no snapshot index given")
	case len(sources) == 1 && sources[0].Name == "":
		return Open(ctx, sources[0].Spec)
	}
	named := make([]Named, 0, len(sources))
	for _, s := range sources {
		idx, err := Open(ctx, s.Spec)
		if err != nil {
			for _, n := range named {
				n.Index.Close()
			}
			return nil, fmt.Errorf("archive %q: %w", s.Name, err)
		}
		named = append(named, Named{Name: s.Name, Index: idx})
	}
	return NewMulti(named)
}

// Named is an open index with the name of its archive.
type Named struct {
	Name  string
	Index Index
}

// Multi is an Index over several named indexes (see the top of this file),
// safe for concurrent use when they are. Close closes them all.
type Multi struct {
	named []Named
	order []string
}

// NewMulti returns a multi-index over named, in that order. Names must be
// distinct and not empty.
func NewMulti(named []Named) (*Multi, error) {
	m := &Multi{named: named}
	seen := map[string]bool{}
	for _, n := range named {
		switch {
		case n.Name == "":
			return nil, errors.New("multi-index: an archive without a name")
		case seen[n.Name]:
			return nil, fmt.Errorf("multi-index: archive %q given twice", n.Name)
		}
		seen[n.Name] = true
		m.order = append(m.order, n.Name)
	}
	return m, nil
}

// Lookup asks every index for keys (concurrently) and merges the captures
// of each key in the multi-index order.
func (m *Multi) Lookup(ctx context.Context, keys []string) (map[string][]cdxj.Capture, error) {
	parts := make([]map[string][]cdxj.Capture, len(m.named))
	errs := make([]error, len(m.named))
	var wg sync.WaitGroup
	for i, n := range m.named {
		wg.Add(1)
		go func() {
			defer wg.Done()
			found, err := n.Index.Lookup(ctx, keys)
			if err != nil {
				errs[i] = fmt.Errorf("archive %q: %w", n.Name, err)
				return
			}
			parts[i] = found
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	out := map[string][]cdxj.Capture{}
	for i, found := range parts {
		name := m.named[i].Name
		for key, cs := range found {
			for _, c := range cs {
				c.Archive = name
				out[key] = append(out[key], c)
			}
		}
	}
	for _, cs := range out {
		SortCaptures(cs, m.order)
	}
	return out, nil
}

// Close closes every index.
func (m *Multi) Close() error {
	var errs []error
	for _, n := range m.named {
		if err := n.Index.Close(); err != nil {
			errs = append(errs, fmt.Errorf("archive %q: %w", n.Name, err))
		}
	}
	return errors.Join(errs...)
}

// SortCaptures sorts the captures of one key in the multi-index order:
// timestamp, archive (by its position in order), file name, offset. With
// a single unnamed archive it is the package's order.
func SortCaptures(cs []cdxj.Capture, order []string) {
	slices.SortStableFunc(cs, func(a, b cdxj.Capture) int {
		return cmp.Or(strings.Compare(a.Timestamp, b.Timestamp), CompareArchives(order, a.Archive, b.Archive),
			strings.Compare(a.Filename, b.Filename), cmp.Compare(a.Offset, b.Offset))
	})
}

// CompareArchives orders two archive names by their position in order (the
// archive named first comes first); names not in order come after those in
// it, by name.
func CompareArchives(order []string, a, b string) int {
	if a == b {
		return 0
	}
	rank := func(name string) int {
		if i := slices.Index(order, name); i >= 0 {
			return i
		}
		return len(order)
	}
	return cmp.Or(cmp.Compare(rank(a), rank(b)), strings.Compare(a, b))
}
