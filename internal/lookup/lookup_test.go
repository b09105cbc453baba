package lookup

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"cloud.google.com/go/bigtable"
	"cloud.google.com/go/bigtable/bttest"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/recrawl/recrawl/internal/btindex"
	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/testkit/benchcaptures"
	"github.com/recrawl/recrawl/internal/zipnum"
)

// corpus is a generated snapshot index: captures, their sorted CDXJ lines and
// the expected look-up result per key.
type corpus struct {
	captures []cdxj.Capture
	lines    []string
	keys     []string // sorted distinct keys
	want     map[string][]cdxj.Capture
}

// genCorpus generates about n captures of n/5 URLs on a few thousand hosts
// (skewed: some URLs have hundreds of captures), with keys that are prefixes
// of other keys and records of one URL in the same second in several files.
func genCorpus(n int, seed uint64) *corpus {
	rng := rand.New(rand.NewPCG(seed, 3))
	c := &corpus{want: map[string][]cdxj.Capture{}}
	seen := map[string]bool{}
	for i := 0; len(c.captures) < n; i++ {
		host := fmt.Sprintf("%s,site%d", []string{"com", "de", "org", "net"}[i%4], rng.IntN(max(n/200, 10)))
		path := fmt.Sprintf("/news/%d/article-%d", 2000+i%20, rng.IntN(1<<30))
		if i%7 == 0 {
			path = "/" // front pages: many captures
		}
		key := host + ")" + path
		if i%11 == 0 {
			key += "-2" // key + "-2": the key without it may exist too
		}
		k := 1 + rng.IntN(8)
		if i%1000 == 1 {
			k = 300
		}
		for j := 0; j < k && len(c.captures) < n; j++ {
			cp := benchcaptures.Capture(rng, key)
			if j%9 == 8 { // a revisit in the same second as the capture before
				prev := c.captures[len(c.captures)-1]
				cp.Timestamp, cp.Mime, cp.Status = prev.Timestamp, "warc/revisit", ""
			}
			id := cp.Filename + fmt.Sprint(cp.Offset)
			if seen[id] {
				continue
			}
			seen[id] = true
			c.captures = append(c.captures, cp)
		}
	}
	for _, cp := range c.captures {
		c.lines = append(c.lines, cp.Line())
		c.want[cp.Key] = append(c.want[cp.Key], cp)
	}
	slices.Sort(c.lines)
	for k, cs := range c.want {
		slices.SortFunc(cs, func(a, b cdxj.Capture) int {
			return cmp.Or(cmp.Compare(a.Timestamp, b.Timestamp), cmp.Compare(a.Filename, b.Filename), cmp.Compare(a.Offset, b.Offset))
		})
		c.keys = append(c.keys, k)
	}
	slices.Sort(c.keys)
	return c
}

func (c *corpus) writeCDXJ(t testing.TB, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for _, l := range c.lines {
		w.WriteString(l)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func (c *corpus) writeZipNum(t testing.TB, dir string) {
	t.Helper()
	if err := zipnum.Build(dir, zipnum.Lines(c.lines), len(c.lines)/4+1, 0); err != nil {
		t.Fatal(err)
	}
}

// bigtableClient returns a client of an in-process bttest server.
func bigtableClient(t testing.TB) (*bigtable.Client, *bigtable.AdminClient) {
	t.Helper()
	srv, err := bttest.NewServer("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	conn, err := grpc.NewClient(srv.Addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(256<<20)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	ctx := context.Background()
	client, err := bigtable.NewClientWithConfig(ctx, "proj", "inst",
		bigtable.ClientConfig{MetricsProvider: bigtable.NoopMetricsProvider{}}, option.WithGRPCConn(conn))
	if err != nil {
		t.Fatal(err)
	}
	admin, err := bigtable.NewAdminClient(ctx, "proj", "inst", option.WithGRPCConn(conn))
	if err != nil {
		t.Fatal(err)
	}
	return client, admin
}

func (c *corpus) loadBigtable(t testing.TB, client *bigtable.Client, admin *bigtable.AdminClient, table string) {
	t.Helper()
	ctx := context.Background()
	if err := btindex.EnsureTable(ctx, admin, table); err != nil {
		t.Fatal(err)
	}
	w := btindex.NewWriter(client.Open(table), 0)
	for _, cp := range c.captures {
		if err := w.Add(ctx, cp); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

// queryKeys returns every key of the corpus, some twice, plus keys that are
// absent (prefixes and extensions of present keys, keys before and after all
// others), shuffled.
func (c *corpus) queryKeys() []string {
	q := slices.Clone(c.keys)
	for i, k := range c.keys {
		if i%10 == 0 {
			q = append(q, k, k+"x", k[:len(k)-1], strings.TrimSuffix(k, "-2"))
		}
	}
	q = append(q, "", "!", "0,zero)/", "zzz,last)/")
	rand.Shuffle(len(q), func(i, j int) { q[i], q[j] = q[j], q[i] })
	return q
}

func TestBackendsAgree(t *testing.T) {
	c := genCorpus(20000, 1)
	dir := t.TempDir()
	ctx := context.Background()
	cdxjPath := filepath.Join(dir, "index.cdxj")
	c.writeCDXJ(t, cdxjPath)
	c.writeZipNum(t, filepath.Join(dir, "zipnum"))
	client, admin := bigtableClient(t)
	c.loadBigtable(t, client, admin, "captures")

	mem, err := Open(ctx, "cdxj:"+cdxjPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := mem.(*memIndex); !ok {
		t.Fatalf("a small CDXJ file opened as %T, want in memory", mem)
	}
	disk, err := OpenCDXJ(cdxjPath, CDXJOptions{MemoryThreshold: -1, PageSize: 256, CachePages: 64})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := disk.(*fileIndex); !ok {
		t.Fatalf("OpenCDXJ with MemoryThreshold -1 returned %T", disk)
	}
	zn, err := Open(ctx, "zipnum:"+filepath.Join(dir, "zipnum"))
	if err != nil {
		t.Fatal(err)
	}
	backends := map[string]Index{
		"cdxj (memory)": mem, "cdxj (disk)": disk, "zipnum": zn,
		"bigtable": NewBigtable(client, "captures"),
	}
	q := c.queryKeys()
	for name, idx := range backends {
		got, err := idx.Lookup(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got, c.want) {
			for _, k := range c.keys {
				if !reflect.DeepEqual(got[k], c.want[k]) {
					t.Errorf("%s: Lookup(%q): %d captures, want %d", name, k, len(got[k]), len(c.want[k]))
					break
				}
			}
			t.Errorf("%s: %d keys found, want %d", name, len(got), len(c.want))
		}
		// Small batches give the same result.
		for i := 0; i < len(c.keys); i += 997 {
			k := c.keys[i]
			one, err := idx.Lookup(ctx, []string{k, k + "x"})
			if err != nil {
				t.Fatal(err)
			}
			if len(one) != 1 || !reflect.DeepEqual(one[k], c.want[k]) {
				t.Errorf("%s: single Lookup(%q) differs", name, k)
			}
		}
		if err := idx.Close(); err != nil {
			t.Errorf("%s: Close: %v", name, err)
		}
	}
}

// TestCDXJFileLongLines searches a file on disk whose lines are longer than
// a page, with tiny pages, so lines span pages and the search falls back to
// scanning.
func TestCDXJFileLongLines(t *testing.T) {
	c := genCorpus(500, 2)
	for i := range c.captures {
		c.captures[i].URL += "?" + strings.Repeat("q", i%700)
	}
	c.lines = c.lines[:0]
	for _, cp := range c.captures {
		c.lines = append(c.lines, cp.Line())
	}
	slices.Sort(c.lines)
	for k := range c.want {
		delete(c.want, k)
	}
	for _, cp := range c.captures {
		c.want[cp.Key] = append(c.want[cp.Key], cp)
	}
	sortCaptures(c.want)
	path := filepath.Join(t.TempDir(), "long.cdxj")
	c.writeCDXJ(t, path)
	for _, ps := range []int{64, 1000, 1 << 20} {
		idx, err := OpenCDXJ(path, CDXJOptions{MemoryThreshold: -1, PageSize: ps, CachePages: 4})
		if err != nil {
			t.Fatal(err)
		}
		got, err := idx.Lookup(context.Background(), c.queryKeys())
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("page size %d: look-up differs (%d keys, want %d)", ps, len(got), len(c.want))
		}
		idx.Close()
	}
}

func TestCDXFormatAndUnsorted(t *testing.T) {
	dir := t.TempDir()
	cdx := filepath.Join(dir, "a.cdx")
	os.WriteFile(cdx, []byte(" CDX N b a m s k r M S V g\n"+
		"com,example)/ 20140127171200 http://example.com text/html 200 B2LT - - 1046 334 dupes.warc.gz\n"+
		"com,example)/ 20140127171251 http://example.com warc/revisit - B2LT - - 553 11875 dupes.warc.gz\n"), 0o644)
	idx, err := Open(context.Background(), "cdxj:"+cdx)
	if err != nil {
		t.Fatal(err)
	}
	got, err := idx.Lookup(context.Background(), []string{"com,example)/"})
	if err != nil {
		t.Fatal(err)
	}
	if cs := got["com,example)/"]; len(cs) != 2 || cs[1].Offset != 11875 || cs[1].Mime != "warc/revisit" {
		t.Errorf("CDX file: %+v", got)
	}
	unsorted := filepath.Join(dir, "u.cdxj")
	os.WriteFile(unsorted, []byte("com,b)/ 2020 {}\ncom,a)/ 2020 {}\n"), 0o644)
	if _, err := Open(context.Background(), "cdxj:"+unsorted); err == nil || !strings.Contains(err.Error(), "not sorted") {
		t.Errorf("unsorted file: err = %v", err)
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	for spec, want := range map[string]string{
		"index.cdxj":                 "want cdxj:FILE",
		"cdxj:":                      "want cdxj:FILE",
		"warc:x":                     `unknown kind "warc"`,
		"cdxj:/does/not/exist":       "no such file",
		"zipnum:/does/not/exist":     "no such file",
		"bigtable:proj/inst":         "PROJECT/INSTANCE/TABLE",
		"bigtable:proj//table":       "PROJECT/INSTANCE/TABLE",
		"bigtable:proj/inst/t/extra": "PROJECT/INSTANCE/TABLE",
	} {
		idx, err := Open(ctx, spec)
		if err == nil {
			idx.Close()
			t.Errorf("Open(%q): no error", spec)
			continue
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Open(%q): %v, want an error mentioning %q", spec, err, want)
		}
	}
}

// TestCDXJFileSampleLinear: opening a file with one line of 8 MiB (under
// zipnum.MaxLineBytes) visits each of its pages a bounded number of times,
// not once per 64 KiB sample point inside the line; the line's captures
// are still found.
func TestCDXJFileSampleLinear(t *testing.T) {
	path := filepath.Join(t.TempDir(), "one-long-line.cdxj")
	long := `com,example)/b 20100414120000 {"url": "http://example.com/b", "filename": "a.warc.gz", "offset": "100", "length": "10", "pad": "` +
		strings.Repeat("p", 8<<20) + `"}`
	var b strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&b, "com,example)/a%04d 20100414120000 {\"url\": \"http://example.com/a%04d\", \"filename\": \"a.warc.gz\", \"offset\": \"%d\", \"length\": \"10\"}\n", i, i, i)
	}
	b.WriteString(long + "\n")
	b.WriteString(`com,example)/c 20100414120000 {"url": "http://example.com/c", "filename": "a.warc.gz", "offset": "200", "length": "10"}` + "\n")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	idx, err := OpenCDXJ(path, CDXJOptions{MemoryThreshold: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	f := idx.(*fileIndex).f
	pages := (f.size + f.pageSize - 1) / f.pageSize
	if f.visits > 3*pages {
		t.Errorf("opening visited %d pages of a file of %d: the long line was scanned once per sample point", f.visits, pages)
	}
	got, err := idx.Lookup(context.Background(), []string{"com,example)/b", "com,example)/c"})
	if err != nil || len(got["com,example)/b"]) != 1 || len(got["com,example)/c"]) != 1 {
		t.Errorf("look-up around the long line: %v, %v", got, err)
	}
}
