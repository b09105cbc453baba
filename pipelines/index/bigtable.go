package index

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/recrawl/recrawl/internal/btindex"
	"github.com/recrawl/recrawl/internal/index"
	"github.com/recrawl/recrawl/internal/storage"
)

// bigtableFiles is what one run does with the file list of its Bigtable
// index (internal/btindex, files.go).
type bigtableFiles struct {
	toIndex   []string                      // the input files to index, in input order
	ids       map[string]index.FileIdentity // of toIndex, by base name
	rewritten []string                      // listed files whose counts this run writes again
	held      int                           // input files skipped: the table holds them (--add)
}

// planBigtableFiles identifies every input file (name, size, head and tail
// SHA-256) and compares it with the table's file list. A file listed under
// its name with another identity is an error naming it, and so is a
// removed one (its rows stay until `recrawl index compact`). With cfg.Add
// a listed file is skipped (logged), unless this run counts document
// frequencies and the table has none of it; without, it is indexed again.
func planBigtableFiles(ctx context.Context, cfg Config) (*bigtableFiles, error) {
	client, tbl, err := btindex.Open(ctx, cfg.Bigtable)
	if err != nil {
		return nil, err
	}
	defer client.Close()
	listed, err := btindex.ReadFiles(ctx, tbl)
	if err != nil {
		return nil, fmt.Errorf("bigtable %s: %w", cfg.Bigtable, err)
	}
	if cfg.Add && len(listed) == 0 {
		// A table of an earlier recrawl: one whole dictionary, no file list.
		langs, err := btindex.DictionaryLanguages(ctx, tbl)
		if err != nil {
			return nil, fmt.Errorf("bigtable %s: %w", cfg.Bigtable, err)
		}
		if len(langs) > 0 {
			return nil, fmt.Errorf("--add: bigtable %s holds document frequencies without a list of its files (written by an earlier recrawl); index all its files once without --add, so that they add up", cfg.Bigtable)
		}
	}
	plan := &bigtableFiles{ids: map[string]index.FileIdentity{}}
	ids, err := index.IdentifyFiles(ctx, cfg.Files)
	if err != nil {
		return nil, fmt.Errorf("--input: %w", err)
	}
	for i, f := range cfg.Files {
		id := ids[i]
		e, ok := listed[id.Name]
		switch {
		case !ok:
		case !e.Live():
			return nil, fmt.Errorf("--input %s: bigtable %s removed a file of this name at %s; run `recrawl index compact --bigtable=%s` to drop its rows before adding it again",
				f, cfg.Bigtable, e.Removed.Format(time.RFC3339), cfg.Bigtable)
		case !e.SameFile(id):
			return nil, fmt.Errorf("--input %s: bigtable %s holds another file of the name %s (%d bytes, indexed %s; this one has %d bytes or other first or last 64 KiB); remove it first (`recrawl index remove --bigtable=%s %s`)",
				f, cfg.Bigtable, id.Name, e.Size, e.Indexed.Format(time.RFC3339), id.Size, cfg.Bigtable, id.Name)
		case cfg.Add && (e.Dictionary || !cfg.Dictionary):
			slog.Info("skipped: the index already holds this file", "file", f, "bigtable", cfg.Bigtable, "indexed", e.Indexed.Format(time.RFC3339))
			plan.held++
			continue
		case e.Dictionary && cfg.Dictionary:
			plan.rewritten = append(plan.rewritten, id.Name)
		}
		plan.toIndex = append(plan.toIndex, f)
		plan.ids[id.Name] = id
	}
	return plan, nil
}

// unlistRewritten takes off the file list the files whose document
// frequencies the run writes again, so that no reader sums them while they
// are half rewritten; list puts them back.
func (p *bigtableFiles) unlistRewritten(ctx context.Context, spec string) error {
	if len(p.rewritten) == 0 {
		return nil
	}
	client, tbl, err := btindex.Open(ctx, spec)
	if err != nil {
		return err
	}
	defer client.Close()
	for _, name := range p.rewritten {
		if err := btindex.UnlistFile(ctx, tbl, name); err != nil {
			return fmt.Errorf("bigtable %s: %w", spec, err)
		}
	}
	return nil
}

// list stores the run's --dictionary_min_df, then lists every file the run
// indexed, once all its rows are written.
func (p *bigtableFiles) list(ctx context.Context, cfg Config) error {
	client, tbl, err := btindex.Open(ctx, cfg.Bigtable)
	if err != nil {
		return err
	}
	defer client.Close()
	if cfg.Dictionary {
		if err := btindex.WriteDictionaryMinDF(ctx, tbl, cfg.DictionaryMinDF); err != nil {
			return fmt.Errorf("bigtable %s: %w", cfg.Bigtable, err)
		}
	}
	now := time.Now()
	for _, f := range p.toIndex {
		if err := btindex.ListFile(ctx, tbl, p.ids[storage.Base(f)], now, cfg.Dictionary); err != nil {
			return fmt.Errorf("bigtable %s: %w", cfg.Bigtable, err)
		}
	}
	slog.Info("listed the indexed files in the table", "bigtable", cfg.Bigtable, "files", len(p.toIndex))
	return nil
}

// RemoveFromBigtable removes archive files (by base name) from a Bigtable
// index: from the moment it returns, look-ups leave out their captures and
// the dictionary their document frequencies. Their rows stay until
// CompactBigtable. A name the table does not list is an error, and nothing
// after it is removed.
func RemoveFromBigtable(ctx context.Context, spec string, names []string) error {
	client, tbl, err := btindex.Open(ctx, spec)
	if err != nil {
		return err
	}
	defer client.Close()
	now := time.Now()
	for _, name := range names {
		if err := btindex.MarkRemoved(ctx, tbl, name, now); err != nil {
			return fmt.Errorf("bigtable %s: %w", spec, err)
		}
		slog.Info("removed from the index", "file", name, "bigtable", spec)
	}
	return nil
}

// CompactBigtable drops the rows of the removed files of a Bigtable index
// (btindex.PurgeRemoved): the table is one index already, so this is all a
// compaction does there.
func CompactBigtable(ctx context.Context, spec string) (btindex.PurgeStats, error) {
	client, tbl, err := btindex.Open(ctx, spec)
	if err != nil {
		return btindex.PurgeStats{}, err
	}
	defer client.Close()
	st, err := btindex.PurgeRemoved(ctx, tbl)
	if err != nil {
		return st, fmt.Errorf("bigtable %s: %w", spec, err)
	}
	return st, nil
}

// runRemoveBigtable is `recrawl index remove --bigtable=P/I/T NAME...`.
func runRemoveBigtable(ctx context.Context, spec string, names []string) error {
	if err := RemoveFromBigtable(ctx, spec, names); err != nil {
		return err
	}
	fmt.Printf("removed %d files from bigtable %s: their captures and document frequencies are left out from now on; `recrawl index compact` drops their rows\n", len(names), spec)
	return nil
}

// runCompactBigtable is `recrawl index compact --bigtable=P/I/T`.
func runCompactBigtable(ctx context.Context, spec string) error {
	st, err := CompactBigtable(ctx, spec)
	if err != nil {
		return err
	}
	fmt.Printf("bigtable %s is one index already; dropped the rows of %d removed files (%d captures, %d dictionary rows)\n",
		spec, st.Files, st.CaptureRows, st.DictionaryRows)
	return nil
}
