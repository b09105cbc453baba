package worklock

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary run with WORKLOCK_HOLD=DIR takes DIR's lock, says so on
// stdout and sleeps until it is killed.
func init() {
	if dir := os.Getenv("WORKLOCK_HOLD"); dir != "" {
		if _, err := Acquire(context.Background(), dir); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(3)
		}
		os.Stdout.WriteString("locked\n")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
}

// holder starts a process holding dir's lock.
func holder(t *testing.T, dir string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "WORKLOCK_HOLD="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 7)
	if _, err := out.Read(buf); err != nil || string(buf) != "locked\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the holder did not lock %s: %q %v", dir, buf, err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

func TestSecondRunRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	h := holder(t, dir)
	_, err := Acquire(context.Background(), dir)
	var inUse *InUseError
	if !errors.As(err, &inUse) || inUse.Owner == nil || inUse.Owner.PID != h.Process.Pid {
		t.Fatalf("second lock of %s: %v; want in use by pid %d", dir, err, h.Process.Pid)
	}
	want := dir + " is in use by pid " + itoa(h.Process.Pid) + " since "
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("message %q; want it to start with %q", err, want)
	}
}

func TestDeadOwnerTakenOver(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	h := holder(t, dir)
	pid := h.Process.Pid
	h.Process.Signal(syscall.SIGKILL)
	h.Wait()
	var msg bytes.Buffer
	release, err := Hold(context.Background(), &msg, dir)
	if err != nil {
		t.Fatalf("lock after the owner was killed: %v", err)
	}
	if !strings.Contains(msg.String(), "took over the lock of "+dir+" from pid "+itoa(pid)) {
		t.Errorf("takeover message %q does not name the dead owner %d", msg.String(), pid)
	}
	// Held now: a third run is refused, naming this process.
	if _, err := Acquire(context.Background(), dir); err == nil || !strings.Contains(err.Error(), "pid "+itoa(os.Getpid())) {
		t.Errorf("lock while held: %v", err)
	}
	release()
	if _, err := os.Stat(filepath.Join(dir, FileName)); !os.IsNotExist(err) {
		t.Errorf("the lock file is still there after release: %v", err)
	}
	l, err := Acquire(context.Background(), dir)
	if err != nil || l.TakenOver != nil {
		t.Fatalf("lock after release: %v, taken over %v", err, l.TakenOver)
	}
	l.Release()
}

// TestConcurrentAcquire: of many goroutines racing for one lock (each with
// its own open file), exactly one holds it at any time.
func TestConcurrentAcquire(t *testing.T) {
	dir := t.TempDir()
	var holders, maxHolders, wins int32
	done := make(chan bool)
	for range 16 {
		go func() {
			for range 50 {
				l, err := Acquire(context.Background(), dir)
				if err != nil {
					continue
				}
				holders++
				if holders > maxHolders {
					maxHolders = holders
				}
				wins++
				holders--
				l.Release()
			}
			done <- true
		}()
	}
	for range 16 {
		<-done
	}
	// The counters are only touched while holding the lock: a data race
	// (go test -race) or maxHolders > 1 means two held it at once.
	if maxHolders != 1 || wins == 0 {
		t.Errorf("max simultaneous holders %d, wins %d; want 1 and > 0", maxHolders, wins)
	}
}

func TestOwnerFile(t *testing.T) {
	dir := t.TempDir()
	l, err := Acquire(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	b, _ := os.ReadFile(filepath.Join(dir, FileName))
	var o Owner
	if err := json.Unmarshal(b, &o); err != nil || o.PID != os.Getpid() || o.Host == "" || o.Since.IsZero() {
		t.Errorf("lock file %q: %+v %v", b, o, err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestOrphansRemoved: temporary files a killed run left are removed when the
// next run takes the lock; other files stay.
func TestOrphansRemoved(t *testing.T) {
	dir := t.TempDir()
	keep := []string{"documents.jsonl", ".work/state-00001/DONE", ".work/job.json"}
	orphans := []string{".documents.jsonl.tmp-123", ".work/state-00002/frontier/.part-0.gob.tmp-9"}
	for _, f := range append(append([]string(nil), keep...), orphans...) {
		p := filepath.Join(dir, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("x"), 0o644)
	}
	var msg bytes.Buffer
	release, err := Hold(context.Background(), &msg, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	for _, f := range orphans {
		if _, err := os.Stat(filepath.Join(dir, f)); !os.IsNotExist(err) {
			t.Errorf("%s is still there", f)
		}
	}
	for _, f := range keep {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if !strings.Contains(msg.String(), "removed 2 temporary files") {
		t.Errorf("message %q", msg.String())
	}
}
