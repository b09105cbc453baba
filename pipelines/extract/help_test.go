package extract

import (
	"errors"
	"os/exec"
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

// TestHelp: --help of each subcommand exits 0 and prints a short usage,
// then the subcommand's own flags, then the flags of the library (Beam's,
// or for eval those of the extractions it runs and Beam's); old flag
// spellings are not listed.
func TestHelp(t *testing.T) {
	fixture(t) // builds the binary
	for _, args := range [][]string{{"extract", "--help"}, {"help", "extract"}} {
		r := runRecrawl(t, args...)
		if r.err != nil {
			t.Errorf("recrawl %s: %v", strings.Join(args, " "), r)
		}
		help := r.stderr
		inOrder(t, "recrawl "+strings.Join(args, " "), help, "usage: recrawl extract --spec SPEC", "Flags:", "-archive", "-rounds_per_job", "-spec", "-verbose",
			"Beam's flags", "-endpoint", "-runner")
		own, beams, _ := strings.Cut(help, "Beam's flags")
		for _, name := range []string{"-runner ", "-endpoint ", "-job_name "} {
			if strings.Contains(own, "\n  "+name) {
				t.Errorf("recrawl %s lists Beam's %s among the extraction's flags", args[0], name)
			}
		}
		for _, name := range []string{"-spec ", "-target_size ", "-index "} {
			if strings.Contains(beams, "\n  "+name) {
				t.Errorf("recrawl %s lists %s among Beam's flags", args[0], name)
			}
		}
	}
	r := runRecrawl(t, "explain", "--help")
	if r.err != nil {
		t.Errorf("explain --help: %v", r)
	}
	inOrder(t, "explain --help", r.stderr, "usage: recrawl explain", "Flags:", "-capture_time", "-content_type", "-html")
	r = runRecrawl(t, "eval", "--help")
	if r.err != nil {
		t.Errorf("eval --help: %v", r)
	}
	inOrder(t, "eval --help", r.stderr, "usage: recrawl eval", "Flags:", "-fixed_half_life", "-runs", "-top_missing",
		"Flags of the extractions", "-archive", "-runner", "-target_size")
	for _, old := range []string{"capture-time", "fixed-half-life", "top-missing"} {
		if strings.Contains(r.stderr, old) {
			t.Errorf("help lists the old spelling %s:\n%s", old, r.stderr)
		}
	}
	r = runRecrawl(t, "serve", "--help")
	if r.err != nil || strings.Contains(r.stderr, "help requested") {
		t.Errorf("serve --help: %v", r)
	}
	inOrder(t, "serve --help", r.stderr, "usage: recrawl serve --report DIR", "Flags:", "-addr", "-report", "-viewer")
}

// TestWrongCommandLine: an unknown flag exits with status 2 after the
// flag package's message and the usage; an unknown subcommand exits 2 with
// one line.
func TestWrongCommandLine(t *testing.T) {
	fixture(t)
	for _, args := range [][]string{{"extract", "--no_such_flag"}, {"explain", "--no_such_flag"}, {"eval", "--no_such_flag"}, {"serve", "--no_such_flag"}, {"index", "--no_such_flag"}} {
		r := runRecrawl(t, args...)
		if code := exitCode(r.err); code != 2 || !strings.HasPrefix(r.stderr, "flag provided but not defined: -no_such_flag\nusage: recrawl "+args[0]) {
			t.Errorf("recrawl %s: exit status %d, want 2 and the usage:\n%s", strings.Join(args, " "), code, tail(r.stderr, 500))
		}
	}
	r := runRecrawl(t, "extrct", "--spec", "x")
	if code, lines := exitCode(r.err), strings.Split(strings.TrimSpace(r.stderr), "\n"); code != 2 || len(lines) != 1 ||
		!strings.Contains(lines[0], `unknown command "extrct"`) || r.stdout != "" {
		t.Errorf("an unknown subcommand: exit status %d, want 2 and one line:\n%s", code, r)
	}
}

// runRecrawl runs `recrawl ARGS` to the end.
func runRecrawl(t *testing.T, args ...string) result {
	t.Helper()
	cmd := recrawlCommand(t, nil, args...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return result{err: err, stdout: stdout.String(), stderr: stderr.String()}
}

// exitCode is the exit status of a finished command: 0 for nil, -1 if it
// did not exit.
func exitCode(err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	default:
		return -1
	}
}
