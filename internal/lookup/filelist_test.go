package lookup

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func testFile(name, segment string) IndexedFile {
	return IndexedFile{Name: name, Path: "/data/" + name, Size: 1000, HeadSHA256: strings.Repeat("a", 64), TailSHA256: strings.Repeat("b", 64), Segment: segment}
}

// TestFileListAppends: new files and removals are appended to index.files
// in place (a hard link to it sees them: the file is not replaced), the
// earlier bytes are left as they were, and a removal is a tombstone that
// marks the file of that name and segment removed, not a later file of the
// same name.
func TestFileListAppends(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	p := filepath.Join(dir, FileListFile)
	l := &FileList{Header: FileListHeader{Format: KindZipNum, Shards: 4}}
	if err := WriteFileList(ctx, dir, l); err != nil {
		t.Fatal(err)
	}
	if err := AppendFiles(ctx, dir, l, []IndexedFile{testFile("a.warc.gz", ""), testFile("b.warc.gz", "")}); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Link(p, link); err != nil {
		t.Fatal(err)
	}
	before := readTestFile(t, p)
	l, err := ReadFileList(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := AppendFiles(ctx, dir, l, []IndexedFile{testFile("c.warc.gz", "000001")}); err != nil {
		t.Fatal(err)
	}
	removed := testFile("a.warc.gz", "")
	removed.Removed = true
	if err := AppendFiles(ctx, dir, l, []IndexedFile{removed}); err != nil {
		t.Fatal(err)
	}
	if err := AppendFiles(ctx, dir, l, []IndexedFile{testFile("a.warc.gz", "000002")}); err != nil {
		t.Fatal(err)
	}
	after := readTestFile(t, p)
	if !bytes.HasPrefix(after, before) {
		t.Errorf("the appends changed the earlier lines:\n%s\nthen\n%s", before, after)
	}
	if got := readTestFile(t, link); !bytes.Equal(got, after) {
		t.Errorf("index.files was replaced, not appended to: a link to it still reads\n%s", got)
	}
	if n := bytes.Count(after, []byte{'\n'}); n != 6 {
		t.Errorf("%d lines, want 6 (the header, 4 files, 1 tombstone):\n%s", n, after)
	}
	got, err := ReadFileList(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []IndexedFile{removed, testFile("b.warc.gz", ""), testFile("c.warc.gz", "000001"), testFile("a.warc.gz", "000002")}
	if !reflect.DeepEqual(got.Files, want) {
		t.Errorf("read back: %+v\nwant %+v", got.Files, want)
	}
	if !reflect.DeepEqual(got.Files, l.Files) {
		t.Errorf("the list appended to holds %+v, the file %+v", l.Files, got.Files)
	}
	if h, ok := got.Held("a.warc.gz"); !ok || h.Segment != "000002" {
		t.Errorf("held a.warc.gz: %+v, %v; want the one of segment 000002", h, ok)
	}
}

// TestFileListTornLine: a last line cut short (a crash while it was
// appended) is left out when the list is read, and cut off by the next
// append, which leaves the list whole.
func TestFileListTornLine(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	p := filepath.Join(dir, FileListFile)
	l := &FileList{Header: FileListHeader{Format: KindCDXJ, Shards: 1}}
	if err := WriteFileList(ctx, dir, l); err != nil {
		t.Fatal(err)
	}
	if err := AppendFiles(ctx, dir, l, []IndexedFile{testFile("a.warc.gz", "")}); err != nil {
		t.Fatal(err)
	}
	whole := readTestFile(t, p)
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"name":"b.warc.gz","path":"/data/b.wa`)
	f.Close()
	got, err := ReadFileList(ctx, dir)
	if err != nil {
		t.Fatalf("a list with a line cut short: %v, want it read without that line", err)
	}
	if len(got.Files) != 1 || got.Files[0].Name != "a.warc.gz" || got.TornBytes() == 0 {
		t.Fatalf("read %+v (%d bytes cut short), want a.warc.gz alone and the torn line noticed", got.Files, got.TornBytes())
	}
	if err := AppendFiles(ctx, dir, got, []IndexedFile{testFile("c.warc.gz", "000001")}); err != nil {
		t.Fatal(err)
	}
	after := readTestFile(t, p)
	if !bytes.HasPrefix(after, whole) || bytes.Contains(after, []byte("b.warc.gz")) || !bytes.HasSuffix(after, []byte("\n")) {
		t.Errorf("after the next append:\n%s\nwant the list before the torn line and the new line", after)
	}
	again, err := ReadFileList(ctx, dir)
	if err != nil || again.TornBytes() != 0 || len(again.Files) != 2 {
		t.Errorf("read again: %+v, %v; want a.warc.gz and c.warc.gz, nothing torn", again, err)
	}
}

// TestFileListVersion1: a list of version 1 (removals marked in place) is
// read, and written anew as the current version by the first append.
func TestFileListVersion1(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	p := filepath.Join(dir, FileListFile)
	v1 := `{"index_files":1,"format":"cdxj","shards":1,"lines_per_block":3000,"dictionary":false}
{"name":"a.warc.gz","path":"/data/a.warc.gz","size":1000,"head_sha256":"x","tail_sha256":"y","segment":"","removed":true}
{"name":"a.warc.gz","path":"/data/a.warc.gz","size":1000,"head_sha256":"x","tail_sha256":"y","segment":"000001","removed":false}
`
	if err := os.WriteFile(p, []byte(v1), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := ReadFileList(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Files) != 2 || !l.Files[0].Removed || l.Files[1].Removed {
		t.Fatalf("version 1 read as %+v", l.Files)
	}
	if err := AppendFiles(ctx, dir, l, []IndexedFile{testFile("b.warc.gz", "000002")}); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFileList(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.Header.Version != FileListVersion || len(got.Files) != 3 || !got.Files[0].Removed {
		t.Errorf("after an append: version %d, %+v", got.Header.Version, got.Files)
	}
}

func readTestFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
