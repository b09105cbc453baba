package index

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/metrics"

	"github.com/recrawl/recrawl/internal/cli"
	iindex "github.com/recrawl/recrawl/internal/index"
	"github.com/recrawl/recrawl/internal/lookup"
	"github.com/recrawl/recrawl/internal/records"
	"github.com/recrawl/recrawl/internal/storage"
	"github.com/recrawl/recrawl/internal/worklock"
	"github.com/recrawl/recrawl/runners"
	"github.com/recrawl/recrawl/scoring/document"
	"github.com/recrawl/recrawl/transforms/index"
)

// indexFlags are the index subcommand's own flags; Main joins them to
// Beam's on flag.CommandLine, and --help lists them first.
var indexFlags = flag.NewFlagSet("index", flag.ContinueOnError)

// Usage is the synopsis that `recrawl index --help` prints above the flags.
const Usage = `usage: recrawl index --input FILES --output DIR [--add] [--format cdxj|zipnum] [--shards N] [--dictionary] [--bigtable P/I/T] [flags]
       recrawl index compact --output DIR
       recrawl index remove --output DIR NAME...
       recrawl index --add --input FILES --bigtable P/I/T [--dictionary] [flags]
       recrawl index compact --bigtable P/I/T
       recrawl index remove --bigtable P/I/T NAME...
       indexes WARC/ARC files into a CDXJ or ZipNum index (pywb's lines) or a Bigtable table, optionally with document frequencies;
       --add indexes only the files the index does not hold yet (a CDXJ or ZipNum index: as a new segment);
       compact merges the segments (Bigtable: drops removed files' rows); remove takes files out of the index`

var (
	input         = indexFlags.String("input", "", "archive files: comma-separated local paths, gs:// URIs and glob patterns (.warc, .warc.gz, .arc, .arc.gz)")
	output        = indexFlags.String("output", "", "index directory (local or gs://)")
	format        = indexFlags.String("format", "cdxj", "index format in --output: cdxj (one sorted index.cdxj) or zipnum (sharded gzip blocks + cluster.idx)")
	shards        = indexFlags.Int("shards", 1, "number of key-range shards (ZipNum shard files; parallel sort for cdxj)")
	linesPerBlock = indexFlags.Int("lines_per_block", 3000, "ZipNum: CDXJ lines per gzip block")
	rangeBytes    = indexFlags.Int64("range_bytes", index.DefaultRangeBytes, "archive files are indexed in parts of about this many bytes, cut at confirmed gzip record boundaries (the index does not depend on it); <= 0: whole files")
	parallelism   = indexFlags.Int("index_parallelism", 0, "parts of archive files one worker indexes at once (0: GOMAXPROCS)")
	bigtableSpec  = indexFlags.String("bigtable", "", "also load the captures into Bigtable: PROJECT/INSTANCE/TABLE (BIGTABLE_EMULATOR_HOST is honoured)")

	dictionary       = indexFlags.Bool("dictionary", false, "also write the document frequencies of the archive's HTML documents, one file per language: OUTPUT/df-<lang>.tsv")
	dictionarySample = indexFlags.Float64("dictionary_sample", 1.0, "--dictionary: share of the documents counted, in (0, 1]; chosen by a hash of URL key and timestamp, so reruns count the same ones")
	dictionaryDocs   = indexFlags.Int64("dictionary_docs", iindex.DefaultDictionaryDocs, "--dictionary: parse at most this many HTML captures: those of the smallest hash level (leading zero bits of the hash of URL key and timestamp) with at most this many, so the cost does not grow with the archive; 0: every document (with --bigtable, every document is counted)")
	dictionaryMinDF  = indexFlags.Int64("dictionary_min_df", 2, "--dictionary: leave out terms found in fewer documents (a missing term gets the dictionary's largest idf)")
	defaultLanguage  = indexFlags.String("default_language", "en", "--dictionary: documents in a language without an analyzer count as this language")

	add = indexFlags.Bool("add", false, "index only the --input files the index does not hold yet (same base name, size and SHA-256 of the first and last 64 KiB; a different file under a held name is an error): with --output, as a new segment listed in OUTPUT/index.files (without an index there, build it); with --bigtable, into the table, which lists its files")

	verbose = indexFlags.Bool("verbose", false, cli.VerboseUsage)
	check   = indexFlags.Bool("check", false, cli.CheckUsage)
)

// Flags returns the index subcommand's own flags (not Beam's).
func Flags() *flag.FlagSet { return indexFlags }

// Main runs `recrawl index ARGS`: it defines the index's flags on
// flag.CommandLine beside Beam's, parses args there, initializes Beam,
// indexes and prints the summary. It returns flag.ErrHelp after printing the
// help, and an error wrapping cli.ErrUsage for a wrong command line.
// Call it once per process: Beam's flags and beam.Init are global.
func Main(ctx context.Context, args []string) error {
	indexFlags.VisitAll(func(f *flag.Flag) { f.Value.Set(f.DefValue) }) // a second call in one test process starts anew
	command := ""
	if len(args) > 0 && (args[0] == "compact" || args[0] == "remove") {
		command, args = args[0], args[1:]
	}
	stop, err := cli.StartPipeline(args, Usage, indexFlags, verbose)
	if err != nil {
		return err
	}
	defer stop()
	if command != "" {
		return runMaintenance(ctx, command)
	}
	return run(ctx)
}

func run(ctx context.Context) error {
	if *input == "" {
		return fmt.Errorf("--input is required")
	}
	if err := checkFlags(); err != nil {
		return err
	}
	rc, err := runners.FromFlags()
	if err != nil {
		return err
	}
	defer rc.Close()
	// Workers must reach every file: local paths only for in-process runs.
	if err := rc.Validate(map[string]string{"--input": *input, "--output": *output}); err != nil {
		return err
	}
	cfg := Config{OutputDir: *output, Format: *format, Shards: *shards,
		LinesPerBlock: *linesPerBlock, Bigtable: *bigtableSpec, Add: *add,
		RangeBytes: max(*rangeBytes, -1), Parallelism: *parallelism,
		Dictionary: *dictionary, DictionarySample: *dictionarySample, DictionaryDocs: *dictionaryDocs, DictionaryMinDF: *dictionaryMinDF,
		DefaultLanguage: *defaultLanguage, Runner: &rc}
	if *check {
		return checkCommandLine(cfg)
	}
	files, err := storage.Expand(ctx, *input)
	if err != nil {
		return fmt.Errorf("--input: %w", err)
	}
	cfg.Files = files
	if *add && cfg.Bigtable == "" {
		return runAdd(ctx, cfg) // a file index: a new segment
	}
	sum, err := Run(ctx, cfg)
	if sum != nil {
		sum.Print(os.Stdout)
	}
	return err
}

// Run validates cfg, runs the index pipeline on the runner of --runner
// (prism by default) and summarizes its counters. The summary is nil when
// the runner returns no metrics (Dataflow --dry_run). The error is non-nil
// when the configuration is wrong, the pipeline fails, or nothing at all
// could be indexed: archive files that are all unreadable, or hold no
// capture.
func Run(ctx context.Context, cfg Config) (*Summary, error) {
	if err := checkUniqueNames(cfg.Files); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	var tableFiles *bigtableFiles
	if cfg.Bigtable != "" {
		if err := index.EnsureBigtable(ctx, cfg.Bigtable); err != nil {
			return nil, err
		}
		var err error
		if tableFiles, err = planBigtableFiles(ctx, cfg); err != nil {
			return nil, err
		}
		if len(tableFiles.toIndex) == 0 {
			fmt.Fprintf(os.Stderr, "bigtable %s already holds all %d files: nothing to index\n", cfg.Bigtable, len(cfg.Files))
			return &Summary{Skipped: map[string]int64{}, DictionarySkipped: map[string]int64{}, FilesHeld: int64(len(cfg.Files))}, nil
		}
		cfg.Files = tableFiles.toIndex
		if err := tableFiles.unlistRewritten(ctx, cfg.Bigtable); err != nil {
			return nil, err
		}
	}
	if cfg.OutputDir != "" && !cfg.lockHeld {
		// One run per output directory (the lock also refuses a file).
		release, err := worklock.Hold(ctx, os.Stderr, cfg.OutputDir)
		if err != nil {
			return nil, fmt.Errorf("--output: %w", err)
		}
		defer release()
	}
	rc := cfg.Runner
	if rc == nil {
		c, err := runners.FromFlags()
		if err != nil {
			return nil, err
		}
		rc = &c
		defer rc.Close()
	}
	cfg.Runner = rc
	if cfg.OutputDir != "" && !rc.DryRun {
		tempName := "" // the run's own temporary folder, named in its manifest
		if cfg.TempDir == "" {
			var err error
			if tempName, err = newTempDirName(ctx, cfg.OutputDir); err != nil {
				return nil, err
			}
		}
		if err := claimOutput(ctx, cfg.OutputDir, tempName); err != nil {
			return nil, err
		}
		if tempName != "" {
			tmp, err := makeTempDir(ctx, cfg.OutputDir, tempName)
			if err != nil {
				return nil, err
			}
			cfg.TempDir = tmp
			defer func() { // the writers removed it, unless the run failed
				if err := storage.RemoveAll(context.WithoutCancel(ctx), tmp); err != nil {
					slog.Warn("the run's temporary folder could not be removed", "dir", tmp, "err", err)
				}
			}()
		}
	}
	fmt.Fprintf(os.Stderr, "indexing %d files into %s\n", len(cfg.Files), describeOutputs(cfg))
	slog.Debug("indexing", "files", len(cfg.Files), "format", cfg.Format, "shards", cfg.Shards, "output", cfg.OutputDir, "bigtable", cfg.Bigtable, "dictionary", cfg.Dictionary)
	p, s := beam.NewPipelineWithRoot()
	Build(s, cfg)
	res, err := rc.Run(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("pipeline: %w", err)
	}
	if res == nil { // e.g. Dataflow --dry_run
		return nil, nil
	}
	sum := Summarize(res.Metrics())
	if tableFiles != nil {
		sum.FilesHeld = int64(tableFiles.held)
	}
	if sum.Captures == 0 && sum.Files > 0 {
		return &sum, fmt.Errorf("nothing could be indexed from %d files (%d unreadable, %d records skipped)", sum.Files, sum.FilesUnreadable, sum.SkippedTotal())
	}
	if cfg.OutputDir != "" {
		if m, err := lookup.ReadManifest(ctx, cfg.OutputDir); err != nil || m == nil || !m.Complete {
			return &sum, fmt.Errorf("--output %s: the pipeline ended without writing a complete %s (%v)", cfg.OutputDir, lookup.ManifestFile, err)
		}
	}
	if tableFiles != nil {
		// Listed only now that all their rows are written: a run that
		// stops before indexes them again, over the same row keys.
		if err := tableFiles.list(ctx, cfg); err != nil {
			return &sum, err
		}
	}
	return &sum, nil
}

// claimOutput makes dir the output of this run: its manifest says
// incomplete until the run ends (readers then use none of its files) and
// names tempName, the run's temporary folder in dir ("" for none), and the
// files the earlier run into dir listed in its manifest are removed, and
// so is the temporary folder an incomplete manifest names (that of a run
// killed before it could remove it); files and folders no index run named
// are left alone. A manifest that cannot be read removes nothing.
func claimOutput(ctx context.Context, dir, tempName string) error {
	old, err := lookup.ReadManifest(ctx, dir)
	if err != nil {
		slog.Warn("the earlier index run's manifest cannot be read: its files are not removed", "dir", dir, "err", err)
		old = nil
	}
	// The earlier run's temporary folder goes first: once this run's
	// manifest replaces the earlier one, nothing names it any more.
	if old != nil && !old.Complete && old.TempDir != "" && old.TempDir != tempName {
		tmp := storage.Join(dir, old.TempDir)
		if err := storage.RemoveAll(ctx, tmp); err != nil {
			return fmt.Errorf("--output: the temporary folder of the earlier index run: %w", err)
		}
		slog.Info("removed the temporary folder of an earlier index run that did not finish", "dir", tmp)
	}
	if err := lookup.WriteManifest(ctx, dir, lookup.Manifest{TempDir: tempName}); err != nil {
		return fmt.Errorf("--output: %w", err)
	}
	if old == nil {
		return nil
	}
	for _, name := range old.Files {
		if err := storage.Remove(ctx, storage.Join(dir, name)); err != nil {
			return fmt.Errorf("--output: a file of the earlier index run: %w", err)
		}
	}
	slog.Info("removed the files of the earlier index run", "dir", dir, "files", len(old.Files))
	return nil
}

// describeOutputs names what a run writes, for its progress line: "a cdxj
// index in DIR (2 shards), document frequencies, bigtable P/I/T".
func describeOutputs(cfg Config) string {
	var parts []string
	if cfg.OutputDir != "" {
		p := fmt.Sprintf("a %s index in %s", cfg.Format, cfg.OutputDir)
		if cfg.Shards > 1 {
			p += fmt.Sprintf(" (%d shards)", cfg.Shards)
		}
		parts = append(parts, p)
	}
	if cfg.Dictionary {
		parts = append(parts, "document frequencies")
	}
	if cfg.Bigtable != "" {
		parts = append(parts, "bigtable "+cfg.Bigtable)
	}
	return strings.Join(parts, ", ")
}

// checkCommandLine is --check, once the flags and the paths every worker
// must reach are checked: the configuration but its files (--input is not
// expanded: a gs:// pattern needs the workers' credentials) and the form of
// --bigtable. Nothing is read, written or run.
func checkCommandLine(cfg Config) error {
	if err := cfg.validateOptions(); err != nil {
		return err
	}
	if cfg.Bigtable != "" {
		if _, _, _, err := index.ParseBigtableSpec(cfg.Bigtable); err != nil {
			return err
		}
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
	// FilesHeld: input files the Bigtable index already held, not indexed
	// again (--add).
	FilesHeld int64
	Skipped   map[string]int64 // by kind

	// With --dictionary: documents counted, captures left out of the
	// sample, captures skipped by reason, terms written and pruned.
	DictionaryDocs, DictionarySampledOut int64
	DictionarySkipped                    map[string]int64
	DictionaryTerms, DictionaryPruned    int64
	// DictionaryTruncated: captures whose body was cut at the size limit.
	DictionaryTruncated int64
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
	sum := Summary{Skipped: map[string]int64{}, DictionarySkipped: map[string]int64{}}
	namespaces := map[string]counterSums{
		index.CounterNamespaceIndex: {
			totals: map[string]*int64{
				index.CounterFiles:       &sum.Files,
				index.CounterFilesFailed: &sum.FilesUnreadable,
				index.CounterCaptures:    &sum.Captures,
			},
			isSkip:  index.IsSkipCounter,
			skipped: sum.Skipped,
		},
		index.CounterNamespaceDictionary: {
			totals: map[string]*int64{
				index.CounterDictionaryDocs:      &sum.DictionaryDocs,
				index.CounterDictionarySampled:   &sum.DictionarySampledOut,
				index.CounterDictionaryTerms:     &sum.DictionaryTerms,
				index.CounterDictionaryPruned:    &sum.DictionaryPruned,
				index.CounterDictionaryTruncated: &sum.DictionaryTruncated,
			},
			isSkip:  index.IsDictionarySkipCounter,
			skipped: sum.DictionarySkipped,
		},
	}
	for _, c := range m.AllMetrics().Counters() {
		if ns, ok := namespaces[c.Namespace()]; ok {
			ns.add(c.Name(), c.Result())
		}
	}
	return sum
}

// counterSums is where the counters of one namespace are summed: a total
// each by counter name, and the skip counters (isSkip gives the reason) by
// reason.
type counterSums struct {
	totals  map[string]*int64
	isSkip  func(name string) (reason string, ok bool)
	skipped map[string]int64
}

func (c counterSums) add(name string, v int64) {
	if total, ok := c.totals[name]; ok {
		*total += v
	} else if reason, ok := c.isSkip(name); ok {
		c.skipped[reason] += v
	}
}

// Print writes the summary for a person.
func (s Summary) Print(w io.Writer) {
	if s.FilesHeld > 0 {
		fmt.Fprintf(w, "skipped %d files the index already holds\n", s.FilesHeld)
	}
	fmt.Fprintf(w, "indexed %d captures from %d files (%d unreadable)\n", s.Captures, s.Files, s.FilesUnreadable)
	kinds := make([]string, 0, len(s.Skipped))
	for k := range s.Skipped {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		if records.RecordKept(k) {
			fmt.Fprintf(w, "indexed %d records in spite of a problem: %s (file and offset of each in the log)\n", s.Skipped[k], k)
			continue
		}
		fmt.Fprintf(w, "skipped %d records: %s (file and offset of each in the log)\n", s.Skipped[k], k)
	}
	if s.DictionaryDocs == 0 && s.DictionarySampledOut == 0 && len(s.DictionarySkipped) == 0 {
		return
	}
	fmt.Fprintf(w, "dictionary: %d documents counted, %d left out of the sample; %d terms written, %d below --dictionary_min_df\n",
		s.DictionaryDocs, s.DictionarySampledOut, s.DictionaryTerms, s.DictionaryPruned)
	if s.DictionaryTruncated > 0 {
		fmt.Fprintf(w, "dictionary: %d captures had a body over %d bytes, cut there (file and offset of each in the log)\n",
			s.DictionaryTruncated, document.DefaultMaxBytes)
	}
	reasons := make([]string, 0, len(s.DictionarySkipped))
	for r := range s.DictionarySkipped {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		fmt.Fprintf(w, "dictionary: skipped %d captures: %s\n", s.DictionarySkipped[r], r)
	}
}

// checkFlags checks what Config.Validate cannot see: arguments left after
// the flags, an --output that cannot be a directory, and --dictionary_*
// flags given without --dictionary (they would do nothing).
func checkFlags() error {
	if err := cli.CheckNoArgs(flag.Args()); err != nil {
		return err
	}
	if err := cli.CheckOutputDir("--output", *output); err != nil {
		return err
	}
	var unused []string
	flag.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "dictionary_sample", "dictionary_docs", "dictionary_min_df", "default_language":
			if !*dictionary {
				unused = append(unused, "--"+f.Name)
			}
		}
	})
	if len(unused) > 0 {
		return fmt.Errorf("%s: only with --dictionary", strings.Join(unused, ", "))
	}
	return nil
}
