package recrawlcmd

import (
	"context"
	"fmt"
	"io"
)

// RunDeprecated runs a command line of one of the two programs recrawl
// replaces, kept for one release as cmd/index and cmd/extract: it prints one
// line naming the new command on stderr ("index is deprecated; use: recrawl
// index …"), then runs it in this process and returns its exit status. A
// Beam worker start (--worker) runs the worker, without the line.
func RunDeprecated(ctx context.Context, stderr io.Writer, old string, args []string) int {
	if isWorker(args) {
		return Run(ctx, args)
	}
	var recrawlArgs []string
	switch old {
	case "index":
		recrawlArgs = append([]string{"index"}, args...)
	case "extract":
		recrawlArgs = extractArgs(args)
	default:
		panic("recrawlcmd: no deprecated program " + old)
	}
	fmt.Fprintf(stderr, "%s is deprecated; use: recrawl %s …\n", old, recrawlArgs[0])
	return Run(ctx, recrawlArgs)
}

// extractArgs maps a command line of the old extract program to recrawl's:
// `extract [run] FLAGS` is `recrawl extract FLAGS`, `extract
// explain|eval|serve ARGS` is `recrawl explain|eval|serve ARGS`, and
// `extract help` is `recrawl extract --help`.
func extractArgs(args []string) []string {
	if len(args) == 0 {
		return []string{"extract"}
	}
	switch args[0] {
	case "explain", "eval", "serve":
		return args
	case "run":
		return append([]string{"extract"}, args[1:]...)
	case "help":
		return []string{"extract", "--help"}
	default:
		return append([]string{"extract"}, args...)
	}
}
