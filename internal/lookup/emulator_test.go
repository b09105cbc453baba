package lookup

import (
	"bufio"
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"cloud.google.com/go/bigtable"

	"github.com/recrawl/recrawl/internal/btindex"
)

// startEmulator runs scripts/bigtable-emulator.sh in the foreground, waits for
// its BIGTABLE_EMULATOR_HOST line and stops it when the test ends.
func startEmulator(t *testing.T) string {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("..", "..", "scripts", "bigtable-emulator.sh"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", script, "--port", "0")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its own group: we can stop all of it
	var stderr syncBuffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "BIGTABLE_EMULATOR_HOST="); ok {
				lines <- v
			}
		}
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM) // the script stops the emulator and exits
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("emulator script: %v\n%s", err, stderr.String())
			}
		case <-time.After(15 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			t.Errorf("emulator script did not stop on SIGTERM\n%s", stderr.String())
		}
	})
	select {
	case addr := <-lines:
		return addr
	case err := <-exited:
		t.Fatalf("emulator script exited before it printed BIGTABLE_EMULATOR_HOST: %v\n%s", err, stderr.String())
	case <-time.After(5 * time.Minute): // includes a cold build of the emulator
		t.Fatalf("emulator script printed no BIGTABLE_EMULATOR_HOST within 5 minutes\n%s", stderr.String())
	}
	return ""
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestBigtableEmulator loads captures into the standalone emulator, started
// through scripts/bigtable-emulator.sh, and reads them back through Open with a
// bigtable: spec, the way the extraction will.
func TestBigtableEmulator(t *testing.T) {
	addr := startEmulator(t)
	t.Setenv("BIGTABLE_EMULATOR_HOST", addr)
	ctx := context.Background()

	admin, err := bigtable.NewAdminClient(ctx, "proj", "inst")
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if err := btindex.EnsureTable(ctx, admin, "captures"); err != nil {
		t.Fatal(err)
	}
	client, err := bigtable.NewClient(ctx, "proj", "inst")
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	c := genCorpus(20000, 7)
	start := time.Now()
	for range 2 { // the second load must change nothing
		w := btindex.NewWriter(client.Open("captures"), 0)
		for _, cp := range c.captures {
			if err := w.Add(ctx, cp); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(ctx); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("emulator at %s: loaded %d captures twice in %v", addr, len(c.captures), time.Since(start).Round(time.Millisecond))

	idx, err := Open(ctx, "bigtable:proj/inst/captures")
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	start = time.Now()
	got, err := idx.Lookup(ctx, c.queryKeys())
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	if !reflect.DeepEqual(got, c.want) {
		t.Fatalf("look-up through the emulator: %d keys, want %d (or captures differ)", len(got), len(c.want))
	}
	t.Logf("looked up %d keys in %v: %.0f look-ups/s", len(c.queryKeys()), elapsed.Round(time.Millisecond),
		float64(len(c.queryKeys()))/elapsed.Seconds())
}
