package transforms

import (
	"context"
	"strings"
	"sync"

	"github.com/recrawl/recrawl/internal/lookup"
)

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
