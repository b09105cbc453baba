// Package storage opens, lists and writes the files recrawl works with —
// WARC/ARC archives, indexes, work state and outputs — on local disks and on
// Google Cloud Storage (gs://bucket/object), behind one small API.
//
// Why not Beam's filesystem package: it has no ranged read (GCS objects come
// back as whole-object readers), and reading one WARC record at an offset must
// not download a 1 GB file. Here a gs:// file opened with OpenReaderAt turns
// every ReadAt into one ranged GET of exactly the bytes asked for, and counts
// them (BytesRead) so tests can prove it.
//
// Writes are atomic: Create returns a writer whose data becomes visible under
// the final name only on Close (a temporary file renamed on local disks; GCS
// objects appear only when their upload completes), so a retried Beam bundle
// or a killed run never leaves half a file behind. Abort discards.
//
// The GCS client honours STORAGE_EMULATOR_HOST, so tests run against a real
// local GCS server; it is created on first use of a gs:// path, so local runs
// need no credentials.
package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	gcs "cloud.google.com/go/storage"
	"google.golang.org/api/iterator"
)

// IsGCS reports whether p is a gs:// URI.
func IsGCS(p string) bool { return strings.HasPrefix(p, "gs://") }

// Join joins a directory (local or gs://) and a relative name.
func Join(dir string, elem ...string) string {
	if IsGCS(dir) {
		return strings.TrimRight(dir, "/") + "/" + path.Join(elem...)
	}
	return filepath.Join(append([]string{dir}, elem...)...)
}

// Dir returns all but the last element of p (local or gs://). For gs:// it
// keeps the scheme: path.Dir would clean "gs://b/x" into "gs:/b".
func Dir(p string) string {
	if IsGCS(p) {
		if i := strings.LastIndexByte(p, '/'); i > len("gs:/") {
			return p[:i]
		}
		return p // gs://bucket: the bucket is the top
	}
	return filepath.Dir(p)
}

// Base returns the last element of p (local or gs://).
func Base(p string) string {
	if IsGCS(p) {
		return path.Base(p)
	}
	return filepath.Base(p)
}

func splitGCS(p string) (bucket, object string, err error) {
	rest := strings.TrimPrefix(p, "gs://")
	bucket, object, _ = strings.Cut(rest, "/")
	if bucket == "" {
		return "", "", fmt.Errorf("%q: no bucket in gs:// URI", p)
	}
	return bucket, object, nil
}

var (
	clientOnce sync.Once
	client     *gcs.Client
	clientErr  error
)

// gcsClient returns the process-wide GCS client, created on first use.
func gcsClient(ctx context.Context) (*gcs.Client, error) {
	clientOnce.Do(func() {
		// The client must outlive the ctx of the first caller.
		client, clientErr = gcs.NewClient(context.WithoutCancel(ctx))
		if clientErr != nil {
			clientErr = fmt.Errorf("create Google Cloud Storage client: %w", clientErr)
		}
	})
	return client, clientErr
}

// SplitList splits a comma-separated list of locations (files, globs,
// directories), trimming spaces and dropping empty elements.
func SplitList(list string) []string {
	var out []string
	for _, p := range strings.Split(list, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Expand turns a comma-separated list of files and glob patterns into the
// sorted list of files they name. A pattern that matches nothing is an error
// that names it (a typo must not silently index nothing).
func Expand(ctx context.Context, list string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, pattern := range SplitList(list) {
		matches, err := Glob(ctx, pattern)
		if err != nil {
			return nil, err
		}
		if len(matches) == 0 {
			return nil, fmt.Errorf("input %q matches no file", pattern)
		}
		for _, m := range matches {
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no input files given")
	}
	sort.Strings(out)
	return out, nil
}

// Glob lists the files matching pattern (path.Match syntax; for gs:// the
// pattern applies to the object name, with '*' not crossing '/').
// A pattern without meta characters returns itself if the file exists.
func Glob(ctx context.Context, pattern string) ([]string, error) {
	if !IsGCS(pattern) {
		m, err := filepath.Glob(pattern)
		if err != nil {
			return nil, fmt.Errorf("glob %q: %w", pattern, err)
		}
		var files []string
		for _, f := range m {
			if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() {
				files = append(files, f)
			}
		}
		return files, nil
	}
	bucket, object, err := splitGCS(pattern)
	if err != nil {
		return nil, err
	}
	prefix := object
	if i := strings.IndexAny(object, "*?[\\"); i >= 0 {
		prefix = object[:i]
	}
	return listObjects(ctx, bucket, prefix, func(name string) (bool, error) {
		ok, err := path.Match(object, name)
		if err != nil {
			return false, fmt.Errorf("glob %q: %w", pattern, err)
		}
		return ok, nil
	})
}

// ListBelow lists every file below the directory dir, at any depth,
// sorted (for gs://: every object whose name starts with dir/). A missing
// directory lists nothing.
func ListBelow(ctx context.Context, dir string) ([]string, error) {
	if !IsGCS(dir) {
		var files []string
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) && p == dir {
				return fs.SkipDir
			}
			if err != nil {
				return err
			}
			if d.Type().IsRegular() {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", dir, err)
		}
		sort.Strings(files)
		return files, nil
	}
	bucket, prefix, err := splitGCS(strings.TrimRight(dir, "/") + "/")
	if err != nil {
		return nil, err
	}
	return listObjects(ctx, bucket, prefix, func(name string) (bool, error) {
		return !strings.HasSuffix(name, "/"), nil // a folder placeholder is no file
	})
}

// listObjects lists, sorted as gs:// paths, the objects of bucket whose
// names start with prefix and that keep accepts.
func listObjects(ctx context.Context, bucket, prefix string, keep func(name string) (bool, error)) ([]string, error) {
	c, err := gcsClient(ctx)
	if err != nil {
		return nil, err
	}
	it := c.Bucket(bucket).Objects(ctx, &gcs.Query{Prefix: prefix})
	var files []string
	for {
		attrs, err := it.Next()
		if errors.Is(err, iterator.Done) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("list gs://%s/%s: %w", bucket, prefix, err)
		}
		ok, err := keep(attrs.Name)
		if err != nil {
			return nil, err
		}
		if ok {
			files = append(files, "gs://"+bucket+"/"+attrs.Name)
		}
	}
	sort.Strings(files)
	return files, nil
}

// Exists reports whether the file exists.
func Exists(ctx context.Context, p string) (bool, error) {
	_, err := Size(ctx, p)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// Size returns the size of a file in bytes. A missing file gives an error
// that wraps fs.ErrNotExist.
func Size(ctx context.Context, p string) (int64, error) {
	if !IsGCS(p) {
		st, err := os.Stat(p)
		if err != nil {
			return 0, err
		}
		return st.Size(), nil
	}
	obj, err := object(ctx, p)
	if err != nil {
		return 0, err
	}
	attrs, err := obj.Attrs(ctx)
	if errors.Is(err, gcs.ErrObjectNotExist) {
		return 0, fmt.Errorf("%s: %w", p, fs.ErrNotExist)
	}
	if err != nil {
		return 0, fmt.Errorf("stat %s: %w", p, err)
	}
	return attrs.Size, nil
}

func object(ctx context.Context, p string) (*gcs.ObjectHandle, error) {
	bucket, name, err := splitGCS(p)
	if err != nil {
		return nil, err
	}
	c, err := gcsClient(ctx)
	if err != nil {
		return nil, err
	}
	return c.Bucket(bucket).Object(name), nil
}

// Open opens a file for streaming reads from its start.
func Open(ctx context.Context, p string) (io.ReadCloser, error) {
	if !IsGCS(p) {
		return os.Open(p)
	}
	obj, err := object(ctx, p)
	if err != nil {
		return nil, err
	}
	r, err := obj.NewReader(ctx)
	if errors.Is(err, gcs.ErrObjectNotExist) {
		return nil, fmt.Errorf("open %s: %w", p, fs.ErrNotExist)
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", p, err)
	}
	return r, nil
}

// ReaderAt is a random-access file: local files are *os.File; gs:// objects
// issue one ranged read per ReadAt call.
type ReaderAt interface {
	io.ReaderAt
	io.Closer
	Size() int64
	// BytesRead is the number of bytes fetched from storage so far.
	BytesRead() int64
}

// OpenReaderAt opens a file for random access.
func OpenReaderAt(ctx context.Context, p string) (ReaderAt, error) {
	if !IsGCS(p) {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("stat %s: %w", p, err)
		}
		return &localReaderAt{File: f, size: st.Size()}, nil
	}
	size, err := Size(ctx, p)
	if err != nil {
		return nil, err
	}
	obj, err := object(ctx, p)
	if err != nil {
		return nil, err
	}
	return &gcsReaderAt{ctx: context.WithoutCancel(ctx), obj: obj, name: p, size: size}, nil
}

type localReaderAt struct {
	*os.File
	size int64
	read atomic.Int64
}

func (l *localReaderAt) ReadAt(b []byte, off int64) (int, error) {
	n, err := l.File.ReadAt(b, off)
	l.read.Add(int64(n))
	return n, err
}
func (l *localReaderAt) Size() int64      { return l.size }
func (l *localReaderAt) BytesRead() int64 { return l.read.Load() }

type gcsReaderAt struct {
	ctx  context.Context
	obj  *gcs.ObjectHandle
	name string
	size int64
	read atomic.Int64
}

func (g *gcsReaderAt) ReadAt(b []byte, off int64) (int, error) {
	if off >= g.size {
		return 0, io.EOF
	}
	want := int64(len(b))
	if off+want > g.size {
		want = g.size - off
	}
	r, err := g.obj.NewRangeReader(g.ctx, off, want)
	if err != nil {
		return 0, fmt.Errorf("read %s at offset %d: %w", g.name, off, err)
	}
	defer r.Close()
	n, err := io.ReadFull(r, b[:want])
	g.read.Add(int64(n))
	if err != nil {
		return n, fmt.Errorf("read %s at offset %d: %w", g.name, off, err)
	}
	if int64(n) < int64(len(b)) {
		return n, io.EOF
	}
	return n, nil
}
func (g *gcsReaderAt) Close() error     { return nil }
func (g *gcsReaderAt) Size() int64      { return g.size }
func (g *gcsReaderAt) BytesRead() int64 { return g.read.Load() }

// Writer writes a file that appears under its name only when Close succeeds.
type Writer interface {
	io.Writer
	// Close commits the file.
	Close() error
	// Abort discards everything written; the file is not created.
	Abort()
}

// Create starts writing a file (parent directories are created as needed).
func Create(ctx context.Context, p string) (Writer, error) {
	if !IsGCS(p) {
		dir := filepath.Dir(p)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("create %s: %w", p, err)
		}
		f, err := os.CreateTemp(dir, "."+filepath.Base(p)+".tmp-*")
		if err != nil {
			return nil, fmt.Errorf("create %s: %w", p, err)
		}
		return &localWriter{f: f, final: p}, nil
	}
	obj, err := object(ctx, p)
	if err != nil {
		return nil, err
	}
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	w := obj.NewWriter(wctx)
	return &gcsWriter{w: w, cancel: cancel, name: p}, nil
}

type localWriter struct {
	f     *os.File
	final string
	done  bool
}

func (l *localWriter) Write(b []byte) (int, error) { return l.f.Write(b) }

// ReadFrom lets io.Copy from a local file copy in the kernel
// (copy_file_range), as *os.File does: the index's part files are
// concatenated that way.
func (l *localWriter) ReadFrom(r io.Reader) (int64, error) { return l.f.ReadFrom(r) }
func (l *localWriter) Close() error {
	if l.done {
		return nil
	}
	l.done = true
	// CreateTemp makes 0600 files; outputs are for sharing.
	if err := l.f.Chmod(0o644); err != nil {
		l.f.Close()
		os.Remove(l.f.Name())
		return fmt.Errorf("write %s: %w", l.final, err)
	}
	if err := l.f.Close(); err != nil {
		os.Remove(l.f.Name())
		return fmt.Errorf("write %s: %w", l.final, err)
	}
	if err := os.Rename(l.f.Name(), l.final); err != nil {
		os.Remove(l.f.Name())
		return fmt.Errorf("write %s: %w", l.final, err)
	}
	return nil
}
func (l *localWriter) Abort() {
	if !l.done {
		l.done = true
		l.f.Close()
		os.Remove(l.f.Name())
	}
}

type gcsWriter struct {
	w      *gcs.Writer
	cancel context.CancelFunc
	name   string
	done   bool
}

func (g *gcsWriter) Write(b []byte) (int, error) { return g.w.Write(b) }
func (g *gcsWriter) Close() error {
	if g.done {
		return nil
	}
	g.done = true
	defer g.cancel()
	if err := g.w.Close(); err != nil {
		return fmt.Errorf("write %s: %w", g.name, err)
	}
	return nil
}
func (g *gcsWriter) Abort() {
	if !g.done {
		g.done = true
		g.cancel() // cancelling the context aborts the upload
		g.w.Close()
	}
}

// WriteFile writes data to p atomically.
func WriteFile(ctx context.Context, p string, data []byte) error {
	w, err := Create(ctx, p)
	if err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		w.Abort()
		return fmt.Errorf("write %s: %w", p, err)
	}
	return w.Close()
}

// WriteSortedLines writes lines to p atomically, sorted, each ended by a
// newline (no lines: an empty file). It sorts a copy; lines is unchanged.
func WriteSortedLines(ctx context.Context, p string, lines []string) error {
	sorted := slices.Clone(lines)
	slices.Sort(sorted)
	n := 0
	for _, l := range sorted {
		n += len(l) + 1
	}
	b := make([]byte, 0, n)
	for _, l := range sorted {
		b = append(append(b, l...), '\n')
	}
	return WriteFile(ctx, p, b)
}

// ReadFile reads a whole (small) file.
func ReadFile(ctx context.Context, p string) ([]byte, error) {
	r, err := Open(ctx, p)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	return b, nil
}

// RemoveAll deletes a directory and everything below it (for gs://: every
// object under the prefix dir/); a missing directory is not an error.
func RemoveAll(ctx context.Context, dir string) error {
	if !IsGCS(dir) {
		return os.RemoveAll(dir)
	}
	bucket, prefix, err := splitGCS(strings.TrimRight(dir, "/") + "/")
	if err != nil {
		return err
	}
	c, err := gcsClient(ctx)
	if err != nil {
		return err
	}
	it := c.Bucket(bucket).Objects(ctx, &gcs.Query{Prefix: prefix})
	for {
		attrs, err := it.Next()
		if errors.Is(err, iterator.Done) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("list gs://%s/%s: %w", bucket, prefix, err)
		}
		if err := c.Bucket(bucket).Object(attrs.Name).Delete(ctx); err != nil && !errors.Is(err, gcs.ErrObjectNotExist) {
			return fmt.Errorf("remove gs://%s/%s: %w", bucket, attrs.Name, err)
		}
	}
}

// Remove deletes a file; a missing file is not an error.
func Remove(ctx context.Context, p string) error {
	if !IsGCS(p) {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	obj, err := object(ctx, p)
	if err != nil {
		return err
	}
	if err := obj.Delete(ctx); err != nil && !errors.Is(err, gcs.ErrObjectNotExist) {
		return fmt.Errorf("remove %s: %w", p, err)
	}
	return nil
}

// GCSObject returns the handle of a gs:// object, for the conditional
// (generation-matched) operations the API above does not offer.
func GCSObject(ctx context.Context, p string) (*gcs.ObjectHandle, error) {
	if !IsGCS(p) {
		return nil, fmt.Errorf("%s is not a gs:// path", p)
	}
	return object(ctx, p)
}

// CheckInside checks that the local file p, with every symbolic link
// followed, is inside the directory dir (its links followed too): a link in
// dir that points outside it is refused like a "../" name. gs:// paths have
// no links and are only checked to be below dir.
func CheckInside(dir, p string) error {
	if IsGCS(dir) || IsGCS(p) {
		if !strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/") {
			return fmt.Errorf("%s is not inside %s", p, dir)
		}
		return nil
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return fmt.Errorf("resolve %s: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return fmt.Errorf("resolve %s: %w", p, err)
	}
	realDir, _ = filepath.Abs(realDir)
	real, _ = filepath.Abs(real)
	rel, err := filepath.Rel(realDir, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return fmt.Errorf("%s resolves to %s, outside %s (symbolic links are followed)", p, real, dir)
	}
	return nil
}
