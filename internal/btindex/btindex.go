// Package btindex stores the snapshot index (every capture of every URL) in
// Cloud Bigtable and looks up all captures of many URLs at once.
//
// One row per capture, one cell per row:
//
//	row key   SURT-KEY <space> TIMESTAMP <space> ID
//	          e.g. "com,example)/a 20160102030405 9f86d081884c7d65"
//	family    "c", qualifier "j", cell time 0, at most 1 version
//	value     the capture's CDXJ JSON block
//
// ID is a hash of the record's location (filename and offset), and the cell
// time is fixed, so loading the same capture again overwrites its cell:
// re-running a load adds no duplicates. All captures of a URL are adjacent
// rows, sorted by time; the keys are not salted, so host and domain range
// scans keep working. The index pipeline's document frequencies are stored in
// the same table, per archive file, under the reserved row-key prefix "~dff "
// (dictionary.go), and the list of the archive files the table holds under
// "~file " (files.go); these prefixes sort after every SURT key and never
// answer a capture look-up. A removed file's captures stay in the table,
// left out of every look-up, until PurgeRemoved deletes them.
//
// Reader.Lookup sends one ReadRows request per DefaultKeysPerRead keys, with
// one prefix range per key. Why this schema, and its hot spots: docs/formats.md.
package btindex

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"

	"cloud.google.com/go/bigtable"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/zipnum" // ParseLine: a fast CDXJ parser
)

const (
	// Family is the column family of the capture cells.
	Family = "c"
	// Column is the qualifier of the one cell of a capture row.
	Column = "j"
	// DefaultRowsPerBulk is the number of rows the Writer sends per ApplyBulk.
	DefaultRowsPerBulk = 1000
	// DefaultKeysPerRead is the number of keys the Reader sends per ReadRows.
	DefaultKeysPerRead = 1000
)

// cellTime is the fixed cell timestamp: rewriting a capture replaces its cell.
const cellTime = bigtable.Timestamp(0)

// RowKey returns the row key of a capture: "KEY TIMESTAMP ID".
func RowKey(c cdxj.Capture) string {
	h := sha1.New()
	h.Write([]byte(c.Filename))
	h.Write([]byte{0})
	h.Write([]byte(strconv.FormatInt(c.Offset, 10)))
	var id [8]byte
	copy(id[:], h.Sum(nil))
	return c.Key + " " + c.Timestamp + " " + hex.EncodeToString(id[:])
}

// value returns the cell value of a capture: the JSON block of its CDXJ line.
func value(c cdxj.Capture) ([]byte, error) {
	if c.Key == "" || strings.ContainsAny(c.Key, " \n") {
		return nil, fmt.Errorf("capture key %q: empty or contains a space or newline", c.Key)
	}
	if c.Timestamp == "" || strings.Trim(c.Timestamp, "0123456789") != "" {
		return nil, fmt.Errorf("capture %q: timestamp %q is not digits", c.Key, c.Timestamp)
	}
	line := c.Line()
	return []byte(line[len(c.Key)+1+len(c.Timestamp)+1:]), nil
}

// parseRow turns a row back into a capture.
func parseRow(row bigtable.Row) (cdxj.Capture, error) {
	key, rest, ok := strings.Cut(row.Key(), " ")
	ts, _, ok2 := strings.Cut(rest, " ")
	if !ok || !ok2 {
		return cdxj.Capture{}, fmt.Errorf("row %q: key is not \"SURT TIMESTAMP ID\"", row.Key())
	}
	for _, item := range row[Family] {
		if item.Column == Family+":"+Column {
			c, err := zipnum.ParseLine(key + " " + ts + " " + string(item.Value))
			if err != nil {
				return cdxj.Capture{}, fmt.Errorf("row %q: %w", row.Key(), err)
			}
			return c, nil
		}
	}
	return cdxj.Capture{}, fmt.Errorf("row %q: no %s:%s cell", row.Key(), Family, Column)
}

// EnsureTable creates the table and its column family (GC: one version) if
// they do not exist. Several workers may call it at once.
func EnsureTable(ctx context.Context, ac *bigtable.AdminClient, table string) error {
	info, err := ac.TableInfo(ctx, table)
	if status.Code(err) == codes.NotFound {
		err = ac.CreateTableFromConf(ctx, &bigtable.TableConf{
			TableID:  table,
			Families: map[string]bigtable.GCPolicy{Family: bigtable.MaxVersionsPolicy(1)},
		})
		if status.Code(err) == codes.AlreadyExists {
			err = nil // created concurrently
		}
		if err != nil {
			return fmt.Errorf("bigtable: create table %s: %w", table, err)
		}
		slog.Info("bigtable: created table", "table", table, "family", Family)
		info, err = ac.TableInfo(ctx, table)
	}
	if err != nil {
		return fmt.Errorf("bigtable: table %s: %w", table, err)
	}
	if slices.ContainsFunc(info.FamilyInfos, func(f bigtable.FamilyInfo) bool { return f.Name == Family }) {
		return nil
	}
	err = ac.CreateColumnFamilyWithConfig(ctx, table, Family, bigtable.Family{GCPolicy: bigtable.MaxVersionsPolicy(1)})
	if status.Code(err) == codes.AlreadyExists {
		err = nil
	}
	if err != nil {
		return fmt.Errorf("bigtable: table %s: create column family %s: %w", table, Family, err)
	}
	return nil
}

// Writer loads captures into a table in batches of ApplyBulk calls. Hold one
// per bundle (or goroutine): it is not safe for concurrent use. Writing the
// same capture twice, in one run or in two, leaves one cell.
type Writer struct {
	tbl     *bigtable.Table
	perBulk int
	keys    []string
	muts    []*bigtable.Mutation
	written int64
}

// NewWriter returns a writer to tbl sending rowsPerBulk rows per ApplyBulk
// (<= 0: DefaultRowsPerBulk).
func NewWriter(tbl *bigtable.Table, rowsPerBulk int) *Writer {
	if rowsPerBulk <= 0 {
		rowsPerBulk = DefaultRowsPerBulk
	}
	return &Writer{tbl: tbl, perBulk: rowsPerBulk}
}

// Add queues one capture and sends the batch when it is full.
func (w *Writer) Add(ctx context.Context, c cdxj.Capture) error {
	v, err := value(c)
	if err != nil {
		return fmt.Errorf("bigtable write: %w", err)
	}
	m := bigtable.NewMutation()
	m.Set(Family, Column, cellTime, v)
	w.keys = append(w.keys, RowKey(c))
	w.muts = append(w.muts, m)
	if len(w.keys) >= w.perBulk {
		return w.Flush(ctx)
	}
	return nil
}

// Flush sends the queued captures. The client retries transient failures of
// single rows; rows that still fail are reported (the first few by key).
func (w *Writer) Flush(ctx context.Context) error {
	if len(w.keys) == 0 {
		return nil
	}
	errs, err := w.tbl.ApplyBulk(ctx, w.keys, w.muts)
	if err != nil {
		return fmt.Errorf("bigtable write of %d rows: %w", len(w.keys), err)
	}
	var failed []error
	for i, e := range errs {
		if e != nil {
			failed = append(failed, fmt.Errorf("row %q: %w", w.keys[i], e))
		}
	}
	if len(failed) > 0 {
		n := len(failed)
		return fmt.Errorf("bigtable write: %d of %d rows failed: %w", n, len(w.keys), errors.Join(failed[:min(n, 3)]...))
	}
	w.written += int64(len(w.keys))
	w.keys, w.muts = w.keys[:0], w.muts[:0]
	return nil
}

// Close flushes; the table handle stays usable.
func (w *Writer) Close(ctx context.Context) error { return w.Flush(ctx) }

// Written returns the number of rows written so far.
func (w *Writer) Written() int64 { return w.written }

// Reader looks up captures in a table. It is safe for concurrent use.
type Reader struct {
	tbl         *bigtable.Table
	keysPerRead int
}

// NewReader returns a reader of tbl sending keysPerRead keys per ReadRows
// call (<= 0: DefaultKeysPerRead).
func NewReader(tbl *bigtable.Table, keysPerRead int) *Reader {
	if keysPerRead <= 0 {
		keysPerRead = DefaultKeysPerRead
	}
	return &Reader{tbl: tbl, keysPerRead: keysPerRead}
}

// Lookup returns the captures of each key (an exact SURT key), sorted by
// timestamp; ties keep row-key order. Keys without captures are absent, and
// so are the captures of removed files (MarkRemoved).
func (r *Reader) Lookup(ctx context.Context, keys []string) (map[string][]cdxj.Capture, error) {
	sorted := slices.Clone(keys)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	// No SURT key is empty or starts with "~"; such keys would match the
	// document-frequency rows (DictionaryPrefix).
	sorted = slices.DeleteFunc(sorted, func(k string) bool { return k == "" || k[0] == '~' })
	// Captures of removed files answer no look-up (files.go), from the
	// moment they are marked.
	removed, err := RemovedFiles(ctx, r.tbl)
	if err != nil {
		return nil, fmt.Errorf("bigtable look-up: %w", err)
	}
	out := make(map[string][]cdxj.Capture)
	// Only the latest version; no family filter: the table has one family, and
	// parseRow picks its cell (the emulator compiles a regexp per cell for a
	// family filter, which made look-ups 5x slower there).
	filter := bigtable.RowFilter(bigtable.LatestNFilter(1))
	for chunk := range slices.Chunk(sorted, r.keysPerRead) {
		ranges := make(bigtable.RowRangeList, len(chunk))
		for i, k := range chunk {
			ranges[i] = bigtable.PrefixRange(k + " ")
		}
		var perr error
		err := r.tbl.ReadRows(ctx, ranges, func(row bigtable.Row) bool {
			c, err := parseRow(row)
			if err != nil {
				perr = err
				return false
			}
			out[c.Key] = append(out[c.Key], c)
			return true
		}, filter)
		if err == nil {
			err = perr
		}
		if err != nil {
			return nil, fmt.Errorf("bigtable look-up of %d keys (%q…): %w", len(chunk), chunk[0], err)
		}
	}
	keepLive(out, removed)
	return out, nil
}
