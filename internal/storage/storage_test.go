package storage

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestExpandGlobsAndLists(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, n := range []string{"b.warc.gz", "a.warc.gz", "c.arc", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Expand(ctx, filepath.Join(dir, "*.warc.gz")+" , "+filepath.Join(dir, "c.arc")+","+filepath.Join(dir, "a.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "a.warc.gz"), filepath.Join(dir, "b.warc.gz"), filepath.Join(dir, "c.arc")}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Expand = %v, want %v", got, want)
	}
	_, err = Expand(ctx, filepath.Join(dir, "*.cdx"))
	if err == nil || !strings.Contains(err.Error(), "*.cdx") {
		t.Errorf("a pattern matching nothing must be an error naming it, got %v", err)
	}
}

func TestCreateIsAtomic(t *testing.T) {
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "sub", "out.txt")
	w, err := Create(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(w, "hello")
	if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("file visible before Close: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := ReadFile(ctx, p)
	if err != nil || string(b) != "hello" {
		t.Fatalf("ReadFile = %q, %v", b, err)
	}

	w, _ = Create(ctx, p)
	io.WriteString(w, "half")
	w.Abort()
	b, _ = os.ReadFile(p)
	if string(b) != "hello" {
		t.Errorf("Abort changed the file: %q", b)
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Errorf("Abort left temporary files: %v", entries)
	}
}

func TestReaderAtCountsBytes(t *testing.T) {
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "f")
	os.WriteFile(p, []byte("0123456789"), 0o644)
	r, err := OpenReaderAt(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	buf := make([]byte, 3)
	if _, err := r.ReadAt(buf, 4); err != nil || string(buf) != "456" {
		t.Fatalf("ReadAt = %q, %v", buf, err)
	}
	if r.Size() != 10 || r.BytesRead() != 3 {
		t.Errorf("Size, BytesRead = %d, %d; want 10, 3", r.Size(), r.BytesRead())
	}
	if ok, _ := Exists(ctx, p+"x"); ok {
		t.Error("Exists of a missing file")
	}
	if _, err := Size(ctx, p+"x"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Size of a missing file: %v, want ErrNotExist", err)
	}
}

func TestJoinAndBase(t *testing.T) {
	if got := Join("gs://b/dir/", "x", "y.gz"); got != "gs://b/dir/x/y.gz" {
		t.Errorf("Join gs = %q", got)
	}
	if got := Base("gs://b/dir/y.gz"); got != "y.gz" {
		t.Errorf("Base gs = %q", got)
	}
	if got := Join("/a", "b"); got != "/a/b" {
		t.Errorf("Join local = %q", got)
	}
	if _, _, err := splitGCS("gs:///x"); err == nil {
		t.Error("gs:///x has no bucket and must be rejected")
	}
}

func TestDir(t *testing.T) {
	for p, want := range map[string]string{
		"gs://b/index/cluster.idx": "gs://b/index",
		"gs://b/index/":            "gs://b/index", // as filepath.Dir("/b/index/")
		"gs://b/x":                 "gs://b",
		"gs://b":                   "gs://b",
		"/data/index/cluster.idx":  "/data/index",
		"cluster.idx":              ".",
	} {
		if got := Dir(p); got != want {
			t.Errorf("Dir(%q) = %q, want %q", p, got, want)
		}
	}
}

// TestWriteSortedLines: the lines sorted byte-wise, each ended by a
// newline, the caller's slice untouched; no lines is an empty file.
func TestWriteSortedLines(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	lines := []string{"b 2", "a", "B", "a 1"}
	p := filepath.Join(dir, "lines.txt")
	if err := WriteSortedLines(ctx, p, lines); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != "B\na\na 1\nb 2\n" {
		t.Errorf("file %q", got)
	}
	if !reflect.DeepEqual(lines, []string{"b 2", "a", "B", "a 1"}) {
		t.Errorf("the caller's lines changed: %q", lines)
	}
	empty := filepath.Join(dir, "empty.txt")
	if err := WriteSortedLines(ctx, empty, nil); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(empty); err != nil || len(got) != 0 {
		t.Errorf("no lines: %q, %v; want an empty file", got, err)
	}
}
