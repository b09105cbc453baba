// Package parallel runs the iterations of a loop on all cores, for work
// that is independent per index (reading and scoring the records of a
// round, reading a round's state files). Callers write results by index,
// so nothing they produce depends on scheduling.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// For runs fn(0), …, fn(n-1) on up to GOMAXPROCS goroutines and returns
// when all have returned.
func For(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				fn(i)
			}
		})
	}
	wg.Wait()
}
