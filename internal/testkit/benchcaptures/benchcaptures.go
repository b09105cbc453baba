// Package benchcaptures generates the CDXJ capture lines of the look-up
// benchmarks: a deterministic index of n captures of news-like URLs, about 5
// captures a URL and lines of about 330 bytes, so that the benchmarks of
// internal/zipnum and transforms/round measure look-ups in the same index.
// The test corpus of internal/lookup draws its captures' fields the same
// way (Capture).
package benchcaptures

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/recrawl/recrawl/internal/cdxj"
)

// Generate returns n or a few more capture lines (a URL's captures are
// never split), sorted, and the distinct SURT keys they hold, sorted. The
// same n gives the same lines.
func Generate(n int) (lines, keys []string) {
	rng := rand.New(rand.NewPCG(uint64(n), 7))
	lines = make([]string, 0, n)
	tlds := []string{"com", "de", "org", "net"}
	for i := 0; len(lines) < n; i++ {
		key := fmt.Sprintf("%s,site%d)/news/%d/article-%d", tlds[i%4], rng.IntN(max(n/200, 10)), 2000+i%20, rng.IntN(1<<30))
		keys = append(keys, key)
		for range 1 + rng.IntN(8) {
			lines = append(lines, Capture(rng, key).Line())
		}
	}
	slices.Sort(lines)
	slices.Sort(keys)
	return lines, slices.Compact(keys)
}

// Capture is one generated capture of key, its fields drawn from rng in
// field order: timestamp, digest, length, offset and file name.
func Capture(rng *rand.Rand, key string) cdxj.Capture {
	return cdxj.Capture{
		Key:       key,
		Timestamp: fmt.Sprintf("20%02d%02d%02d%02d%02d%02d", 10+rng.IntN(10), 1+rng.IntN(12), 1+rng.IntN(28), rng.IntN(24), rng.IntN(60), rng.IntN(60)),
		URL:       "https://www." + key,
		Mime:      "text/html",
		Status:    "200",
		Digest:    fmt.Sprintf("%032X", rng.Uint64()),
		Length:    int64(1000 + rng.IntN(50000)),
		Offset:    int64(rng.IntN(1 << 30)),
		Filename:  fmt.Sprintf("crawl-2016/segment-%03d.warc.gz", rng.IntN(500)),
	}
}
