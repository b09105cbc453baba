package extract

import (
	"path/filepath"
	"reflect"
	"testing"
)

// TestBeamK1LookAheadEqualsSequential: with look_ahead (each round reads
// F candidates and keeps the one document of highest TopicR, the others
// going back to the frontier scored), the Beam rounds at K = 1 give
// the sequential engine's outputs exactly, and the option changes the
// collection, so that the comparison covers it.
func TestBeamK1LookAheadEqualsSequential(t *testing.T) {
	a := fixture(t)
	dir := t.TempDir()
	spec := focusSpec(t, a, "look_ahead: 3\n")
	plain, seq, beam := filepath.Join(dir, "plain"), filepath.Join(dir, "sequential"), filepath.Join(dir, "beam")
	// 20 documents: a Beam run at K = 1 costs a job per round.
	mustRun(t, nil, extractArgs(a, testEvent, plain, "--engine=sequential", "--batch_size=1", "--target_size=20")...)
	mustRun(t, nil, focusArgs(a, spec)(seq, "--engine=sequential", "--batch_size=1", "--target_size=20")...)
	mustRun(t, nil, focusArgs(a, spec)(beam, "--engine=beam", "--batch_size=1", "--target_size=20")...)
	sameOutputs(t, seq, beam, true)
	docs := readDocs(t, seq)
	if len(docs) != 20 {
		t.Fatalf("look_ahead: %d documents, want the target 20", len(docs))
	}
	if reflect.DeepEqual(readDocs(t, plain), docs) {
		t.Errorf("look_ahead: 3 changes nothing in this run: the comparison does not cover it")
	}
}

// TestLookAheadRoundsPerJob: with look_ahead, a job of several rounds
// (each round's K, and so its F·K candidates, planned inside the job)
// writes the bytes of one job per round, including the last round, whose
// K is cut to reach the target exactly.
func TestLookAheadRoundsPerJob(t *testing.T) {
	a := fixture(t)
	dir := t.TempDir()
	spec := focusSpec(t, a, "look_ahead: 2\n")
	perRound, perJob := filepath.Join(dir, "per-round"), filepath.Join(dir, "per-job")
	mustRun(t, nil, focusArgs(a, spec)(perRound, "--engine=beam", "--batch_size=10", "--target_size=45", "--rounds_per_job=1")...)
	mustRun(t, nil, focusArgs(a, spec)(perJob, "--engine=beam", "--batch_size=10", "--target_size=45", "--rounds_per_job=4")...)
	sameOutputs(t, perRound, perJob, true)
	if docs := readDocs(t, perJob); len(docs) != 45 {
		t.Fatalf("look_ahead with 4 rounds per job: %d documents, want the target 45", len(docs))
	}
}
