package index

import (
	"os/exec"
	"strings"
	"testing"
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
