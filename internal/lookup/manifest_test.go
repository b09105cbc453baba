package lookup

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestManifest: FilesOfRun gives every match without a manifest, only the
// listed ones with a complete manifest, and an error naming the others;
// with an incomplete manifest every match is an error. A name that is not
// a file of the folder is refused on reading and writing.
func TestManifest(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, n := range []string{"df-en.tsv", "df-de.tsv", "notes.txt"} {
		os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644)
	}
	got, err := FilesOfRun(ctx, dir, "df-*.tsv")
	if err != nil || len(got) != 2 {
		t.Errorf("without a manifest: %v, %v; want both df files", got, err)
	}
	if err := WriteManifest(ctx, dir, Manifest{Complete: true, Files: []string{"df-en.tsv", "cluster.idx"}}); err != nil {
		t.Fatal(err)
	}
	m, err := ReadManifest(ctx, dir)
	if err != nil || !m.Complete || !slices.Equal(m.Files, []string{"cluster.idx", "df-en.tsv"}) {
		t.Fatalf("ReadManifest: %+v, %v", m, err)
	}
	de := filepath.Join(dir, "df-de.tsv")
	if _, err := FilesOfRun(ctx, dir, "df-*.tsv"); err == nil || !strings.Contains(err.Error(), de) {
		t.Errorf("a df file the manifest does not list: %v; want an error naming %s", err, de)
	}
	os.Remove(de)
	if got, err := FilesOfRun(ctx, dir, "df-*.tsv"); err != nil || !slices.Equal(got, []string{filepath.Join(dir, "df-en.tsv")}) {
		t.Errorf("the listed df file: %v, %v", got, err)
	}
	WriteManifest(ctx, dir, Manifest{})
	if _, err := FilesOfRun(ctx, dir, "df-*.tsv"); err == nil || !strings.Contains(err.Error(), "did not finish") {
		t.Errorf("an incomplete manifest: %v; want an error", err)
	}
	for _, bad := range []string{"../etc/passwd", "/abs", "sub/file", ".hidden", ManifestFile} {
		os.WriteFile(filepath.Join(dir, ManifestFile), []byte("#index-manifest\tcomplete\n"+bad+"\n"), 0o644)
		if _, err := ReadManifest(ctx, dir); err == nil {
			t.Errorf("manifest listing %q was read", bad)
		}
		if err := WriteManifest(ctx, dir, Manifest{Files: []string{bad}}); err == nil {
			t.Errorf("manifest listing %q was written", bad)
		}
	}
}

// TestManifestTempDir: an incomplete manifest names the run's temporary
// folder and reads it back; a name that is not ".runs-" and letters or
// digits (a path, "..", a user's ".runs", any other folder), or one in a
// complete manifest, is refused on reading and writing.
func TestManifestTempDir(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	want := Manifest{Files: []string{"cdx-00000.gz"}, TempDir: ".runs-0123456789abcdef"}
	if err := WriteManifest(ctx, dir, want); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, ManifestFile))
	if first, _, _ := strings.Cut(string(data), "\n"); first != "#index-manifest\tincomplete\t.runs-0123456789abcdef" {
		t.Errorf("first line %q", first)
	}
	m, err := ReadManifest(ctx, dir)
	if err != nil || m.Complete || m.TempDir != want.TempDir || !slices.Equal(m.Files, want.Files) {
		t.Fatalf("ReadManifest: %+v, %v; want %+v", m, err, want)
	}
	for _, bad := range []string{".runs-../../etc", ".runs-a/b", ".runs-a\\b", "../.runs-abc", "/tmp/.runs-abc", ".runs-..", "..", ".", ".runs", ".runs-", "data", ".parts-abc", ".runs-ab c"} {
		os.WriteFile(filepath.Join(dir, ManifestFile), []byte("#index-manifest\tincomplete\t"+bad+"\n"), 0o644)
		if m, err := ReadManifest(ctx, dir); err == nil {
			t.Errorf("manifest naming the temporary folder %q was read: %+v", bad, m)
		}
		if err := WriteManifest(ctx, dir, Manifest{TempDir: bad}); err == nil {
			t.Errorf("manifest naming the temporary folder %q was written", bad)
		}
	}
	os.WriteFile(filepath.Join(dir, ManifestFile), []byte("#index-manifest\tcomplete\t.runs-abc\n"), 0o644)
	if m, err := ReadManifest(ctx, dir); err == nil {
		t.Errorf("a complete manifest naming a temporary folder was read: %+v", m)
	}
	if err := WriteManifest(ctx, dir, Manifest{Complete: true, TempDir: ".runs-abc"}); err == nil {
		t.Error("a complete manifest naming a temporary folder was written")
	}
}
