package roundstate

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/recrawl/recrawl/internal/collection"
	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/storage"
)

// TestStateRoundTrip: an initial state, then a round's part files written
// by two bundles, its manifest and its commit, read back as the driver
// reads them.
func TestStateRoundTrip(t *testing.T) {
	ctx := t.Context()
	work := t.TempDir()
	if n, err := LastComplete(ctx, work); err != nil || n != -1 {
		t.Fatalf("empty work directory: last complete state %d, %v; want -1", n, err)
	}
	seeds := []extract.Entry{{Key: "a", URL: "https://a/"}, {Key: "b", URL: "https://b/"}}
	if err := WriteInitial(ctx, work, seeds); err != nil {
		t.Fatal(err)
	}
	m0, err := ReadManifest(ctx, StateDir(work, 0))
	if err != nil {
		t.Fatal(err)
	}
	var got []extract.Entry
	for _, f := range m0.Frontier {
		if err := ReadPart(ctx, f, func(e extract.Entry) error { got = append(got, e); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if !reflect.DeepEqual(got, seeds) || m0.FrontierSize != 2 {
		t.Errorf("state 0: frontier %v (%d counted), want the seeds", got, m0.FrontierSize)
	}

	// Round 0: two bundles write results; one writes the frontier.
	dir := StateDir(work, 1)
	var lines []string
	emit := func(l string) { lines = append(lines, l) }
	b1 := NewPartWriter(storage.Join(dir, ResultsDir), KindResults)
	b2 := NewPartWriter(storage.Join(dir, ResultsDir), KindResults)
	fr := NewPartWriter(storage.Join(dir, FrontierDir), KindFrontier)
	for _, w := range []struct {
		pw *PartWriter
		v  any
	}{{&b1, &extract.Result{Rank: 1, Entry: seeds[1]}}, {&b2, &extract.Result{Rank: 0, Entry: seeds[0]}}, {&fr, &extract.Entry{Key: "c"}}} {
		if err := w.pw.Write(ctx, w.v); err != nil {
			t.Fatal(err)
		}
	}
	orphan := NewPartWriter(storage.Join(dir, ResultsDir), KindResults) // a retried bundle's file
	if err := orphan.Write(ctx, &extract.Result{Rank: 0, Entry: seeds[0]}); err != nil {
		t.Fatal(err)
	}
	orphan.Abort()
	for _, pw := range []*PartWriter{&b1, &b2, &fr} {
		if err := pw.Finish(emit); err != nil {
			t.Fatal(err)
		}
	}
	if err := WriteManifest(ctx, dir, lines); err != nil {
		t.Fatal(err)
	}
	m, err := ReadManifest(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	results, err := ReadResults(ctx, dir, m)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 2 || results[0].Entry.Key != "a" || results[1].Entry.Key != "b" || m.FrontierSize != 1 {
		t.Fatalf("round 0: results %v, frontier %d", results, m.FrontierSize)
	}
	if n, _ := LastComplete(ctx, work); n != 0 {
		t.Errorf("state 1 has no DONE yet, but the last complete state is %d", n)
	}
	rs := collection.Round{Round: 0, Selected: 2}
	if err := Commit(ctx, dir, rs, results); err != nil {
		t.Fatal(err)
	}
	if n, _ := LastComplete(ctx, work); n != 1 {
		t.Errorf("after the commit the last complete state is %d, want 1", n)
	}
	if got, err := ReadRoundStats(ctx, dir); err != nil || !reflect.DeepEqual(got, rs) {
		t.Errorf("round stats %+v, %v; want %+v", got, err, rs)
	}
	seen, err := LoadSeen(ctx, SeenFiles(work, 1))
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2 {
		t.Errorf("seen set after round 0: %v, want a and b", seen)
	}
	if err := Claim(ctx, work, `{"job":1}`); err != nil {
		t.Fatal(err)
	}
	if err := Claim(ctx, work, `{"job":1}`); err != nil {
		t.Errorf("the same job again: %v", err)
	}
	if err := Claim(ctx, work, `{"job":2}`); err == nil || !strings.Contains(err.Error(), "another extraction") {
		t.Errorf("another job: %v", err)
	}
}

// TestReadResultsRejectsIncompleteRound: a result missing from the files
// the manifest names is an error naming the state, not a shorter round.
func TestReadResultsRejectsIncompleteRound(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	p := filepath.Join(dir, ResultsDir, "part-x.gob")
	if err := WritePart(ctx, p, []extract.Result{{Rank: 0}, {Rank: 2}}); err != nil {
		t.Fatal(err)
	}
	m := Manifest{Results: []string{p}, ResultCount: 2}
	if _, err := ReadResults(ctx, dir, m); err == nil || !strings.Contains(err.Error(), "rank 2 where 1 belongs") {
		t.Errorf("ranks 0 and 2: %v", err)
	}
	m.ResultCount = 3
	if _, err := ReadResults(ctx, dir, m); err == nil || !strings.Contains(err.Error(), "names 3 results") {
		t.Errorf("a count the files do not hold: %v", err)
	}
}

// TestReadManifestErrors: bad lines and the older format are named.
func TestReadManifestErrors(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "frontier.manifest"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadManifest(ctx, dir); err == nil || !strings.Contains(err.Error(), "older recrawl") {
		t.Errorf("old format: %v", err)
	}
	for _, bad := range []string{"results\tp\n", "results\tp\t-1\n", "other\tp\t1\n"} {
		if err := os.WriteFile(filepath.Join(dir, ManifestFile), []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadManifest(ctx, dir); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// TestLoadSeenGrows: a later round's set adds only the new files, and the
// earlier set is left as it was.
func TestLoadSeenGrows(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	f1, f2 := filepath.Join(dir, "1"), filepath.Join(dir, "2")
	os.WriteFile(f1, []byte("a\nb\n"), 0o644)
	os.WriteFile(f2, []byte("c\n"), 0o644)
	s1, err := LoadSeen(ctx, []string{f1})
	if err != nil {
		t.Fatal(err)
	}
	s2, err := LoadSeen(ctx, []string{f1, f2})
	if err != nil {
		t.Fatal(err)
	}
	if len(s1) != 2 || len(s2) != 3 {
		t.Errorf("seen sets: %v then %v", s1, s2)
	}
	if _, err := LoadSeen(ctx, []string{f1, f2, filepath.Join(dir, "missing")}); err == nil {
		t.Error("a missing seen file gave no error")
	}
}

// TestRefreshRecords: a refresh that resolves URLs again starts the seen
// set anew from its own file and adds its entries to its state's frontier;
// one that resolves none changes neither; an incomplete one is not listed.
func TestRefreshRecords(t *testing.T) {
	ctx := t.Context()
	work := t.TempDir()
	if rs, err := Refreshes(ctx, work); err != nil || len(rs) != 0 {
		t.Fatalf("no refresh yet: %v, %v", rs, err)
	}
	again := []extract.Entry{{Key: "m", URL: "https://m/"}}
	if err := WriteRefresh(ctx, work, Refresh{Number: 1, State: 3}, again, []string{"b", "a"}); err != nil {
		t.Fatal(err)
	}
	if err := WriteRefresh(ctx, work, Refresh{Number: 2, State: 5}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := storage.WriteFile(ctx, storage.Join(RefreshDir(work, 3), RefreshFile), []byte(`{"number":3}`)); err != nil {
		t.Fatal(err) // no DONE: not a refresh
	}
	rs, err := Refreshes(ctx, work)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 || rs[0].ResolvedAgain != 1 || rs[1].ResolvedAgain != 0 || rs[1].State != 5 {
		t.Fatalf("refreshes %+v, want 1 (1 URL at state 3) and 2 (none at state 5)", rs)
	}
	if got, want := SeenFilesWith(work, 2, rs), SeenFiles(work, 2); !reflect.DeepEqual(got, want) {
		t.Errorf("before the first refresh: seen files %v, want %v", got, want)
	}
	want := []string{storage.Join(RefreshDir(work, 1), SeenFile), storage.Join(StateDir(work, 4), SeenFile), storage.Join(StateDir(work, 5), SeenFile)}
	if got := SeenFilesWith(work, 5, rs); !reflect.DeepEqual(got, want) {
		t.Errorf("after the refreshes: seen files %v, want %v", got, want)
	}
	seen, err := LoadSeen(ctx, want[:1])
	if err != nil || len(seen) != 2 {
		t.Errorf("the refresh's seen set: %v, %v; want a and b", seen, err)
	}
	files, n := RefreshFrontier(work, 3, rs)
	if len(files) != 1 || n != 1 {
		t.Fatalf("frontier added at state 3: %v (%d), want one file of 1 entry", files, n)
	}
	var got []extract.Entry
	if err := ReadPart(ctx, files[0], func(e extract.Entry) error { got = append(got, e); return nil }); err != nil || !reflect.DeepEqual(got, again) {
		t.Errorf("the refresh's frontier: %v, %v", got, err)
	}
	if files, n := RefreshFrontier(work, 5, rs); len(files) != 0 || n != 0 {
		t.Errorf("a refresh that resolved nothing adds %v (%d) to the frontier", files, n)
	}
}

// TestLabelledRefresh: a refresh with labels stores them (ReadLabels reads
// the last refresh's), and its ranked frontier replaces the state's
// frontier and the earlier refreshes' entries at that state; a later plain
// refresh at the same state adds its own; at another state nothing
// changes.
func TestLabelledRefresh(t *testing.T) {
	ctx := t.Context()
	work := t.TempDir()
	if l, err := ReadLabels(ctx, work, nil); err != nil || l != nil {
		t.Fatalf("no refresh: labels %v, %v; want none", l, err)
	}
	again := []extract.Entry{{Key: "m", URL: "https://m/"}}
	if err := WriteRefresh(ctx, work, Refresh{Number: 1, State: 3}, again, []string{"a"}); err != nil {
		t.Fatal(err)
	}
	labels := &extract.LabelState{Grades: map[string]float64{"a": 1, "b": 0}}
	ranked := []extract.Entry{{Key: "m", URL: "https://m/", Priority: 0.5}, {Key: "z", URL: "https://z/", Priority: 0.25}}
	r2 := Refresh{Number: 2, State: 3, Labels: &collection.RefreshLabels{Path: "l.tsv", Positive: 1, Negative: 1}}
	if err := WriteLabelledRefresh(ctx, work, r2, nil, nil, labels, ranked); err != nil {
		t.Fatal(err)
	}
	if err := WriteRefresh(ctx, work, Refresh{Number: 3, State: 3}, []extract.Entry{{Key: "n", URL: "https://n/"}}, []string{"a"}); err != nil {
		t.Fatal(err)
	}
	rs, err := Refreshes(ctx, work)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 3 || rs[1].Reprioritised != 2 || rs[1].Labels == nil {
		t.Fatalf("refreshes %+v: want the second with labels and 2 entries ranked again", rs)
	}
	got, err := ReadLabels(ctx, work, rs)
	if err != nil || !reflect.DeepEqual(got, labels) {
		t.Errorf("labels in force: %+v, %v; want %+v", got, err, labels)
	}
	state := []string{"state-frontier.gob"}
	files, n := RefreshedFrontier(work, 3, rs, state, 7)
	want := []string{
		storage.Join(RefreshDir(work, 2), FrontierDir, rankedFile),
		storage.Join(RefreshDir(work, 3), FrontierDir, againFile),
	}
	if !reflect.DeepEqual(files, want) || n != 3 {
		t.Errorf("frontier at state 3: %v (%d), want %v (3)", files, n, want)
	}
	var entries []extract.Entry
	if err := ReadPart(ctx, want[0], func(e extract.Entry) error { entries = append(entries, e); return nil }); err != nil || !reflect.DeepEqual(entries, ranked) {
		t.Errorf("the ranked frontier: %v, %v", entries, err)
	}
	if files, n := RefreshedFrontier(work, 4, rs, state, 7); !reflect.DeepEqual(files, state) || n != 7 {
		t.Errorf("frontier at state 4: %v (%d), want the state's", files, n)
	}
}

// TestPartWriterHoldsNoBufferBetweenFiles: once a part file is committed or
// discarded, the writer holds no buffer (the DoFn that owns it is kept by
// the harness until the worker ends), and the next value starts a new file.
func TestPartWriterHoldsNoBufferBetweenFiles(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	pw := NewPartWriter(dir, KindFrontier)
	var lines []string
	emit := func(l string) { lines = append(lines, l) }
	for file := range 2 {
		for i := range 3 {
			e := extract.Entry{URL: fmt.Sprintf("http://example.com/%d/%d", file, i), Key: fmt.Sprintf("com,example)/%d/%d", file, i)}
			if err := pw.Write(ctx, &e); err != nil {
				t.Fatal(err)
			}
		}
		if file == 0 {
			if err := pw.Finish(emit); err != nil {
				t.Fatal(err)
			}
		} else {
			pw.Abort()
		}
		if pw.bw != nil || pw.enc != nil || pw.w != nil {
			t.Errorf("file %d: after Finish or Abort the writer holds a buffer (%v), an encoder (%v) or a file (%v)", file, pw.bw != nil, pw.enc != nil, pw.w != nil)
		}
	}
	if len(lines) != 1 {
		t.Fatalf("%d manifest lines, want 1 (the aborted file has none)", len(lines))
	}
}
