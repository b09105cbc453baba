package roundstate

import (
	"bytes"
	"context"
	"fmt"
	"sync"

	"github.com/recrawl/recrawl/internal/storage"
)

// seenSets caches the seen set of a process. The seen files of a run only
// grow (one more per round, never changed once committed), so a round
// copies the set of the one before and reads only the newest files. A
// published set is never modified: callers read it without locking.
var seenSets struct {
	sync.Mutex
	files []string
	set   map[string]struct{}
}

// LoadSeen returns the union of the SURT keys in files (one per line). The
// set returned is shared by the process and must not be modified.
func LoadSeen(ctx context.Context, files []string) (map[string]struct{}, error) {
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
