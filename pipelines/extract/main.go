// Command extract builds an event-centric collection from a web archive:
// Algorithm 1 of Gossen et al. (TPDL 2017) run as Beam batch rounds, or one
// URL at a time by the sequential reference engine.
//
//	go run ./pipelines/extract --spec SPEC --index zipnum:INDEX_DIR --archive ARCHIVE_DIR --output OUT
//	go run ./pipelines/extract --spec SPEC --index national=zipnum:IDX --archive national=DIR --index special=cdxj:FILE --archive special=DIR --output OUT
//	go run ./pipelines/extract explain --spec SPEC --html FILE --url URL --capture_time 2009-09-27T12:00:00Z
//	go run ./pipelines/extract eval --runs OUT_ctf,OUT_cf,OUT_tf,OUT_unfocused --labels FILE --report DIR
//	go run ./pipelines/extract serve --report DIR   (report.html's documents open in ReplayWeb.page)
//
// A run reads the Collection Specification (specs/), resolves its reference
// documents and seeds through the snapshot index, then repeats rounds until
// the collection reaches target_size, the frontier is empty or max_rounds is
// reached. The engines (internal/engine) run the rounds; each round of the
// Beam engine is a pipeline of transforms/round's composites:
//
//	SelectBatch       the K best frontier URLs (heap combiner)
//	ResolveSnapshots  their captures: batched index look-ups, or a CoGroupByKey
//	                  join of the batch with the whole index (--join=cogroup)
//	SelectSnapshot    the usable capture closest to the event
//	FetchRecord       the record at its offset (ranged reads on gs://)
//	Score             main text, outlinks, document time → TopicR, TempR, TTR
//	MergeFrontier     unseen outlinks enter with the parent's relevance
//
// The logic of every step is plain Go in internal/extract (reading and
// copying archive records: internal/archive), shared with the sequential
// engine (--engine=sequential), which is the oracle the Beam engine is
// tested against. This package reads the flags, prepares the job (run.go),
// picks an engine and writes the outputs of its run.
//
// Outputs in OUT: documents.jsonl, missing.jsonl, links.tsv, rounds.jsonl,
// run.json, collection.warc.gz and collection.cdxj. State lives in --work
// (default OUT/.work): a killed run started again with the same command
// resumes from the last finished round; a finished run started again
// changes nothing (work/FINISHED).
//
// Several archives are read at once by naming them (archives.go): captures
// of a URL from all of them compete in snapshot selection, and every
// document records the archive it came from.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/recrawl/recrawl/internal/cliflags"
	"github.com/recrawl/recrawl/internal/profiling"
	"github.com/recrawl/recrawl/internal/replay"
)

var verbose = productFlags.Bool("verbose", false, "log at debug level, including the runner's own messages")

// usage is the synopsis of the commands; `extract --help` prints it above
// the flags.
const usage = `usage: extract [run] --spec SPEC --index [NAME=]KIND:LOCATION --archive [NAME=]DIR[,DIR…] --output OUT [flags]
       (repeat --index NAME=… and --archive NAME=… to read several archives at once)
       extract explain --spec SPEC --html FILE --url URL --capture_time TIME   (extract explain --help)
       extract eval --runs OUT_A,OUT_B,… --report DIR [flags]                 (extract eval --help)
       extract serve --report DIR [--addr 127.0.0.1:8090] [--viewer DIR]`

// printHelp prints the usage, the extraction's flags, then Beam's.
func printHelp() {
	cliflags.Print(flag.CommandLine.Output(), usage, productFlags, flag.CommandLine, "Beam's flags (runner and pipeline options):")
}

func main() {
	// The extraction's flags join Beam's on the command line (after every
	// package's init has defined its own).
	cliflags.Own(flag.CommandLine, productFlags)
	flag.CommandLine.Usage = printHelp
	cmd, args := "run", os.Args[1:]
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	var err error
	switch cmd {
	case "run":
		flag.CommandLine.Parse(args)
		beam.Init()
		setLogLevel()
		stop := profiling.Start()
		// Ctrl+C or SIGTERM cancels the running job on its runner (a
		// cluster's job server too) and keeps the state of the round.
		ctx, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err = run(ctx)
		stopSignals()
		stop()
	case "explain":
		beam.Init()
		err = explainCommand(context.Background(), args, os.Stdout)
	case "eval":
		beam.Init()
		err = evalCommand(context.Background(), args)
	case "serve":
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err = replay.Command(ctx, args, os.Stdout)
		stop()
	case "help":
		printHelp()
		return
	default:
		err = fmt.Errorf("unknown command %q: want run (the default), explain, eval, serve or help", cmd)
	}
	if err != nil {
		slog.Error("extract failed", "command", cmd, "err", err)
		os.Exit(1)
	}
}

// setLogLevel keeps the log to warnings and errors (prism logs several
// lines per job, and a run is many jobs) unless --verbose, or --dry_run
// (one job, which Beam prints at info level); progress lines are printed on
// their own.
func setLogLevel() {
	level := slog.LevelWarn
	if f := flag.Lookup("dry_run"); f != nil && f.Value.String() == "true" {
		level = slog.LevelInfo // Beam prints the translated Dataflow job at info level
	}
	if *verbose {
		level = slog.LevelDebug
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})))
}
