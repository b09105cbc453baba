package lookup

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/recrawl/recrawl/internal/storage"
)

// ManifestFile is the manifest an index run (pipelines/index) writes into
// its output folder: the files it wrote there, so that readers use only
// those, and the next run into the folder removes only those.
//
// The file is "#index-manifest<TAB>complete" (or "incomplete", written when a
// run starts and replaced when it ends), then one file name per line,
// relative to the folder, sorted. An incomplete manifest may name the run's
// temporary folder after a second tab ("#index-manifest<TAB>incomplete<TAB>
// .runs-<random>"), so that the next run removes it if the run was killed.
const ManifestFile = "index.manifest"

// RunTempDirPrefix starts the name of an index run's temporary folder in its
// output folder (".runs-" and a random suffix): the only kind of folder a
// manifest can name as a run's own.
const RunTempDirPrefix = ".runs-"

const manifestHeader = "#index-manifest\t"

// Manifest is what ManifestFile says.
type Manifest struct {
	// Complete: the run that wrote it finished; an incomplete manifest
	// is that of a run still going or one that failed.
	Complete bool
	Files    []string // file names relative to the folder, sorted
	// TempDir is the name, in the folder, of the temporary folder the run
	// made for itself (IsRunTempDirName), named only while the manifest is
	// incomplete: a run killed before it could remove the folder leaves
	// it, and the next run into the folder removes it. "": none.
	TempDir string
}

// Lists reports whether the manifest lists the file name.
func (m *Manifest) Lists(name string) bool {
	_, ok := slices.BinarySearch(m.Files, name)
	return ok
}

// ReadManifest reads dir's ManifestFile; nil (and no error) when there is
// none: a folder written before manifests, or by another tool. A name that
// is not a plain file name of dir (a path, "..") is an error: the manifest
// decides which files a run removes.
func ReadManifest(ctx context.Context, dir string) (*Manifest, error) {
	p := storage.Join(dir, ManifestFile)
	data, err := storage.ReadFile(ctx, p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("index manifest: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	m := &Manifest{}
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if n == 1 {
			state, ok := strings.CutPrefix(line, manifestHeader)
			state, tempDir, named := strings.Cut(state, "\t")
			if !ok || (state != "complete" && state != "incomplete") {
				return nil, fmt.Errorf("index manifest %s:1: %q is not %q followed by complete or incomplete", p, truncateLine(line), manifestHeader)
			}
			m.Complete = state == "complete"
			if named && (m.Complete || !IsRunTempDirName(tempDir)) {
				return nil, fmt.Errorf("index manifest %s:1: %q is not the name of an incomplete run's temporary folder (%s and letters or digits)",
					p, truncateLine(tempDir), RunTempDirPrefix)
			}
			m.TempDir = tempDir
			continue
		}
		if line == "" {
			continue
		}
		if !IsManifestName(line) {
			return nil, fmt.Errorf("index manifest %s:%d: %q is not the name of a file in the folder", p, n, truncateLine(line))
		}
		m.Files = append(m.Files, line)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("index manifest %s: %w", p, err)
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("index manifest %s: empty", p)
	}
	slices.Sort(m.Files)
	m.Files = slices.Compact(m.Files)
	return m, nil
}

// IsManifestName reports whether name can be listed in a manifest: a plain
// file name, not a path, not hidden, not the manifest itself.
func IsManifestName(name string) bool {
	return name != "" && name != ManifestFile && !strings.ContainsAny(name, "/\\\x00") &&
		!strings.HasPrefix(name, ".") && path.Base(name) == name
}

// IsRunTempDirName reports whether name can be a run's temporary folder in a
// manifest: RunTempDirPrefix followed by ASCII letters and digits only, so
// no path, no "..", nothing but a folder of the output folder itself.
func IsRunTempDirName(name string) bool {
	suffix, ok := strings.CutPrefix(name, RunTempDirPrefix)
	if !ok || suffix == "" || len(suffix) > 64 {
		return false
	}
	for _, r := range suffix {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
			return false
		}
	}
	return true
}

// WriteManifest writes dir's ManifestFile, atomically (storage.WriteFile).
func WriteManifest(ctx context.Context, dir string, m Manifest) error {
	files := slices.Clone(m.Files)
	slices.Sort(files)
	files = slices.Compact(files)
	var b strings.Builder
	b.WriteString(manifestHeader)
	switch {
	case m.TempDir != "" && (m.Complete || !IsRunTempDirName(m.TempDir)):
		return fmt.Errorf("index manifest: %q is not the name of an incomplete run's temporary folder in %s", m.TempDir, dir)
	case m.Complete:
		b.WriteString("complete\n")
	case m.TempDir != "":
		b.WriteString("incomplete\t" + m.TempDir + "\n")
	default:
		b.WriteString("incomplete\n")
	}
	for _, f := range files {
		if !IsManifestName(f) {
			return fmt.Errorf("index manifest: %q is not the name of a file in %s", f, dir)
		}
		b.WriteString(f)
		b.WriteByte('\n')
	}
	if err := storage.WriteFile(ctx, storage.Join(dir, ManifestFile), []byte(b.String())); err != nil {
		return fmt.Errorf("index manifest: %w", err)
	}
	return nil
}

// FilesOfRun returns the files of dir matching the glob pattern (a file
// name pattern, e.g. df-*.tsv) that the index run which wrote dir's
// manifest wrote. Without a manifest (a folder of another tool) every
// match counts. A match the manifest does not list was not written by that
// run: it is an error naming it, not a file used as if it were the run's,
// and so is every match while the manifest is incomplete (a run that is
// going on or failed).
func FilesOfRun(ctx context.Context, dir, pattern string) ([]string, error) {
	matches, err := storage.Glob(ctx, storage.Join(dir, pattern))
	if err != nil {
		return nil, err
	}
	m, err := ReadManifest(ctx, dir)
	if err != nil || m == nil {
		return matches, err
	}
	mp := storage.Join(dir, ManifestFile)
	var out, foreign []string
	for _, f := range matches {
		if m.Complete && m.Lists(storage.Base(f)) {
			out = append(out, f)
		} else {
			foreign = append(foreign, f)
		}
	}
	switch {
	case len(foreign) > 0 && !m.Complete:
		return nil, fmt.Errorf("%s: the index run into %s did not finish (%s says incomplete), so these may not be its files: run the index again",
			strings.Join(foreign, ", "), dir, mp)
	case len(foreign) > 0:
		return nil, fmt.Errorf("%s: not listed in %s, so not written by the index run that wrote %s: remove them, or index again into a folder of its own",
			strings.Join(foreign, ", "), mp, dir)
	}
	return out, nil
}

func truncateLine(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
