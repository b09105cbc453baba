package extract

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recrawl/recrawl/internal/extract/roundstate"
	"github.com/recrawl/recrawl/internal/testkit/proctest"
)

// killAt starts the command and SIGKILLs it once path exists (plus delay,
// to land inside the next step). It fails the test if the run ended before
// it could be killed (the kill point comes too late) or did not die of the
// signal.
func killAt(t *testing.T, args []string, path string, delay time.Duration) {
	t.Helper()
	run := proctest.Start(t, command(t, nil, args...))
	run.WaitForFile(t, path, 2*time.Minute)
	time.Sleep(delay)
	run.Kill(t)
	t.Logf("killed at %s + %v", shortArgs([]string{path}), delay)
}

func doneFileOf(work string, n int) string {
	return filepath.Join(roundstate.StateDir(work, n), roundstate.DoneFile)
}

// TestResumeAfterSIGKILL: a run killed with SIGKILL at several points, and
// started again with the same command each time, ends with the outputs of an
// uninterrupted run. The kill points: right after round 1 is committed,
// inside round 3 and inside round 4, and while the outputs are written.
func TestResumeAfterSIGKILL(t *testing.T) {
	a := fixture(t)
	want := referenceRun(t, a)
	out := filepath.Join(t.TempDir(), "out")
	work := filepath.Join(out, ".work")
	args := extractArgs(a, testEvent, out, referenceFlags...)
	if rounds := readTotals(t, want).Rounds; rounds < 5 {
		t.Fatalf("the reference run has %d rounds; the kill points need 5", rounds)
	}
	killAt(t, args, doneFileOf(work, 1), 0)
	killAt(t, args, doneFileOf(work, 2), 40*time.Millisecond)
	killAt(t, args, doneFileOf(work, 3), 90*time.Millisecond)
	// While the outputs are written: documents.jsonl is the first.
	killAt(t, args, filepath.Join(out, "documents.jsonl"), 0)
	before := snapshotDir(t, work)
	mustRun(t, nil, args...)
	// It resumed: the committed rounds were not run again.
	after := snapshotDir(t, work)
	for p, b := range before {
		if strings.Contains(p, "state-") && after[p] != b {
			t.Errorf("the resumed run rewrote %s of a committed round", p)
		}
	}
	sameOutputs(t, want, out, false)
	if _, err := os.Stat(filepath.Join(work, roundstate.FinishedFile)); err != nil {
		t.Errorf("no FINISHED after the run: %v", err)
	}
}

// TestResumeRoundsPerJob: with several rounds per job, a run killed inside
// a job (after its second round wrote its state, before the driver committed
// any of them) resumes from the state before the job; one killed while the
// driver commits a job's rounds resumes from the last committed one; and the
// outputs are those of an uninterrupted run with one round per job, whatever
// the rounds per job of the run that resumes.
func TestResumeRoundsPerJob(t *testing.T) {
	a := fixture(t)
	want := referenceRun(t, a)
	out := filepath.Join(t.TempDir(), "out")
	work := filepath.Join(out, ".work")
	args := extractArgs(a, testEvent, out, append(referenceFlags, "--rounds_per_job=3")...)
	if rounds := readTotals(t, want).Rounds; rounds < 5 {
		t.Fatalf("the reference run has %d rounds; the kill points need 5", rounds)
	}
	// Job 1 is rounds 0-2; job 2 rounds 3-5. Killed once round 4 of job 2
	// wrote its state (state 5): states 4 and 5 are not committed.
	killAt(t, args, filepath.Join(roundstate.StateDir(work, 5), roundstate.ManifestFile), 0)
	if n, err := roundstate.LastComplete(t.Context(), work); err != nil || n < 3 {
		t.Fatalf("killed inside job 2: last complete state %d (%v), want job 1's (3)", n, err)
	}
	// Resumed: job 2 again, killed as soon as the driver committed state 4.
	killAt(t, args, doneFileOf(work, 4), 0)
	// Finished with another number of rounds per job.
	mustRun(t, nil, extractArgs(a, testEvent, out, append(referenceFlags, "--rounds_per_job=2")...)...)
	sameOutputs(t, want, out, true)
}

// TestFinishedRunChangesNothing: a finished run started again with the same
// command says so and changes nothing, neither the outputs nor the state
// (contents and modification times); started with other settings on the same
// work directory, it refuses.
func TestFinishedRunChangesNothing(t *testing.T) {
	a := fixture(t)
	out := filepath.Join(t.TempDir(), "out")
	args := extractArgs(a, testEvent, out, referenceFlags...)
	mustRun(t, nil, args...)
	before := snapshotDir(t, out)
	if _, ok := before[filepath.Join(".work", roundstate.FinishedFile)]; !ok {
		t.Fatalf("no .work/%s after a finished run", roundstate.FinishedFile)
	}
	time.Sleep(20 * time.Millisecond) // a rewrite would get a later mtime
	r := mustRun(t, nil, args...)
	if !strings.Contains(r.stdout, "already finished") {
		t.Errorf("a finished run started again does not say it is finished:\n%s", r)
	}
	if d := diffSnapshots(before, snapshotDir(t, out)); len(d) > 0 {
		t.Errorf("starting a finished run again changed:\n%s", strings.Join(d, "\n"))
	}

	r = runBin(t, nil, append(args, "--target_size=121")...)
	if r.err == nil || !strings.Contains(r.stderr, "another extraction") {
		t.Errorf("other settings on the same --work: want an error, got %s", r)
	}
	if d := diffSnapshots(before, snapshotDir(t, out)); len(d) > 0 {
		t.Errorf("a refused run changed:\n%s", strings.Join(d, "\n"))
	}

	// Outputs deleted while the state is kept: they are written again.
	if err := os.Remove(filepath.Join(out, "run.json")); err != nil {
		t.Fatal(err)
	}
	mustRun(t, nil, args...)
	sameOutputs(t, referenceRun(t, a), out, false)
}

// TestMissingWARCStopsRound: an archive file the index names that is in no
// --archive location stops the round with an error naming it, and leaves
// the committed state as it was; once the file is back the same command
// finishes with the outputs of a clean run.
func TestMissingWARCStopsRound(t *testing.T) {
	a := fixture(t)
	want := referenceRun(t, a)
	dir := t.TempDir()
	// The archive location is a directory of links to the WARC files, so
	// one can go missing without touching the fixture.
	loc := filepath.Join(dir, "archive")
	if err := os.Mkdir(loc, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, w := range a.WARCs {
		if err := linkFile(w, filepath.Join(loc, filepath.Base(w))); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "out")
	work := filepath.Join(out, ".work")
	args := append(extractArgs(a, testEvent, out, referenceFlags...), "--archive", loc)

	// Two rounds done, then a file read by the last round of the clean
	// run goes missing.
	killAt(t, args, doneFileOf(work, 2), 0)
	docs := readDocs(t, want)
	last := docs[len(docs)-1]
	name := last.Filename
	if last.Revisit {
		name = last.PayloadFile
	}
	gone := filepath.Join(loc, name)
	if err := os.Rename(gone, gone+".away"); err != nil {
		t.Fatal(err)
	}
	before := snapshotDir(t, work)

	r := runBin(t, nil, args...)
	if r.err == nil {
		t.Fatalf("a run with %s missing succeeded:\n%s", name, r)
	}
	if !strings.Contains(r.stderr, name) {
		t.Errorf("the error does not name the missing file %s:\n%s", name, tail(r.stderr, 3000))
	}
	after := snapshotDir(t, work)
	for p, b := range before {
		if a, ok := after[p]; !ok || a.data != b.data || !a.mtime.Equal(b.mtime) {
			if !ok && prunedFrontier(t, work, p, 2) {
				continue // the kill came between round 2's commit and its prune
			}
			t.Errorf("the failed round changed the committed state: %s", p)
		}
	}
	// New states are only complete rounds before the failing one: the
	// highest state after the failure has DONE, and the next has none.
	for p := range after {
		if strings.HasSuffix(p, roundstate.FinishedFile) {
			t.Errorf("FINISHED after a failed run")
		}
	}
	n, err := roundstate.LastComplete(t.Context(), work)
	if err != nil {
		t.Fatal(err)
	}
	if n < 2 {
		t.Errorf("last complete state %d after the failure, want 2 or more", n)
	}
	if _, err := os.Stat(doneFileOf(work, n+1)); err == nil {
		t.Errorf("state %d is complete although its round failed", n+1)
	}
	if _, err := os.Stat(filepath.Join(out, "documents.jsonl")); err == nil {
		t.Errorf("a failed run wrote documents.jsonl")
	}

	if err := os.Rename(gone+".away", gone); err != nil {
		t.Fatal(err)
	}
	mustRun(t, nil, args...)
	sameOutputs(t, want, out, true)
}

// prunedFrontier reports whether p (relative to work) is a frontier file of
// a state before state last: resume does not need it, and a run prunes it
// when it starts (roundstate.PruneFrontiers) if the run that committed
// state last was killed before pruning it.
func prunedFrontier(t *testing.T, work, p string, last int) bool {
	t.Helper()
	for k := 0; k < last; k++ {
		rel, err := filepath.Rel(work, filepath.Join(roundstate.StateDir(work, k), roundstate.FrontierDir))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(filepath.ToSlash(p), filepath.ToSlash(rel)+"/") {
			return true
		}
	}
	return false
}

// TestResumeLabelledRefresh: a refresh with a researcher's labels,
// SIGKILLed while it writes its refresh record (once the labels are
// written, before the ranked frontier is complete) and inside its second
// round, and started again with the same command each time, ends with the
// bytes of an uninterrupted labelled refresh.
//
// Over 10 s: two 20-document extractions, a refresh to 40, and the same
// refresh killed twice and run to the end (46 s on 2 cores under a load
// average of 15).
func TestResumeLabelledRefresh(t *testing.T) {
	a := fixture(t)
	dir := t.TempDir()
	want, out := filepath.Join(dir, "uninterrupted"), filepath.Join(dir, "killed")
	extractWith := func(out string, extra ...string) []string {
		return extractArgs(a, testEvent, out, append([]string{"--batch_size=10", "--target_size=20"}, extra...)...)
	}
	for _, o := range []string{want, out} {
		mustRun(t, nil, extractWith(o)...)
	}
	rounds := readTotals(t, want).Rounds
	labels := filepath.Join(dir, "labels.tsv")
	writeTopicRLabels(t, labels, readDocs(t, want), 3, 2)
	refresh := func(out string) []string {
		return extractWith(out, "--refresh", "--target_size=40", "--labels_file", labels)
	}
	mustRun(t, nil, refresh(want)...)
	if info := readRunInfo(t, want); len(info.Refreshes) != 1 || info.Refreshes[0].Labels == nil || info.Refreshes[0].Reprioritised == 0 {
		t.Fatalf("run.json's refreshes %+v: want one with labels and the frontier ranked again", info.Refreshes)
	}

	work := filepath.Join(out, ".work")
	refreshDir := roundstate.RefreshDir(work, 1)
	killAt(t, refresh(out), filepath.Join(refreshDir, roundstate.LabelsFile), 0)
	if _, err := os.Stat(filepath.Join(refreshDir, roundstate.DoneFile)); err == nil {
		t.Logf("the kill came after the refresh record was complete")
	}
	killAt(t, refresh(out), doneFileOf(work, rounds+1), 40*time.Millisecond)
	mustRun(t, nil, refresh(out)...)
	sameOutputs(t, want, out, false)
}
