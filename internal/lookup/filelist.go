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
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
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
//	{"index_files":1,"format":"cdxj","shards":1,"lines_per_block":3000,"dictionary":true,"dictionary_min_df":2,"dictionary_sample":1,"default_language":"en"}
//
// (the settings every part was built with), then one line per archive file:
//
//	{"name":"a.warc.gz","path":"/data/a.warc.gz","size":1234,"head_sha256":"…","tail_sha256":"…","segment":"000001","removed":false}
//
// segment "" is the base (the index files in the folder itself), else the
// part in segments/<segment>/. head_sha256 and tail_sha256 are the SHA-256
// of the file's first and last IdentityBlock bytes (the whole file when it
// is smaller). It is written atomically, after the part it names is
// complete.
const FileListFile = "index.files"

// SegmentsDir is the folder of the segments in an index's folder.
const SegmentsDir = "segments"

// FileListVersion is the version of FileListFile this package writes.
const FileListVersion = 1

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
	Files  []IndexedFile
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
// none: an index of one part.
func ReadFileList(ctx context.Context, dir string) (*FileList, error) {
	p := storage.Join(dir, FileListFile)
	data, err := storage.ReadFile(ctx, p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("index file list: %w", err)
	}
	return ParseFileList(data, p)
}

// ParseFileList reads the content of a FileListFile; name is used in
// errors.
func ParseFileList(data []byte, name string) (*FileList, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	l := &FileList{}
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if n == 1 {
			if err := dec.Decode(&l.Header); err != nil {
				return nil, fmt.Errorf("index file list %s:1: header: %w", name, err)
			}
			if l.Header.Version != FileListVersion {
				return nil, fmt.Errorf("index file list %s:1: version %d, this program reads version %d", name, l.Header.Version, FileListVersion)
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
		l.Files = append(l.Files, f)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("index file list %s: %w", name, err)
	}
	if l.Header.Version == 0 {
		return nil, fmt.Errorf("index file list %s: empty", name)
	}
	return l, nil
}

// WriteFileList writes dir's FileListFile atomically (storage.WriteFile).
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
