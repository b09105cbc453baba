package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestHelp: `index --help` prints the usage, then the index command's own
// flags, then Beam's, none of them in the other group.
func TestHelp(t *testing.T) {
	out, _ := exec.Command(indexCommand(t), "--help").CombinedOutput()
	help := string(out)
	own, beams, found := strings.Cut(help, "Beam's flags")
	if !found || !strings.HasPrefix(help, "usage: index --input FILES --output DIR") {
		t.Fatalf("index --help: want the usage, the index flags, then Beam's flags:\n%s", help)
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
