package main

import (
	"strings"
	"testing"
)

// inOrder fails unless every string of want occurs in s, each after the one
// before it.
func inOrder(t *testing.T, what, s string, want ...string) {
	t.Helper()
	at := 0
	for _, w := range want {
		i := strings.Index(s[at:], w)
		if i < 0 {
			t.Errorf("%s: %q missing after byte %d:\n%s", what, w, at, s)
			return
		}
		at += i + len(w)
	}
}

// TestHelp: --help of each command prints a short usage, then the command's
// own flags, then the flags of the library (Beam's, or for eval those of the
// extractions it runs and Beam's); old flag spellings are not listed.
func TestHelp(t *testing.T) {
	fixture(t) // builds the binary
	for _, args := range [][]string{{"--help"}, {"help"}} {
		r := runBin(t, nil, args...)
		help := r.stderr
		inOrder(t, "extract "+args[0], help, "usage: extract [run] --spec SPEC", "Flags:", "-archive", "-rounds_per_job", "-spec", "-verbose",
			"Beam's flags", "-endpoint", "-runner")
		own, beams, _ := strings.Cut(help, "Beam's flags")
		for _, name := range []string{"-runner ", "-endpoint ", "-job_name "} {
			if strings.Contains(own, "\n  "+name) {
				t.Errorf("extract %s lists Beam's %s among the extraction's flags", args[0], name)
			}
		}
		for _, name := range []string{"-spec ", "-target_size ", "-index "} {
			if strings.Contains(beams, "\n  "+name) {
				t.Errorf("extract %s lists %s among Beam's flags", args[0], name)
			}
		}
	}
	r := runBin(t, nil, "explain", "--help")
	if r.err != nil {
		t.Errorf("explain --help: %v", r)
	}
	inOrder(t, "explain --help", r.stderr, "usage: extract explain", "Flags:", "-capture_time", "-content_type", "-html")
	r = runBin(t, nil, "eval", "--help")
	if r.err != nil {
		t.Errorf("eval --help: %v", r)
	}
	inOrder(t, "eval --help", r.stderr, "usage: extract eval", "Flags:", "-fixed_half_life", "-runs", "-top_missing",
		"Flags of the extractions", "-archive", "-runner", "-target_size")
	for _, h := range []string{r.stderr} {
		for _, old := range []string{"capture-time", "fixed-half-life", "top-missing"} {
			if strings.Contains(h, old) {
				t.Errorf("help lists the old spelling %s:\n%s", old, h)
			}
		}
	}
}
