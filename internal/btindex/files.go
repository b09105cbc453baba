package btindex

import (
	"context"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/bigtable"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/index"
)

// The file list: which archive files the table holds, one row per file,
// under a reserved row-key prefix no capture look-up reads:
//
//	row key   "~file " NAME          e.g. "~file night-2.warc.gz"
//	family    Family, cell time 0
//	cells     size, head, tail       size in bytes; hex SHA-256 of the first and last 64 KiB
//	          indexed                when its rows were written (RFC 3339, UTC)
//	          dictionary             "1" when its document frequencies are stored
//	          removed                when it was removed (RFC 3339, UTC); absent while live
//
// A removed file also has a row "~removed " NAME (cell Family:"at"): the
// look-ups read these few rows to leave its captures out.
const (
	// FilesPrefix starts the row keys of the file list.
	FilesPrefix = "~file "
	// RemovedPrefix starts the row keys of the removed files.
	RemovedPrefix = "~removed "
)

const (
	sizeColumn       = "size"
	headColumn       = "head"
	tailColumn       = "tail"
	indexedColumn    = "indexed"
	dictionaryColumn = "dictionary"
	removedColumn    = "removed"
	atColumn         = "at"
)

// FileEntry is one archive file of the file list.
type FileEntry struct {
	index.FileIdentity
	Indexed    time.Time
	Dictionary bool      // its document frequencies are in the table
	Removed    time.Time // zero while the file is live
}

// Live reports whether the file's captures answer look-ups.
func (e FileEntry) Live() bool { return e.Removed.IsZero() }

func checkFileName(name string) error {
	if name == "" || strings.ContainsAny(name, "/\n") {
		return fmt.Errorf("archive file name %q: empty, or contains a slash or newline", name)
	}
	return nil
}

// ReadFiles returns the file list by file name.
func ReadFiles(ctx context.Context, tbl *bigtable.Table) (map[string]FileEntry, error) {
	out := map[string]FileEntry{}
	var perr error
	err := tbl.ReadRows(ctx, bigtable.PrefixRange(FilesPrefix), func(row bigtable.Row) bool {
		e, err := parseFileRow(row)
		if err != nil {
			perr = err
			return false
		}
		out[e.Name] = e
		return true
	}, bigtable.RowFilter(bigtable.LatestNFilter(1)))
	if err == nil {
		err = perr
	}
	if err != nil {
		return nil, fmt.Errorf("bigtable file list: %w", err)
	}
	return out, nil
}

func parseFileRow(row bigtable.Row) (FileEntry, error) {
	e := FileEntry{FileIdentity: index.FileIdentity{Name: strings.TrimPrefix(row.Key(), FilesPrefix)}}
	var err error
	for _, item := range row[Family] {
		v := string(item.Value)
		switch strings.TrimPrefix(item.Column, Family+":") {
		case sizeColumn:
			e.Size, err = strconv.ParseInt(v, 10, 64)
		case headColumn:
			e.Head = v
		case tailColumn:
			e.Tail = v
		case indexedColumn:
			e.Indexed, err = time.Parse(time.RFC3339, v)
		case dictionaryColumn:
			e.Dictionary = v == "1"
		case removedColumn:
			e.Removed, err = time.Parse(time.RFC3339, v)
		}
		if err != nil {
			return FileEntry{}, fmt.Errorf("row %q: cell %s=%q: %w", row.Key(), item.Column, v, err)
		}
	}
	return e, nil
}

// WriteFileListState writes into w what the table's file list holds, so
// that a reader can tell an unchanged index: one line per listed file in
// name order (name, size, SHA-256 of the first and last 64 KiB, whether its
// document frequencies are stored, when it was removed), then the min_df
// the summed dictionaries are pruned with. Every --add, remove and compact
// changes it; rewriting the same rows does not. It reports false, and writes
// nothing, when the table lists no file (empty, or loaded without a file
// list): its state cannot be told then.
func WriteFileListState(ctx context.Context, tbl *bigtable.Table, w io.Writer) (bool, error) {
	files, err := ReadFiles(ctx, tbl)
	if err != nil {
		return false, err
	}
	if len(files) == 0 {
		return false, nil
	}
	minDF, err := readMinDF(ctx, tbl)
	if err != nil {
		return false, err
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		e := files[name]
		removed := "live"
		if !e.Live() {
			removed = "removed " + e.Removed.UTC().Format(time.RFC3339)
		}
		if _, err := fmt.Fprintf(w, "file %q %d %s %s dictionary=%t %s\n", e.Name, e.Size, e.Head, e.Tail, e.Dictionary, removed); err != nil {
			return false, err
		}
	}
	_, err = fmt.Fprintf(w, "min_df %d\n", minDF)
	return true, err
}

// ListFile adds a file to the file list, or updates its entry: call it
// once all of the file's rows (and, with dictionary, its document
// frequencies) are written. A dictionary cell written earlier is kept.
func ListFile(ctx context.Context, tbl *bigtable.Table, id index.FileIdentity, indexed time.Time, dictionary bool) error {
	if err := checkFileName(id.Name); err != nil {
		return fmt.Errorf("bigtable file list: %w", err)
	}
	m := bigtable.NewMutation()
	m.Set(Family, sizeColumn, cellTime, []byte(strconv.FormatInt(id.Size, 10)))
	m.Set(Family, headColumn, cellTime, []byte(id.Head))
	m.Set(Family, tailColumn, cellTime, []byte(id.Tail))
	m.Set(Family, indexedColumn, cellTime, []byte(indexed.UTC().Format(time.RFC3339)))
	if dictionary {
		m.Set(Family, dictionaryColumn, cellTime, []byte("1"))
	}
	if err := tbl.Apply(ctx, FilesPrefix+id.Name, m); err != nil {
		return fmt.Errorf("bigtable file list: list %s: %w", id.Name, err)
	}
	return nil
}

// UnlistFile takes a file off the file list (its rows stay): its document
// frequencies no longer count until it is listed again.
func UnlistFile(ctx context.Context, tbl *bigtable.Table, name string) error {
	m := bigtable.NewMutation()
	m.DeleteRow()
	if err := tbl.Apply(ctx, FilesPrefix+name, m); err != nil {
		return fmt.Errorf("bigtable file list: unlist %s: %w", name, err)
	}
	return nil
}

// MarkRemoved removes a listed file: from the moment it returns, look-ups
// leave out its captures and the dictionary its document frequencies. Its
// rows stay until PurgeRemoved. Removing a removed file changes nothing.
func MarkRemoved(ctx context.Context, tbl *bigtable.Table, name string, at time.Time) error {
	files, err := ReadFiles(ctx, tbl)
	if err != nil {
		return err
	}
	e, ok := files[name]
	if !ok {
		return fmt.Errorf("bigtable: %s is not in the file list of the table", name)
	}
	if !e.Live() {
		return nil
	}
	stamp := []byte(at.UTC().Format(time.RFC3339))
	// The look-ups' row first: once it is written, the captures are gone.
	m := bigtable.NewMutation()
	m.Set(Family, atColumn, cellTime, stamp)
	if err := tbl.Apply(ctx, RemovedPrefix+name, m); err != nil {
		return fmt.Errorf("bigtable: remove %s: %w", name, err)
	}
	m = bigtable.NewMutation()
	m.Set(Family, removedColumn, cellTime, stamp)
	if err := tbl.Apply(ctx, FilesPrefix+name, m); err != nil {
		return fmt.Errorf("bigtable: remove %s: file list: %w", name, err)
	}
	return nil
}

// RemovedFiles returns the names of the removed files (the "~removed "
// rows, read without their values).
func RemovedFiles(ctx context.Context, tbl *bigtable.Table) (map[string]bool, error) {
	out := map[string]bool{}
	err := tbl.ReadRows(ctx, bigtable.PrefixRange(RemovedPrefix), func(row bigtable.Row) bool {
		out[strings.TrimPrefix(row.Key(), RemovedPrefix)] = true
		return true
	}, bigtable.RowFilter(bigtable.StripValueFilter()))
	if err != nil {
		return nil, fmt.Errorf("bigtable removed files: %w", err)
	}
	return out, nil
}

// PurgeStats counts what PurgeRemoved deleted.
type PurgeStats struct {
	Files, CaptureRows, DictionaryRows int
}

// PurgeRemoved deletes the rows of every removed file: its captures (a
// scan of the whole table: the row keys do not name the file, the cell
// does), its document frequencies and, last, its file-list entry, so that
// a file of the same name can be added again. A purge killed halfway is
// finished by the next one.
func PurgeRemoved(ctx context.Context, tbl *bigtable.Table) (PurgeStats, error) {
	var st PurgeStats
	removed, err := RemovedFiles(ctx, tbl)
	if err != nil || len(removed) == 0 {
		return st, err
	}
	var keys []string
	var perr error
	// Captures: rows before the reserved "~" prefixes.
	err = tbl.ReadRows(ctx, bigtable.NewRange("", "~"), func(row bigtable.Row) bool {
		c, err := parseRow(row)
		if err != nil {
			perr = err
			return false
		}
		if removed[c.Filename] {
			keys = append(keys, row.Key())
		}
		return true
	}, bigtable.RowFilter(purgeFilter(removed)))
	if err == nil {
		err = perr
	}
	if err != nil {
		return st, fmt.Errorf("bigtable purge: scan the captures: %w", err)
	}
	if err := deleteRows(ctx, tbl, keys); err != nil {
		return st, fmt.Errorf("bigtable purge: %w", err)
	}
	st.CaptureRows = len(keys)
	keys = keys[:0]
	err = tbl.ReadRows(ctx, bigtable.PrefixRange(FileDictionaryPrefix), func(row bigtable.Row) bool {
		if _, file, _, ok := parseFileDictionaryKey(row.Key()); ok && removed[file] {
			keys = append(keys, row.Key())
		}
		return true
	}, bigtable.RowFilter(bigtable.StripValueFilter()))
	if err != nil {
		return st, fmt.Errorf("bigtable purge: scan the document frequencies: %w", err)
	}
	if err := deleteRows(ctx, tbl, keys); err != nil {
		return st, fmt.Errorf("bigtable purge: %w", err)
	}
	st.DictionaryRows = len(keys)
	for name := range removed {
		if err := deleteRows(ctx, tbl, []string{FilesPrefix + name, RemovedPrefix + name}); err != nil {
			return st, fmt.Errorf("bigtable purge of %s: %w", name, err)
		}
		st.Files++
	}
	return st, nil
}

// plainFileName matches the file names a purge can look for on the
// server: characters that a CDXJ line writes as they are.
var plainFileName = regexp.MustCompile(`^[A-Za-z0-9._+=,@-]+$`)

// purgeFilter keeps the latest cell, and, when every removed file has a
// plain name, only the cells that mention one of them (the server sends
// fewer rows; the caller still checks the parsed file name).
func purgeFilter(removed map[string]bool) bigtable.Filter {
	var alts []string
	for name := range removed {
		if !plainFileName.MatchString(name) {
			return bigtable.LatestNFilter(1)
		}
		alts = append(alts, regexp.QuoteMeta(name))
	}
	return bigtable.ChainFilters(bigtable.LatestNFilter(1),
		bigtable.ValueFilter(`(?s).*"(`+strings.Join(alts, "|")+`)".*`))
}

// deleteRows deletes whole rows, DefaultRowsPerBulk at a time.
func deleteRows(ctx context.Context, tbl *bigtable.Table, keys []string) error {
	for start := 0; start < len(keys); start += DefaultRowsPerBulk {
		chunk := keys[start:min(len(keys), start+DefaultRowsPerBulk)]
		muts := make([]*bigtable.Mutation, len(chunk))
		for i := range muts {
			muts[i] = bigtable.NewMutation()
			muts[i].DeleteRow()
		}
		errs, err := tbl.ApplyBulk(ctx, chunk, muts)
		if err != nil {
			return fmt.Errorf("delete %d rows (%q…): %w", len(chunk), chunk[0], err)
		}
		for i, e := range errs {
			if e != nil {
				return fmt.Errorf("delete row %q: %w", chunk[i], e)
			}
		}
	}
	return nil
}

// keepLive drops from m the captures of removed files.
func keepLive(m map[string][]cdxj.Capture, removed map[string]bool) {
	if len(removed) == 0 {
		return
	}
	for k, cs := range m {
		kept := cs[:0]
		for _, c := range cs {
			if !removed[c.Filename] {
				kept = append(kept, c)
			}
		}
		if len(kept) == 0 {
			delete(m, k)
		} else {
			m[k] = kept
		}
	}
}
