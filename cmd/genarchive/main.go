// Command genarchive writes a synthetic event-centric web archive: WARC
// files, labels.tsv (which article is about which event), one collection
// specification per event in specs/, and summary.json.
//
//	go run ./cmd/genarchive --out DIR --pages 2000 --seed 1 [--max_file_size 1GB] [--events N]
//	go run ./cmd/genarchive --out DIR --target_bytes 1GB
//	go run ./cmd/genarchive --out DIR --captures 100000
//
// See package internal/corpus/archivegen for what the archive contains.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"text/tabwriter"
	"time"

	"github.com/recrawl/recrawl/internal/cli"
	"github.com/recrawl/recrawl/internal/corpus/archivegen"
)

func main() {
	var (
		cfg         archivegen.Config
		maxFileSize = cli.ByteSize(archivegen.DefaultMaxFileSize)
		targetBytes cli.ByteSize
		quiet       bool
	)
	flag.StringVar(&cfg.OutDir, "out", "", "output directory (required)")
	flag.Int64Var(&cfg.Pages, "pages", 0, "number of archived article pages (other page kinds scale along)")
	flag.Var(&targetBytes, "target_bytes", "instead of --pages: generate until the compressed archive reaches this size (e.g. 1GB)")
	flag.Int64Var(&cfg.TargetCaptures, "captures", 0, "instead of --pages: generate until the archive holds this many captures (lines of its CDXJ index: responses and revisits), or up to 7 more (from about 1,000 captures; below, the listing pages alone can hold more)")
	flag.Int64Var(&cfg.Seed, "seed", 1, "random seed; the same seed and size give byte-identical output")
	flag.Var(&maxFileSize, "max_file_size", "maximum size of one WARC file (e.g. 1GB, 100MB)")
	flag.IntVar(&cfg.Events, "events", archivegen.DefaultEvents, fmt.Sprintf("number of events (1..%d)", archivegen.MaxEvents))
	flag.StringVar(&cfg.Prefix, "prefix", archivegen.DefaultPrefix, "WARC file name prefix")
	flag.StringVar(&cfg.WARCVersion, "warc_version", archivegen.DefaultWARCVersion, "WARC version: 1.0 or 1.1")
	flag.IntVar(&cfg.CompressionLevel, "level", 1, "gzip level of the WARC records (1 fastest .. 9 smallest)")
	flag.IntVar(&cfg.Workers, "workers", 0, "parallel renderers (0: all cores); does not change the output")
	flag.BoolVar(&cfg.Templates, "templates", false, "give the hosts the site templates of real news sites in turn (related stories in asides, teaser grids, footer link farms, print and AMP variants; labels.tsv gets a template column)")
	flag.BoolVar(&quiet, "quiet", false, "log only errors")
	cli.Alias(flag.CommandLine, "target-bytes", "target_bytes")
	cli.Alias(flag.CommandLine, "max-file-size", "max_file_size")
	cli.Alias(flag.CommandLine, "warc-version", "warc_version")
	flag.Usage = func() {
		cli.Print(flag.CommandLine.Output(), "usage: genarchive --out DIR (--pages N | --target_bytes SIZE | --captures N) [flags]", flag.CommandLine, nil, "")
	}
	flag.Parse()
	for _, d := range cli.Deprecated(flag.CommandLine) {
		fmt.Fprintln(os.Stderr, d)
	}
	cfg.MaxFileSize = int64(maxFileSize)
	cfg.TargetBytes = int64(targetBytes)
	if cfg.OutDir == "" || sizes(cfg) != 1 {
		flag.Usage()
		os.Exit(2)
	}
	level := slog.LevelInfo
	if quiet {
		level = slog.LevelError
	}
	cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	defer cancel()
	start := time.Now()
	sum, err := archivegen.Generate(ctx, cfg)
	if err != nil {
		cfg.Logger.Error("generate archive", "err", err)
		os.Exit(1)
	}
	printSummary(sum, time.Since(start), cfg.OutDir)
}

// sizes counts the sizes given: one of --pages, --target_bytes and
// --captures is required.
func sizes(cfg archivegen.Config) int {
	n := 0
	for _, v := range []int64{cfg.Pages, cfg.TargetBytes, cfg.TargetCaptures} {
		if v != 0 {
			n++
		}
	}
	return n
}

func printSummary(s *archivegen.Summary, elapsed time.Duration, dir string) {
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "archive\t%s\n", dir)
	fmt.Fprintf(tw, "seed\t%d\n", s.Seed)
	fmt.Fprintf(tw, "hosts\t%d\n", s.Hosts)
	fmt.Fprintf(tw, "article pages\t%d\n", s.Pages)
	fmt.Fprintf(tw, "files\t%d\n", len(s.Files))
	fmt.Fprintf(tw, "records\t%d\n", s.Records)
	fmt.Fprintf(tw, "captures\t%d\n", s.Captures)
	fmt.Fprintf(tw, "bytes (gzip)\t%d (%.1f MB)\n", s.Bytes, float64(s.Bytes)/1e6)
	fmt.Fprintf(tw, "bytes (uncompressed)\t%d (%.1f MB)\n", s.UncompressedBytes, float64(s.UncompressedBytes)/1e6)
	secs := elapsed.Seconds()
	fmt.Fprintf(tw, "time\t%.1f s (%.1f MB/s compressed, %.0f article pages/s)\n", secs, float64(s.Bytes)/1e6/secs, float64(s.Pages)/secs)
	fmt.Fprintln(tw, "\nrecord type\trecords")
	for _, k := range s.RecordTypes {
		fmt.Fprintf(tw, "%s\t%d\n", k.Kind, k.Records)
	}
	fmt.Fprintln(tw, "\nkind\tURLs\trecords")
	for _, k := range s.Kinds {
		fmt.Fprintf(tw, "%s\t%d\t%d\n", k.Kind, k.URLs, k.Records)
	}
	fmt.Fprintln(tw, "\nevent\tstart\tend\tarticles (grade 2)\tmentions (grade 1)")
	for _, e := range s.Events {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\n", e.Slug, e.Start, e.End, e.Articles, e.Mentions)
	}
	fmt.Fprintln(tw, "\nfile\trecords\tbytes")
	for _, f := range s.Files {
		fmt.Fprintf(tw, "%s\t%d\t%d\n", f.Name, f.Records, f.Bytes)
	}
	tw.Flush()
}
