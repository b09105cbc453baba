// Package filescmd is `recrawl files`: listing and copying files on local
// disks and on Google Cloud Storage (gs://) through internal/storage, for
// the steps a scheduler runs beside the pipelines (the Airflow DAG of
// dags/ lists the archive and the specifications and publishes the WACZ
// and the report with it), so that the scheduler needs no storage client
// of its own. gs:// paths honour STORAGE_EMULATOR_HOST.
package filescmd

import (
	"context"
	"crypto/md5"
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"

	gcs "cloud.google.com/go/storage"

	"github.com/recrawl/recrawl/internal/cli"
	"github.com/recrawl/recrawl/internal/storage"
)

// Usage is what `recrawl files --help` prints.
const Usage = `usage: recrawl files list PATTERN...
       recrawl files copy SRC DEST
       list: prints the files that match any PATTERN, sorted, one a line (local paths or gs:// URIs;
             * ? [...] as in path.Match, * not crossing a /); a pattern that matches nothing adds nothing
       copy: copies the file SRC to DEST, or every file below the folder SRC to the same name below DEST;
             each file is written under a temporary name and renamed (a gs:// object appears when its
             upload completes), and only when DEST does not hold the same bytes (same size and MD5, or
             CRC32C for a gs:// object without MD5); prints "copied NAME" or "unchanged NAME" per file`

// Main runs `recrawl files ARGS`.
func Main(ctx context.Context, args []string) error {
	flags := flag.NewFlagSet("recrawl files", flag.ContinueOnError)
	flags.Usage = func() { fmt.Fprintln(flags.Output(), Usage) }
	if err := cli.Parse(flags, args); err != nil {
		return err
	}
	action, rest := flags.Arg(0), flags.Args()[min(1, flags.NArg()):]
	switch {
	case action == "list" && len(rest) > 0:
		return list(ctx, os.Stdout, rest)
	case action == "copy" && len(rest) == 2:
		return copyFiles(ctx, os.Stdout, rest[0], rest[1])
	}
	fmt.Fprintf(os.Stderr, "recrawl files: want list PATTERN... or copy SRC DEST, got %q\n%s\n", flags.Args(), Usage)
	return cli.ErrUsage
}

// list prints the files matching any of patterns, sorted and without
// repeats.
func list(ctx context.Context, w io.Writer, patterns []string) error {
	var files []string
	for _, p := range patterns {
		m, err := storage.Glob(ctx, p)
		if err != nil {
			return err
		}
		files = append(files, m...)
	}
	slices.Sort(files)
	for _, f := range slices.Compact(files) {
		if strings.Contains(f, "\n") {
			return fmt.Errorf("list: the file name %q holds a newline", f)
		}
		if _, err := fmt.Fprintln(w, f); err != nil {
			return err
		}
	}
	return nil
}

// copyFiles copies the file src to dest, or every file below the folder
// src to the same relative name below dest, skipping those dest holds
// already.
func copyFiles(ctx context.Context, w io.Writer, src, dest string) error {
	isDir, err := isFolder(ctx, src)
	if err != nil {
		return err
	}
	if !isDir {
		return copyOne(ctx, w, src, dest, storage.Base(dest))
	}
	files, err := storage.ListBelow(ctx, src)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("copy: %s holds no file", src)
	}
	prefix := strings.TrimRight(src, "/") + "/"
	for _, f := range files {
		rel := strings.TrimPrefix(f, prefix)
		if err := copyOne(ctx, w, f, storage.Join(dest, rel), rel); err != nil {
			return err
		}
	}
	return nil
}

// isFolder tells whether src is a folder (local) or a prefix with objects
// below it (gs://) rather than a file; neither is an error naming src.
func isFolder(ctx context.Context, src string) (bool, error) {
	if !storage.IsGCS(src) {
		fi, err := os.Stat(src)
		if err != nil {
			return false, fmt.Errorf("copy: %w", err)
		}
		return fi.IsDir(), nil
	}
	if ok, err := storage.Exists(ctx, src); err != nil || ok {
		return false, err
	}
	below, err := storage.ListBelow(ctx, src)
	if err != nil {
		return false, err
	}
	if len(below) == 0 {
		return false, fmt.Errorf("copy: %s: no such file or folder", src)
	}
	return true, nil
}

// copyOne copies src to dest unless dest holds the same bytes, and prints
// what it did with name.
func copyOne(ctx context.Context, w io.Writer, src, dest, name string) error {
	same, err := sameBytes(ctx, src, dest)
	if err != nil {
		return err
	}
	if same {
		_, err := fmt.Fprintf(w, "unchanged %s\n", name)
		return err
	}
	r, err := storage.Open(ctx, src)
	if err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	defer r.Close()
	out, err := storage.Create(ctx, dest)
	if err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	if _, err := io.Copy(out, r); err != nil {
		out.Abort()
		return fmt.Errorf("copy %s to %s: %w", src, dest, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	_, err = fmt.Fprintf(w, "copied %s\n", name)
	return err
}

// fingerprint is what sameBytes compares: the size, and the MD5 when both
// sides have one, else the CRC32C (Castagnoli), which every gs:// object has.
type fingerprint struct {
	size int64
	md5  []byte // nil for a gs:// object without one (a composed object)
	crc  uint32
}

func (a fingerprint) equal(b fingerprint) bool {
	if a.size != b.size {
		return false
	}
	if a.md5 != nil && b.md5 != nil {
		return string(a.md5) == string(b.md5)
	}
	return a.crc == b.crc
}

// sameBytes tells whether dest exists and holds the bytes of src. A gs://
// object's checksums are read from its metadata, not downloaded.
func sameBytes(ctx context.Context, src, dest string) (bool, error) {
	d, err := fingerprintOf(ctx, dest)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	srcSize, err := storage.Size(ctx, src)
	if err != nil {
		return false, fmt.Errorf("copy: %w", err)
	}
	if srcSize != d.size {
		return false, nil
	}
	s, err := fingerprintOf(ctx, src)
	if err != nil {
		return false, err
	}
	return s.equal(d), nil
}

// fingerprintOf reads a gs:// object's size and checksums from its
// metadata, or computes those of a local file; a missing file's error
// wraps fs.ErrNotExist.
func fingerprintOf(ctx context.Context, p string) (fingerprint, error) {
	if storage.IsGCS(p) {
		obj, err := storage.GCSObject(ctx, p)
		if err != nil {
			return fingerprint{}, err
		}
		attrs, err := obj.Attrs(ctx)
		if errors.Is(err, gcs.ErrObjectNotExist) {
			return fingerprint{}, fmt.Errorf("%s: %w", p, fs.ErrNotExist)
		}
		if err != nil {
			return fingerprint{}, fmt.Errorf("checksums of %s: %w", p, err)
		}
		return fingerprint{size: attrs.Size, md5: attrs.MD5, crc: attrs.CRC32C}, nil
	}
	f, err := os.Open(p)
	if err != nil {
		return fingerprint{}, err
	}
	defer f.Close()
	m, c := md5.New(), crc32.New(crc32.MakeTable(crc32.Castagnoli))
	n, err := io.Copy(io.MultiWriter(m, c), f)
	if err != nil {
		return fingerprint{}, fmt.Errorf("checksums of %s: %w", p, err)
	}
	return fingerprint{size: n, md5: m.Sum(nil), crc: c.Sum32()}, nil
}
