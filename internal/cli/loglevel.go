package cli

import (
	"flag"
	"log/slog"
	"os"
)

// VerboseUsage is the help text of the --verbose flag every pipeline
// subcommand defines.
const VerboseUsage = "log at debug level, including the runner's own messages (prism's, the SDK's)"

// SetLogLevel sets the default logger of a pipeline subcommand: warnings and
// errors only (prism and the SDK log several info lines per job, and a run
// can be many jobs; the subcommands print their own progress lines), debug
// with verbose, and info with Beam's --dry_run set in fs, where Beam prints
// the translated Dataflow job at info level.
func SetLogLevel(fs *flag.FlagSet, verbose bool) {
	level := slog.LevelWarn
	if f := fs.Lookup("dry_run"); f != nil && f.Value.String() == "true" {
		level = slog.LevelInfo
	}
	if verbose {
		level = slog.LevelDebug
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})))
}
