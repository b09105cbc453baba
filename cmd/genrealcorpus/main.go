// Command genrealcorpus writes a benchmark corpus of gzipped WARC files whose
// captures are real web pages (see package internal/corpus/realcorpus): the index
// benchmarks' corpus of record size like a real archive's, beside
// cmd/genarchive's small generated pages.
//
//	go run ./cmd/genrealcorpus --out DIR [--pages ../shared/conformance/dates] [--files 4] [--file_bytes 250MB] [--seed 1]
package main

import (
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/recrawl/recrawl/internal/cli"
	"github.com/recrawl/recrawl/internal/corpus/realcorpus"
)

func main() {
	var (
		cfg       realcorpus.Config
		fileBytes = cli.ByteSize(250e6)
	)
	flag.StringVar(&cfg.OutDir, "out", "", "output directory (required)")
	flag.StringVar(&cfg.Pages, "pages", defaultPages(), "directory with labels.tsv (url, file) and the gzipped pages in pages/")
	flag.IntVar(&cfg.Files, "files", 4, "number of WARC files")
	flag.Var(&fileBytes, "file_bytes", "size each file is written to (e.g. 250MB, 1GB)")
	flag.Uint64Var(&cfg.Seed, "seed", 1, "random seed; the same seed, pages and sizes give byte-identical files")
	flag.StringVar(&cfg.Prefix, "prefix", "REAL", "WARC file name prefix")
	cli.Alias(flag.CommandLine, "file-bytes", "file_bytes")
	flag.Usage = func() {
		cli.Print(flag.CommandLine.Output(), "usage: genrealcorpus --out DIR [flags]", flag.CommandLine, nil, "")
	}
	flag.Parse()
	if cfg.OutDir == "" || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	cfg.FileBytes = int64(fileBytes)
	begin := time.Now()
	sums, err := realcorpus.Write(cfg)
	if err != nil {
		slog.Error("write corpus", "err", err)
		os.Exit(1)
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "file\tcaptures\trecords\tbytes")
	var c, r, b int64
	for _, s := range sums {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\n", s.Name, s.Captures, s.Records, s.Bytes)
		c, r, b = c+s.Captures, r+s.Records, b+s.Bytes
	}
	fmt.Fprintf(tw, "total\t%d\t%d\t%d (%.0f captures per GB, %.1f s)\n", c, r, b, float64(c)/(float64(b)/1e9), time.Since(begin).Seconds())
	tw.Flush()
}

// defaultPages is $RECRAWL_SHARED/conformance/dates, or ../shared/conformance/dates.
func defaultPages() string {
	root := os.Getenv("RECRAWL_SHARED")
	if root == "" {
		root = filepath.Join("..", "shared")
	}
	return filepath.Join(root, "conformance", "dates")
}
