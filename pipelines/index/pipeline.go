// Package index is the index pipeline, run as `recrawl index` (Main): it
// turns WARC and ARC files into the snapshot index the extraction resolves
// URLs through: a pywb-compatible CDXJ file, a ZipNum index (gzip blocks
// of sorted CDXJ lines in key-range shards plus cluster.idx, the layout
// Common Crawl and the Internet Archive use for billions of captures),
// and/or a Bigtable table.
//
//	recrawl index --input='ARCHIVE/*.warc.gz' --output=INDEX_DIR
//	recrawl index --input=... --output=INDEX_DIR --format=zipnum --shards=8
//	recrawl index --input=... --bigtable=PROJECT/INSTANCE/TABLE
//	recrawl index --input=... --output=INDEX_DIR --dictionary [--dictionary_sample=0.1]
//
// The pipeline, step by step (composites in package transforms/index):
//
//	files ─ IndexArchives ─┬─ sorted runs (files in INDEX_DIR/.runs) ─ SortIntoShards ─┬─ WriteCDXJ   → INDEX_DIR/index.cdxj
//	                       │                                                          └─ WriteZipNum → INDEX_DIR/cdx-NNNNN.gz, cluster.idx, cluster.loc
//	                       └─ batches of lines ─ Lines ─┬─ WriteBigtable     → rows keyed by SURT and timestamp
//	                                                    └─ CountDocumentFrequencies ─ WriteDocumentFrequencies → INDEX_DIR/df-<lang>.tsv
//
// Inputs are local paths or gs:// URIs, a comma-separated list of files and
// glob patterns. A file is cut into parts of about --range_bytes at
// confirmed record boundaries (gzip per record; other files are one part),
// and a worker indexes --index_parallelism parts at once: the index does not
// depend on either. Which records get a
// line and every field follow pywb's indexer (internal/cdxj); a corrupt record
// is counted by kind, logged with file and offset, and skipped. The run exits
// with status 0 unless nothing at all could be read.
//
// --dictionary also builds the document-frequency dictionaries the scoring's
// idf = ln(N / df) comes from (method.md §2), from the archive itself: every
// HTTP 200 HTML response (not the revisits) is read back at its offset from
// the directory of its input file, parsed, and analysed with the analyzer of
// its language (--default_language for languages without one), and each
// distinct unigram and bigram of its title and main text counts once. Per
// language, INDEX_DIR/df-<lang>.tsv holds "#docs<TAB>N", "#lang<TAB>LANG" and
// "term<TAB>df" sorted by term (scoring.ReadDocFreq / LoadDocFreq read it).
// --dictionary_sample=R counts a share R of the documents, chosen by a hash
// of SURT key and timestamp, so reruns count the same documents.
// --dictionary_min_df=K (default 2) leaves out the terms of fewer than K
// documents, most of them one-off words and bigrams: a term missing from the
// dictionary gets its largest idf, which is at most ln(N / K), what a rare
// term gets anyway. Captures not counted are counted by reason (not-200,
// not-html, revisit, fetch-failed, parse-failed, no-text) in the summary.
//
// Beam's own flags pass through (--runner, --endpoint, …); the default runner
// is prism, in process.
package index

import (
	"fmt"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

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
	// RangeBytes is the size of the parts a large archive file is cut
	// into (0: transforms.DefaultRangeBytes; < 0: whole files), and
	// Parallelism the ranges one worker indexes at once (0: GOMAXPROCS).
	RangeBytes  int64
	Parallelism int

	// Dictionary also writes OutputDir/df-<lang>.tsv, the per-language
	// document frequencies of the archive's HTML documents.
	Dictionary       bool
	DictionarySample float64 // share of documents counted, in (0, 1]
	DictionaryMinDF  int64   // terms in fewer documents are left out
	DefaultLanguage  string  // analyzer of documents in other languages
	// Runner runs the pipeline; nil: the runner of the command-line flags.
	// Build reads it too: on prism in process (no --endpoint) the ranges
	// of the files stay in one bundle (index.IndexArchivesOptions.OneProcess).
	Runner *runners.Config
}

// Validate checks the configuration and names the flag at fault.
func (c Config) Validate() error {
	if len(c.Files) == 0 {
		return fmt.Errorf("--input: no archive files")
	}
	if c.OutputDir == "" && c.Bigtable == "" {
		return fmt.Errorf("--output or --bigtable is required: the index has to go somewhere")
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
		if c.OutputDir == "" {
			return fmt.Errorf("--dictionary needs --output: the df-<lang>.tsv files go there")
		}
		if !(c.DictionarySample > 0 && c.DictionarySample <= 1) {
			return fmt.Errorf("--dictionary_sample=%v: must be in (0, 1]", c.DictionarySample)
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
		opts.RunsDir = storage.Join(cfg.OutputDir, index.RunsDirName)
		opts.SampleK = cfg.Shards * index.SamplesPerShard
	}
	indexed := index.IndexArchives(s, files, opts)
	if cfg.OutputDir != "" {
		shards := index.SortIntoShards(s, indexed.Runs, cfg.Shards)
		switch cfg.Format {
		case "zipnum":
			index.WriteZipNum(s, shards, cfg.OutputDir, cfg.LinesPerBlock)
		default:
			index.WriteCDXJ(s, shards, cfg.OutputDir)
		}
	}
	var lines beam.PCollection // one line per element, only for the steps that need it
	if opts.Batches {
		lines = index.Lines(s, indexed.Batches)
	}
	if cfg.Bigtable != "" {
		index.WriteBigtable(s, lines, cfg.Bigtable)
	}
	if cfg.Dictionary {
		counts := index.CountDocumentFrequencies(s, lines, ArchiveLocations(cfg.Files), cfg.DictionarySample, cfg.DefaultLanguage)
		index.WriteDocumentFrequencies(s, counts, cfg.OutputDir, cfg.DictionaryMinDF)
	}
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
