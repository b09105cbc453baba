package extract

import (
	"fmt"
	"math/rand"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/recrawl/recrawl/scoring"
)

func randomEntries(rng *rand.Rand, n int) []Entry {
	es := make([]Entry, n)
	for i := range es {
		host := fmt.Sprintf("h%d.example", rng.Intn(7))
		es[i] = Entry{
			Key:      fmt.Sprintf("example,%s)/p%05d", host, i),
			URL:      fmt.Sprintf("http://%s/p%05d", host, i),
			Priority: float64(rng.Intn(20)) / 20, // many ties
			Depth:    rng.Intn(4),
			Order:    Order(rng.Int63n(1 << 40)),
			Host:     host,
		}
	}
	return es
}

// bruteForce sorts everything and applies the cap: the definition.
func bruteForce(es []Entry, k, maxPerHost int, r Ranking) []Entry {
	all := append([]Entry(nil), es...)
	sort.Slice(all, func(i, j int) bool { return r.Before(all[i], all[j]) })
	var out []Entry
	per := map[string]int{}
	for _, e := range all {
		if len(out) == k {
			break
		}
		if maxPerHost > 0 {
			if per[strings.ToLower(e.Host)] >= maxPerHost {
				continue
			}
			per[strings.ToLower(e.Host)]++
		}
		out = append(out, e)
	}
	return out
}

func TestTopKMatchesBruteForceUnderAnySplit(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for trial := 0; trial < 300; trial++ {
		es := randomEntries(rng, 1+rng.Intn(400))
		k := 1 + rng.Intn(30)
		cap := 0
		if trial%2 == 1 {
			cap = 1 + rng.Intn(4)
		}
		r := Ranking{Strategy: scoring.Strategy(rng.Intn(4))}
		want := bruteForce(es, k, cap, r)
		// Split into random bundles, accumulate each, merge in random order.
		var parts []*TopK
		part := NewTopK(k, cap, r)
		for _, e := range es {
			part.Add(e)
			if rng.Intn(25) == 0 {
				parts = append(parts, part)
				part = NewTopK(k, cap, r)
			}
		}
		parts = append(parts, part)
		rng.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
		total := NewTopK(k, cap, r)
		for _, p := range parts {
			p.Result() // partial results are compacted, as a combiner's are
			total.Merge(p)
		}
		got := total.Result()
		if len(want) == 0 {
			want = nil
		}
		if len(got) == 0 {
			got = nil
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("trial %d (k=%d cap=%d %v): TopK differs from brute force\n got %v\nwant %v", trial, k, cap, r.Strategy, keys(got), keys(want))
		}
	}
}

func keys(es []Entry) []string {
	var ks []string
	for _, e := range es {
		ks = append(ks, e.Key)
	}
	return ks
}

func TestRankingTies(t *testing.T) {
	r := Ranking{Strategy: scoring.CTF}
	a := Entry{Key: "b", Priority: 0.5, Depth: 1}
	b := Entry{Key: "a", Priority: 0.5, Depth: 2}
	c := Entry{Key: "c", Priority: 0.5, Depth: 1}
	if !r.Before(a, b) {
		t.Error("lower depth must come first on equal priority")
	}
	if !r.Before(a, c) {
		t.Error("smaller SURT key must come first on equal priority and depth")
	}
	u := Ranking{Strategy: scoring.Unfocused}
	if !u.Before(Entry{Key: "z", Order: 1, Priority: 0}, Entry{Key: "a", Order: 2, Priority: 1}) {
		t.Error("unfocused must follow discovery order, ignoring priority")
	}
}

func TestMergeKeepsFirstDiscoveryAndMaxPriority(t *testing.T) {
	first := Entry{Key: "k", URL: "http://a/", Priority: 0.2, Depth: 1, Path: "SL", Parent: "p1", Order: DiscoveryOrder(1, 0, 3)}
	later := Entry{Key: "k", URL: "http://A/", Priority: 0.9, Depth: 4, Path: "SLLLL", Parent: "p2", Order: DiscoveryOrder(2, 5, 1)}
	for _, m := range []Entry{Merge(first, later), Merge(later, first)} {
		if m.Priority != 0.9 || m.Depth != 1 || m.Path != "SL" || m.Parent != "p1" || m.URL != "http://a/" {
			t.Errorf("Merge = %+v", m)
		}
	}
	if DiscoveryOrder(1, 0, 0) <= DiscoveryOrder(0, MaxBatchSize, MaxLinksPerPage) {
		t.Error("a later round must always be discovered later")
	}
	if DiscoveryOrder(3, 2, 1).Round() != 3 {
		t.Error("Round() does not unpack the round")
	}
}
