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
