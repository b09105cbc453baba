package lookup

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	gcs "cloud.google.com/go/storage"

	"github.com/recrawl/recrawl/internal/testkit/testservers"
	"github.com/recrawl/recrawl/internal/zipnum"
)

// uploadDir copies the regular files of dir to gs://bucket/prefix/, leaving
// out the names in skip.
func uploadDir(t *testing.T, c *gcs.Client, dir, bucket, prefix string, skip ...string) {
	t.Helper()
	ctx := context.Background()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || slices.Contains(skip, e.Name()) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		w := c.Bucket(bucket).Object(prefix + "/" + e.Name()).NewWriter(ctx)
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatalf("upload %s to gs://%s/%s: %v", e.Name(), bucket, prefix, err)
		}
	}
}

// TestZipNumOnGCS puts a ZipNum index on fake-gcs-server (started through
// testservers.GCS, in process) and looks keys up through Open("zipnum:gs://…"),
// the way the workers of a cluster do. The results must be those of the same
// index read from local files, and a look-up of a few keys must download
// only the blocks it needs: the test counts the bytes on the wire, through
// a proxy in front of the emulator, and holds them against the index's size.
//
// internal/storage's GCS client is created on first use of a gs:// path in
// the process and reads STORAGE_EMULATOR_HOST then; this is the only test of
// the package that uses one.
func TestZipNumOnGCS(t *testing.T) {
	emulator := testservers.GCS(t)
	ctx := context.Background()

	// 100,000 captures in blocks of 300 lines, 4 shards: about 340 blocks.
	c := genCorpus(100000, 11)
	local := filepath.Join(t.TempDir(), "zipnum")
	const linesPerBlock = 300
	if err := zipnum.Build(local, zipnum.Lines(c.lines), len(c.lines)/4+1, linesPerBlock); err != nil {
		t.Fatal(err)
	}
	var indexSize int64
	files, _ := os.ReadDir(local)
	for _, f := range files {
		info, err := f.Info()
		if err != nil {
			t.Fatal(err)
		}
		indexSize += info.Size()
	}

	// Upload straight to the emulator; everything the code under test reads
	// goes through the counting proxy.
	t.Setenv("STORAGE_EMULATOR_HOST", emulator)
	uploader, err := gcs.NewClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer uploader.Close()
	if err := uploader.Bucket("recrawl-index").Create(ctx, "test-project", nil); err != nil {
		t.Fatalf("create bucket: %v", err)
	}
	uploadDir(t, uploader, local, "recrawl-index", "zipnum")
	// Common Crawl's layout: no location file, the shards next to cluster.idx.
	uploadDir(t, uploader, local, "recrawl-index", "cc/cdx", "cluster.loc")
	proxy := testservers.StartCountingProxy(t, emulator)
	t.Setenv("STORAGE_EMULATOR_HOST", proxy.Addr())

	// A few keys: one with hundreds of captures (it spans blocks), some with
	// a few, one absent.
	var keys []string
	for _, k := range c.keys {
		if len(c.want[k]) > linesPerBlock {
			keys = append(keys, k)
			break
		}
	}
	if len(keys) == 0 {
		t.Fatalf("the corpus has no key with more than %d captures", linesPerBlock)
	}
	for i := 1; i <= 5; i++ {
		if k := c.keys[i*len(c.keys)/7]; !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	present := len(keys)
	keys = append(keys, "zz,absent)/nothing")

	localIdx, err := Open(ctx, "zipnum:"+local)
	if err != nil {
		t.Fatal(err)
	}
	defer localIdx.Close()
	want, err := localIdx.Lookup(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != present {
		t.Fatalf("the local index found %d of the %d present keys", len(want), present)
	}
	for k, cs := range want {
		if !reflect.DeepEqual(cs, c.want[k]) {
			t.Fatalf("local index, key %q: %d captures, want %d", k, len(cs), len(c.want[k]))
		}
	}

	for _, spec := range []string{
		"zipnum:gs://recrawl-index/zipnum",             // a prefix with cluster.idx and cluster.loc
		"zipnum:gs://recrawl-index/zipnum/",            // the same, as a directory
		"zipnum:gs://recrawl-index/zipnum/cluster.idx", // the secondary index named
		"zipnum:gs://recrawl-index/cc/cdx",             // no cluster.loc: shards next to the index
	} {
		t.Run(strings.TrimPrefix(spec, "zipnum:gs://recrawl-index/"), func(t *testing.T) {
			before := proxy.Downloaded()
			idx, err := Open(ctx, spec)
			if err != nil {
				t.Fatal(err)
			}
			defer idx.Close()
			got, err := idx.Lookup(ctx, keys)
			if err != nil {
				t.Fatal(err)
			}
			downloaded := proxy.Downloaded() - before
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: %d keys found, the local index %d (or their captures differ)", spec, len(got), len(want))
			}
			t.Logf("%s: looked up %d keys, downloaded %d bytes (secondary index, blocks, HTTP) of an index of %d bytes: %.1f%%",
				spec, len(keys), downloaded, indexSize, 100*float64(downloaded)/float64(indexSize))
			if downloaded*20 > indexSize {
				t.Errorf("%s: a look-up of %d keys downloaded %d bytes, more than 5%% of the index's %d bytes: it reads more than the blocks it needs",
					spec, len(keys), downloaded, indexSize)
			}
		})
	}

	// The reader's own accounting: the same blocks as from local files.
	t.Run("ReaderCounters", func(t *testing.T) {
		lr, err := zipnum.Open(local, zipnum.Options{CacheBytes: -1})
		if err != nil {
			t.Fatal(err)
		}
		defer lr.Close()
		before := proxy.Downloaded()
		gr, err := zipnum.OpenContext(ctx, "gs://recrawl-index/zipnum", zipnum.Options{CacheBytes: -1})
		if err != nil {
			t.Fatal(err)
		}
		defer gr.Close()
		lgot, err := lr.Lookup(keys)
		if err != nil {
			t.Fatal(err)
		}
		ggot, err := gr.Lookup(keys)
		if err != nil {
			t.Fatal(err)
		}
		downloaded := proxy.Downloaded() - before
		if !reflect.DeepEqual(ggot, lgot) {
			t.Errorf("gs:// reader: %d keys, local reader %d (or their captures differ)", len(ggot), len(lgot))
		}
		if gr.BlocksRead() != lr.BlocksRead() || gr.BytesRead() != lr.BytesRead() {
			t.Errorf("gs:// reader read %d blocks, %d bytes; the local reader %d blocks, %d bytes",
				gr.BlocksRead(), gr.BytesRead(), lr.BlocksRead(), lr.BytesRead())
		}
		// Each key's blocks, plus the one before: at most 3 per key here.
		if gr.BlocksRead() == 0 || gr.BlocksRead() > int64(3*len(keys)) {
			t.Errorf("read %d of %d blocks for %d keys", gr.BlocksRead(), gr.Blocks(), len(keys))
		}
		if min := gr.IndexBytes() + gr.BytesRead(); downloaded < min {
			t.Errorf("the network carried %d bytes, less than the %d bytes of secondary index and blocks the reader says it read", downloaded, min)
		}
		t.Logf("gs:// reader: %d of %d blocks, %d block bytes + %d bytes of cluster.idx; %d bytes on the wire; index %d bytes",
			gr.BlocksRead(), gr.Blocks(), gr.BytesRead(), gr.IndexBytes(), downloaded, indexSize)

		// A scan, as --join=cogroup reads a whole index: the same lines.
		var gl, ll []string
		for l, err := range gr.Prefix("com,site1") {
			if err != nil {
				t.Fatal(err)
			}
			gl = append(gl, l)
		}
		for l, err := range lr.Prefix("com,site1") {
			if err != nil {
				t.Fatal(err)
			}
			ll = append(ll, l)
		}
		if len(ll) == 0 || !slices.Equal(gl, ll) {
			t.Errorf("Prefix over gs://: %d lines, local %d", len(gl), len(ll))
		}
	})

	t.Run("Errors", func(t *testing.T) {
		_, err := Open(ctx, "zipnum:gs://recrawl-index/nothing-here")
		if err == nil || !strings.Contains(err.Error(), "gs://recrawl-index/nothing-here") || !strings.Contains(err.Error(), "no cluster.idx") {
			t.Errorf("an empty prefix: %v; want an error naming it and cluster.idx", err)
		}
		_, err = Open(ctx, "zipnum:gs://recrawl-index/zipnum/other.idx")
		if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "other.idx") {
			t.Errorf("a missing secondary index: %v; want fs.ErrNotExist naming it", err)
		}
	})
}
