package index

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"
)

// TestShardJobsOrder: shards that finish in reverse order are emitted in
// shard order, a shard without output is not emitted, and the jobs are
// empty for the next bundle.
func TestShardJobsOrder(t *testing.T) {
	var j shardJobs
	for round := range 2 {
		for s := range 6 {
			err := j.start(s, func() (string, bool, error) {
				time.Sleep(time.Duration(6-s) * time.Millisecond)
				return fmt.Sprintf("out-%d", s), s != 3, nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		var got []string
		if err := j.finish(func(s int, out string) { got = append(got, fmt.Sprintf("%d:%s", s, out)) }); err != nil {
			t.Fatal(err)
		}
		want := []string{"0:out-0", "1:out-1", "2:out-2", "4:out-4", "5:out-5"}
		if !slices.Equal(got, want) {
			t.Fatalf("bundle %d emitted %v, want %v", round, got, want)
		}
	}
}

// TestShardJobsError: a failed write is the bundle's error, nothing is
// emitted, and the shards started after it are not written.
func TestShardJobsError(t *testing.T) {
	var j shardJobs
	boom := errors.New("disk full")
	if err := j.start(0, func() (string, bool, error) { return "", false, boom }); err != nil {
		t.Fatal(err)
	}
	j.wg.Wait()
	written := false
	err := j.start(1, func() (string, bool, error) { written = true; return "x", true, nil })
	if !errors.Is(err, boom) {
		t.Errorf("start after a failure: %v, want %v", err, boom)
	}
	emitted := 0
	if err := j.finish(func(int, string) { emitted++ }); !errors.Is(err, boom) {
		t.Errorf("finish: %v, want %v", err, boom)
	}
	if written || emitted > 0 {
		t.Errorf("after a failure: written %v, emitted %d", written, emitted)
	}
}
