// Command recrawl builds event-centric collections from web archives. It is
// one program with a subcommand per task, and the same program is the Beam
// worker on every runner:
//
//	recrawl index    WARC/ARC files → a CDXJ or ZipNum index (and document frequencies)   pipelines/index
//	recrawl extract  one extraction: spec + index + archive → the collection              pipelines/extract
//	recrawl explain  why one HTML page gets its score
//	recrawl eval     the paper's evaluation of finished runs
//	recrawl serve    eval's report, its documents replayed in ReplayWeb.page
//	recrawl files    list and copy local and gs:// files, for schedulers (dags/)         internal/filescmd
//	recrawl version  the module version, VCS revision, Go and Beam SDK versions
//
// # The Beam worker
//
// Outside LOOPBACK the runners start a linux/amd64 build of the submitting
// program as the SDK harness: Beam's boot program (PROCESS and DOCKER
// environments on Flink and Spark, and Dataflow's container) runs it with
// --worker=true --id=… --logging_endpoint=… --control_endpoint=… and no
// subcommand. recrawl sees --worker in a command line that starts with a
// flag, parses them with Beam's flags and calls beam.Init, which runs
// the harness and never returns. Every DoFn of both pipelines is registered
// in this one binary, so a worker runs the stages of either.
//
// # Flags
//
// Beam's flags (--runner, --endpoint, …) live on flag.CommandLine, where
// the Beam runners read them. A pipeline subcommand defines its own flags
// there beside Beam's before it parses its arguments (index.Main,
// extract.Main), and only its own: index and extract both define --output
// (the same meaning: the directory written) and --dictionary with two
// meanings (index: a switch that also writes df-LANG.tsv; extract: the
// dictionary file or directory to read), so each subcommand's flags are
// scoped to it and TestFlagNamesShared lists the names they share.
// --check (both) only checks the command line and exits: the run scripts
// (scripts/run-flink.sh, run-dataflow.sh) run it before anything else.
//
// Exit status: 0 on success and for --help, 1 when the subcommand fails
// (its error on one line), 2 for a wrong command line.
package main

import (
	"context"
	"os"

	"github.com/recrawl/recrawl/internal/recrawlcmd"
)

func main() {
	os.Exit(recrawlcmd.Run(context.Background(), os.Args[1:]))
}
