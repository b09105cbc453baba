package index

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recrawl/recrawl/internal/testkit/sharedtest"
)

// TestHelp: `recrawl index --help` exits 0 and prints the usage, then the
// index's own flags, then Beam's, none of them in the other group.
func TestHelp(t *testing.T) {
	out, err := exec.Command(indexCommand(t), "index", "--help").CombinedOutput()
	if err != nil {
		t.Errorf("recrawl index --help: %v", err)
	}
	help := string(out)
	own, beams, found := strings.Cut(help, "Beam's flags")
	if !found || !strings.HasPrefix(help, "usage: recrawl index --input FILES --output DIR") {
		t.Fatalf("recrawl index --help: want the usage, the index flags, then Beam's flags:\n%s", help)
	}
	for _, name := range []string{"-input ", "-output ", "-format ", "-shards ", "-dictionary\n", "-range_bytes "} {
		if !strings.Contains(own, "\n  "+name) || strings.Contains(beams, "\n  "+name) {
			t.Errorf("index --help does not list %q among the index flags only", name)
		}
	}
	for _, name := range []string{"-runner ", "-endpoint ", "-job_name "} {
		if strings.Contains(own, "\n  "+name) || !strings.Contains(beams, "\n  "+name) {
			t.Errorf("index --help does not list Beam's %q under Beam's flags only", name)
		}
	}
}

// TestLogLevel: `recrawl index` prints its own progress and summary, and
// the runner's log lines (prism's info lines, the SDK's "pipeline
// completed") only with --verbose.
func TestLogLevel(t *testing.T) {
	input := sharedtest.Path(t, "conformance/pywb/example.warc.gz")
	quiet := runIndexCommand(t, nil, "--input="+input, "--output="+filepath.Join(t.TempDir(), "quiet"))
	if !strings.Contains(quiet, "indexing 1 files into a cdxj index in ") || !strings.Contains(quiet, "indexed 3 captures from 1 files") {
		t.Errorf("no progress line or summary:\n%s", quiet)
	}
	if strings.Contains(quiet, "level=INFO") || strings.Contains(quiet, "pipeline completed") {
		t.Errorf("the runner's info lines without --verbose:\n%s", quiet)
	}
	verbose := runIndexCommand(t, nil, "--verbose", "--input="+input, "--output="+filepath.Join(t.TempDir(), "verbose"))
	if !strings.Contains(verbose, "level=DEBUG") || !strings.Contains(verbose, "level=INFO") {
		t.Errorf("--verbose: no runner log lines:\n%s", verbose)
	}
}
