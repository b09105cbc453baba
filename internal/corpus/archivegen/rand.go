package archivegen

import "math"

// Everything in the synthetic web is derived from (seed, stream, id) with a
// stateless hash, so any page can be rebuilt from its id alone: links to a
// page need neither the page nor a table of pages.

// Streams separate the random decisions about one id, so that adding a
// decision to one stream never changes another.
const (
	streamTopic uint64 = iota + 1
	streamHost
	streamArticle
	streamText
	streamLinks
	streamCapture
	streamListing
	streamRefDoc
	streamMisc
	streamRecordID
	streamImage
)

// mix64 is the splitmix64 finaliser.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// hash3 hashes a seed, a stream and an id into 64 well-mixed bits.
func hash3(seed, stream, id uint64) uint64 {
	return mix64(mix64(seed^0x9e3779b97f4a7c15) ^ mix64(stream*0xd1b54a32d192ed03+id))
}

// unit maps a hash to [0, 1).
func unit(h uint64) float64 { return float64(h>>11) / (1 << 53) }

// rng is a small, fast deterministic generator (splitmix64 sequence).
type rng struct{ s uint64 }

func newRNG(seed, stream, id uint64) rng { return rng{hash3(seed, stream, id)} }

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	return mix64(r.s)
}

// intn returns a value in [0, n); n must be > 0.
func (r *rng) intn(n int) int {
	return int((r.next() >> 32) * uint64(n) >> 32)
}

// between returns a value in [lo, hi].
func (r *rng) between(lo, hi int) int { return lo + r.intn(hi-lo+1) }

func (r *rng) float() float64 { return unit(r.next()) }

// chance reports true with probability p.
func (r *rng) chance(p float64) bool { return r.float() < p }

// exp draws from an exponential distribution with the given mean.
func (r *rng) exp(mean float64) float64 { return -mean * math.Log(1-r.float()) }

func pick[T any](r *rng, xs []T) T { return xs[r.intn(len(xs))] }

// cumulative is a weighted choice table.
type cumulative struct {
	cum   []float64
	items []int
}

func (c *cumulative) add(item int, w float64) {
	if w <= 0 {
		return
	}
	total := w
	if n := len(c.cum); n > 0 {
		total += c.cum[n-1]
	}
	c.cum = append(c.cum, total)
	c.items = append(c.items, item)
}

func (c *cumulative) empty() bool { return len(c.cum) == 0 }

// choose maps u in [0, 1) to an item.
func (c *cumulative) choose(u float64) int {
	x := u * c.cum[len(c.cum)-1]
	lo, hi := 0, len(c.cum)-1
	for lo < hi {
		m := (lo + hi) / 2
		if c.cum[m] > x {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return c.items[lo]
}
