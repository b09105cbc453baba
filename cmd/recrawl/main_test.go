package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"

	"github.com/recrawl/recrawl/internal/testkit/extracttest"
)

// The tests run the programs as users do: recrawl, and the deprecated
// index and extract, built once per test process.
var programs struct {
	once sync.Once
	dir  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if programs.dir != "" {
		os.RemoveAll(programs.dir)
	}
	os.Exit(code)
}

// program returns the path of cmd/NAME, built on first use.
func program(t *testing.T, name string) string {
	t.Helper()
	programs.once.Do(func() {
		if programs.dir, programs.err = os.MkdirTemp("", "recrawl-cmd-"); programs.err != nil {
			return
		}
		for _, pkg := range []string{"./cmd/recrawl", "./cmd/index", "./cmd/extract"} {
			if _, programs.err = extracttest.BuildBinary(programs.dir, pkg); programs.err != nil {
				return
			}
		}
	})
	if programs.err != nil {
		t.Fatal(programs.err)
	}
	return filepath.Join(programs.dir, name)
}

type result struct {
	code           int
	stdout, stderr string
}

func (r result) String() string {
	return fmt.Sprintf("exit status %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
}

func run(t *testing.T, name string, args ...string) result {
	t.Helper()
	cmd := exec.Command(program(t, name), args...)
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return r
}

// beamVersion is the Beam SDK version this module builds with (the test
// binary links it through the pipelines).
func beamVersion(t *testing.T) string {
	t.Helper()
	bi, ok := debug.ReadBuildInfo()
	if ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/apache/beam/sdks/v2" {
				return d.Version
			}
		}
	}
	t.Fatal("the test binary does not link the Beam SDK")
	return ""
}

// TestVersion: `recrawl version` and `recrawl --version` print the module
// version, the VCS revision (a commit, -dirty with changes, or unknown for
// a build without VCS information), the commit time, Go's and Beam's
// versions.
func TestVersion(t *testing.T) {
	want := []*regexp.Regexp{
		regexp.MustCompile(`^recrawl (\(devel\)|v\S+)$`),
		regexp.MustCompile(`^module: github\.com/recrawl/recrawl$`),
		regexp.MustCompile(`^revision: ([0-9a-f]{40}(-dirty)?|unknown)$`),
		regexp.MustCompile(`^committed: (\d{4}-\d\d-\d\dT\S+|unknown)$`),
		regexp.MustCompile(`^go: ` + regexp.QuoteMeta(runtime.Version()) + `$`),
		regexp.MustCompile(`^beam: ` + regexp.QuoteMeta(beamVersion(t)) + `$`),
	}
	var first string
	for _, args := range [][]string{{"version"}, {"--version"}} {
		r := run(t, "recrawl", args...)
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("recrawl %s: %v", args[0], r)
		}
		lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
		if len(lines) != len(want) {
			t.Fatalf("recrawl %s printed %d lines, want %d:\n%s", args[0], len(lines), len(want), r.stdout)
		}
		for i, re := range want {
			if !re.MatchString(lines[i]) {
				t.Errorf("recrawl %s line %d %q does not match %s", args[0], i+1, lines[i], re)
			}
		}
		if first == "" {
			first = r.stdout
		} else if r.stdout != first {
			t.Errorf("recrawl --version differs from recrawl version:\n%s\n%s", r.stdout, first)
		}
	}
}

// TestHelp: the short usage lists every subcommand, and each subcommand's
// --help prints its usage and flags; all exit 0.
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		r := run(t, "recrawl", args...)
		if r.code != 0 || !strings.HasPrefix(r.stdout, "usage: recrawl COMMAND") {
			t.Errorf("recrawl %s: %v", args[0], r)
		}
		for _, sub := range []string{"index", "extract", "explain", "eval", "serve", "files", "version"} {
			if !strings.Contains(r.stdout, "\n  "+sub+" ") {
				t.Errorf("recrawl %s does not list %s:\n%s", args[0], sub, r.stdout)
			}
		}
	}
	for _, tc := range []struct {
		args []string
		want []string // in the help, in this order
	}{
		{[]string{"index", "--help"}, []string{"usage: recrawl index", "Flags:", "-input", "-verbose", "Beam's flags", "-runner"}},
		{[]string{"help", "index"}, []string{"usage: recrawl index", "Flags:", "-input"}},
		{[]string{"extract", "-h"}, []string{"usage: recrawl extract", "Flags:", "-spec", "-verbose", "Beam's flags", "-runner"}},
		{[]string{"explain", "--help"}, []string{"usage: recrawl explain", "Flags:", "-html"}},
		{[]string{"eval", "--help"}, []string{"usage: recrawl eval", "Flags:", "-runs"}},
		{[]string{"serve", "--help"}, []string{"usage: recrawl serve --report DIR", "Flags:", "-addr", "-report", "-viewer"}},
		{[]string{"files", "--help"}, []string{"usage: recrawl files list PATTERN...", "recrawl files copy SRC DEST"}},
		{[]string{"version", "--help"}, []string{"usage: recrawl version"}},
	} {
		r := run(t, "recrawl", tc.args...)
		name := strings.Join(tc.args, " ")
		if r.code != 0 || strings.Contains(r.stderr, "help requested") || strings.Contains(r.stderr, "failed") {
			t.Errorf("recrawl %s: %v", name, r)
			continue
		}
		at := 0
		for _, w := range tc.want {
			i := strings.Index(r.stderr[at:], w)
			if i < 0 {
				t.Errorf("recrawl %s: %q missing after byte %d:\n%s", name, w, at, r.stderr)
				break
			}
			at += i + len(w)
		}
	}
}

// TestWrongCommandLine: an unknown subcommand, a flag before any
// subcommand and no subcommand at all exit with status 2; the first two
// with one line.
func TestWrongCommandLine(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"indx", "--input=a.warc.gz"}, `recrawl: unknown command "indx": want one of index, extract, explain, eval, serve, files, version`},
		{[]string{"--input=a.warc.gz"}, "recrawl: --input=a.warc.gz before a command"},
		{[]string{"version", "extra"}, `recrawl version: unexpected argument "extra"`},
	} {
		r := run(t, "recrawl", tc.args...)
		lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
		if r.code != 2 || len(lines) != 1 || !strings.HasPrefix(lines[0], tc.want) || r.stdout != "" {
			t.Errorf("recrawl %s: want exit status 2 and one line %q…, got %v", strings.Join(tc.args, " "), tc.want, r)
		}
	}
	if r := run(t, "recrawl"); r.code != 2 || !strings.HasPrefix(r.stderr, "usage: recrawl COMMAND") {
		t.Errorf("recrawl without a command: want exit status 2 and the usage, got %v", r)
	}
}

// TestWorker: started as Beam's boot program starts a worker binary
// (--worker=true and the harness's flags, no subcommand), recrawl runs
// Beam's harness. Pipeline options that are not JSON make the harness
// exit at once with its own message, which shows that it ran.
func TestWorker(t *testing.T) {
	args := []string{"--worker=true", "--id=1", "--logging_endpoint=127.0.0.1:1", "--control_endpoint=127.0.0.1:1",
		"--semi_persist_dir=" + t.TempDir(), "--options={"}
	for _, name := range []string{"recrawl", "index", "extract"} {
		r := run(t, name, args...)
		if r.code != 1 || !strings.Contains(r.stderr, "Failed to parse pipeline options") || strings.Contains(r.stderr, "deprecated") {
			t.Errorf("%s as a worker: want Beam's harness to fail on --options, got %v", name, r)
		}
	}
	if r := run(t, "recrawl", "--worker=false"); r.code != 2 {
		t.Errorf("recrawl --worker=false: want exit status 2, got %v", r)
	}
}

// TestDeprecated: the old programs print one line naming the new command,
// then run it.
func TestDeprecated(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		line string
		then string
	}{
		{"index", []string{"--help"}, "index is deprecated; use: recrawl index …", "usage: recrawl index --input"},
		{"extract", []string{"--help"}, "extract is deprecated; use: recrawl extract …", "usage: recrawl extract --spec"},
		{"extract", []string{"help"}, "extract is deprecated; use: recrawl extract …", "usage: recrawl extract --spec"},
		{"extract", []string{"explain", "--help"}, "extract is deprecated; use: recrawl explain …", "usage: recrawl explain"},
		{"extract", []string{"serve", "--help"}, "extract is deprecated; use: recrawl serve …", "usage: recrawl serve"},
	} {
		r := run(t, tc.name, tc.args...)
		first, rest, _ := strings.Cut(r.stderr, "\n")
		if r.code != 0 || first != tc.line || !strings.HasPrefix(rest, tc.then) || strings.Contains(rest, "deprecated;") {
			t.Errorf("%s %s: want %q then %q…, got %v", tc.name, strings.Join(tc.args, " "), tc.line, tc.then, r)
		}
	}
	// A failure is recrawl's: its exit status and its one line.
	r := run(t, "index", "--input=/no/such/dir/*.warc.gz", "--output="+t.TempDir())
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	if r.code != 1 || len(lines) != 2 || !strings.HasPrefix(lines[1], "recrawl index: --input") {
		t.Errorf("index with a wrong --input: want the deprecation line and recrawl's error, got %v", r)
	}
}
