package round

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/testkit/benchcaptures"
	"github.com/recrawl/recrawl/internal/zipnum"
)

// explode runs explodeBatchFn on batch and returns its chunks.
func explode(batch []extract.Entry) [][]Ranked {
	var chunks [][]Ranked
	explodeBatchFn{}.ProcessElement(batch, func(c []Ranked) { chunks = append(chunks, c) })
	return chunks
}

// TestExplodeBatchKeyRanges: the chunks of a batch hold every rank once,
// at most lookupChunk each, in rank order inside a chunk, and their key
// ranges do not overlap (so that their look-ups share no index block but
// at the edges).
func TestExplodeBatchKeyRanges(t *testing.T) {
	batch := entries(3*lookupChunk+17, 3)
	rand.New(rand.NewPCG(1, 1)).Shuffle(len(batch), func(i, j int) { batch[i], batch[j] = batch[j], batch[i] })
	chunks := explode(batch)
	if len(chunks) != 4 {
		t.Fatalf("%d chunks of a batch of %d, want 4", len(chunks), len(batch))
	}
	type keyRange struct{ first, last string }
	var ranges []keyRange
	ranks := map[int]bool{}
	for i, c := range chunks {
		if len(c) == 0 || len(c) > lookupChunk {
			t.Fatalf("chunk %d holds %d entries, want 1..%d", i, len(c), lookupChunk)
		}
		keys := make([]string, len(c))
		for j, r := range c {
			if ranks[r.Rank] {
				t.Fatalf("rank %d in two chunks", r.Rank)
			}
			ranks[r.Rank] = true
			if batch[r.Rank].Key != r.Entry.Key {
				t.Fatalf("rank %d holds %s, the batch has %s there", r.Rank, r.Entry.Key, batch[r.Rank].Key)
			}
			if j > 0 && c[j-1].Rank >= r.Rank {
				t.Fatalf("chunk %d: rank %d after rank %d", i, r.Rank, c[j-1].Rank)
			}
			keys[j] = r.Entry.Key
		}
		ranges = append(ranges, keyRange{slices.Min(keys), slices.Max(keys)})
	}
	if len(ranks) != len(batch) {
		t.Fatalf("the chunks hold %d ranks, the batch %d", len(ranks), len(batch))
	}
	slices.SortFunc(ranges, func(a, b keyRange) int { return strings.Compare(a.first, b.first) })
	for i := 1; i < len(ranges); i++ {
		if ranges[i].first <= ranges[i-1].last {
			t.Errorf("chunks overlap: keys %s..%s and %s..%s", ranges[i-1].first, ranges[i-1].last, ranges[i].first, ranges[i].last)
		}
	}
}

var (
	benchRoundCaptures = flag.Int("bench.round_captures", 1000000, "captures in the index of BenchmarkRoundLookups")
	benchRoundK        = flag.Int("bench.round_k", 1000, "URLs per round in BenchmarkRoundLookups")
)

// BenchmarkRoundLookups: the look-ups of a round of K random URLs of a
// generated ZipNum index, each round with a new reader (cold: no block
// cached; the process's 64 MiB cache holds a fifth of a 10^6-capture
// index), its chunks looked up one after the other on that reader
// (lookups/cpu-s: over the process's CPU time):
// "rank-chunks" cuts the ranked batch into consecutive chunks of
// lookupChunk, "key-chunks" is explodeBatchFn's cut by key range, and
// "one-batch" looks the whole batch up in one call.
//
//	go test -run '^$' -bench RoundLookups -benchtime 10x ./transforms/round
func BenchmarkRoundLookups(b *testing.B) {
	dir, keys := roundBenchIndex(b, *benchRoundCaptures)
	for _, mode := range []string{"rank-chunks", "key-chunks", "one-batch"} {
		b.Run(fmt.Sprintf("captures=%d/k=%d/%s", *benchRoundCaptures, *benchRoundK, mode), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			var blocks, inflated int64
			var busy time.Duration
			for b.Loop() {
				b.StopTimer()
				batch := make([]extract.Entry, 0, *benchRoundK)
				drawn := map[string]bool{}
				for len(batch) < *benchRoundK { // a batch holds each URL once
					if k := keys[rng.IntN(len(keys))]; !drawn[k] {
						drawn[k] = true
						batch = append(batch, extract.Entry{Key: k})
					}
				}
				var chunks [][]string
				switch mode {
				case "rank-chunks":
					for start := 0; start < len(batch); start += lookupChunk {
						var c []string
						for _, e := range batch[start:min(start+lookupChunk, len(batch))] {
							c = append(c, e.Key)
						}
						chunks = append(chunks, c)
					}
				case "key-chunks":
					for _, rc := range explode(batch) {
						var c []string
						for _, r := range rc {
							c = append(c, r.Entry.Key)
						}
						chunks = append(chunks, c)
					}
				default:
					var c []string
					for _, e := range batch {
						c = append(c, e.Key)
					}
					chunks = [][]string{c}
				}
				r, err := zipnum.Open(dir, zipnum.Options{})
				if err != nil {
					b.Fatal(err)
				}
				cpu := cpuTime()
				b.StartTimer()
				for _, c := range chunks {
					if _, err := r.Lookup(c); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				busy += cpuTime() - cpu
				blocks += r.BlocksRead()
				inflated += r.InflatedBytes()
				r.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(b.N**benchRoundK)/b.Elapsed().Seconds(), "lookups/s")
			b.ReportMetric(float64(b.N**benchRoundK)/busy.Seconds(), "lookups/cpu-s")
			b.ReportMetric(float64(blocks)/float64(b.N), "blocks/round")
			b.ReportMetric(float64(inflated)/1e6/float64(b.N), "MB-inflated/round")
		})
	}
}

// cpuTime is the process's user and system time: a shared machine's other
// load changes it less than the wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// roundBenchIndex builds a ZipNum index of the n generated captures of
// benchcaptures.Generate and returns its directory and keys.
func roundBenchIndex(b *testing.B, n int) (string, []string) {
	dir := b.TempDir()
	lines, keys := benchcaptures.Generate(n)
	if err := zipnum.Build(dir, zipnum.Lines(lines), len(lines)/4+1, 0); err != nil {
		b.Fatal(err)
	}
	return dir, keys
}
