package index

import (
	"runtime"
	"slices"
	"sync"
)

// shardJobs writes the shards of one bundle at once, on up to GOMAXPROCS
// goroutines, and emits their results in shard order when the bundle
// finishes. A runner may hand every shard to one bundle (prism does, after
// SortIntoShards' Reshuffle), and a shard is merged and written on one core:
// one at a time, the writes after the indexing would use one core of many.
// The results only depend on the shards, not on the order they finish in.
type shardJobs struct {
	sem     chan struct{} // a slot per goroutine writing
	wg      sync.WaitGroup
	mu      sync.Mutex
	results []shardResult
	err     error // the first error of a write
}

// shardResult is what writing one shard gives.
type shardResult struct {
	shard int
	out   string
}

// start writes a shard with write, once a slot is free (it waits for one,
// so a bundle never has more than GOMAXPROCS shards in flight). write
// returns the shard's output and whether there is one to emit. Once a
// write has failed, later ones do not start, and start returns its error.
func (j *shardJobs) start(shard int, write func() (out string, ok bool, err error)) error {
	if j.sem == nil {
		j.sem = make(chan struct{}, runtime.GOMAXPROCS(0))
	}
	j.sem <- struct{}{}
	if err := j.failed(); err != nil {
		<-j.sem
		return err
	}
	j.wg.Add(1)
	go func() {
		defer func() { <-j.sem; j.wg.Done() }()
		out, ok, err := write()
		j.mu.Lock()
		defer j.mu.Unlock()
		if err != nil {
			if j.err == nil {
				j.err = err
			}
			return
		}
		if ok {
			j.results = append(j.results, shardResult{shard, out})
		}
	}()
	return nil
}

func (j *shardJobs) failed() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.err
}

// finish waits for every write of the bundle, emits the results in shard
// order and returns the first error. The jobs are then empty, for the next
// bundle.
func (j *shardJobs) finish(emit func(int, string)) error {
	j.wg.Wait()
	results, err := j.results, j.err
	j.results, j.err = nil, nil
	if err != nil {
		return err
	}
	slices.SortFunc(results, func(a, b shardResult) int { return a.shard - b.shard })
	for _, r := range results {
		emit(r.shard, r.out)
	}
	return nil
}
