package roundstate

import (
	"context"
	"fmt"

	"github.com/recrawl/recrawl/internal/storage"
)

// PruneFrontiers deletes the frontier of every state before state last, a
// complete one: resuming needs the results, seen.txt and round.json of every
// state but only the newest frontier, and the frontier is the big part (19
// MB per round for a frontier of 136k URLs). A state's manifest keeps naming
// its deleted frontier files; only the newest state's are ever read. Called
// after each commit and when a run starts (a run killed between a commit and
// the prune leaves one frontier too many, no more).
func PruneFrontiers(ctx context.Context, work string, last int) error {
	for n := last - 1; n >= 0; n-- {
		dir := storage.Join(StateDir(work, n), FrontierDir)
		ok, err := storage.Exists(ctx, storage.Join(StateDir(work, n), DoneFile))
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		files, err := storage.Glob(ctx, storage.Join(dir, "*"))
		if err != nil {
			return fmt.Errorf("prune %s: %w", dir, err)
		}
		if len(files) == 0 {
			break // pruned before, and so is every older state
		}
		if err := storage.RemoveAll(ctx, dir); err != nil {
			return fmt.Errorf("prune %s: %w", dir, err)
		}
	}
	return nil
}
