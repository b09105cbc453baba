// Command extract is deprecated: it is `recrawl extract` (and `extract
// explain|eval|serve` are `recrawl explain|eval|serve`, cmd/recrawl), kept
// for one release so that scripts written for it keep running. It prints
// one line naming the new command on stderr, then runs it.
package main

import (
	"context"
	"os"

	"github.com/recrawl/recrawl/internal/recrawlcmd"
)

func main() {
	os.Exit(recrawlcmd.RunDeprecated(context.Background(), os.Stderr, "extract", os.Args[1:]))
}
