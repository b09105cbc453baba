// Package recrawlcmd is the recrawl command (cmd/recrawl): its subcommands,
// the Beam worker it also is, and its exit statuses. It is a package so
// that the deprecated programs cmd/index and cmd/extract run the same code.
// See cmd/recrawl for the subcommands and the worker.
package recrawlcmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/recrawl/recrawl/internal/buildinfo"
	"github.com/recrawl/recrawl/internal/cli"
	"github.com/recrawl/recrawl/internal/filescmd"
	"github.com/recrawl/recrawl/pipelines/extract"
	"github.com/recrawl/recrawl/pipelines/index"
)

// subcommand is one task of recrawl.
type subcommand struct {
	name, summary string
	run           func(ctx context.Context, args []string) error
}

var subcommands = []subcommand{
	{"index", "index WARC/ARC files into a CDXJ or ZipNum index (and document frequencies)", index.Main},
	{"extract", "extract an event-centric collection: spec + index + archive → collection", extract.Main},
	{"explain", "explain why one HTML page gets its score (JSON)", extract.ExplainMain},
	{"eval", "evaluate finished runs as the paper does (report.html)", extract.EvalMain},
	{"serve", "serve eval's report, its documents replayed in ReplayWeb.page", extract.ServeMain},
	{"files", "list and copy local and gs:// files, for schedulers (the Airflow DAG)", filescmd.Main},
	{"version", "print the module version, VCS revision, Go and Beam SDK versions", versionMain},
}

// usage is what `recrawl --help` prints.
func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: recrawl COMMAND [flags]")
	fmt.Fprintln(w, "\nCommands:")
	for _, c := range subcommands {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\n`recrawl COMMAND --help` prints a command's flags (Beam's runner options after its own).")
}

// Run runs the recrawl command line args (without the program name) and
// returns the exit status: 0 on success and for --help, 1 when the
// subcommand fails (its error printed on one line), 2 for a wrong command
// line. Started as a Beam worker it does not return.
func Run(ctx context.Context, args []string) int {
	flag.CommandLine.Init("recrawl", flag.ContinueOnError)
	if isWorker(args) {
		return worker(args)
	}
	if len(args) == 0 {
		usage(os.Stderr)
		return 2
	}
	name, rest := args[0], args[1:]
	switch name {
	case "-h", "-help", "--help":
		usage(os.Stdout)
		return 0
	case "help":
		if len(rest) == 0 {
			usage(os.Stdout)
			return 0
		}
		name, rest = rest[0], []string{"--help"}
	case "-version", "--version":
		name = "version"
	}
	for _, c := range subcommands {
		if c.name == name {
			flag.CommandLine.Init("recrawl "+name, flag.ContinueOnError)
			// Ctrl+C or SIGTERM ends the command through its context: a
			// pipeline cancels its running job on the runner (a cluster's
			// job server too) and keeps the state of finished rounds;
			// serve stops serving.
			ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
			defer stop()
			return status(name, c.run(ctx, rest))
		}
	}
	if strings.HasPrefix(name, "-") {
		fmt.Fprintf(os.Stderr, "recrawl: %s before a command: want recrawl COMMAND [flags] (recrawl --help lists the commands)\n", name)
	} else {
		fmt.Fprintf(os.Stderr, "recrawl: unknown command %q: want one of %s (recrawl --help)\n", name, names())
	}
	return 2
}

// status prints a subcommand's error and returns the exit status for it.
func status(name string, err error) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, cli.ErrUsage): // printed by the flag package, with the usage
		return 2
	default:
		fmt.Fprintf(os.Stderr, "recrawl %s: %v\n", name, err)
		return 1
	}
}

func names() string {
	var n []string
	for _, c := range subcommands {
		n = append(n, c.name)
	}
	return strings.Join(n, ", ")
}

// isWorker reports whether recrawl was started as a Beam worker: --worker
// among the flags before any subcommand.
func isWorker(args []string) bool {
	if len(args) == 0 || !strings.HasPrefix(args[0], "-") {
		return false // a subcommand
	}
	for _, a := range args {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if name == "worker" {
			return true
		}
	}
	return false
}

// worker runs the Beam SDK harness: beam.Init, after Beam's flags are
// parsed, hijacks the process and does not return while --worker is true.
func worker(args []string) int {
	if err := flag.CommandLine.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	beam.Init()
	fmt.Fprintln(os.Stderr, "recrawl: --worker=false: want a command (recrawl --help)")
	return 2
}

// versionMain runs `recrawl version`: the build, one "name: value" line
// each (internal/buildinfo), as run.json records it.
func versionMain(_ context.Context, args []string) error {
	fs := flag.NewFlagSet("recrawl version", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: recrawl version\n(prints the module version, VCS revision, commit time, Go and Beam SDK versions)")
	}
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "recrawl version: unexpected argument %q\n", fs.Arg(0))
		return cli.ErrUsage
	}
	return buildinfo.Read().Write(os.Stdout)
}
