package hostile

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/records"
)

// TestBombFile: a bomb file indexes as one capture per bomb, and reading a
// record through a limit gives a cut, flagged body.
func TestBombFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bombs.warc.gz")
	date := time.Date(2010, 4, 14, 12, 0, 0, 0, time.UTC)
	size, err := WriteBombFile(p, Bomb{URL: "http://bomb.example/block", Date: date, Kind: BlockBomb, Size: 64 << 20},
		Bomb{URL: "http://bomb.example/body", Date: date, Kind: BodyBomb, Size: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if size > 1<<20 {
		t.Errorf("bomb file of %d bytes; want it small", size)
	}
	data, _ := os.ReadFile(p)
	var caps []cdxj.Capture
	if _, err := cdxj.IndexFile(bytes.NewReader(data), "bombs.warc.gz", cdxj.IndexOptions{}, func(c cdxj.Capture) error {
		caps = append(caps, c)
		return nil
	}); err != nil || len(caps) != 2 {
		t.Fatalf("index: %d captures, %v", len(caps), err)
	}
	for _, c := range caps {
		rec, err := records.ReadRecordAtLimit(bytes.NewReader(data), c.Offset, c.Length, "bombs.warc.gz", 1<<20)
		if err != nil || !rec.BodyTruncated || len(rec.Body) != 1<<20 {
			t.Errorf("%s: %v", c.URL, err)
		}
	}
}

// TestWatchFolder: a file opened and read in the watched folder is
// reported; a stat of it is not.
func TestWatchFolder(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "canary")
	if err := os.WriteFile(p, []byte("canary"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := WatchFolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	os.Stat(p)
	if err := w.Collect(); err != nil || len(w.Opened)+len(w.Read) != 0 {
		t.Fatalf("after a stat: opened %v, read %v (%v); want nothing", w.Opened, w.Read, err)
	}
	if _, err := os.ReadFile(p); err != nil {
		t.Fatal(err)
	}
	if err := w.Collect(); err != nil || w.Opened["canary"] == 0 || w.Read["canary"] == 0 {
		t.Errorf("after a read: opened %v, read %v (%v); want the canary in both", w.Opened, w.Read, err)
	}
}

// allocEnv makes the test binary, started as a child, allocate and touch
// that many MiB, hold them for a moment and exit.
const allocEnv = "HOSTILE_TEST_ALLOC_MIB"

func TestMain(m *testing.M) {
	if v := os.Getenv(allocEnv); v != "" {
		n, _ := strconv.Atoi(v)
		b := make([]byte, n<<20)
		for i := range b {
			b[i] = 1
		}
		time.Sleep(300 * time.Millisecond)
		runtime.KeepAlive(b)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestMeterRSS: with a parent holding 400 MiB, a child's ru_maxrss says
// 400 MiB or more whatever the child does, while the meter sees the child's
// own memory: about 20 MiB for a child of 0 MiB, at least 128 for one of 128.
func TestMeterRSS(t *testing.T) {
	big := make([]byte, 400<<20)
	for i := range big {
		big[i] = 1
	}
	run := func(mib int) (metered, rusage int64) {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", allocEnv, mib))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		m := MeterRSS(cmd.Process.Pid)
		if err := cmd.Wait(); err != nil {
			t.Fatal(err)
		}
		return m.Stop(), PeakRSS(cmd)
	}
	small, smallRusage := run(0)
	large, _ := run(128)
	runtime.KeepAlive(big)
	t.Logf("child of 0 MiB: metered %d MiB, ru_maxrss %d MiB; child of 128 MiB: metered %d MiB", small>>20, smallRusage>>20, large>>20)
	if small > 200<<20 || small == 0 {
		t.Errorf("a child of 0 MiB metered at %d MiB; want its own few MiB", small>>20)
	}
	if large < 128<<20 || large > 300<<20 {
		t.Errorf("a child of 128 MiB metered at %d MiB", large>>20)
	}
}
