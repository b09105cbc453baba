// Package index is the index pipeline, run as `recrawl index` (Main): it
// turns WARC and ARC files into the snapshot index the extraction resolves
// URLs through: a pywb-compatible CDXJ file, a ZipNum index, and/or a
// Bigtable table, and optionally the per-language document frequencies for
// IDF (--dictionary).
//
//	recrawl index --input='ARCHIVE/*.warc.gz' --output=INDEX_DIR --format=zipnum --shards=8 --dictionary
//
// The pipeline, step by step (composites in package transforms/index):
//
//	files ─ IndexArchives ─┬─ sorted runs (in INDEX_DIR/.runs-<random>) ─ SortIntoShards ─┬─ WriteCDXJ   → INDEX_DIR/index.cdxj
//	                       │                                                              └─ WriteZipNum → INDEX_DIR/cdx-NNNNN.gz, cluster.idx, cluster.loc
//	                       └─ batches of lines ─ Lines ─┬─ WriteBigtable     → rows keyed by SURT and timestamp
//	                                                    └─ CountDocumentFrequencies ─ WriteSampledDocumentFrequencies → INDEX_DIR/df-<lang>.tsv, dfsample.tsv
//
// A file is cut into parts of about --range_bytes at confirmed record
// boundaries, and a worker indexes --index_parallelism parts at once; the
// index does not depend on either. Which records get a line, and every
// field, follow pywb's indexer (internal/cdxj); a corrupt record is counted
// by kind, logged with file and offset, and skipped. The dictionary counts
// each distinct term of every HTTP 200 HTML response once per document
// (df-<lang>.tsv: "#docs", "#lang", then "term<TAB>df"; scoring.ReadDocFreq),
// of at most --dictionary_docs responses chosen by a hash of each capture
// (internal/index.DictionarySample, recorded in dfsample.tsv), parsed on
// every core.
//
// The run owns INDEX_DIR's index files: it writes INDEX_DIR/index.manifest,
// "incomplete" when it starts and the list of the files it wrote when it
// ends, and first removes the files the earlier run's manifest lists (not
// others). The extraction reads only the df-<lang>.tsv files the manifest
// lists. Sorted runs and part files go to a folder of the run's own,
// INDEX_DIR/.runs-<random>, removed at the end; the incomplete manifest
// names it, so the next run removes it if this one is killed.
//
// With --bigtable the table also keeps the list of the archive files it
// holds and, with --dictionary, each file's document frequencies, summed
// when read (internal/btindex); --add indexes only the files it does not
// hold yet, and `recrawl index remove` / `compact` take files out
// (bigtable.go; docs/formats.md, "Reserved rows").
//
// Beam's own flags pass through; the default runner is prism, in process.
package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/recrawl/recrawl/internal/lookup"
	"github.com/recrawl/recrawl/internal/storage"
	"github.com/recrawl/recrawl/runners"
	"github.com/recrawl/recrawl/scoring"
	"github.com/recrawl/recrawl/transforms/index"
)

// Config is what one index run builds.
type Config struct {
	Files         []string // archive files, already expanded
	OutputDir     string   // "" for no file output
	Format        string   // "cdxj" or "zipnum"
	Shards        int      // key-range shards (zipnum files; cdxj parts)
	LinesPerBlock int      // ZipNum lines per gzip block
	Bigtable      string   // PROJECT/INSTANCE/TABLE, or ""
	// Add indexes only the files the index does not hold yet (--add):
	// files of the same name, size, head and tail are skipped, and a
	// different file under a held name is an error. A CDXJ or ZipNum
	// index keeps its file list in OutputDir/index.files and takes the new
	// files as a segment (Add, incremental.go); a Bigtable index keeps it
	// in the table (internal/btindex files.go).
	Add bool
	// RangeBytes is the size of the parts a large archive file is cut
	// into (0: transforms.DefaultRangeBytes; < 0: whole files), and
	// Parallelism the ranges one worker indexes at once (0: GOMAXPROCS).
	RangeBytes  int64
	Parallelism int

	// Dictionary also writes OutputDir/df-<lang>.tsv, the per-language
	// document frequencies of the archive's HTML documents.
	Dictionary       bool
	DictionarySample float64 // share of documents counted, in (0, 1]
	// DictionaryDocs bounds the documents parsed (a sample of the levels
	// of index.DictionarySample); 0 counts every document. A Bigtable
	// index counts every document (its counts are kept per file).
	DictionaryDocs int64
	// DictionaryMinLevel leaves out the documents below that sample level
	// (index.DictionaryOptions.MinLevel): set by Add to the level of the
	// index it adds to; not a flag.
	DictionaryMinLevel int
	DictionaryMinDF    int64  // terms in fewer documents are left out
	DefaultLanguage    string // analyzer of documents in other languages
	// DocFreqCounts also writes OutputDir/dfcounts-<lang>.tsv, the counts
	// with no term left out, which the parts of an index built with --add
	// keep so that their sums are those of one full build.
	DocFreqCounts bool
	// TempDir is the run's own folder for its sorted runs and part files,
	// removed at the end; "": Build names one, OutputDir/.runs-<random>.
	// Run makes it (locally with os.Mkdir, under a name nothing in
	// OutputDir has), so a folder that was in OutputDir before is never
	// written into or removed, and names it in the incomplete manifest,
	// so the next run removes it if this one is killed.
	TempDir string
	// Runner runs the pipeline; nil: the runner of the command-line flags.
	// Build reads it too: on prism in process (no --endpoint) the ranges
	// of the files stay in one bundle (index.IndexArchivesOptions.OneProcess).
	Runner *runners.Config

	// lockHeld: the caller holds the lock of OutputDir's index (--add,
	// compact), so Run does not take it again.
	lockHeld bool
}

// Validate checks the configuration and names the flag at fault.
func (c Config) Validate() error {
	if len(c.Files) == 0 {
		return fmt.Errorf("--input: no archive files")
	}
	return c.validateOptions()
}

// validateOptions checks the configuration but its files.
func (c Config) validateOptions() error {
	if c.OutputDir == "" && c.Bigtable == "" {
		return fmt.Errorf("--output or --bigtable is required: the index has to go somewhere")
	}
	if c.Add && c.Bigtable != "" && c.OutputDir != "" {
		return fmt.Errorf("--add: give --output (a CDXJ or ZipNum index, which keeps its list of files there) or --bigtable (the table keeps it), not both")
	}
	switch c.Format {
	case "cdxj", "zipnum":
	default:
		return fmt.Errorf("--format=%q: must be cdxj or zipnum", c.Format)
	}
	if c.Shards < 1 {
		return fmt.Errorf("--shards=%d: must be at least 1", c.Shards)
	}
	if c.Parallelism < 0 {
		return fmt.Errorf("--index_parallelism=%d: must be 0 (all cores) or more", c.Parallelism)
	}
	if c.LinesPerBlock < 1 {
		return fmt.Errorf("--lines_per_block=%d: must be at least 1", c.LinesPerBlock)
	}
	if c.Dictionary {
		if c.OutputDir == "" && c.Bigtable == "" {
			return fmt.Errorf("--dictionary needs --output (the df-<lang>.tsv files go there) or --bigtable (the counts go into the table)")
		}
		if !(c.DictionarySample > 0 && c.DictionarySample <= 1) {
			return fmt.Errorf("--dictionary_sample=%v: must be in (0, 1]", c.DictionarySample)
		}
		if c.DictionaryDocs < 0 {
			return fmt.Errorf("--dictionary_docs=%d: must be 0 (every document) or more", c.DictionaryDocs)
		}
		if c.DictionaryMinDF < 1 {
			return fmt.Errorf("--dictionary_min_df=%d: must be at least 1", c.DictionaryMinDF)
		}
		if !slices.Contains(scoring.Languages(), scoring.NormalizeLanguage(c.DefaultLanguage)) {
			return fmt.Errorf("--default_language=%q: no analyzer (supported: %s)", c.DefaultLanguage, strings.Join(scoring.Languages(), ", "))
		}
	}
	return nil
}

// Build adds the index pipeline to the scope.
func Build(s beam.Scope, cfg Config) {
	files := beam.CreateList(s, cfg.Files)
	opts := index.IndexArchivesOptions{RangeBytes: cfg.RangeBytes, Parallelism: cfg.Parallelism,
		Batches: cfg.Bigtable != "" || cfg.Dictionary, OneProcess: oneProcess(cfg.Runner)}
	if cfg.OutputDir != "" {
		if cfg.TempDir == "" {
			cfg.TempDir = storage.Join(cfg.OutputDir, index.TempDirPrefix+randomSuffix())
		}
		opts.RunsDir = cfg.TempDir
		opts.SampleK = cfg.Shards * index.SamplesPerShard
	}
	indexed := index.IndexArchives(s, files, opts)
	var written []beam.PCollection // paths of the files written into OutputDir
	if cfg.OutputDir != "" {
		shards := index.SortIntoShards(s, indexed.Runs, cfg.Shards)
		switch cfg.Format {
		case "zipnum":
			written = append(written, index.WriteZipNum(s, shards, cfg.OutputDir, cfg.TempDir, cfg.LinesPerBlock))
		default:
			written = append(written, index.WriteCDXJ(s, shards, cfg.OutputDir, cfg.TempDir))
		}
	}
	var lines beam.PCollection // one line per element, only for the steps that need it
	if cfg.Bigtable != "" {
		lines = index.Lines(s, indexed.Batches)
	}
	if cfg.Bigtable != "" {
		index.WriteBigtable(s, lines, cfg.Bigtable)
	}
	if cfg.Dictionary {
		dopts := index.DictionaryOptions{Locations: ArchiveLocations(cfg.Files), SampleRate: cfg.DictionarySample, MaxDocs: cfg.DictionaryDocs, MinLevel: cfg.DictionaryMinLevel,
			DefaultLanguage: cfg.DefaultLanguage, Parallelism: cfg.Parallelism, OneProcess: opts.OneProcess, ByLevel: cfg.DocFreqCounts}
		if cfg.Bigtable != "" {
			// The table keeps the counts per file, so that they add up
			// when files are added or removed.
			byFile := index.CountDocumentFrequenciesByFile(s, lines, dopts)
			index.WriteBigtableDocumentFrequencies(s, byFile, cfg.Bigtable)
			if cfg.OutputDir != "" {
				written = append(written, index.WriteDocumentFrequencies(s, index.SumFiles(s, byFile), cfg.OutputDir, cfg.DictionaryMinDF))
			}
		} else {
			// The batches: only the captures the sample keeps go
			// through the runner one by one.
			dopts.Batches = true
			counts := index.CountDocumentFrequencies(s, indexed.Batches, dopts)
			written = append(written, index.WriteSampledDocumentFrequencies(s, counts, cfg.OutputDir, cfg.DictionaryMinDF,
				cfg.DictionaryDocs, cfg.DictionarySample, cfg.DocFreqCounts))
		}
	}
	if len(written) > 0 {
		index.WriteIndexManifest(s, cfg.OutputDir, written...)
	}
}

// randomSuffix names a run's temporary folder: 64 random bits in hex.
func randomSuffix() string {
	return fmt.Sprintf("%016x", rand.Uint64())
}

// newTempDirName names the run's own temporary folder in dir:
// index.TempDirPrefix and 64 random bits in hex, a name nothing in dir has.
func newTempDirName(ctx context.Context, dir string) (string, error) {
	for range 10 {
		name := index.TempDirPrefix + randomSuffix()
		if storage.IsGCS(dir) {
			return name, nil // objects, each run under a prefix of its own
		}
		if _, err := os.Lstat(filepath.Join(dir, name)); errors.Is(err, fs.ErrNotExist) {
			return name, nil
		}
	}
	return "", fmt.Errorf("--output %s: no free name for the run's temporary folder", dir)
}

// makeTempDir makes the run's own folder name in dir, which must not
// exist (os.Mkdir), and returns its path; under a gs:// prefix it only
// returns the path (objects need no folder).
func makeTempDir(ctx context.Context, dir, name string) (string, error) {
	tmp := storage.Join(dir, name)
	if storage.IsGCS(dir) {
		return tmp, nil
	}
	if err := os.Mkdir(tmp, 0o700); err != nil {
		// The manifest must not name a folder this run did not make.
		if werr := lookup.WriteManifest(ctx, dir, lookup.Manifest{}); werr != nil {
			slog.Warn("the manifest names a temporary folder the run did not make", "dir", tmp, "err", werr)
		}
		return "", fmt.Errorf("--output: %w", err)
	}
	return tmp, nil
}

// oneProcess reports whether the runner runs every bundle in this process:
// prism without --endpoint, whose LOOPBACK workers are this program. nil
// (a runner not known yet) counts as other workers.
func oneProcess(rc *runners.Config) bool {
	return rc != nil && rc.Runner == runners.Prism && rc.Endpoint == "" && rc.Environment() == runners.Loopback
}

// ArchiveLocations returns the directories of the archive files, in order
// of first appearance: where the dictionary step finds the records the
// index names by file name.
func ArchiveLocations(files []string) []string {
	var locs []string
	for _, f := range files {
		dir := "."
		if i := strings.LastIndexByte(f, '/'); i >= 0 {
			dir = f[:i]
			if dir == "" {
				dir = "/"
			}
		}
		if !slices.Contains(locs, dir) {
			locs = append(locs, dir)
		}
	}
	return locs
}
