// Command index turns WARC and ARC files into the snapshot index the
// extraction resolves URLs through: a pywb-compatible CDXJ file, a ZipNum
// index (gzip blocks of sorted CDXJ lines in key-range shards plus
// cluster.idx, the layout Common Crawl and the Internet Archive use for
// billions of captures), and/or a Bigtable table.
//
//	go run ./pipelines/index --input='ARCHIVE/*.warc.gz' --output=INDEX_DIR
//	go run ./pipelines/index --input=... --output=INDEX_DIR --format=zipnum --shards=8
//	go run ./pipelines/index --input=... --bigtable=PROJECT/INSTANCE/TABLE
//
// The pipeline, step by step (composites in package transforms):
//
//	files ─ IndexArchives ─ CDXJ lines ─┬─ SortIntoShards ─ WriteCDXJ   → INDEX_DIR/index.cdxj
//	                                    │                 └ WriteZipNum → INDEX_DIR/cdx-NNNNN.gz, cluster.idx, cluster.loc
//	                                    └─ WriteBigtable                 → rows keyed by SURT and timestamp
//
// Inputs are local paths or gs:// URIs, a comma-separated list of files and
// glob patterns; one archive file is one unit of work. Which records get a
// line and every field follow pywb's indexer (internal/cdxj); a corrupt record
// is counted by kind, logged with file and offset, and skipped. The run exits
// with status 0 unless nothing at all could be read.
//
// Beam's own flags pass through (--runner, --endpoint, …); the default runner
// is prism, in process.
package main

import (
	"fmt"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/recrawl/recrawl/transforms"
)

// Config is what one index run builds.
type Config struct {
	Files         []string // archive files, already expanded
	OutputDir     string   // "" for no file output
	Format        string   // "cdxj" or "zipnum"
	Shards        int      // key-range shards (zipnum files; cdxj parts)
	LinesPerBlock int      // ZipNum lines per gzip block
	Bigtable      string   // PROJECT/INSTANCE/TABLE, or ""
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
	if c.LinesPerBlock < 1 {
		return fmt.Errorf("--lines_per_block=%d: must be at least 1", c.LinesPerBlock)
	}
	return nil
}

// Build adds the index pipeline to the scope.
func Build(s beam.Scope, cfg Config) {
	files := beam.CreateList(s, cfg.Files)
	lines := transforms.IndexArchives(s, files)
	if cfg.OutputDir != "" {
		shards := transforms.SortIntoShards(s, lines, cfg.Shards)
		switch cfg.Format {
		case "zipnum":
			transforms.WriteZipNum(s, shards, cfg.OutputDir, cfg.LinesPerBlock)
		default:
			transforms.WriteCDXJ(s, shards, cfg.OutputDir)
		}
	}
	if cfg.Bigtable != "" {
		transforms.WriteBigtable(s, lines, cfg.Bigtable)
	}
}
