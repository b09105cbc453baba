package lookup

import (
	"github.com/recrawl/recrawl/internal/testkit/testservers"

	"context"
	"reflect"
	"testing"
	"time"

	"cloud.google.com/go/bigtable"

	"github.com/recrawl/recrawl/internal/btindex"
)

// TestBigtableEmulator loads captures into the Bigtable emulator, started
// through testservers.Bigtable (bttest in process), and reads them back through Open with a
// bigtable: spec, the way the extraction will.
func TestBigtableEmulator(t *testing.T) {
	addr := testservers.Bigtable(t)
	t.Setenv("BIGTABLE_EMULATOR_HOST", addr)
	ctx := context.Background()

	admin, err := bigtable.NewAdminClient(ctx, "proj", "inst")
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if err := btindex.EnsureTable(ctx, admin, "captures"); err != nil {
		t.Fatal(err)
	}
	client, err := bigtable.NewClient(ctx, "proj", "inst")
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	c := genCorpus(20000, 7)
	start := time.Now()
	for range 2 { // the second load must change nothing
		w := btindex.NewWriter(client.Open("captures"), 0)
		for _, cp := range c.captures {
			if err := w.Add(ctx, cp); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(ctx); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("emulator at %s: loaded %d captures twice in %v", addr, len(c.captures), time.Since(start).Round(time.Millisecond))

	idx, err := Open(ctx, "bigtable:proj/inst/captures")
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	start = time.Now()
	got, err := idx.Lookup(ctx, c.queryKeys())
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	if !reflect.DeepEqual(got, c.want) {
		t.Fatalf("look-up through the emulator: %d keys, want %d (or captures differ)", len(got), len(c.want))
	}
	t.Logf("looked up %d keys in %v: %.0f look-ups/s", len(c.queryKeys()), elapsed.Round(time.Millisecond),
		float64(len(c.queryKeys()))/elapsed.Seconds())
}
