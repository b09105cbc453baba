package engine

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/recrawl/recrawl/internal/collection"
	"github.com/recrawl/recrawl/internal/extract"
)

// bulkyResult is result i of a synthetic run with a page of links outlinks
// (each with a long URL and anchor, as a news page's are): about 400
// bytes per outlink once in memory. The pages link to the same links
// pages (the URLs a run knows stay few: extract.LinkTally keeps their
// keys); every third result is missing.
func bulkyResult(i, links int) extract.Result {
	url := fmt.Sprintf("https://news.example.com/2009/09/27/page-%d", i)
	r := extract.Result{Entry: extract.Entry{Key: fmt.Sprintf("com,example,news)/2009/09/27/page-%d", i), URL: url, Priority: 0.5, Depth: 2, Path: "LL", Host: "news.example.com"},
		Round: i, Outcome: extract.OutcomeCollected}
	if i%3 == 2 {
		r.Outcome, r.ReasonCode, r.Reason = extract.OutcomeMissing, extract.ReasonNotInIndex, "no capture in the index"
		return r
	}
	r.Document = &collection.Document{URL: url, SURT: r.Entry.Key, Title: "page " + fmt.Sprint(i), TopicR: 0.25, Round: i, Outlinks: links}
	for j := 0; j < links; j++ {
		target := fmt.Sprintf("https://news.example.com/2009/09/%02d/%s-%d", j%30, strings.Repeat("election-coverage-", 3), j)
		key := fmt.Sprintf("com,example,news)/2009/09/%02d/%s-%d", j%30, strings.Repeat("election-coverage-", 3), j)
		r.Links = append(r.Links, extract.Outlink{Target: target, Key: key, Anchor: "Read more about the election results", Followed: true})
		r.NewEntries = append(r.NewEntries, extract.Entry{Key: key, URL: target, Priority: 0.25, Depth: 3, Path: "LLL", Parent: url, Host: "news.example.com"})
	}
	return r
}

// TestSpooledResultsReadBack: the sequential engine's results read back
// from their file are the results written, in order, as often as asked,
// also after more are appended.
func TestSpooledResultsReadBack(t *testing.T) {
	s, err := newSpooledResults()
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	var want []extract.Result
	check := func() {
		t.Helper()
		var got []extract.Result
		if err := s.replay(func(r extract.Result) error { got = append(got, r); return nil }); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("read back %d results, not the %d written (or not equal)", len(got), len(want))
		}
	}
	for i := 0; i < 30; i++ {
		r := bulkyResult(i, 5)
		if err := s.write(r); err != nil {
			t.Fatal(err)
		}
		want = append(want, r)
		if i == 10 {
			check()
		}
	}
	check()
	check()
}

// TestRunStateHoldsNoResults: a run's state does not grow with what its
// results carry. 1,500 results with 60 outlinks each (about 30 KB each in
// memory, 45 MB in all, the size a real page's result has) go through what
// the sequential engine does with each (results.go, state.go); the heap
// may grow by 2 KB per result at most (the counts and the key of each
// missing URL), a bound far below what keeping them would take. The results
// then read back whole from disk.
func TestRunStateHoldsNoResults(t *testing.T) {
	const n, links, maxGrowthPerResult = 1500, 60, 2 << 10
	s, err := newSpooledResults()
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	st := newRunState(s)
	before := heapInUse()
	payload := 0
	for i := 0; i < n; i++ {
		r := bulkyResult(i, links)
		for _, l := range r.Links {
			payload += len(l.Target) + len(l.Key) + len(l.Anchor)
		}
		if err := s.write(r); err != nil {
			t.Fatal(err)
		}
		st.add(r)
	}
	growth := heapInUse() - before
	runtime.KeepAlive(st)
	t.Logf("%d results, %d KB of outlink strings: the heap grew by %d KB (%d bytes per result)", n, payload>>10, growth>>10, growth/n)
	if growth > n*maxGrowthPerResult {
		t.Errorf("the heap grew by %d KB for %d results (%d bytes each; at most %d): the run state holds the results", growth>>10, n, growth/n, maxGrowthPerResult)
	}
	i := 0
	err = st.source()(func(r extract.Result) error {
		if want := bulkyResult(i, links); !reflect.DeepEqual(r, want) {
			t.Fatalf("result %d read back differs from the one written", i)
		}
		i++
		return nil
	})
	if err != nil || i != n {
		t.Fatalf("read back %d of %d results: %v", i, n, err)
	}
	if tot := st.totals(1); tot.Collected != n-n/3 || tot.Missing != n/3 {
		t.Errorf("totals %+v: want %d collected, %d missing", tot, n-n/3, n/3)
	}
}

// heapInUse is the live heap after a collection.
func heapInUse() int {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int(m.HeapAlloc)
}
