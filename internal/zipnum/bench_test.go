package zipnum

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/recrawl/recrawl/internal/testkit/benchcaptures"
)

// Benchmarks of Lookup on a round's sorted batch: each iteration looks up
// benchBatch keys drawn uniformly from the distinct keys of a generated
// index of DefaultLinesPerBlock-line blocks (about 1,000 keys per 3,000
// blocks at 10^6 captures, 30 per block at 10^5). "cold" opens a new Reader
// for every batch, so no block is cached (the shard files are in the OS's
// page cache: the cost measured is the inflating, not the disk); "warm"
// keeps one Reader, with its default block cache, over all batches.
//
//	go test -run '^$' -bench LookupSortedBatch -benchtime 20x ./internal/zipnum
//
// lookups/s is wall-clock; lookups/cpu-s divides by the process's CPU time,
// which the other load of a shared machine changes less.
var (
	benchBatch    = flag.Int("bench.batch", 1000, "keys per sorted look-up batch")
	benchCaptures = flag.String("bench.captures", "100000,1000000", "captures in the generated indexes, comma-separated")
)

// benchIndex is a generated ZipNum index and its distinct keys.
type benchIndex struct {
	dir  string
	keys []string
}

var benchIndexes sync.Map // captures → *benchIndex

// getBenchIndex builds (once per process) an index of the n generated
// captures of benchcaptures.Generate.
func getBenchIndex(b *testing.B, n int) *benchIndex {
	if v, ok := benchIndexes.Load(n); ok {
		return v.(*benchIndex)
	}
	start := time.Now()
	dir, err := os.MkdirTemp("", "recrawl-zipnum-bench-")
	if err != nil {
		b.Fatal(err)
	}
	lines, keys := benchcaptures.Generate(n)
	if err := Build(dir, Lines(lines), len(lines)/4+1, 0); err != nil {
		b.Fatal(err)
	}
	b.Logf("index of %d captures, %d keys, built in %v", len(lines), len(keys), time.Since(start).Round(time.Millisecond))
	bi := &benchIndex{dir: dir, keys: keys}
	benchIndexes.Store(n, bi)
	return bi
}

func TestMain(m *testing.M) {
	code := m.Run()
	benchIndexes.Range(func(_, v any) bool {
		os.RemoveAll(v.(*benchIndex).dir)
		return true
	})
	os.Exit(code)
}

// cpuTime is the process's user and system time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkLookupSortedBatch(b *testing.B) {
	var sizes []int
	for _, s := range strings.Split(*benchCaptures, ",") {
		var n int
		if _, err := fmt.Sscan(s, &n); err != nil || n <= 0 {
			b.Fatalf("-bench.captures: %q is not a number of captures", s)
		}
		sizes = append(sizes, n)
	}
	for _, n := range sizes {
		for _, mode := range []string{"cold", "warm"} {
			b.Run(fmt.Sprintf("captures=%d/%s", n, mode), func(b *testing.B) {
				benchSortedBatch(b, getBenchIndex(b, n), mode == "cold")
			})
		}
	}
}

func benchSortedBatch(b *testing.B, bi *benchIndex, cold bool) {
	open := func() *Reader {
		r, err := Open(bi.dir, Options{})
		if err != nil {
			b.Fatal(err)
		}
		return r
	}
	r := open()
	defer func() { r.Close() }()
	rng := rand.New(rand.NewPCG(1, 2))
	batch := make([]string, *benchBatch)
	draw := func() {
		for i := range batch {
			batch[i] = bi.keys[rng.IntN(len(bi.keys))]
		}
		slices.Sort(batch)
	}
	if !cold { // one batch to fill the cache
		draw()
		if _, err := r.Lookup(batch); err != nil {
			b.Fatal(err)
		}
	}
	runtime.GC()
	blocks, inflated := -r.BlocksRead(), -r.InflatedBytes()
	var busy time.Duration
	found := 0
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		draw()
		if cold {
			blocks += r.BlocksRead()
			inflated += r.InflatedBytes()
			r.Close()
			r = open()
		}
		cpu := cpuTime()
		b.StartTimer()
		m, err := r.Lookup(batch)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		busy += cpuTime() - cpu
		b.StartTimer()
		found += len(m)
	}
	blocks += r.BlocksRead()
	inflated += r.InflatedBytes()
	if found == 0 {
		b.Fatal("no key found")
	}
	looked := float64(b.N * len(batch))
	b.ReportMetric(looked/b.Elapsed().Seconds(), "lookups/s")
	b.ReportMetric(looked/busy.Seconds(), "lookups/cpu-s")
	b.ReportMetric(float64(blocks)/float64(b.N), "blocks/batch")
	b.ReportMetric(float64(inflated)/1e6/float64(b.N), "MB-inflated/batch")
}
