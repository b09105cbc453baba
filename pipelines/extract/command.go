// Package extract is the extraction pipeline: it builds an event-centric
// collection from a web archive, Algorithm 1 of Gossen et al. (TPDL 2017)
// run as Beam batch rounds, or one URL at a time by the sequential
// reference engine. recrawl runs it as four subcommands (Main, ExplainMain,
// EvalMain, ServeMain):
//
//	recrawl extract --spec SPEC --index zipnum:INDEX_DIR --archive ARCHIVE_DIR --output OUT
//	recrawl explain --spec SPEC --html FILE --url URL --capture_time 2009-09-27T12:00:00Z
//	recrawl eval --runs OUT_ctf,OUT_cf,OUT_tf,OUT_unfocused --labels FILE --report DIR
//	recrawl serve --report DIR
//
// A run reads the Collection Specification (specs/), resolves its reference
// documents and seeds through the snapshot index, then repeats rounds until
// the collection reaches target_size, the frontier is empty or max_rounds is
// reached. The engines (pipelines/extract/engine) run the rounds; the steps of a round
// and where each lives are in docs/architecture.md. This package reads the
// flags, prepares the job (run.go), names the archives (archives.go), picks
// an engine and writes the outputs of its run (outputs.go). A run prints its
// own progress lines; the runner's log lines show with --verbose.
//
// State lives in --work (default OUT/.work): a killed run started again with
// the same command resumes from the last finished round; a finished run
// started again changes nothing.
package extract

import (
	"context"
	"flag"
	"os"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/recrawl/recrawl/internal/cli"
	"github.com/recrawl/recrawl/internal/replay"
)

var verbose = productFlags.Bool("verbose", false, cli.VerboseUsage)

// Usage is the synopsis of the extraction; `recrawl extract --help` prints
// it above the flags.
const Usage = `usage: recrawl extract --spec SPEC --index [NAME=]KIND:LOCATION --archive [NAME=]DIR[,DIR…] --output OUT [flags]
       (repeat --index NAME=… and --archive NAME=… to read several archives at once)
       related: recrawl explain (one page's score), recrawl eval (the paper's evaluation), recrawl serve (its report)`

// Flags returns the extraction's own flags (not Beam's).
func Flags() *flag.FlagSet { return productFlags }

// Main runs `recrawl extract ARGS`: it defines the extraction's flags on
// flag.CommandLine beside Beam's, parses args there, initializes Beam and
// runs one extraction. It returns flag.ErrHelp after printing the help, and
// an error wrapping cli.ErrUsage for a wrong command line. Call it once
// per process: Beam's flags and beam.Init are global.
func Main(ctx context.Context, args []string) error {
	stop, err := cli.StartPipeline(args, Usage, productFlags, verbose)
	if err != nil {
		return err
	}
	defer stop()
	return run(ctx)
}

// ExplainMain runs `recrawl explain ARGS`: why one HTML page gets its score,
// printed as JSON on standard output.
func ExplainMain(ctx context.Context, args []string) error {
	beam.Init()
	return explainCommand(ctx, args, os.Stdout)
}

// EvalMain runs `recrawl eval ARGS`: the paper's evaluation of finished runs,
// re-running extractions for Table 3 and --options.
func EvalMain(ctx context.Context, args []string) error {
	beam.Init()
	return evalCommand(ctx, args)
}

// ServeMain runs `recrawl serve ARGS`: the evaluation's report, with its
// documents replayable in ReplayWeb.page, until interrupted.
func ServeMain(ctx context.Context, args []string) error {
	return replay.Command(ctx, args, os.Stdout)
}
