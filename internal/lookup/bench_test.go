package lookup

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"cloud.google.com/go/bigtable"

	"github.com/recrawl/recrawl/internal/btindex"
	"github.com/recrawl/recrawl/internal/zipnum"
)

// Benchmarks: each iteration looks up one batch of random keys (URLs drawn
// uniformly from the distinct keys of a generated index). For the 100,000
// look-ups of the brief, run 100 batches of 1000:
//
//	go test -run XXX -bench . -benchtime 100x ./internal/lookup
var (
	benchCaptures = flag.Int("bench.captures", 1_000_000, "captures in the generated benchmark index")
	benchBatch    = flag.Int("bench.batch", 1000, "keys per look-up batch")
)

type benchFixture struct {
	keys   []string // distinct keys of the index
	n      int      // captures
	dir    string
	cdxj   string
	zipnum string

	btOnce sync.Once
	bt     *bigtable.Client
}

var (
	fixtureOnce sync.Once
	fixture     *benchFixture
)

func TestMain(m *testing.M) {
	code := m.Run()
	if fixture != nil {
		os.RemoveAll(fixture.dir)
	}
	os.Exit(code)
}

func getFixture(b *testing.B) *benchFixture {
	fixtureOnce.Do(func() {
		start := time.Now()
		dir, err := os.MkdirTemp("", "recrawl-lookup-bench-")
		if err != nil {
			b.Fatal(err)
		}
		c := genCorpus(*benchCaptures, 42)
		f := &benchFixture{keys: c.keys, n: len(c.captures), dir: dir,
			cdxj: filepath.Join(dir, "index.cdxj"), zipnum: filepath.Join(dir, "zipnum")}
		c.writeCDXJ(b, f.cdxj)
		if err := zipnum.Build(f.zipnum, zipnum.Lines(c.lines), len(c.lines)/8+1, 0); err != nil {
			b.Fatal(err)
		}
		st, _ := os.Stat(f.cdxj)
		b.Logf("fixture: %d captures of %d URLs, CDXJ file %d MB, built in %v",
			f.n, len(f.keys), st.Size()>>20, time.Since(start).Round(time.Millisecond))
		fixture = f
		// Drop the generated captures: a large live heap of test data would
		// make the garbage collector, not the look-up, the measured cost.
		c = nil
		runtime.GC()
	})
	if fixture == nil {
		b.Fatal("no benchmark fixture")
	}
	return fixture
}

// bigtable loads the corpus into an in-process bttest server, once.
func (f *benchFixture) bigtable(b *testing.B) *bigtable.Client {
	f.btOnce.Do(func() {
		start := time.Now()
		client, admin := bigtableClient(b)
		ctx := context.Background()
		if err := btindex.EnsureTable(ctx, admin, "captures"); err != nil {
			b.Fatal(err)
		}
		in, err := os.Open(f.cdxj)
		if err != nil {
			b.Fatal(err)
		}
		defer in.Close()
		w := btindex.NewWriter(client.Open("captures"), 0)
		for line, err := range zipnum.ReadLines(in) {
			if err != nil {
				b.Fatal(err)
			}
			c, err := zipnum.ParseLine(line)
			if err != nil {
				b.Fatal(err)
			}
			if err := w.Add(ctx, c); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Close(ctx); err != nil {
			b.Fatal(err)
		}
		b.Logf("bttest: loaded %d captures in %v", w.Written(), time.Since(start).Round(time.Millisecond))
		f.bt = client
	})
	if f.bt == nil {
		b.Fatal("no bigtable fixture")
	}
	return f.bt
}

func runLookups(b *testing.B, f *benchFixture, idx Index) {
	b.Helper()
	defer idx.Close()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	batch := make([]string, *benchBatch)
	found := 0
	var busy time.Duration
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		for i := range batch {
			batch[i] = f.keys[rng.IntN(len(f.keys))]
		}
		cpu := cpuTime()
		b.StartTimer()
		m, err := idx.Lookup(ctx, batch)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		busy += cpuTime() - cpu
		b.StartTimer()
		found += len(m)
	}
	if found == 0 {
		b.Fatal("no key found")
	}
	b.ReportMetric(float64(b.N*len(batch))/b.Elapsed().Seconds(), "lookups/s")
	b.ReportMetric(float64(b.N*len(batch))/busy.Seconds(), "lookups/cpu-s")
}

// cpuTime is the process's user and system time: lookups/cpu-s divides by
// it, which the other load of a shared machine changes less than the wall
// clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkLookup(b *testing.B) {
	b.Run("cdxj-disk", func(b *testing.B) {
		f := getFixture(b)
		idx, err := OpenCDXJ(f.cdxj, CDXJOptions{MemoryThreshold: -1})
		if err != nil {
			b.Fatal(err)
		}
		runLookups(b, f, idx)
	})
	b.Run("zipnum", func(b *testing.B) {
		f := getFixture(b)
		r, err := zipnum.Open(f.zipnum, zipnum.Options{})
		if err != nil {
			b.Fatal(err)
		}
		runLookups(b, f, NewZipNum(r))
		b.ReportMetric(float64(r.BlocksRead())/float64(b.N), "blocks/batch")
	})
	b.Run("zipnum-cache512M", func(b *testing.B) { // the whole 1M-capture index fits
		f := getFixture(b)
		r, err := zipnum.Open(f.zipnum, zipnum.Options{CacheBytes: 512 << 20})
		if err != nil {
			b.Fatal(err)
		}
		runLookups(b, f, NewZipNum(r))
		b.ReportMetric(float64(r.BlocksRead())/float64(b.N), "blocks/batch")
	})
	b.Run("zipnum-nocache", func(b *testing.B) {
		f := getFixture(b)
		r, err := zipnum.Open(f.zipnum, zipnum.Options{CacheBytes: -1})
		if err != nil {
			b.Fatal(err)
		}
		runLookups(b, f, NewZipNum(r))
		b.ReportMetric(float64(r.BlocksRead())/float64(b.N), "blocks/batch")
	})
	b.Run("zipnum-300lines-nocache", func(b *testing.B) { // smaller blocks: less to decompress per key
		f := getFixture(b)
		dir := filepath.Join(f.dir, "zipnum300")
		if _, err := os.Stat(dir); err != nil {
			in, err := os.Open(f.cdxj)
			if err != nil {
				b.Fatal(err)
			}
			err = zipnum.Build(dir, zipnum.ReadLines(in), f.n/8+1, 300)
			in.Close()
			if err != nil {
				b.Fatal(err)
			}
		}
		r, err := zipnum.Open(dir, zipnum.Options{CacheBytes: -1})
		if err != nil {
			b.Fatal(err)
		}
		runLookups(b, f, NewZipNum(r))
		b.ReportMetric(float64(r.BlocksRead())/float64(b.N), "blocks/batch")
	})
	b.Run("bigtable-bttest", func(b *testing.B) {
		f := getFixture(b)
		runLookups(b, f, NewBigtable(f.bigtable(b), "captures"))
	})
}

// BenchmarkIndexLookup looks up random keys of RECRAWL_BENCH_KEYS (one SURT
// key per line) in each index of RECRAWL_BENCH_INDEXES ("NAME=SPEC,...",
// e.g. an index of a base and 10 segments and the same index compacted),
// one sub-benchmark per NAME; scripts/bench.sh incremental sets them.
//
// With RECRAWL_BENCH_BATCHES (a file of batches: one key per line, a blank
// line between batches, e.g. the URLs each round of an extraction looked
// up) the iterations look up those batches in turn instead of random keys.
// With RECRAWL_BENCH_COLD=1 every batch gets a newly opened index (opened
// untimed), so that no block is cached: `-benchtime 5x` is 5 cold batches.
// A ZipNum index of one part also reports blocks/batch and
// MB-inflated/batch.
func BenchmarkIndexLookup(b *testing.B) {
	specs, keysFile, batchesFile := os.Getenv("RECRAWL_BENCH_INDEXES"), os.Getenv("RECRAWL_BENCH_KEYS"), os.Getenv("RECRAWL_BENCH_BATCHES")
	if specs == "" || (keysFile == "" && batchesFile == "") {
		b.Skip("RECRAWL_BENCH_INDEXES and RECRAWL_BENCH_KEYS (or RECRAWL_BENCH_BATCHES) are not set")
	}
	var next func(rng *rand.Rand, batch []string) []string
	if batchesFile != "" {
		batches, err := readBatches(batchesFile)
		if err != nil {
			b.Fatal(err)
		}
		i := 0
		next = func(*rand.Rand, []string) []string {
			i++
			return batches[(i-1)%len(batches)]
		}
	} else {
		data, err := os.ReadFile(keysFile)
		if err != nil {
			b.Fatal(err)
		}
		keys := strings.Fields(string(data))
		next = func(rng *rand.Rand, batch []string) []string {
			for i := range batch {
				batch[i] = keys[rng.IntN(len(keys))]
			}
			return batch
		}
	}
	cold := os.Getenv("RECRAWL_BENCH_COLD") == "1"
	for _, named := range strings.Split(specs, ",") {
		name, spec, _ := strings.Cut(named, "=")
		b.Run(name, func(b *testing.B) {
			runIndexLookups(b, spec, next, cold)
		})
	}
}

// readBatches reads a file of batches of keys: one key per line, a blank
// line between batches.
func readBatches(name string) ([][]string, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var batches [][]string
	for _, part := range strings.Split(string(data), "\n\n") {
		if keys := strings.Fields(part); len(keys) > 0 {
			batches = append(batches, keys)
		}
	}
	if len(batches) == 0 {
		return nil, fmt.Errorf("%s: no keys", name)
	}
	return batches, nil
}

// runIndexLookups looks up one batch of next per iteration in the index of
// spec, opened once, or before every batch if cold.
func runIndexLookups(b *testing.B, spec string, next func(*rand.Rand, []string) []string, cold bool) {
	ctx := context.Background()
	var blocks, inflated int64
	open := func() Index {
		idx, err := Open(ctx, spec)
		if err != nil {
			b.Fatal(err)
		}
		return idx
	}
	closeIndex := func(idx Index) {
		if z, ok := idx.(zipnumIndex); ok {
			blocks += z.r.BlocksRead()
			inflated += z.r.InflatedBytes()
		}
		idx.Close()
	}
	idx := open()
	defer func() {
		if idx != nil { // a failed batch
			idx.Close()
		}
	}()
	rng := rand.New(rand.NewPCG(1, 2))
	batch := make([]string, *benchBatch)
	looked, found := 0, 0
	var busy time.Duration
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		keys := next(rng, batch)
		if cold && looked > 0 {
			closeIndex(idx)
			idx = open()
		}
		cpu := cpuTime()
		b.StartTimer()
		m, err := idx.Lookup(ctx, keys)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		busy += cpuTime() - cpu
		b.StartTimer()
		looked += len(keys)
		found += len(m)
	}
	if found == 0 {
		b.Fatal("no key found")
	}
	b.ReportMetric(float64(looked)/b.Elapsed().Seconds(), "lookups/s")
	b.ReportMetric(float64(looked)/busy.Seconds(), "lookups/cpu-s")
	b.ReportMetric(float64(found)/float64(looked), "found/key")
	_, isZipNum := idx.(zipnumIndex)
	closeIndex(idx)
	idx = nil
	if isZipNum {
		b.ReportMetric(float64(blocks)/float64(b.N), "blocks/batch")
		b.ReportMetric(float64(inflated)/1e6/float64(b.N), "MB-inflated/batch")
	}
}
