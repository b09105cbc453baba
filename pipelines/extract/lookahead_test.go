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
