package parallel

import (
	"sync/atomic"
	"testing"
)

// TestForEachIndexOnce: every index runs exactly once, for any n.
func TestForEachIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 7, 1000} {
		counts := make([]atomic.Int32, n)
		For(n, func(i int) { counts[i].Add(1) })
		for i := range counts {
			if c := counts[i].Load(); c != 1 {
				t.Fatalf("n=%d: index %d ran %d times", n, i, c)
			}
		}
	}
}
