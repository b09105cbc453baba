package lookup

// An index that grows night by night (pipelines/index --add): the base
// index in its folder, written as a full build writes it, and one sorted
// segment per night in DIR/segments/NNNNNN/, each with the layout of a full
// build (index.cdxj or the ZipNum files, df-LANG.tsv). The folder's
// FileListFile lists every archive file the index holds, which part holds
// its captures, and whether it was removed. Look-ups read the base and the
// listed segments as one index (segmented.go); a folder without the file is
// an index of one part, as a full build writes it.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"slices"
	"strconv"

	"github.com/recrawl/recrawl/internal/index"
	"github.com/recrawl/recrawl/internal/storage"
)

// FileListFile is the list of the archive files an index holds, in the
// index's folder.
//
// The file is JSON lines. The first line is the header:
//
//	{"index_files":2,"format":"cdxj","shards":1,"lines_per_block":3000,"dictionary":true,"dictionary_min_df":2,"dictionary_sample":1,"default_language":"en"}
//
// (the settings every part was built with), then one line per archive file:
//
//	{"name":"a.warc.gz","path":"/data/a.warc.gz","size":1234,"head_sha256":"…","tail_sha256":"…","segment":"000001","removed":false}
//
// segment "" is the base (the index files in the folder itself), else the
// part in segments/<segment>/. head_sha256 and tail_sha256 are the SHA-256
// of the file's first and last IdentityBlock bytes (the whole file when it
// is smaller).
//
// It only grows: the files of a new part are appended once the part is
// complete, and a removal is appended as the file's line again with
// "removed":true (a tombstone: it marks the earlier line of that name and
// segment removed). `index compact` writes it anew, compacted, atomically.
// Every line ends with a newline, so a line cut short by a crash is the
// bytes after the last newline: readers ignore it (with a warning), and
// the next append cuts it off first. A gs:// list, which cannot be
// appended to, is written whole each time.
const FileListFile = "index.files"

// SegmentsDir is the folder of the segments in an index's folder.
const SegmentsDir = "segments"

// FileListVersion is the version of FileListFile this package writes.
// Version 1, written whole each time and without tombstones, is read too,
// and written anew as version 2 by the first append.
const FileListVersion = 2

// IdentityBlock is the size of the blocks at the start and end of an
// archive file that identify it with its name and size.
const IdentityBlock = index.IdentityBlockBytes

// FileListHeader is the first line of FileListFile: the settings the
// index's parts are built with.
type FileListHeader struct {
	Version          int     `json:"index_files"`
	Format           string  `json:"format"`
	Shards           int     `json:"shards"`
	LinesPerBlock    int     `json:"lines_per_block"`
	Dictionary       bool    `json:"dictionary"`
	DictionaryMinDF  int64   `json:"dictionary_min_df,omitempty"`
	DictionarySample float64 `json:"dictionary_sample,omitempty"`
	DefaultLanguage  string  `json:"default_language,omitempty"`
}

// FileIdentity identifies an archive file: its base name, size and the
// checksums of its first and last blocks.
type FileIdentity struct {
	Name       string `json:"name"`
	Size       int64  `json:"size"`
	HeadSHA256 string `json:"head_sha256"`
	TailSHA256 string `json:"tail_sha256"`
}

// IndexedFile is one line of FileListFile after the header.
type IndexedFile struct {
	Name       string `json:"name"`
	Path       string `json:"path"` // where it was indexed from
	Size       int64  `json:"size"`
	HeadSHA256 string `json:"head_sha256"`
	TailSHA256 string `json:"tail_sha256"`
	Segment    string `json:"segment"` // "" for the base
	Removed    bool   `json:"removed"`
}

// Identity is the file's identity as recorded.
func (f IndexedFile) Identity() FileIdentity {
	return FileIdentity{Name: f.Name, Size: f.Size, HeadSHA256: f.HeadSHA256, TailSHA256: f.TailSHA256}
}

// FileList is what FileListFile says.
type FileList struct {
	Header FileListHeader
	Files  []IndexedFile // tombstones applied: a removed file is marked Removed

	// known: the list was read from its file or written whole, and whole
	// is the length of the file's complete lines; torn, the bytes after
	// them, of a line cut short.
	known bool
	whole int64
	torn  int
}

// Segments returns the names of the segments the list names, in order
// (base not included).
func (l *FileList) Segments() []string {
	var out []string
	for _, f := range l.Files {
		if f.Segment != "" {
			out = append(out, f.Segment)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// HasBase reports whether the base (the index files of the folder itself)
// is a part of the index: some file, removed or not, is held there.
func (l *FileList) HasBase() bool {
	return slices.ContainsFunc(l.Files, func(f IndexedFile) bool { return f.Segment == "" })
}

// Held returns the file of that name that is not removed, if any.
func (l *FileList) Held(name string) (IndexedFile, bool) {
	for _, f := range l.Files {
		if f.Name == name && !f.Removed {
			return f, true
		}
	}
	return IndexedFile{}, false
}

// Removed returns, for each part ("" for the base), the names of its files
// that are removed: their captures are left out of look-ups.
func (l *FileList) Removed() map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for _, f := range l.Files {
		if !f.Removed {
			continue
		}
		if out[f.Segment] == nil {
			out[f.Segment] = map[string]bool{}
		}
		out[f.Segment][f.Name] = true
	}
	return out
}

// SegmentDir is the folder of a part of the index in dir: dir itself for
// the base.
func SegmentDir(dir, segment string) string {
	if segment == "" {
		return dir
	}
	return storage.Join(dir, SegmentsDir, segment)
}

// SegmentName is the name of the n-th segment: six digits.
func SegmentName(n int) string { return fmt.Sprintf("%06d", n) }

// IsSegmentName reports whether name is a segment's name (digits only).
func IsSegmentName(name string) bool {
	if name == "" || len(name) > 12 {
		return false
	}
	_, err := strconv.ParseUint(name, 10, 64)
	return err == nil
}

// ReadFileList reads dir's FileListFile; nil (and no error) when there is
// none: an index of one part. A last line cut short (by a crash while it
// was appended) is left out with a warning; the next append removes it.
func ReadFileList(ctx context.Context, dir string) (*FileList, error) {
	p := storage.Join(dir, FileListFile)
	data, err := storage.ReadFile(ctx, p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("index file list: %w", err)
	}
	l, err := ParseFileList(data, p)
	if err != nil {
		return nil, err
	}
	if l.torn > 0 {
		slog.Warn("the index file list ends with a line cut short, left out: the run that appended it did not finish; the next run that appends to the list removes it",
			"file", p, "offset", l.whole, "bytes", l.torn)
	}
	return l, nil
}

// ParseFileList reads the content of a FileListFile; name is used in
// errors. The bytes after the last newline are a line cut short and are
// left out (FileList.TornBytes).
func ParseFileList(data []byte, name string) (*FileList, error) {
	whole := bytes.LastIndexByte(data, '\n') + 1
	l := &FileList{known: true, whole: int64(whole), torn: len(data) - whole}
	held := map[[2]string]int{} // name and segment of a file not removed → index in l.Files
	for n, line := range bytes.Split(data[:whole], []byte{'\n'}) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		n++
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if l.Header.Version == 0 {
			if err := dec.Decode(&l.Header); err != nil {
				return nil, fmt.Errorf("index file list %s:%d: header: %w", name, n, err)
			}
			if l.Header.Version != 1 && l.Header.Version != FileListVersion {
				return nil, fmt.Errorf("index file list %s:%d: version %d, this program reads versions 1 and %d", name, n, l.Header.Version, FileListVersion)
			}
			continue
		}
		var f IndexedFile
		if err := dec.Decode(&f); err != nil {
			return nil, fmt.Errorf("index file list %s:%d: %w", name, n, err)
		}
		switch {
		case !IsManifestName(f.Name):
			return nil, fmt.Errorf("index file list %s:%d: %q is not a file name", name, n, f.Name)
		case f.Segment != "" && !IsSegmentName(f.Segment):
			return nil, fmt.Errorf("index file list %s:%d: segment %q is not a segment's name (digits)", name, n, f.Segment)
		}
		id := [2]string{f.Name, f.Segment}
		if i, ok := held[id]; ok && f.Removed { // a tombstone
			l.Files[i].Removed = true
			delete(held, id)
			continue
		}
		if !f.Removed {
			held[id] = len(l.Files)
		}
		l.Files = append(l.Files, f)
	}
	if l.Header.Version == 0 {
		return nil, fmt.Errorf("index file list %s: empty", name)
	}
	return l, nil
}

// TornBytes returns the length of the line cut short at the end of the
// list as read (0: none).
func (l *FileList) TornBytes() int { return l.torn }

// WriteFileList writes dir's FileListFile whole, atomically
// (storage.WriteFile): the list of a new index, and that of a compacted
// one.
func WriteFileList(ctx context.Context, dir string, l *FileList) error {
	var b bytes.Buffer
	h := l.Header
	h.Version = FileListVersion
	enc := json.NewEncoder(&b)
	if err := enc.Encode(h); err != nil {
		return fmt.Errorf("index file list: %w", err)
	}
	for _, f := range l.Files {
		if err := enc.Encode(f); err != nil {
			return fmt.Errorf("index file list: %s: %w", f.Name, err)
		}
	}
	if err := storage.WriteFile(ctx, storage.Join(dir, FileListFile), b.Bytes()); err != nil {
		return fmt.Errorf("index file list: %w", err)
	}
	l.Header.Version = FileListVersion
	l.known, l.whole, l.torn = true, int64(b.Len()), 0
	return nil
}

// AppendFiles appends the lines of files (new files, or tombstones: a
// held file's line with Removed set) to dir's FileListFile, which l was
// read from, and applies them to l. A line cut short at its end is cut off
// first, with a log line. The lines are written with one write and synced;
// a crash during it leaves a line cut short, which readers ignore. A list
// of version 1 or on gs:// is written whole instead.
func AppendFiles(ctx context.Context, dir string, l *FileList, files []IndexedFile) error {
	apply := func() {
		for _, f := range files {
			if f.Removed {
				if i := slices.IndexFunc(l.Files, func(h IndexedFile) bool { return h.Name == f.Name && h.Segment == f.Segment && !h.Removed }); i >= 0 {
					l.Files[i].Removed = true
					continue
				}
			}
			l.Files = append(l.Files, f)
		}
	}
	p := storage.Join(dir, FileListFile)
	if storage.IsGCS(dir) || l.Header.Version != FileListVersion || !l.known {
		apply()
		return WriteFileList(ctx, dir, l)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, f := range files {
		if err := enc.Encode(f); err != nil {
			return fmt.Errorf("index file list: %s: %w", f.Name, err)
		}
	}
	fh, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("index file list: %w", err)
	}
	if err := appendLines(fh, l, b.Bytes()); err != nil {
		fh.Close()
		return fmt.Errorf("index file list %s: %w", p, err)
	}
	if err := fh.Close(); err != nil {
		return fmt.Errorf("index file list %s: %w", p, err)
	}
	apply()
	return nil
}

// appendLines writes lines at the end of the complete lines of the list
// in f, cutting off a line cut short there, and syncs.
func appendLines(f *os.File, l *FileList, lines []byte) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if st.Size() != l.whole+int64(l.torn) {
		return fmt.Errorf("is %d bytes, %d when it was read: changed by another program", st.Size(), l.whole+int64(l.torn))
	}
	if l.torn > 0 {
		if err := f.Truncate(l.whole); err != nil {
			return fmt.Errorf("cut off the line cut short at byte %d: %w", l.whole, err)
		}
		slog.Warn("cut off the line cut short at the end of the index file list", "file", f.Name(), "offset", l.whole, "bytes", l.torn)
	}
	if _, err := f.WriteAt(lines, l.whole); err != nil {
		return fmt.Errorf("append at byte %d: %w", l.whole, err)
	}
	if err := f.Sync(); err != nil {
		return err
	}
	l.whole, l.torn = l.whole+int64(len(lines)), 0
	return nil
}

// IdentifyFile reads the identity of an archive file (local or gs://): its
// base name, size and the SHA-256 of its first and last IdentityBlock
// bytes, as index.IdentifyFile computes it for every kind of index.
func IdentifyFile(ctx context.Context, p string) (FileIdentity, error) {
	id, err := index.IdentifyFile(ctx, p)
	if err != nil {
		return FileIdentity{}, err
	}
	return FileIdentity{Name: id.Name, Size: id.Size, HeadSHA256: id.Head, TailSHA256: id.Tail}, nil
}
