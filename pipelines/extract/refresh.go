package extract

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/recrawl/recrawl/internal/btindex"
	"github.com/recrawl/recrawl/internal/evaluate"
	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/extract/roundstate"
	"github.com/recrawl/recrawl/internal/lookup"
	"github.com/recrawl/recrawl/internal/storage"
	"github.com/recrawl/recrawl/pipelines/extract/engine"
)

// refreshableFields are the spec fields a refresh may change: when the
// extraction stops. Any other change is another extraction.
var refreshableFields = map[string]bool{"target_size": true, "max_rounds": true, "stop_after_empty_rounds": true}

// refreshedJob is the job a refresh continues with: the job stored in
// work (its reference texts, calibrated gate and every setting), with the
// command line's indexes, archive locations, dictionaries, join and
// stopping fields. A spec that differs from the stored one in any other
// field, or other archive names or --on_missing_archive_file, is refused
// with an error naming the field.
func refreshedJob(ctx context.Context, job *extract.Job, work string) (*extract.Job, error) {
	p := storage.Join(work, roundstate.JobFile)
	data, err := storage.ReadFile(ctx, p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("--refresh: %s holds no extraction (no %s); run the extraction without --refresh first", work, roundstate.JobFile)
	}
	if err != nil {
		return nil, err
	}
	stored, err := extract.UnmarshalJob(string(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	if field, err := specDifference(stored, job); err != nil {
		return nil, err
	} else if field != "" {
		return nil, fmt.Errorf("--refresh: the specification's %s differs from the extraction's in %s; a refresh may change only %s (use another --output for another extraction)",
			field, work, strings.Join(sortedKeys(refreshableFields), ", "))
	}
	if a, b := sourceNames(stored), sourceNames(job); !reflect.DeepEqual(a, b) {
		return nil, fmt.Errorf("--refresh: the archives are named %q, the extraction's in %s %q", b, work, a)
	}
	if stored.OnMissingFile != job.OnMissingFile {
		return nil, fmt.Errorf("--refresh: --on_missing_archive_file=%s, the extraction's in %s is %s", job.OnMissingFile, work, stored.OnMissingFile)
	}
	out := *stored
	out.Spec = job.Spec
	out.Sources = job.Sources
	out.Dictionaries, out.SummedDictionaries, out.DictionaryData = job.Dictionaries, job.SummedDictionaries, job.DictionaryData
	out.JoinMode = job.JoinMode
	return &out, nil
}

// specDifference names the first field (a dotted path, in sorted order)
// in which the two jobs' specs differ, other than refreshableFields.
func specDifference(stored, job *extract.Job) (string, error) {
	var a, b map[string]any
	for _, x := range []struct {
		job *extract.Job
		to  *map[string]any
	}{{stored, &a}, {job, &b}} {
		data, err := json.Marshal(x.job.Spec)
		if err != nil {
			return "", fmt.Errorf("encode spec: %w", err)
		}
		if err := json.Unmarshal(data, x.to); err != nil {
			return "", fmt.Errorf("decode spec: %w", err)
		}
	}
	for k := range refreshableFields {
		delete(a, k)
		delete(b, k)
	}
	return firstDifference("", a, b), nil
}

// firstDifference is the dotted path of the first differing value of two
// decoded JSON values, "" when they are equal.
func firstDifference(path string, a, b any) string {
	ma, okA := a.(map[string]any)
	mb, okB := b.(map[string]any)
	if !okA || !okB {
		if reflect.DeepEqual(a, b) {
			return ""
		}
		return path
	}
	keys := map[string]bool{}
	for k := range ma {
		keys[k] = true
	}
	for k := range mb {
		keys[k] = true
	}
	for _, k := range sortedKeys(keys) {
		sub := k
		if path != "" {
			sub = path + "." + k
		}
		if d := firstDifference(sub, ma[k], mb[k]); d != "" {
			return d
		}
	}
	return ""
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func sourceNames(j *extract.Job) []string {
	names := make([]string, len(j.Sources))
	for i, s := range j.Sources {
		names[i] = s.Name
	}
	return names
}

// IndexState is a digest of what the job's indexes hold, so that a
// refresh can tell an index that did not change: for each index, in order,
// the content of index.files when the index's directory (local or gs://)
// has one (the list of the files an incremental index holds), else the
// name, size and modification time of every file of the index (the CDXJ
// file, or every file of the ZipNum directory; sizes only on gs://); for a
// Bigtable index,
// the table's file list (btindex.WriteFileListState: names, sizes,
// checksums, removals, min_df). A Bigtable index that lists no file has no
// state it can be told by: IndexState is then "", and every refresh
// resolves the missing URLs again.
func IndexState(ctx context.Context, sources []extract.Source) (string, error) {
	h := sha256.New()
	for _, s := range sources {
		spec, err := lookup.ParseSpec(s.Index)
		if err != nil {
			return "", fmt.Errorf("--index %s: %w", s.Index, err)
		}
		fmt.Fprintf(h, "index %s %s\n", s.Name, s.Index)
		if spec.Kind == lookup.KindBigtable {
			known, err := hashBigtableFiles(ctx, h, spec.Location)
			if err != nil {
				return "", fmt.Errorf("index state of %s: %w", s.Index, err)
			}
			if !known {
				slog.Info("the Bigtable index lists no file: a refresh resolves the missing URLs again", "index", s.Index)
				return "", nil
			}
			continue
		}
		if err := hashIndexFiles(ctx, h, spec.Path()); err != nil {
			return "", fmt.Errorf("index state of %s: %w", s.Index, err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// hashBigtableFiles writes the file list of the table PROJECT/INSTANCE/TABLE
// into h; false when the table lists no file.
func hashBigtableFiles(ctx context.Context, h io.Writer, table string) (bool, error) {
	client, tbl, err := btindex.Open(ctx, table)
	if err != nil {
		return false, err
	}
	defer client.Close()
	return btindex.WriteFileListState(ctx, tbl, h)
}

// hashIndexFiles writes what the index at p holds into h (see IndexState).
func hashIndexFiles(ctx context.Context, h interface{ Write([]byte) (int, error) }, p string) error {
	if storage.IsGCS(p) {
		return hashGCSIndexFiles(ctx, h, p)
	}
	info, err := os.Stat(p)
	if err != nil {
		return err
	}
	dir := p
	if !info.IsDir() {
		dir = filepath.Dir(p)
	}
	if list, err := os.ReadFile(filepath.Join(dir, lookup.FileListFile)); err == nil {
		h.Write(list)
		return nil
	}
	return filepath.WalkDir(p, func(f string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(p, f)
		fmt.Fprintf(h, "%s %d %d\n", filepath.ToSlash(rel), fi.Size(), fi.ModTime().UnixNano())
		return nil
	})
}

// hashGCSIndexFiles is hashIndexFiles for an index on gs://: the content
// of index.files in the index's folder (p, or the folder of the object p),
// else the name and size of every object of the index.
func hashGCSIndexFiles(ctx context.Context, h interface{ Write([]byte) (int, error) }, p string) error {
	isObject, err := storage.Exists(ctx, p)
	if err != nil {
		return err
	}
	dir := p
	if isObject {
		dir = storage.Dir(p)
	}
	list, err := storage.ReadFile(ctx, storage.Join(dir, lookup.FileListFile))
	if err == nil {
		h.Write(list)
		return nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	files, err := storage.Glob(ctx, p)
	if err != nil {
		return err
	}
	more, err := storage.Glob(ctx, storage.Join(p, "*"))
	if err != nil {
		return err
	}
	files = append(files, more...)
	sort.Strings(files)
	for _, f := range files {
		size, err := storage.Size(ctx, f)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %d\n", f, size)
	}
	return nil
}

// readRefreshLabels reads --labels_file: the format of evaluate.ReadLabels
// (url, url<TAB>grade or url<TAB>event<TAB>grade lines, or a header naming
// the columns; every event's lines count), with the file's sha256. A
// malformed line is an error naming the file and line; a file without a
// label is an error.
func readRefreshLabels(path string) (*engine.Labels, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--labels_file: %w", err)
	}
	labels, err := evaluate.ReadLabels(path, "")
	if err != nil {
		return nil, fmt.Errorf("--labels_file: %w", err)
	}
	if len(labels.Items) == 0 {
		return nil, fmt.Errorf("--labels_file: %s holds no label", path)
	}
	sum := sha256.Sum256(data)
	out := &engine.Labels{Path: path, SHA256: hex.EncodeToString(sum[:]), Grades: map[string]float64{}, URLs: map[string]string{}}
	for _, l := range labels.Items {
		out.Grades[l.Key], out.URLs[l.Key] = l.Grade, l.URL
	}
	return out, nil
}
