package archive

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recrawl/recrawl/internal/cdxj"
)

// TestFetcherArchives: a capture's file is looked for in its own archive's
// locations only, unsafe names are still rejected, and an archive the
// fetcher does not know is an error naming it.
func TestFetcherArchives(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	nat, spec := filepath.Join(dir, "national"), filepath.Join(dir, "special")
	for _, p := range []string{filepath.Join(nat, "n.warc.gz"), filepath.Join(spec, "s.warc.gz"), filepath.Join(dir, "outside.warc.gz")} {
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("x"), 0o644)
	}
	f := NewArchivesFetcher(map[string][]string{"national": {nat}, "special": {spec}})
	defer f.Close()
	if p, err := f.ResolveIn(ctx, "national", "n.warc.gz"); err != nil || p != filepath.Join(nat, "n.warc.gz") {
		t.Errorf("national n.warc.gz: %q, %v", p, err)
	}
	if _, err := f.ResolveIn(ctx, "special", "n.warc.gz"); !errors.Is(err, ErrArchiveFileMissing) || !strings.Contains(err.Error(), "archive special") {
		t.Errorf("national's file asked of special: %v; want ErrArchiveFileMissing naming archive special", err)
	}
	if _, err := f.ResolveIn(ctx, "special", "../outside.warc.gz"); err == nil || !strings.Contains(err.Error(), "outside the archive") {
		t.Errorf("../outside.warc.gz: %v; want it rejected", err)
	}
	_, err := f.Read(ctx, cdxj.Capture{Archive: "special", Filename: "../national/n.warc.gz"})
	var re *RecordError
	if !errors.As(err, &re) || re.Kind != ReasonUnsafeFilename {
		t.Errorf("reading ../national/n.warc.gz in special: %v; want a %s record error", err, ReasonUnsafeFilename)
	}
	if _, err := f.ResolveIn(ctx, "other", "n.warc.gz"); err == nil || !strings.Contains(err.Error(), `"other"`) {
		t.Errorf("unknown archive: %v", err)
	}
}

// TestFetcherRefusesSymlinkOut: a symbolic link inside an archive location
// that points outside it (to a file or through a linked folder) is refused
// like a "../" name and nothing outside is read; a link that stays inside
// is followed.
func TestFetcherRefusesSymlinkOut(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	archive, outside := filepath.Join(dir, "archive"), filepath.Join(dir, "secret")
	os.MkdirAll(filepath.Join(archive, "sub"), 0o755)
	os.MkdirAll(outside, 0o755)
	os.WriteFile(filepath.Join(outside, "s.warc.gz"), []byte("secret"), 0o644)
	os.WriteFile(filepath.Join(archive, "sub", "in.warc.gz"), []byte("x"), 0o644)
	for link, target := range map[string]string{
		"file.warc.gz":   filepath.Join(outside, "s.warc.gz"),
		"rel.warc.gz":    "../secret/s.warc.gz",
		"linkdir":        outside,
		"inside.warc.gz": "sub/in.warc.gz",
		"passwd.warc.gz": "/etc/passwd",
	} {
		if err := os.Symlink(target, filepath.Join(archive, link)); err != nil {
			t.Fatal(err)
		}
	}
	f := NewFetcher([]string{archive})
	defer f.Close()
	for _, name := range []string{"file.warc.gz", "rel.warc.gz", "linkdir/s.warc.gz", "passwd.warc.gz"} {
		_, err := f.Read(ctx, cdxj.Capture{Filename: name, URL: "http://x/"})
		var re *RecordError
		if !errors.As(err, &re) || re.Kind != ReasonUnsafeFilename || !strings.Contains(err.Error(), "outside") {
			t.Errorf("%s: %v; want a %s record error", name, err, ReasonUnsafeFilename)
		}
		if n := f.BytesRead(); n != 0 {
			t.Errorf("%s: %d bytes read", name, n)
		}
	}
	if p, err := f.Resolve(ctx, "inside.warc.gz"); err != nil || p != filepath.Join(archive, "inside.warc.gz") {
		t.Errorf("a link inside the archive: %q %v", p, err)
	}
}

// TestFetcherCountMissingFiles: with CountMissingFiles a capture whose file
// is in no location is a record error naming the file (the URL goes to
// missing.jsonl and the run goes on); without it, an error that stops.
func TestFetcherCountMissingFiles(t *testing.T) {
	ctx := context.Background()
	c := cdxj.Capture{Filename: "gone.warc.gz", URL: "http://x/"}
	f := NewFetcher([]string{t.TempDir()})
	defer f.Close()
	_, err := f.Read(ctx, c)
	var re *RecordError
	if !errors.Is(err, ErrArchiveFileMissing) || errors.As(err, &re) {
		t.Errorf("default: %v; want ErrArchiveFileMissing, not a record error", err)
	}
	f.CountMissingFiles = true
	_, err = f.Read(ctx, c)
	if !errors.As(err, &re) || re.Kind != ReasonArchiveFileGone || !strings.Contains(err.Error(), "gone.warc.gz") {
		t.Errorf("counted: %v; want a %s record error naming gone.warc.gz", err, ReasonArchiveFileGone)
	}
}

// TestFetcherBadOffsets: a negative offset and one past the end of the file
// are stale index entries, each said as what it is.
func TestFetcherBadOffsets(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.warc"), []byte("WARC/1.0\r\n"), 0o644)
	f := NewFetcher([]string{dir})
	defer f.Close()
	for off, want := range map[int64]string{-1: "offset -1: negative offset", 100: "offset 100: past the end of the file (10 bytes)"} {
		_, err := f.Read(context.Background(), cdxj.Capture{Filename: "a.warc", Offset: off, URL: "http://x/"})
		var re *RecordError
		if !errors.As(err, &re) || re.Kind != ReasonStaleIndex || !strings.Contains(err.Error(), want) {
			t.Errorf("offset %d: %v; want a %s error saying %q", off, err, ReasonStaleIndex, want)
		}
	}
}
