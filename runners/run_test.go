package runners

import (
	"context"
	"debug/elf"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
)

func TestMain(m *testing.M) {
	flag.Parse()
	beam.Init()
	code := m.Run()
	if recrawlBuild.dir != "" {
		os.RemoveAll(recrawlBuild.dir)
	}
	os.Exit(code)
}

func smallPipeline() *beam.Pipeline {
	p, s := beam.NewPipelineWithRoot()
	passert.Equals(s, beam.CreateList(s, []int{1, 2, 3}), 1, 2, 3)
	return p
}

func loopbackFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, LoopbackFilePattern))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestRunLeavesNoLoopbackFiles runs rounds on in-process prism and checks
// that none of them leaves a beamloopbackworker-* file in the temporary
// directory, where plain beam.Run leaves one per job.
func TestRunLeavesNoLoopbackFiles(t *testing.T) {
	setFlags(t, "runner", "", "endpoint", "", "environment_type", "")
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	ctx := context.Background()

	// The control: Beam's own behaviour, which Run works around. If this
	// fails, Beam stopped leaving the file and the workaround can go.
	if _, err := beam.Run(ctx, "prism", smallPipeline()); err != nil {
		t.Fatal(err)
	}
	leftover := loopbackFiles(t, tmp)
	if len(leftover) != 1 {
		t.Fatalf("plain beam.Run on prism left %d %s files in TMPDIR, want 1 (Beam's known leak)", len(leftover), LoopbackFilePattern)
	}
	os.Remove(leftover[0])

	var c Config
	for round := range 3 {
		if _, err := c.Run(ctx, smallPipeline()); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
	}
	if got := os.Getenv("TMPDIR"); got != tmp {
		t.Errorf("TMPDIR after Run = %q, want it restored to %q", got, tmp)
	}
	entries, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("Run left %s in the temporary directory", e.Name())
	}
}

// TestRunFailsCleanly checks that a failing pipeline's error comes back
// wrapped with the runner name and still leaves nothing behind.
func TestRunFailsCleanly(t *testing.T) {
	setFlags(t, "runner", "", "endpoint", "", "environment_type", "")
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	p, s := beam.NewPipelineWithRoot()
	passert.Equals(s, beam.CreateList(s, []int{1, 2}), 1, 2, 3)
	var c Config
	_, err := c.Run(context.Background(), p)
	if err == nil {
		t.Fatal("Run of a failing pipeline returned no error")
	}
	if got := err.Error(); len(got) < 12 || got[:12] != "run on prism" {
		t.Errorf("error = %q, want it to start with \"run on prism\"", got)
	}
	if left := loopbackFiles(t, tmp); len(left) != 0 {
		t.Errorf("failed run left %v", left)
	}
}

func TestRunRejectsInvalidConfig(t *testing.T) {
	c := Config{Runner: Flink}
	if _, err := c.Run(context.Background(), smallPipeline()); err == nil {
		t.Fatal("Run with --runner=flink and no --endpoint returned no error")
	}
}

// TestEnsureWorkerBinary cross-compiles this test program, as a multi-round
// driver on Flink would once per run, and checks the binary, the flag every
// round reads, and its removal.
func TestEnsureWorkerBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiles a Beam program (~20 s warm)")
	}
	setFlags(t, "worker_binary", "")
	c := Config{Runner: Flink, Endpoint: "localhost:1"}
	ctx := context.Background()
	dir := t.TempDir()
	if err := c.EnsureWorkerBinary(ctx, dir); err != nil {
		t.Fatal(err)
	}
	bin := c.WorkerBinary
	if filepath.Dir(bin) != dir {
		t.Errorf("worker binary %s not in %s", bin, dir)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	if f.Machine != elf.EM_X86_64 {
		t.Errorf("worker binary is for %v, want x86-64", f.Machine)
	}
	f.Close()
	if got := flag.Lookup("worker_binary").Value.String(); got != bin {
		t.Errorf("--worker_binary = %q, want %q", got, bin)
	}
	if err := c.Validate(nil); err != nil {
		t.Errorf("Validate with the built binary: %v", err)
	}
	// A second call (the next round) builds nothing.
	st, _ := os.Stat(bin)
	if err := c.EnsureWorkerBinary(ctx, dir); err != nil {
		t.Fatal(err)
	}
	if st2, _ := os.Stat(bin); c.WorkerBinary != bin || !st2.ModTime().Equal(st.ModTime()) {
		t.Errorf("second EnsureWorkerBinary rebuilt or moved the binary")
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); !os.IsNotExist(err) {
		t.Errorf("Close left %s (stat: %v)", bin, err)
	}
	if got := flag.Lookup("worker_binary").Value.String(); got != "" || c.WorkerBinary != "" {
		t.Errorf("after Close --worker_binary = %q, WorkerBinary = %q, want both empty", got, c.WorkerBinary)
	}
}

// TestEnsureWorkerBinaryNotNeeded checks that LOOPBACK, dry runs and given
// binaries build nothing.
func TestEnsureWorkerBinaryNotNeeded(t *testing.T) {
	for _, c := range []Config{
		{},
		{Runner: Universal, Endpoint: "h:1", EnvironmentType: Loopback},
		{Runner: Dataflow, Project: "p", Region: "r", StagingLocation: "gs://b/s", DryRun: true},
		{Runner: Flink, Endpoint: "h:1", WorkerBinary: "/given"},
	} {
		before := c.WorkerBinary
		if err := c.EnsureWorkerBinary(context.Background(), "/nonexistent/dir"); err != nil {
			t.Errorf("%+v: %v", c, err)
		}
		if c.WorkerBinary != before {
			t.Errorf("%+v: WorkerBinary changed to %q", c, c.WorkerBinary)
		}
	}
}

// TestRunVet runs a pipeline on --runner=vet through Config.Run, as the
// pipelines' vet tests do: Beam's vet runner is registered (by the direct and
// universal runners beamx links in), and its verdict comes back as an error.
func TestRunVet(t *testing.T) {
	setFlags(t, "runner", "", "endpoint", "", "environment_type", "")
	c := Config{Runner: "vet"}
	p, s := beam.NewPipelineWithRoot()
	beam.ParDo(s, strings.ToUpper, beam.Create(s, "a"))
	_, err := c.Run(context.Background(), p)
	// strings.ToUpper is not registered: vet ran, and rejected it.
	if err == nil || !strings.Contains(err.Error(), "not performant") {
		t.Errorf("--runner=vet on an unregistered function: %v; want vet's \"not performant\"", err)
	}
}

// TestRunRemovesStaleLoopbackTemps: the private temporary directory of a
// driver that was killed (its process is gone) is removed by the next
// LOOPBACK run; that of a running process, and files a job created, stay.
func TestRunRemovesStaleLoopbackTemps(t *testing.T) {
	setFlags(t, "runner", "", "endpoint", "", "environment_type", "")
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	dir := func(pid int, suffix string, files ...string) string {
		d := filepath.Join(tmp, fmt.Sprintf("recrawl-beam-%d-%s", pid, suffix))
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(d, f), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	stale := dir(gone.Process.Pid, "1", "beamloopbackworker-123")
	staleEmpty := dir(gone.Process.Pid, "2")
	staleWithOutput := dir(gone.Process.Pid, "3", "beamloopbackworker-456", "written-by-a-job")
	running := dir(os.Getppid(), "4", "beamloopbackworker-789")

	var c Config
	if _, err := c.Run(context.Background(), smallPipeline()); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{stale, staleEmpty} {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("%s of a process that is gone is still there (stat: %v)", d, err)
		}
	}
	for _, f := range []string{filepath.Join(staleWithOutput, "written-by-a-job"), filepath.Join(running, "beamloopbackworker-789")} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s was removed: %v", f, err)
		}
	}
}
