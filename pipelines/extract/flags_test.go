package extract

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/recrawl/recrawl/internal/extract/roundstate"
)

// TestBadFlagValues runs recrawl extract, explain, eval and index with one wrong flag
// value each (a negative size, an unknown name, a missing or unreadable
// path, an output that is a file, flags that exclude each other, a stray
// argument): each fails before anything runs, with exactly one line on
// stderr that names the flag, nothing on stdout, and no round started.
func TestBadFlagValues(t *testing.T) {
	a := fixture(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing")
	out := filepath.Join(dir, "out")
	// run is an extraction's command line with extra flags; an extra
	// --index or --archive replaces the good one.
	run := func(extra ...string) []string {
		args := []string{"--spec", a.Spec(testEvent), "--output", out, "--quiet"}
		for _, f := range []string{"--index=" + a.IndexSpec(), "--archive=" + a.WARCDir} {
			name, _, _ := strings.Cut(f, "=")
			if !slices.ContainsFunc(extra, func(e string) bool { return strings.HasPrefix(e, name+"=") }) {
				args = append(args, f)
			}
		}
		return append(args, extra...)
	}
	explain := func(extra ...string) []string {
		return append([]string{"explain", "--spec", a.Spec(testEvent), "--html", file, "--url", "http://a.example/", "--capture_time", "20090927120000"}, extra...)
	}
	index := func(extra ...string) []string {
		return append([]string{"--input", a.WARCs[0], "--output", filepath.Join(dir, "index-out")}, extra...)
	}
	cases := []struct {
		index bool // recrawl index
		args  []string
		want  string // in the one line
	}{
		{false, run("--target_size=-1"), "--target_size=-1"},
		{false, run("--batch_size=-3"), "--batch_size=-3"},
		{false, run("--batch_size=100000000"), "--batch_size=100000000"},
		{false, run("--alpha=2"), "--alpha=2"},
		{false, run("--max_rounds=-5"), "--max_rounds=-5"},
		{false, run("--rounds_per_job=0"), "--rounds_per_job=0"},
		{false, run("--engine=fast"), `--engine="fast"`},
		{false, run("--join=hash"), `--join="hash"`},
		{false, run("--strategy=best"), "--strategy=best"},
		{false, run("--focus=sharp"), "--focus=sharp"},
		{false, run("--on_missing_archive_file=ignore"), `--on_missing_archive_file="ignore"`},
		{false, run("--engine=sequential", "--rounds_per_job=3"), "--rounds_per_job=3: only with --engine=beam"},
		{false, run("--dictionary=" + missing), "--dictionary=" + missing + ": no such file"},
		{false, run("--spec_root=" + missing), "--spec_root=" + missing + ": no such directory"},
		{false, run("--spec_root=" + file), "--spec_root=" + file + ": a file"},
		{false, run("--work=" + file), "--work=" + file + ": a file"},
		{false, run("--output=" + file), "--output=" + file + ": a file"},
		{false, run("--output=" + filepath.Join(file, "sub")), "--output=" + filepath.Join(file, "sub") + ": " + file + " is a file"},
		{false, run("--index=cdxj:" + missing), "--index: index \"cdxj:" + missing + "\""},
		{false, run("--index=cdxj:" + dir), "is a directory"},
		{false, run("--index=sqlite:" + file), `--index: index "sqlite:`},
		{false, run("--archive=" + missing), "--archive=" + missing + ": no such directory"},
		{false, run("--archive=" + file), "--archive=" + file + ": a file"},
		{false, run("--spec=" + missing), "--spec=" + missing + ": no such file"},
		{false, run("--spec=" + dir), "--spec=" + dir + ": a directory"},
		{false, run("--runner=bogus"), `--runner="bogus"`},
		{false, run("stray"), `unexpected argument "stray"`},
		{false, explain("--html=" + missing), "--html=" + missing + ": no such file"},
		{false, explain("--terms=-1"), "--terms=-1"},
		{false, explain("--spec_root=" + missing), "--spec_root=" + missing},
		{false, explain("--archive="+missing, "--index="+a.IndexSpec()), "--archive=" + missing},
		{false, explain("stray"), `unexpected argument "stray"`},
		{false, []string{"eval", "--runs", dir, "--report", filepath.Join(dir, "report"), "--engine=fast"}, `--engine="fast"`},
		{true, index("--shards=-1"), "--shards=-1"},
		{true, index("--index_parallelism=-2"), "--index_parallelism=-2"},
		{true, index("--lines_per_block=0", "--format=zipnum"), "--lines_per_block=0"},
		{true, index("--format=parquet"), `--format="parquet"`},
		{true, index("--dictionary_sample=0.5"), "--dictionary_sample: only with --dictionary"},
		{true, index("--dictionary", "--dictionary_sample=2"), "--dictionary_sample=2"},
		{true, index("--dictionary", "--default_language=xx"), `--default_language="xx"`},
		{true, index("--bigtable=project-only"), `--bigtable="project-only"`},
		{true, index("--runner=bogus"), `--runner="bogus"`},
		{true, index("stray"), `unexpected argument "stray"`},
		{true, []string{"--input", missing, "--output", filepath.Join(dir, "index-out")}, "--input"},
		{true, []string{"--input", a.WARCs[0], "--output", file}, "--output=" + file + ": a file"},
		{true, []string{"--input", a.WARCs[0], "--output", filepath.Join(file, "sub")}, "--output=" + filepath.Join(file, "sub")},
	}
	for _, c := range cases {
		runs := [][]string{c.args}
		// --check refuses the same command lines with the same line; it
		// does not expand --input (a gs:// pattern needs the workers'
		// credentials), so it cannot see that --input matches nothing.
		if c.args[0] != "explain" && !(c.index && c.want == "--input") {
			runs = append(runs, append(slices.Clone(c.args), "--check"))
		}
		for _, args := range runs {
			cmd := command(t, nil, args...)
			if c.index {
				cmd = indexCommand(t, nil, args...)
			}
			wantOneLine(t, cmd, shortArgs(args), c.want)
			if _, err := os.Stat(roundstate.StateDir(filepath.Join(out, ".work"), 0)); err == nil {
				t.Fatalf("%s: the run got as far as its first state", shortArgs(args))
			}
		}
	}
}

// wantOneLine runs cmd and checks that it fails with one line on stderr
// that holds want, and prints nothing on stdout.
func wantOneLine(t *testing.T, cmd *exec.Cmd, name, want string) {
	t.Helper()
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	// The log quotes the error: \" in it is a quote.
	lines := strings.Split(strings.ReplaceAll(strings.TrimSpace(stderr.String()), `\"`, `"`), "\n")
	switch {
	case err == nil:
		t.Errorf("%s: accepted; want an error naming %q", name, want)
	case len(lines) != 1 || !strings.Contains(lines[0], want):
		t.Errorf("%s: stderr\n%s\nwant one line with %q", name, tail(stderr.String(), 2000), want)
	case stdout.Len() > 0:
		t.Errorf("%s: printed on stdout:\n%s", name, tail(stdout.String(), 1000))
	}
}

// TestCheckFlags: recrawl extract, index and eval --check accept a good
// command line silently and create nothing; for a runner whose
// workers cannot see this machine's files they refuse a local path, as the
// run does, naming the flag.
func TestCheckFlags(t *testing.T) {
	a := fixture(t)
	dir := t.TempDir()
	out, indexOut := filepath.Join(dir, "out"), filepath.Join(dir, "index")
	extractArgs := []string{"--check", "--spec", a.Spec(testEvent), "--index=" + a.IndexSpec(), "--archive=" + a.WARCDir, "--output", out}
	indexArgs := []string{"--check", "--input", a.WARCs[0], "--output", indexOut, "--format=zipnum", "--dictionary"}
	report := filepath.Join(dir, "report")
	eval := []string{"eval", "--check", "--runs", a.WARCDir, "--report", report}
	for _, cmd := range []*exec.Cmd{command(t, nil, extractArgs...), indexCommand(t, nil, indexArgs...), command(t, nil, eval...)} {
		if got, err := cmd.CombinedOutput(); err != nil || len(got) > 0 {
			t.Errorf("%s: %v, output %q; want exit status 0 and no output", shortArgs(cmd.Args[1:]), err, got)
		}
	}
	for _, p := range []string{out, indexOut, report} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("--check created %s", p)
		}
	}
	flink := []string{"--runner=flink", "--endpoint=localhost:1", "--environment_type=PROCESS", `--environment_config={"command": "/boot"}`}
	wantOneLine(t, command(t, nil, append(slices.Clone(extractArgs), flink...)...), "extract --check on flink",
		"--archive="+a.WARCDir+" is a local path")
	wantOneLine(t, indexCommand(t, nil, append(slices.Clone(indexArgs), flink...)...), "index --check on flink",
		"--input="+a.WARCs[0]+" is a local path")
}
