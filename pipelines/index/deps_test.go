package index

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoDateLibrary: the index pipeline does not link go-htmldate and its
// date parser (the dictionary parses documents without their dates), nor
// the extraction's internal/extract. go-dateparser's tables cost 0.3 s of
// CPU and 95 MB at the start of every process that links it; recrawl links
// it through the extraction, so this keeps the index package free of it
// for programs and tests that link the index alone.
func TestNoDateLibrary(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.Contains(pkg, "go-dateparser") || strings.Contains(pkg, "go-htmldate") || strings.HasSuffix(pkg, "/internal/extract") {
			t.Errorf("the index pipeline links %s", pkg)
		}
	}
}
