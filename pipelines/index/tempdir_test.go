package index

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recrawl/recrawl/internal/lookup"
	"github.com/recrawl/recrawl/internal/testkit/proctest"
)

// userFolders makes folders of the user's in dir, named like the run's
// temporary folders but named by no manifest, each with a file, and
// returns the files.
func userFolders(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	for _, d := range []string{".runs", ".runs-mine", "data"} {
		p := filepath.Join(dir, d, "keep.txt")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("the user's\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	return files
}

func checkKept(t *testing.T, files []string) {
	t.Helper()
	for _, p := range files {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s, the user's, was removed: %v", p, err)
		}
	}
}

// TestClaimOutputTempDir: a run into a folder whose incomplete manifest
// names the temporary folder of a run that did not finish removes that
// folder, and only it: a user's .runs, .runs-mine and data folders stay;
// the new manifest names the new run's folder. A manifest naming a folder
// outside (../) removes nothing.
func TestClaimOutputTempDir(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "out")
	killed := filepath.Join(dir, ".runs-0123456789abcdef")
	if err := os.MkdirAll(filepath.Join(killed, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(killed, "sub", "run-00000"), []byte("x"), 0o644)
	if err := lookup.WriteManifest(ctx, dir, lookup.Manifest{TempDir: filepath.Base(killed)}); err != nil {
		t.Fatal(err)
	}
	kept := userFolders(t, dir)
	if err := claimOutput(ctx, dir, ".runs-fedcba9876543210"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(killed); err == nil {
		t.Errorf("%s, named by the incomplete manifest, is still there", killed)
	}
	checkKept(t, kept)
	if m, err := lookup.ReadManifest(ctx, dir); err != nil || m.Complete || m.TempDir != ".runs-fedcba9876543210" {
		t.Errorf("the new run's manifest: %+v, %v", m, err)
	}

	outside := filepath.Join(filepath.Dir(dir), "outside")
	kept = append(kept, filepath.Join(outside, "keep.txt"))
	os.MkdirAll(outside, 0o755)
	os.WriteFile(kept[len(kept)-1], []byte("the user's\n"), 0o644)
	for _, name := range []string{"../outside", ".runs-../../outside", "data"} {
		os.WriteFile(filepath.Join(dir, lookup.ManifestFile), []byte("#index-manifest\tincomplete\t"+name+"\n"), 0o644)
		if err := claimOutput(ctx, dir, ""); err != nil {
			t.Fatal(err)
		}
		checkKept(t, kept)
	}
}

// TestKilledRunTempDir: an index run killed (SIGKILL) while its temporary
// folder exists leaves it, named in its incomplete manifest; the next run
// into the folder removes it, leaves the user's folders, and leaves no
// temporary folder of its own.
func TestKilledRunTempDir(t *testing.T) {
	files := conformanceFiles(t)
	bin := indexCommand(t)
	out := filepath.Join(t.TempDir(), "out")
	cmd := exec.Command(bin, "index", "--input="+strings.Join(files, ","), "--output="+out, "--shards=2")
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
	run := proctest.Start(t, cmd)
	var left []string
	run.WaitFor(t, "temporary folder in "+out, 5*time.Millisecond, 2*time.Minute, func() bool {
		left, _ = filepath.Glob(filepath.Join(out, ".runs-*"))
		return len(left) > 0
	})
	run.Kill(t)
	if len(left) != 1 {
		t.Fatalf("temporary folders of the killed run: %v", left)
	}
	if _, err := os.Stat(left[0]); err != nil {
		t.Fatalf("the killed run's temporary folder: %v", err)
	}
	m, err := lookup.ReadManifest(context.Background(), out)
	if err != nil || m == nil || m.Complete || m.TempDir != filepath.Base(left[0]) {
		t.Fatalf("the killed run's manifest: %+v, %v; want incomplete, naming %s", m, err, filepath.Base(left[0]))
	}
	kept := userFolders(t, out)

	runIndex(t, Config{Files: files, OutputDir: out, Shards: 2})
	if _, err := os.Stat(left[0]); err == nil {
		t.Errorf("%s, the killed run's temporary folder, is still there after the next run", left[0])
	}
	checkKept(t, kept)
	if now, _ := filepath.Glob(filepath.Join(out, ".runs-*")); len(now) != 1 || filepath.Base(now[0]) != ".runs-mine" {
		t.Errorf("folders .runs-* after the next run: %v; want only the user's .runs-mine", now)
	}
	if m, err := lookup.ReadManifest(context.Background(), out); err != nil || m == nil || !m.Complete || m.TempDir != "" {
		t.Errorf("the next run's manifest: %+v, %v; want complete, naming no folder", m, err)
	}
}
