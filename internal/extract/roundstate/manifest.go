package roundstate

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/recrawl/recrawl/internal/storage"
)

// Kinds of part files in a manifest.
const (
	KindResults  = "results"
	KindFrontier = "frontier"
)

// Manifest is a parsed manifest.
type Manifest struct {
	Results, Frontier         []string // part files, sorted
	ResultCount, FrontierSize int      // values in them
}

// ManifestLine renders one line of a manifest.
func ManifestLine(kind, path string, count int) string {
	return kind + "\t" + path + "\t" + strconv.Itoa(count)
}

// WriteManifest writes dir/ManifestFile from the manifest lines of every
// part file of the state, sorted.
func WriteManifest(ctx context.Context, dir string, lines []string) error {
	return storage.WriteSortedLines(ctx, storage.Join(dir, ManifestFile), lines)
}

// ReadManifest reads dir/ManifestFile. A missing manifest is an error:
// every complete state has one (a round always has results).
func ReadManifest(ctx context.Context, dir string) (Manifest, error) {
	p := storage.Join(dir, ManifestFile)
	data, err := storage.ReadFile(ctx, p)
	if errors.Is(err, fs.ErrNotExist) {
		if old, _ := storage.Exists(ctx, storage.Join(dir, "frontier.manifest")); old {
			return Manifest{}, fmt.Errorf("%s holds state in the format of an older recrawl (frontier.manifest, no %s): delete the work directory or use another --work", dir, ManifestFile)
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
		case KindResults:
			m.Results = append(m.Results, f[1])
			m.ResultCount += n
		case KindFrontier:
			m.Frontier = append(m.Frontier, f[1])
			m.FrontierSize += n
		default:
			return Manifest{}, fmt.Errorf("%s line %d: unknown kind %q", p, i+1, f[0])
		}
	}
	return m, nil
}
