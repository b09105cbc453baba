// Command extract builds an event-centric collection from a web archive:
// Algorithm 1 of Gossen et al. (TPDL 2017) run as Beam batch rounds, or one
// URL at a time by the sequential reference engine. It is `recrawl extract`,
// with the subcommands explain, eval and serve (`recrawl explain`,
// `recrawl eval`, `recrawl serve`).
//
//	recrawl extract --spec SPEC --index zipnum:INDEX_DIR --archive ARCHIVE_DIR --output OUT
//
// A run reads the Collection Specification (specs/), resolves its reference
// documents and seeds through the snapshot index, then repeats rounds until
// the collection reaches target_size, the frontier is empty or max_rounds is
// reached. The engines (internal/engine) run the rounds; the steps of a round
// and where each lives are in docs/architecture.md. This package reads the
// flags, prepares the job (run.go), names the archives (archives.go), picks
// an engine and writes the outputs of its run (outputs.go).
//
// State lives in --work (default OUT/.work): a killed run started again with
// the same command resumes from the last finished round; a finished run
// started again changes nothing.
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
		err = run(context.Background())
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
