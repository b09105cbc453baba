package replaytest

import (
	"context"
	"os"
	"testing"

	"github.com/recrawl/recrawl/internal/recrawlcmd"
)

// asRecrawlEnv set to 1 makes this test binary the recrawl command: it
// runs recrawlcmd.Run on its arguments (what cmd/recrawl's main does) and
// exits with its status. runRecrawl starts the test binary so, which
// spares the tests a build of cmd/recrawl.
const asRecrawlEnv = "RECRAWL_REPLAYTEST_AS_RECRAWL"

func TestMain(m *testing.M) {
	if os.Getenv(asRecrawlEnv) == "1" {
		os.Exit(recrawlcmd.Run(context.Background(), os.Args[1:]))
	}
	os.Exit(m.Run())
}
