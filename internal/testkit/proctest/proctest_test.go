package proctest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestKillAtFile: a command that writes a file and then would run for a
// minute is killed once the file exists, and its output so far is kept;
// the minute-long child it started, which still holds the output, does not
// hold up the kill.
func TestKillAtFile(t *testing.T) {
	dir := t.TempDir()
	mark, child := filepath.Join(dir, "mark"), filepath.Join(dir, "child.pid")
	t.Cleanup(func() {
		if pid, err := os.ReadFile(child); err == nil {
			exec.Command("kill", strings.TrimSpace(string(pid))).Run()
		}
	})
	run := Start(t, exec.Command("sh", "-c", "echo started; sleep 60 & echo $! > "+child+"; touch "+mark+"; wait"))
	began := time.Now()
	run.WaitForFile(t, mark, time.Minute)
	run.Kill(t)
	if took := time.Since(began); took > 30*time.Second {
		t.Errorf("the kill came %v after the start; the command was not stopped at its file", took)
	}
	if !strings.Contains(run.Output(), "started") {
		t.Errorf("output %q lacks the command's first line", run.Output())
	}
}

// TestWaitForCondition: WaitFor returns once its condition holds, while the
// command still runs.
func TestWaitForCondition(t *testing.T) {
	run := Start(t, exec.Command("sleep", "60"))
	polls := 0
	run.WaitFor(t, "third poll", time.Millisecond, time.Minute, func() bool { polls++; return polls == 3 })
	if polls != 3 {
		t.Errorf("polled %d times, want 3", polls)
	}
	run.Kill(t)
}
