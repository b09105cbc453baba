package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// TestStartWritesProfiles asks for all three diagnostics and checks that
// each file is written and not empty once stop returns; an unwritable path
// is a warning, not a failure.
func TestStartWritesProfiles(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"RECRAWL_CPUPROFILE": filepath.Join(dir, "cpu.pprof"),
		"RECRAWL_TRACE":      filepath.Join(dir, "trace.out"),
		"RECRAWL_MEMPROFILE": filepath.Join(dir, "heap.pprof"),
	}
	for env, path := range files {
		t.Setenv(env, path)
	}
	stop := StartProfiling()
	sum := 0
	for i := 0; i < 1e6; i++ {
		sum += i % 7
	}
	_ = sum
	stop()
	for env, path := range files {
		fi, err := os.Stat(path)
		if err != nil || fi.Size() == 0 {
			t.Errorf("%s: %s not written (%v)", env, path, err)
		}
	}

	t.Setenv("RECRAWL_CPUPROFILE", filepath.Join(dir, "missing", "cpu.pprof"))
	t.Setenv("RECRAWL_TRACE", "")
	t.Setenv("RECRAWL_MEMPROFILE", "")
	StartProfiling()() // must not panic or fail
}
