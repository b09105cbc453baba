package cli

import (
	"errors"
	"flag"
	"fmt"
)

// ErrUsage is wrapped by the error of a wrong command line (an unknown flag,
// a value that does not parse): the flag package has printed it with the
// usage already, and the command exits with status 2.
var ErrUsage = errors.New("wrong command line")

// Parse parses args with fs. A request for help (-h, --help) prints the
// usage and returns flag.ErrHelp, which the command treats as success; any
// other parse error is returned wrapping ErrUsage. fs should use
// flag.ContinueOnError: with ExitOnError the flag package exits itself.
func Parse(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		return flag.ErrHelp
	default:
		return fmt.Errorf("%w: %v", ErrUsage, err)
	}
}

// ParsePipeline parses the command line args of a pipeline subcommand
// (recrawl index, recrawl extract) on flag.CommandLine, where Beam's flags
// are: it defines the subcommand's own flags there too, and its help
// prints usage, its own flags, then Beam's. Errors as Parse.
func ParsePipeline(own *flag.FlagSet, usage string, args []string) error {
	Own(flag.CommandLine, own)
	flag.CommandLine.Usage = func() {
		Print(flag.CommandLine.Output(), usage, own, flag.CommandLine, "Beam's flags (runner and pipeline options):")
	}
	return Parse(flag.CommandLine, args)
}
