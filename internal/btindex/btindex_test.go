package btindex

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"cloud.google.com/go/bigtable"
	"cloud.google.com/go/bigtable/bttest"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/recrawl/recrawl/internal/cdxj"
)

// testServer is an in-process Bigtable (bttest) with clients that count the
// streaming RPCs they make, by method name.
type testServer struct {
	client *bigtable.Client
	admin  *bigtable.AdminClient
	calls  map[string]*atomic.Int64
}

func newTestServer(t testing.TB) *testServer {
	t.Helper()
	srv, err := bttest.NewServer("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	ts := &testServer{calls: map[string]*atomic.Int64{
		"ReadRows": new(atomic.Int64), "MutateRows": new(atomic.Int64),
	}}
	count := func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
		if c, ok := ts.calls[method[strings.LastIndexByte(method, '/')+1:]]; ok {
			c.Add(1)
		}
		return streamer(ctx, desc, cc, method, opts...)
	}
	conn, err := grpc.NewClient(srv.Addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithStreamInterceptor(count))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	ctx := context.Background()
	ts.client, err = bigtable.NewClientWithConfig(ctx, "proj", "inst",
		bigtable.ClientConfig{MetricsProvider: bigtable.NoopMetricsProvider{}}, option.WithGRPCConn(conn))
	if err != nil {
		t.Fatal(err)
	}
	ts.admin, err = bigtable.NewAdminClient(ctx, "proj", "inst", option.WithGRPCConn(conn))
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// genCaptures returns captures of n keys: skewed counts, one key with 2500
// captures, keys that are prefixes of other keys, and pairs of captures of
// one URL in the same second in different files.
func genCaptures(n int, seed uint64) []cdxj.Capture {
	rng := rand.New(rand.NewPCG(seed, 2))
	var cs []cdxj.Capture
	for i := range n {
		key := fmt.Sprintf("com,example%d)/p%d", i%13, i/2)
		if i%2 == 1 {
			key += "b" // "…/p7" and "…/p7b": a key and one it is a prefix of
		}
		k := 1 + rng.IntN(5)
		if i == 3 {
			k = 2500
		}
		for j := range k {
			c := cdxj.Capture{
				Key: key, Timestamp: fmt.Sprintf("20%02d%02d01120000", 10+j%15, 1+j%12),
				URL: "http://" + key, Mime: "text/html", Status: "200", Digest: fmt.Sprintf("SHA%d", j),
				Length: int64(100 + j), Offset: int64(rng.IntN(1 << 30)), Filename: fmt.Sprintf("f-%d.warc.gz", rng.IntN(9)),
			}
			cs = append(cs, c)
			if j == 0 && i%5 == 0 { // same URL, same second, another record
				d := c
				d.Mime, d.Status, d.Filename = "warc/revisit", "", "other.warc.gz"
				cs = append(cs, d)
			}
		}
	}
	return cs
}

// expected groups captures by key in row-key order, as Bigtable returns them.
func expected(cs []cdxj.Capture) map[string][]cdxj.Capture {
	sorted := slices.Clone(cs)
	slices.SortFunc(sorted, func(a, b cdxj.Capture) int { return strings.Compare(RowKey(a), RowKey(b)) })
	m := map[string][]cdxj.Capture{}
	for _, c := range sorted {
		m[c.Key] = append(m[c.Key], c)
	}
	return m
}

func load(t testing.TB, tbl *bigtable.Table, cs []cdxj.Capture, perBulk int) {
	t.Helper()
	ctx := context.Background()
	w := NewWriter(tbl, perBulk)
	for _, c := range cs {
		if err := w.Add(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if w.Written() != int64(len(cs)) {
		t.Fatalf("Written() = %d, want %d", w.Written(), len(cs))
	}
}

// countCells reads the whole table WITHOUT a version filter: every row and
// every version of every cell.
func countCells(t *testing.T, tbl *bigtable.Table) (rows, cells int) {
	t.Helper()
	err := tbl.ReadRows(context.Background(), bigtable.InfiniteRange(""), func(r bigtable.Row) bool {
		rows++
		for _, items := range r {
			cells += len(items)
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	return rows, cells
}

func TestLoadAndLookup(t *testing.T) {
	ts := newTestServer(t)
	ctx := context.Background()
	if err := EnsureTable(ctx, ts.admin, "captures"); err != nil {
		t.Fatal(err)
	}
	if err := EnsureTable(ctx, ts.admin, "captures"); err != nil {
		t.Fatalf("second EnsureTable: %v", err)
	}
	tbl := ts.client.Open("captures")
	cs := genCaptures(400, 1)
	want := expected(cs)
	const perBulk = 500
	load(t, tbl, cs, perBulk)
	if got, min := ts.calls["MutateRows"].Load(), int64((len(cs)+perBulk-1)/perBulk); got != min {
		t.Errorf("%d MutateRows calls for %d rows in bulks of %d, want %d", got, len(cs), perBulk, min)
	}
	if rows, cells := countCells(t, tbl); rows != len(cs) || cells != len(cs) {
		t.Fatalf("after the load: %d rows, %d cells; want %d of each", rows, cells, len(cs))
	}

	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	missing := []string{"com,example1)/", "com,example1)/p", "com,example0)/p0c", "a", "zzz"}
	batch := append(slices.Clone(keys), missing...)
	rand.Shuffle(len(batch), func(i, j int) { batch[i], batch[j] = batch[j], batch[i] })

	const perRead = 150
	r := NewReader(tbl, perRead)
	before := ts.calls["ReadRows"].Load()
	got, err := r.Lookup(ctx, batch)
	if err != nil {
		t.Fatal(err)
	}
	// One per perRead keys, and one for the removed files.
	if calls, want := ts.calls["ReadRows"].Load()-before, int64((len(batch)+perRead-1)/perRead)+1; calls != want {
		t.Errorf("look-up of %d keys made %d ReadRows calls, want %d (one per %d keys, one for the removed files)", len(batch), calls, want, perRead)
	}
	if !reflect.DeepEqual(got, want) {
		for _, k := range keys {
			if !reflect.DeepEqual(got[k], want[k]) {
				t.Errorf("Lookup(%q): %d captures, want %d", k, len(got[k]), len(want[k]))
				break
			}
		}
		t.Fatalf("Lookup returned %d keys, want %d", len(got), len(want))
	}
	big := "com,example3)/p1b"
	if n := len(got[big]); n != 2500 {
		t.Errorf("%s: %d captures, want 2500", big, n)
	}
	for _, k := range keys {
		if !slices.IsSortedFunc(got[k], func(a, b cdxj.Capture) int { return strings.Compare(a.Timestamp, b.Timestamp) }) {
			t.Errorf("%s: captures not sorted by timestamp", k)
		}
	}

	// A re-run of the load adds nothing: same rows, one version per cell.
	load(t, tbl, cs, perBulk)
	if rows, cells := countCells(t, tbl); rows != len(cs) || cells != len(cs) {
		t.Errorf("after a second load: %d rows, %d cells; want %d of each", rows, cells, len(cs))
	}
	again, err := r.Lookup(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again, want) {
		t.Error("look-up after the second load differs")
	}
}

func TestEnsureTableAddsMissingFamily(t *testing.T) {
	ts := newTestServer(t)
	ctx := context.Background()
	if err := ts.admin.CreateTable(ctx, "bare"); err != nil {
		t.Fatal(err)
	}
	if err := EnsureTable(ctx, ts.admin, "bare"); err != nil {
		t.Fatal(err)
	}
	info, err := ts.admin.TableInfo(ctx, "bare")
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(info.FamilyInfos, func(f bigtable.FamilyInfo) bool { return f.Name == Family })
	if i < 0 {
		t.Fatalf("families %v: no %q", info.FamilyInfos, Family)
	}
	if gc := info.FamilyInfos[i].GCPolicy; gc != "versions() > 1" {
		t.Errorf("GC policy %q, want versions() > 1", gc)
	}
}

func TestRowKey(t *testing.T) {
	c := cdxj.Capture{Key: "com,example)/a", Timestamp: "20200101000000", Filename: "a.warc.gz", Offset: 10}
	k := RowKey(c)
	if !strings.HasPrefix(k, "com,example)/a 20200101000000 ") || len(k) != len("com,example)/a 20200101000000 ")+16 {
		t.Errorf("RowKey = %q", k)
	}
	d := c
	d.Offset = 11
	e := c
	e.URL, e.Digest = "http://other/", "X" // not part of the identity
	if RowKey(d) == k || RowKey(e) != k {
		t.Errorf("RowKey identity: %q %q %q", k, RowKey(d), RowKey(e))
	}
	for _, bad := range []cdxj.Capture{{Key: "a b", Timestamp: "2020"}, {Key: "a", Timestamp: "x"}, {Timestamp: "2020"}} {
		if _, err := value(bad); err == nil {
			t.Errorf("value(%+v): no error", bad)
		}
	}
}

func TestWriterRejectsBadCapture(t *testing.T) {
	ts := newTestServer(t)
	ctx := context.Background()
	if err := EnsureTable(ctx, ts.admin, "t"); err != nil {
		t.Fatal(err)
	}
	w := NewWriter(ts.client.Open("t"), 10)
	if err := w.Add(ctx, cdxj.Capture{Key: "com,a)/ x", Timestamp: "20200101000000"}); err == nil {
		t.Error("key with a space: no error")
	}
	// Writing to a table that does not exist fails on Flush with context.
	w = NewWriter(ts.client.Open("nope"), 10)
	if err := w.Add(ctx, cdxj.Capture{Key: "com,a)/", Timestamp: "20200101000000"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(ctx); err == nil || !strings.Contains(err.Error(), "bigtable write") {
		t.Errorf("write to a missing table: err = %v", err)
	}
}
