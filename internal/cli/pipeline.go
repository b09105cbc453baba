package cli

import (
	"flag"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
)

// StartPipeline starts a pipeline subcommand (`recrawl index`, `recrawl
// extract`): own's flags join Beam's on flag.CommandLine, args are parsed
// there (--help prints usage, own's flags, then Beam's), Beam is
// initialized, the log level follows verbose and the profiles the
// environment asks for start. It returns the function that stops the
// profiles; the error is flag.ErrHelp after the help, or wraps ErrUsage
// for a wrong command line. Call it once per process: Beam's flags and
// beam.Init are global.
func StartPipeline(args []string, usage string, own *flag.FlagSet, verbose *bool) (stop func(), err error) {
	if err := ParsePipeline(own, usage, args); err != nil {
		return nil, err
	}
	beam.Init()
	SetLogLevel(flag.CommandLine, *verbose)
	return StartProfiling(), nil
}
