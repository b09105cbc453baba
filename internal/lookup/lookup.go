// Package lookup resolves URLs to their captures through a snapshot index:
// the resolveSnapshots step of the extraction (method.md, section 3), which
// joins a batch of frontier URLs (as SURT keys) with the index.
//
// One interface, [Index], and three backends, chosen by a spec string:
//
//	cdxj:FILE                         a sorted CDXJ (or CDX) file
//	zipnum:DIR                        a ZipNum index (cluster.idx + shards), or zipnum:FILE.idx
//	bigtable:PROJECT/INSTANCE/TABLE   the Bigtable index of internal/btindex
//
// FILE and DIR are local paths or gs:// URIs (zipnum:gs://bucket/prefix):
// the workers of a cluster read the index from GCS. A gs:// ZipNum index
// downloads its secondary index once and then one ranged read per block a
// look-up needs, never a whole shard.
//
// The look-up is batched because the extraction asks for K URLs per round and
// every backend is much faster per key in batches: the file backends read each
// page or block once per batch, Bigtable answers a whole batch in one ReadRows
// call. Bigtable honours BIGTABLE_EMULATOR_HOST, so the emulator works as a
// drop-in for tests.
//
// A CDXJ or ZipNum index built night by night (recrawl index --add) is a
// base and segments listed in the folder's index.files (filelist.go); the
// same specs, cdxj:DIR/index.cdxj and zipnum:DIR, read every part as one
// index, without the captures of files removed from it (segmented.go).
//
// Several named indexes (a national archive and a special collection) are
// searched as one by the multi-index of multi.go, which tags each capture
// with its archive's name.
//
// Results are the same whatever the backend: a map from each key that has
// captures to its captures, sorted by timestamp, then file name, then offset
// (a total order on distinct records, so results are deterministic). Keys
// without captures are absent from the map.
//
// The CDXJ file backend does not load big files: it binary-searches the
// sorted file through io.ReaderAt, with a small cache of file pages (the first
// steps of every search hit the same pages). Files up to a size threshold
// (default 16 MiB) are read into memory instead, which is faster and lets the
// backend check that they are sorted. A line longer than zipnum.MaxLineBytes
// (16 MiB) is no index line: opening such a file is an error naming it and
// the line's offset, found by scanning the line once.
package lookup

import (
	"context"
	"fmt"
	"os"
	"strings"

	"cloud.google.com/go/bigtable"

	"github.com/recrawl/recrawl/internal/btindex"
	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/zipnum"
)

// Index looks up the captures of many SURT keys at once.
type Index interface {
	// Lookup returns the captures of each key that has any, sorted by
	// timestamp, file name and offset.
	Lookup(ctx context.Context, keys []string) (map[string][]cdxj.Capture, error)
	Close() error
}

// Open opens the index named by an index spec (ParseSpec): "cdxj:FILE",
// "zipnum:DIR" (or "zipnum:FILE.idx") or "bigtable:PROJECT/INSTANCE/TABLE".
func Open(ctx context.Context, text string) (Index, error) {
	spec, err := ParseSpec(text)
	if err != nil {
		return nil, err
	}
	return OpenSpec(ctx, spec)
}

// OpenSpec opens the index a parsed spec names.
func OpenSpec(ctx context.Context, spec Spec) (Index, error) {
	switch spec.Kind {
	case KindCDXJ, KindZipNum:
		return openFileIndex(ctx, spec)
	case KindBigtable:
		parts := strings.Split(spec.Location, "/")
		if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
			return nil, fmt.Errorf("index %q: want bigtable:PROJECT/INSTANCE/TABLE", spec)
		}
		client, err := bigtable.NewClient(ctx, parts[0], parts[1])
		if err != nil {
			return nil, fmt.Errorf("index %q: %w", spec, err)
		}
		return &bigtableIndex{r: btindex.NewReader(client.Open(parts[2]), 0), client: client}, nil
	}
	return nil, fmt.Errorf("index %q: unknown kind %q: want cdxj:FILE, zipnum:DIR or bigtable:PROJECT/INSTANCE/TABLE", spec, spec.Kind)
}

// sortCaptures puts the captures of every key into the package's order.
func sortCaptures(m map[string][]cdxj.Capture) {
	for _, cs := range m {
		SortCaptures(cs, nil)
	}
}

// zipnumIndex is the ZipNum backend.
type zipnumIndex struct{ r *zipnum.Reader }

// NewZipNum returns an Index over an open ZipNum reader; Close closes it.
func NewZipNum(r *zipnum.Reader) Index { return zipnumIndex{r} }

func (z zipnumIndex) Lookup(ctx context.Context, keys []string) (map[string][]cdxj.Capture, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m, err := z.r.Lookup(keys)
	if err != nil {
		return nil, err
	}
	sortCaptures(m)
	return m, nil
}

func (z zipnumIndex) Close() error { return z.r.Close() }

// bigtableIndex is the Bigtable backend.
type bigtableIndex struct {
	r      *btindex.Reader
	client *bigtable.Client // closed by Close when Open created it
}

// NewBigtable returns an Index over a table of internal/btindex, through a
// client the caller owns (Close does not close it).
func NewBigtable(client *bigtable.Client, table string) Index {
	return &bigtableIndex{r: btindex.NewReader(client.Open(table), 0)}
}

func (b *bigtableIndex) Lookup(ctx context.Context, keys []string) (map[string][]cdxj.Capture, error) {
	m, err := b.r.Lookup(ctx, keys)
	if err != nil {
		return nil, err
	}
	sortCaptures(m)
	return m, nil
}

func (b *bigtableIndex) Close() error {
	if b.client == nil {
		return nil
	}
	return b.client.Close()
}

// CheckSpec checks an index spec without opening the index: its form, and
// that a local cdxj file or zipnum directory (or .idx file) exists. A
// gs:// location and a Bigtable table are left to Open.
func CheckSpec(text string) error {
	spec, err := ParseSpec(text)
	if err != nil {
		return err
	}
	if spec.Kind == KindBigtable {
		parts := strings.Split(spec.Location, "/")
		if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
			return fmt.Errorf("index %q: want bigtable:PROJECT/INSTANCE/TABLE", text)
		}
		return nil
	}
	if strings.HasPrefix(spec.Location, "gs://") {
		return nil
	}
	fi, err := os.Stat(spec.Location)
	switch {
	case err != nil:
		return fmt.Errorf("index %q: %w", text, err)
	case spec.Kind == KindCDXJ && fi.IsDir():
		return fmt.Errorf("index %q: %s is a directory; cdxj: names the index file", text, spec.Location)
	}
	return nil
}
