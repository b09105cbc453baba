package index

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"sort"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/recrawl/recrawl/internal/index"
	"github.com/recrawl/recrawl/internal/storage"
	"github.com/recrawl/recrawl/internal/zipnum"
)

// WriteZipNum writes the shards of SortIntoShards as a ZipNum index in dir:
// one gzip-block shard file per shard that has lines (zipnum.ShardName), its
// lines merged from the runs, then cluster.idx (the first key of every
// block, in key order) and cluster.loc, and removes tempDir (the run's own
// folder, which holds the runs). The secondary
// index is written last, so a reader never sees an index that points at
// shards not yet written. Returns the paths written: the shard files,
// cluster.loc and cluster.idx.
func WriteZipNum(s beam.Scope, shards beam.PCollection, dir, tempDir string, linesPerBlock int) beam.PCollection {
	s = s.Scope("WriteZipNum")
	entries := beam.ParDo(s, &writeZipNumShardFn{Dir: dir, LinesPerBlock: linesPerBlock}, shards)
	keyed := beam.AddFixedKey(s, beam.ParDo(s, toShardPath, entries))
	return beam.ParDo(s, &writeClusterIndexFn{Dir: dir, TempDir: tempDir}, beam.GroupByKey(s, keyed))
}

// writeZipNumShardFn writes each shard's ZipNum file; the shards of a
// bundle are written at once (shardJobs).
type writeZipNumShardFn struct {
	Dir           string
	LinesPerBlock int

	jobs shardJobs
}

// ProcessElement starts writing one shard; FinishBundle emits (shard, its
// block entries as lines) for every shard that has lines (a shard without
// lines gets no file).
func (f *writeZipNumShardFn) ProcessElement(ctx context.Context, spec ShardSpec, _ func(int, string)) error {
	ctx = context.WithoutCancel(ctx) // the write goes on after ProcessElement returns
	return f.jobs.start(spec.Shard, func() (string, bool, error) {
		return writeZipNumShard(ctx, f.Dir, f.LinesPerBlock, spec)
	})
}

func (f *writeZipNumShardFn) FinishBundle(_ context.Context, emit func(int, string)) error {
	return f.jobs.finish(emit)
}

// writeZipNumShard writes one shard file in dir and returns its block
// entries as lines, and false for a shard without lines (no file).
func writeZipNumShard(ctx context.Context, dir string, linesPerBlock int, spec ShardSpec) (string, bool, error) {
	name := zipnum.ShardName(spec.Shard)
	p := storage.Join(dir, name)
	var (
		w  storage.Writer
		bw *bufio.Writer
		sw *zipnum.ShardWriter
	)
	err := index.MergeRuns(ctx, spec.Runs, spec.Lo, spec.Hi, func(l []byte) error {
		if w == nil {
			var err error
			if w, err = storage.Create(ctx, p); err != nil {
				return err
			}
			bw = bufio.NewWriterSize(w, 1<<20)
			sw = zipnum.NewShardWriter(bw, name, linesPerBlock)
		}
		return sw.WriteLineBytes(l)
	})
	if w == nil {
		return "", false, err
	}
	if err != nil {
		w.Abort()
		return "", false, fmt.Errorf("write %s: %w", p, err)
	}
	entries, err := sw.Close()
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		w.Abort()
		return "", false, fmt.Errorf("write %s: %w", p, err)
	}
	if err := w.Close(); err != nil {
		return "", false, err
	}
	var buf bytes.Buffer
	for _, e := range entries {
		buf.WriteString(e.Line())
		buf.WriteByte('\n')
	}
	return buf.String(), true, nil
}

type writeClusterIndexFn struct {
	Dir, TempDir string
}

func (f *writeClusterIndexFn) ProcessElement(ctx context.Context, _ int, shards func(*KVShardPath) bool, emit func(string)) error {
	var all []KVShardPath // Path holds the shard's entry lines here
	var sp KVShardPath
	for shards(&sp) {
		all = append(all, sp)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Shard < all[j].Shard })
	var perShard [][]zipnum.Entry
	var locs []zipnum.Location
	for _, sh := range all {
		var entries []zipnum.Entry
		sc := bufio.NewScanner(bytes.NewReader([]byte(sh.Path)))
		sc.Buffer(make([]byte, 1<<16), 1<<24)
		for sc.Scan() {
			e, err := zipnum.ParseEntry(sc.Text())
			if err != nil {
				return fmt.Errorf("shard %d: %w", sh.Shard, err)
			}
			entries = append(entries, e)
		}
		perShard = append(perShard, entries)
		name := zipnum.ShardName(sh.Shard)
		locs = append(locs, zipnum.Location{Shard: name, Paths: []string{name}})
	}
	var idx, loc bytes.Buffer
	if err := zipnum.WriteClusterIndex(&idx, perShard...); err != nil {
		return err
	}
	if err := zipnum.WriteLoc(&loc, locs); err != nil {
		return err
	}
	if err := storage.WriteFile(ctx, storage.Join(f.Dir, "cluster.loc"), loc.Bytes()); err != nil {
		return err
	}
	idxPath := storage.Join(f.Dir, "cluster.idx")
	if err := storage.WriteFile(ctx, idxPath, idx.Bytes()); err != nil {
		return err
	}
	if err := storage.RemoveAll(ctx, f.TempDir); err != nil {
		return err
	}
	for _, l := range locs {
		emit(storage.Join(f.Dir, l.Shard))
	}
	emit(storage.Join(f.Dir, "cluster.loc"))
	emit(idxPath)
	return nil
}
