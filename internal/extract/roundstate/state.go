package roundstate

import (
	"runtime"

	"context"
	"encoding/json"
	"fmt"
	"golang.org/x/sync/errgroup"
	"sort"

	"github.com/recrawl/recrawl/internal/collection"
	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/storage"
)

// WriteInitial writes state 0 of work: the seeds as its frontier, an empty
// seen set, and DONE.
func WriteInitial(ctx context.Context, work string, seeds []extract.Entry) error {
	dir := StateDir(work, 0)
	if err := storage.RemoveAll(ctx, dir); err != nil {
		return err
	}
	seedFile := storage.Join(dir, FrontierDir, "seeds.gob")
	if err := WritePart(ctx, seedFile, seeds); err != nil {
		return err
	}
	if err := WriteManifest(ctx, dir, []string{ManifestLine(KindFrontier, seedFile, len(seeds))}); err != nil {
		return err
	}
	if err := storage.WriteFile(ctx, storage.Join(dir, SeenFile), nil); err != nil {
		return err
	}
	return storage.WriteFile(ctx, storage.Join(dir, DoneFile), nil)
}

// ReadResults reads the results of the round that wrote state dir (its
// manifest m), in rank order. The ranks must be exactly 0..n-1: anything
// else is a state that does not hold one complete round.
func ReadResults(ctx context.Context, dir string, m Manifest) ([]extract.Result, error) {
	parts := make([][]extract.Result, len(m.Results))
	errs := make([]error, len(m.Results))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range parts {
		g.Go(func() error {
			errs[i] = ReadPart(ctx, m.Results[i], func(r extract.Result) error {
				parts[i] = append(parts[i], r)
				return nil
			})
			return nil
		})
	}
	g.Wait() // errors are kept per part, to report the first in rank order
	var out []extract.Result
	for i, p := range parts {
		if errs[i] != nil {
			return nil, fmt.Errorf("round results: %w", errs[i])
		}
		out = append(out, p...)
	}
	if len(out) != m.ResultCount {
		return nil, fmt.Errorf("%s: the manifest names %d results, its files hold %d", dir, m.ResultCount, len(out))
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Rank < out[j].Rank })
	for i, r := range out {
		if r.Rank != i {
			return nil, fmt.Errorf("%s: the results of the round have rank %d where %d belongs (a result missing or repeated)", dir, r.Rank, i)
		}
	}
	return out, nil
}

// ReadRoundStats reads the statistics of the round that wrote state dir.
func ReadRoundStats(ctx context.Context, dir string) (collection.Round, error) {
	p := storage.Join(dir, RoundFile)
	data, err := storage.ReadFile(ctx, p)
	if err != nil {
		return collection.Round{}, err
	}
	var rs collection.Round
	if err := json.Unmarshal(data, &rs); err != nil {
		return collection.Round{}, fmt.Errorf("%s: %w", p, err)
	}
	return rs, nil
}

// Commit completes state dir: the round's statistics and the keys it took
// (the round's part of the seen set), then DONE.
func Commit(ctx context.Context, dir string, rs collection.Round, results []extract.Result) error {
	b, _ := json.Marshal(rs)
	if err := storage.WriteFile(ctx, storage.Join(dir, RoundFile), b); err != nil {
		return err
	}
	if err := WriteSeen(ctx, dir, results); err != nil {
		return err
	}
	return storage.WriteFile(ctx, storage.Join(dir, DoneFile), nil)
}

// WriteSeen writes the seen file of state dir: the SURT keys of the round's
// results (its batch), sorted, one per line.
func WriteSeen(ctx context.Context, dir string, results []extract.Result) error {
	keys := make([]string, len(results))
	for i, r := range results {
		keys[i] = r.Entry.Key
	}
	return storage.WriteSortedLines(ctx, storage.Join(dir, SeenFile), keys)
}
