package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"sort"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/metrics"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/recrawl/recrawl/internal/storage"
	"github.com/recrawl/recrawl/transforms"
)

var (
	input         = flag.String("input", "", "archive files: comma-separated local paths, gs:// URIs and glob patterns (.warc, .warc.gz, .arc, .arc.gz)")
	output        = flag.String("output", "", "index directory (local or gs://)")
	format        = flag.String("format", "cdxj", "index format in --output: cdxj (one sorted index.cdxj) or zipnum (sharded gzip blocks + cluster.idx)")
	shards        = flag.Int("shards", 1, "number of key-range shards (ZipNum shard files; parallel sort for cdxj)")
	linesPerBlock = flag.Int("lines_per_block", 3000, "ZipNum: CDXJ lines per gzip block")
	bigtableSpec  = flag.String("bigtable", "", "also load the captures into Bigtable: PROJECT/INSTANCE/TABLE (BIGTABLE_EMULATOR_HOST is honoured)")
)

func main() {
	flag.Parse()
	beam.Init()
	ctx := context.Background()
	if err := run(ctx); err != nil {
		slog.Error("index failed", "err", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	if *input == "" {
		return fmt.Errorf("--input is required")
	}
	files, err := storage.Expand(ctx, *input)
	if err != nil {
		return fmt.Errorf("--input: %w", err)
	}
	if err := checkUniqueNames(files); err != nil {
		return err
	}
	cfg := Config{Files: files, OutputDir: *output, Format: *format, Shards: *shards,
		LinesPerBlock: *linesPerBlock, Bigtable: *bigtableSpec}
	if err := cfg.Validate(); err != nil {
		return err
	}
	if cfg.Bigtable != "" {
		if err := transforms.EnsureBigtable(ctx, cfg.Bigtable); err != nil {
			return err
		}
	}
	slog.Info("indexing", "files", len(files), "format", cfg.Format, "shards", cfg.Shards, "output", cfg.OutputDir, "bigtable", cfg.Bigtable)
	p, s := beam.NewPipelineWithRoot()
	Build(s, cfg)
	res, err := beamx.RunWithMetrics(ctx, p)
	if err != nil {
		return fmt.Errorf("pipeline: %w", err)
	}
	if res == nil { // e.g. Dataflow --dry_run
		return nil
	}
	sum := Summarize(res.Metrics())
	sum.Print(os.Stdout)
	if sum.Captures == 0 && sum.Files > 0 {
		return fmt.Errorf("nothing could be indexed from %d files (%d unreadable, %d records skipped)", sum.Files, sum.FilesUnreadable, sum.SkippedTotal())
	}
	return nil
}

// checkUniqueNames rejects inputs whose base names collide: the index
// records a file by its base name, so two files of the same name would be
// indistinguishable at extraction time.
func checkUniqueNames(files []string) error {
	seen := map[string]string{}
	for _, f := range files {
		b := storage.Base(f)
		if prev, ok := seen[b]; ok {
			return fmt.Errorf("--input: %s and %s have the same file name %q; the index identifies files by name", prev, f, b)
		}
		seen[b] = f
	}
	return nil
}

// Summary is what an index run reports at its end.
type Summary struct {
	Files, FilesUnreadable, Captures int64
	Skipped                          map[string]int64 // by kind
}

// SkippedTotal is the number of records skipped for any reason.
func (s Summary) SkippedTotal() int64 {
	var n int64
	for _, v := range s.Skipped {
		n += v
	}
	return n
}

// Summarize reads the index counters of a finished pipeline.
func Summarize(m metrics.Results) Summary {
	sum := Summary{Skipped: map[string]int64{}}
	for _, c := range m.AllMetrics().Counters() {
		if c.Namespace() != transforms.CounterNamespaceIndex {
			continue
		}
		v := c.Result()
		switch name := c.Name(); name {
		case transforms.CounterFiles:
			sum.Files += v
		case transforms.CounterFilesFailed:
			sum.FilesUnreadable += v
		case transforms.CounterCaptures:
			sum.Captures += v
		default:
			if kind, ok := transforms.IsSkipCounter(name); ok {
				sum.Skipped[kind] += v
			}
		}
	}
	return sum
}

// Print writes the summary for a person.
func (s Summary) Print(w *os.File) {
	fmt.Fprintf(w, "indexed %d captures from %d files (%d unreadable)\n", s.Captures, s.Files, s.FilesUnreadable)
	kinds := make([]string, 0, len(s.Skipped))
	for k := range s.Skipped {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		fmt.Fprintf(w, "skipped %d records: %s (file and offset of each in the log)\n", s.Skipped[k], k)
	}
}
