package index

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"sort"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/recrawl/recrawl/internal/index"
	"github.com/recrawl/recrawl/internal/storage"
)

// CDXJFileName is the name of the single sorted index file in INDEX_DIR.
const CDXJFileName = "index.cdxj"

// WriteCDXJ writes the shards of SortIntoShards as one sorted file,
// dir/index.cdxj: each shard's lines are merged from the runs and written as
// a part file in tempDir (the run's own folder, which holds the runs), then
// the parts are concatenated in shard order, which is key order, and
// tempDir is removed. It returns the path of the file written (a
// PCollection with one element).
func WriteCDXJ(s beam.Scope, shards beam.PCollection, dir, tempDir string) beam.PCollection {
	s = s.Scope("WriteCDXJ")
	parts := beam.ParDo(s, &writeCDXJShardFn{TempDir: tempDir}, shards)
	keyed := beam.AddFixedKey(s, beam.ParDo(s, toShardPath, parts))
	return beam.ParDo(s, &concatCDXJFn{Dir: dir, TempDir: tempDir}, beam.GroupByKey(s, keyed))
}

// KVShardPath names a written part file of a shard.
type KVShardPath struct {
	Shard int
	Path  string
}

func toShardPath(shard int, path string) KVShardPath { return KVShardPath{shard, path} }

// writeCDXJShardFn merges each shard's lines from the runs into a part
// file; the shards of a bundle are written at once (shardJobs).
type writeCDXJShardFn struct {
	TempDir string

	jobs shardJobs
}

func (f *writeCDXJShardFn) ProcessElement(ctx context.Context, spec ShardSpec, _ func(int, string)) error {
	ctx = context.WithoutCancel(ctx) // the write goes on after ProcessElement returns
	return f.jobs.start(spec.Shard, func() (string, bool, error) {
		p, err := writeCDXJPart(ctx, f.TempDir, spec)
		return p, err == nil, err
	})
}

func (f *writeCDXJShardFn) FinishBundle(_ context.Context, emit func(int, string)) error {
	return f.jobs.finish(emit)
}

// writeCDXJPart writes the lines of one shard to its part file in
// tempDir and returns the path.
func writeCDXJPart(ctx context.Context, tempDir string, spec ShardSpec) (string, error) {
	p := storage.Join(tempDir, fmt.Sprintf("index-%05d.cdxj", spec.Shard))
	w, err := storage.Create(ctx, p)
	if err != nil {
		return "", err
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	err = index.MergeRuns(ctx, spec.Runs, spec.Lo, spec.Hi, func(l []byte) error {
		bw.Write(l)
		return bw.WriteByte('\n')
	})
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		w.Abort()
		return "", fmt.Errorf("write %s: %w", p, err)
	}
	if err := w.Close(); err != nil {
		return "", err
	}
	return p, nil
}

type concatCDXJFn struct {
	Dir, TempDir string
}

func (f *concatCDXJFn) ProcessElement(ctx context.Context, _ int, parts func(*KVShardPath) bool, emit func(string)) error {
	var all []KVShardPath
	var p KVShardPath
	for parts(&p) {
		all = append(all, p)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Shard < all[j].Shard })
	out := storage.Join(f.Dir, CDXJFileName)
	w, err := storage.Create(ctx, out)
	if err != nil {
		return err
	}
	for _, part := range all {
		if err := appendFile(ctx, w, part.Path); err != nil {
			w.Abort()
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	if err := storage.RemoveAll(ctx, f.TempDir); err != nil {
		return err
	}
	emit(out)
	return nil
}

func appendFile(ctx context.Context, w io.Writer, p string) error {
	r, err := storage.Open(ctx, p)
	if err != nil {
		return err
	}
	defer r.Close()
	if _, err := io.Copy(w, r); err != nil {
		return fmt.Errorf("append %s: %w", p, err)
	}
	return nil
}
