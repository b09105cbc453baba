package extract

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestStopAfterEmptyRoundsEveryRound: a run whose seeds are all missing
// stops after stop_after_empty_rounds rounds with that reason, on both
// engines, and with several rounds per job the job stops between its
// rounds (not at its end): the same rounds and outputs as one round per job.
func TestStopAfterEmptyRoundsEveryRound(t *testing.T) {
	a := fixture(t)
	dir := t.TempDir()
	var seeds []doc
	for i := range 12 {
		seeds = append(seeds, doc{URL: fmt.Sprintf("http://missing.example/page-%d", i)})
	}
	spec := filepath.Join(dir, "spec.yaml")
	writeSpecWithSeeds(t, a.Spec(testEvent), spec, seeds)
	data, err := os.ReadFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(spec, append(data, []byte("\nstop_after_empty_rounds: 2\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(name string, flags ...string) string {
		out := filepath.Join(dir, name)
		args := append([]string{"--spec", spec, "--archive", a.WARCDir, "--index", a.IndexSpec(), "--output", out, "--quiet", "--batch_size=2"}, flags...)
		mustRun(t, nil, args...)
		return out
	}
	const reason = "no document collected in the last 2 rounds (stop_after_empty_rounds)"
	one := run("per-job-1", "--rounds_per_job=1")
	if tot := readTotals(t, one); tot.Rounds != 2 || tot.StopReason != reason {
		t.Errorf("rounds_per_job 1: %d rounds, stop reason %q; want 2 rounds, %q", tot.Rounds, tot.StopReason, reason)
	}
	three := run("per-job-3", "--rounds_per_job=3")
	if tot := readTotals(t, three); tot.Rounds != 2 || tot.StopReason != reason {
		t.Errorf("rounds_per_job 3: %d rounds, stop reason %q; want 2 rounds, %q", tot.Rounds, tot.StopReason, reason)
	}
	sameOutputs(t, one, three, true)
	seq := run("sequential", "--engine=sequential")
	if tot := readTotals(t, seq); tot.StopReason != reason {
		t.Errorf("sequential engine: stop reason %q; want %q", tot.StopReason, reason)
	}
}
