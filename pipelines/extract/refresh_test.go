package extract

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/bigtable"
	gcs "cloud.google.com/go/storage"
	"github.com/recrawl/recrawl/internal/btindex"
	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/collection"
	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/extract/roundstate"
	"github.com/recrawl/recrawl/internal/index"
	"github.com/recrawl/recrawl/internal/testkit/extracttest"
	"github.com/recrawl/recrawl/internal/testkit/testservers"
)

// indexFiles builds a CDXJ index of warcs with document frequencies in
// dir with `recrawl index`, and returns its --index value.
func indexFiles(t *testing.T, dir string, warcs []string) string {
	t.Helper()
	cmd := indexCommand(t, nil, "--input", strings.Join(warcs, ","), "--output", dir, "--dictionary")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("index %s: %v\n%s", dir, err, tail(string(out), 3000))
	}
	return "cdxj:" + filepath.Join(dir, "index.cdxj")
}

func readRunInfo(t *testing.T, out string) collection.RunInfo {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var info collection.RunInfo
	if err := json.Unmarshal(data, &info); err != nil {
		t.Fatalf("%s/run.json: %v", out, err)
	}
	return info
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestRefresh: an extraction on the index of the first three WARC files
// ("night 1", built by recrawl index), then refreshed against the
// fixture's index of all four with a higher
// target_size. The refresh keeps the documents and WARC records of the
// first run as the prefix of documents.jsonl and collection.warc.gz and
// adds new ones, collects URLs that were missing for want of a capture,
// and lists itself in run.json. Refreshed again on the same index, it writes nothing. A second
// copy refreshed with two SIGKILLs on the way ends with the same outputs,
// and a spec that differs in another field is refused naming it.
//
// Over 10 s: an index, two night-1 extractions and four refreshes.
func TestRefresh(t *testing.T) {
	a := fixture(t)
	dir := t.TempDir()
	night1 := indexFiles(t, filepath.Join(dir, "night1"), a.WARCs[:len(a.WARCs)-1])
	full := a.IndexSpec() // all four files, with the same lines and document frequencies
	first, second := filepath.Join(dir, "first"), filepath.Join(dir, "second")
	// Several rounds per job: fewer job starts, the same outputs.
	extractWith := func(out, index string, extra ...string) []string {
		return extractArgs(a, testEvent, out, append([]string{"--index", index, "--batch_size=20", "--target_size=50", "--rounds_per_job=8"}, extra...)...)
	}
	refresh := func(out string, extra ...string) []string {
		return extractWith(out, full, append([]string{"--refresh", "--target_size=80"}, extra...)...)
	}
	mustRun(t, nil, extractWith(first, night1)...)
	mustRun(t, nil, extractWith(second, night1)...)
	sameOutputs(t, first, second, false)
	before := map[string][]byte{}
	for _, name := range []string{"documents.jsonl", "collection.warc.gz"} {
		before[name] = readFile(t, filepath.Join(first, name))
	}
	docsBefore, missingBefore := readDocs(t, first), readMissing(t, first)
	rounds := readTotals(t, first).Rounds

	// A field other than the stopping ones: refused, naming it, nothing changed.
	snap := snapshotDir(t, first)
	r := runBin(t, nil, refresh(first, "--batch_size=30")...)
	if r.err == nil || !strings.Contains(r.stderr, "batch_size") || !strings.Contains(r.stderr, "target_size") {
		t.Errorf("a refresh with another batch_size: want an error naming batch_size and what may change, got %s", r)
	}
	if d := diffSnapshots(snap, snapshotDir(t, first)); len(d) > 0 {
		t.Errorf("a refused refresh changed:\n%s", strings.Join(d, "\n"))
	}

	r = mustRun(t, nil, refresh(first)...)
	if !strings.Contains(r.stdout, "refresh 1:") {
		t.Errorf("the refresh does not report itself:\n%s", r)
	}
	docs := readDocs(t, first)
	if len(docs) <= len(docsBefore) {
		t.Fatalf("the refresh added no document: %d before, %d after", len(docsBefore), len(docs))
	}
	for name, old := range before {
		now := readFile(t, filepath.Join(first, name))
		if !bytes.HasPrefix(now, old) || len(now) == len(old) {
			t.Errorf("%s after the refresh: %d bytes, not the %d bytes of the first run followed by more", name, len(now), len(old))
		}
	}
	collected := map[string]bool{}
	for _, d := range docs {
		collected[d.SURT] = true
	}
	found := 0
	for _, m := range missingBefore {
		if collected[m.SURT] {
			found++
		}
	}
	if found == 0 {
		t.Errorf("none of the %d URLs missing after night 1 was collected by the refresh", len(missingBefore))
	}
	info := readRunInfo(t, first)
	if len(info.Refreshes) != 1 {
		t.Fatalf("run.json lists %d refreshes, want 1", len(info.Refreshes))
	}
	rf := info.Refreshes[0]
	if rf.Added != len(docs)-len(docsBefore) || rf.State != rounds || rf.ResolvedAgain == 0 || rf.IndexState == "" ||
		len(rf.Index) != 1 || rf.Index[0] != full || info.Totals.Collected != len(docs) {
		t.Errorf("run.json's refresh %+v: want %d documents added from round %d, URLs resolved again, index %s; totals %+v",
			rf, len(docs)-len(docsBefore), rounds, full, info.Totals)
	}
	if _, err := time.Parse(time.RFC3339, rf.Time); err != nil {
		t.Errorf("refresh time %q: %v", rf.Time, err)
	}
	checkReasonsAgree(t, first)
	t.Logf("night 1: %d documents, %d missing; refresh: %d documents added, %d of the missing URLs collected, %d resolved again",
		len(docsBefore), len(missingBefore), rf.Added, found, rf.ResolvedAgain)

	// The same refresh again, the index unchanged: nothing written.
	snap = snapshotDir(t, first)
	time.Sleep(20 * time.Millisecond) // a rewrite would get a later mtime
	r = mustRun(t, nil, refresh(first)...)
	if !strings.Contains(r.stdout, "nothing new") {
		t.Errorf("a refresh on an unchanged index does not say there is nothing new:\n%s", r)
	}
	if d := diffSnapshots(snap, snapshotDir(t, first)); len(d) > 0 {
		t.Errorf("a refresh on an unchanged index changed:\n%s", strings.Join(d, "\n"))
	}

	// The second copy: killed once its refresh is recorded, and once the
	// refresh's second round is committed; then run to the end.
	work := filepath.Join(second, ".work")
	killAt(t, refresh(second), filepath.Join(roundstate.RefreshDir(work, 1), roundstate.DoneFile), 0)
	killAt(t, refresh(second, "--rounds_per_job=2"), doneFileOf(work, rounds+2), 30*time.Millisecond)
	mustRun(t, nil, refresh(second)...)
	sameOutputs(t, first, second, false)
}

// TestRefreshBigtable: an extraction through a Bigtable index (the
// emulator) that holds the first three WARC files, listed in the table's
// file list as `recrawl index --add` lists them, refreshed with a higher
// target_size. The refresh records the table's state in run.json;
// refreshed again on the unchanged table, it writes nothing. After
// `recrawl index --add` of the fourth file, the next refresh records
// another state and resolves the missing URLs again.
//
// Over 10 s: an index run, an extraction and three refreshes.
func TestRefreshBigtable(t *testing.T) {
	a := fixture(t)
	host := testservers.Bigtable(t)
	t.Setenv("BIGTABLE_EMULATOR_HOST", host)
	env := []string{"BIGTABLE_EMULATOR_HOST=" + host}
	const table = "p/i/nights"
	loadListed(t, a, "p", "i", "nights", a.WARCs[:len(a.WARCs)-1])
	out := filepath.Join(t.TempDir(), "collection")
	dict := "--dictionary=" + filepath.Dir(a.Dictionary("en"))
	extractWith := func(extra ...string) []string {
		return extractArgs(a, testEvent, out, append([]string{"--index=bigtable:" + table, dict, "--batch_size=20", "--target_size=30", "--rounds_per_job=8"}, extra...)...)
	}
	refresh := func() []string { return extractWith("--refresh", "--target_size=50") }
	mustRun(t, env, extractWith()...)
	mustRun(t, env, refresh()...)
	info := readRunInfo(t, out)
	if len(info.Refreshes) != 1 {
		t.Fatalf("run.json after a refresh through Bigtable: refreshes %+v, want one", info.Refreshes)
	}
	if info.Refreshes[0].IndexState == "" {
		t.Errorf("run.json after a refresh through Bigtable: refresh %+v has no index state", info.Refreshes[0])
	}
	first := info.Refreshes[0]

	// The same refresh again, the table unchanged: nothing written.
	snap := snapshotDir(t, out)
	time.Sleep(20 * time.Millisecond) // a rewrite would get a later mtime
	if r := mustRun(t, env, refresh()...); !strings.Contains(r.stdout, "nothing new") {
		t.Errorf("a refresh on an unchanged Bigtable index does not say there is nothing new:\n%s", r)
	}
	if d := diffSnapshots(snap, snapshotDir(t, out)); len(d) > 0 {
		t.Errorf("a refresh on an unchanged Bigtable index changed:\n%s", strings.Join(d, "\n"))
	}

	// Another night's file added to the table: another state.
	start := time.Now()
	cmd := indexCommand(t, env, "--add", "--input", a.WARCs[len(a.WARCs)-1], "--bigtable", table)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("index --add into %s: %v\n%s", table, err, tail(string(out), 3000))
	}
	t.Logf("index --add of one file into %s: %.1fs", table, time.Since(start).Seconds())
	mustRun(t, env, refresh()...)
	info = readRunInfo(t, out)
	if len(info.Refreshes) != 2 {
		t.Fatalf("run.json after a refresh on a table with another file lists %d refreshes, want 2", len(info.Refreshes))
	}
	second := info.Refreshes[1]
	if second.IndexState == "" || second.IndexState == first.IndexState || second.ResolvedAgain == 0 {
		t.Errorf("refresh after index --add: state %.12s (before %.12s), %d missing URLs resolved again; want another state and URLs resolved again",
			second.IndexState, first.IndexState, second.ResolvedAgain)
	}
	t.Logf("refresh 1: state %.12s, %d added; refresh after index --add: state %.12s, %d added, %d resolved again",
		first.IndexState, first.Added, second.IndexState, second.Added, second.ResolvedAgain)
}

// loadListed writes the captures of warcs (the fixture's index lines of
// those files) into a new table of the Bigtable emulator and lists the
// files in its file list, as `recrawl index --add --bigtable` does without
// --dictionary.
func loadListed(t *testing.T, a *extracttest.Archive, project, instance, table string, warcs []string) {
	t.Helper()
	ctx := context.Background()
	admin, err := bigtable.NewAdminClient(ctx, project, instance)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if err := btindex.EnsureTable(ctx, admin, table); err != nil {
		t.Fatal(err)
	}
	client, err := bigtable.NewClient(ctx, project, instance)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	tbl := client.Open(table)
	names := map[string]bool{}
	for _, w := range warcs {
		names[filepath.Base(w)] = true
	}
	writer := btindex.NewWriter(tbl, 0)
	for _, l := range a.Lines {
		c, err := cdxj.Parse(l)
		if err != nil {
			t.Fatal(err)
		}
		if names[c.Filename] {
			if err := writer.Add(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := writer.Close(ctx); err != nil {
		t.Fatal(err)
	}
	ids, err := index.IdentifyFiles(ctx, warcs)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if err := btindex.ListFile(ctx, tbl, id, time.Now(), false); err != nil {
			t.Fatal(err)
		}
	}
}

// writeTopicRLabels writes a researcher's labels file to path for docs:
// the relevant documents of highest TopicR relevant, the notRelevant of
// lowest not, and a URL the collection does not hold relevant. It returns
// the file's lines after the header.
func writeTopicRLabels(t *testing.T, path string, docs []doc, relevant, notRelevant int) []string {
	t.Helper()
	byTopicR := slices.Clone(docs)
	slices.SortStableFunc(byTopicR, func(a, b doc) int { return cmp.Compare(b.TopicR, a.TopicR) })
	var lines []string
	for _, d := range byTopicR[:relevant] {
		lines = append(lines, d.URL+"\t1")
	}
	for _, d := range byTopicR[len(byTopicR)-notRelevant:] {
		lines = append(lines, d.URL+"\t0")
	}
	lines = append(lines, "http://not-in-the-collection.example/page\t1")
	if err := os.WriteFile(path, []byte("url\tgrade\n"+strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return lines
}

// TestRefreshWithLabels: an extraction of 30 documents refreshed to 50
// with a researcher's labels (the four documents of highest TopicR
// relevant, the three of lowest not, and a URL the collection does not
// hold). The refresh keeps the first documents as the prefix of
// documents.jsonl, records the labels in run.json (file, sha256, counts)
// and ranks the frontier again, which changes what it collects next from
// a refresh without labels. A copy refreshed with the same labels and
// SIGKILLed once its refresh is recorded and once a round is committed
// ends with the same bytes; the same labels again write nothing. A
// malformed labels file is refused naming its line, --labels_file without
// --refresh is refused, and neither changes the extraction.
//
// Over 10 s: three 30-document extractions and five refreshes.
func TestRefreshWithLabels(t *testing.T) {
	a := fixture(t)
	dir := t.TempDir()
	extractWith := func(out string, extra ...string) []string {
		return extractArgs(a, testEvent, out, append([]string{"--batch_size=10", "--target_size=30", "--rounds_per_job=4"}, extra...)...)
	}
	labelled, killed, plain := filepath.Join(dir, "labelled"), filepath.Join(dir, "killed"), filepath.Join(dir, "plain")
	for _, out := range []string{labelled, killed, plain} {
		mustRun(t, nil, extractWith(out)...)
	}
	docsBefore := readDocs(t, labelled)
	rounds := readTotals(t, labelled).Rounds
	labels := filepath.Join(dir, "labels.tsv")
	lines := writeTopicRLabels(t, labels, docsBefore, 4, 3)
	refresh := func(out string, extra ...string) []string {
		return extractWith(out, append([]string{"--refresh", "--target_size=50"}, extra...)...)
	}

	// Refused: a malformed file (naming its line), --labels_file without --refresh.
	bad := filepath.Join(dir, "bad.tsv")
	if err := os.WriteFile(bad, []byte("url\tgrade\n"+lines[0]+"\nhttp://example.com/x\trelevant\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	snap := snapshotDir(t, labelled)
	if r := runBin(t, nil, refresh(labelled, "--labels_file", bad)...); r.err == nil || !strings.Contains(r.stderr, bad+":3") {
		t.Errorf("a refresh with a malformed labels file: want an error naming %s:3, got %s", bad, r)
	}
	if r := runBin(t, nil, extractWith(labelled, "--labels_file", labels)...); r.err == nil || !strings.Contains(r.stderr, "--labels_file: only with --refresh") {
		t.Errorf("--labels_file without --refresh: want an error, got %s", r)
	}
	if d := diffSnapshots(snap, snapshotDir(t, labelled)); len(d) > 0 {
		t.Errorf("a refused refresh changed:\n%s", strings.Join(d, "\n"))
	}

	r := mustRun(t, nil, refresh(labelled, "--labels_file", labels)...)
	if !strings.Contains(r.stdout, "labels "+labels+": 4 relevant, 3 not relevant, 1 not in the collection") {
		t.Errorf("the refresh does not report its labels:\n%s", r)
	}
	docs := readDocs(t, labelled)
	if len(docs) <= len(docsBefore) || !reflect.DeepEqual(docs[:len(docsBefore)], docsBefore) {
		t.Fatalf("the labelled refresh did not keep the %d documents as they were and add more (%d now)", len(docsBefore), len(docs))
	}
	sum := sha256.Sum256(readFile(t, labels))
	info := readRunInfo(t, labelled)
	want := collection.RefreshLabels{Path: labels, SHA256: hex.EncodeToString(sum[:]), Positive: 4, Negative: 3, NotInCollection: 1}
	if len(info.Refreshes) != 1 || info.Refreshes[0].Labels == nil || *info.Refreshes[0].Labels != want ||
		info.Refreshes[0].State != rounds || info.Refreshes[0].Reprioritised == 0 {
		t.Fatalf("run.json's refreshes %+v: want one at round %d with labels %+v and the frontier ranked again", info.Refreshes, rounds, want)
	}

	mustRun(t, nil, refresh(plain)...)
	if reflect.DeepEqual(readDocs(t, plain), docs) {
		t.Errorf("the labels change nothing in this refresh: the comparisons do not cover them")
	}

	work := filepath.Join(killed, ".work")
	killAt(t, refresh(killed, "--labels_file", labels), filepath.Join(roundstate.RefreshDir(work, 1), roundstate.DoneFile), 0)
	killAt(t, refresh(killed, "--labels_file", labels, "--rounds_per_job=1"), doneFileOf(work, rounds+1), 0)
	mustRun(t, nil, refresh(killed, "--labels_file", labels)...)
	sameOutputs(t, labelled, killed, true)

	snap = snapshotDir(t, labelled)
	if r := mustRun(t, nil, refresh(labelled, "--labels_file", labels)...); !strings.Contains(r.stdout, "nothing new") {
		t.Errorf("the same labels on an unchanged index do not say there is nothing new:\n%s", r)
	}
	if d := diffSnapshots(snap, snapshotDir(t, labelled)); len(d) > 0 {
		t.Errorf("the same labels again changed:\n%s", strings.Join(d, "\n"))
	}
}

// TestIndexStateGCS: the state of an incremental index on gs:// is its
// index.files, so a night that adds a segment (index.files gets a line,
// the base's files stay as they were) changes the state and the refresh
// resolves the missing URLs again, for a CDXJ index (cdxj:gs://…/index.cdxj)
// and a ZipNum one (zipnum:gs://DIR); an index without index.files is told
// by its objects' names and sizes.
func TestIndexStateGCS(t *testing.T) {
	t.Setenv("STORAGE_EMULATOR_HOST", testservers.GCS(t)) // read by internal/storage's client
	ctx := context.Background()
	c, err := gcs.NewClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Bucket("idx").Create(ctx, "test-project", nil); err != nil {
		t.Fatalf("create bucket: %v", err)
	}
	put := func(name, data string) {
		w := c.Bucket("idx").Object(name).NewWriter(ctx)
		w.Write([]byte(data))
		if err := w.Close(); err != nil {
			t.Fatalf("upload %s: %v", name, err)
		}
	}
	state := func(index string) string {
		s, err := IndexState(ctx, []extract.Source{{Name: "a", Index: index}})
		if err != nil || s == "" {
			t.Fatalf("IndexState(%s) = %q, %v", index, s, err)
		}
		return s
	}
	const header = `{"version":2,"format":"cdxj","shards":1}` + "\n"
	for _, ix := range []struct{ index, dir, base string }{
		{"cdxj:gs://idx/c/index.cdxj", "c", "c/index.cdxj"},
		{"zipnum:gs://idx/z", "z", "z/cluster.idx"},
	} {
		put(ix.base, "com,example)/ 20100101000000 {}\n")
		put(ix.dir+"/index.files", header+`{"name":"a.warc.gz","size":1}`+"\n")
		night1 := state(ix.index)
		if again := state(ix.index); again != night1 {
			t.Errorf("%s: two states of the same index differ: %s, %s", ix.index, night1, again)
		}
		put(ix.dir+"/segments/000001/index.cdxj", "com,example)/b 20100101000000 {}\n")
		put(ix.dir+"/index.files", header+`{"name":"a.warc.gz","size":1}`+"\n"+`{"name":"b.warc.gz","size":1,"segment":"000001"}`+"\n")
		if state(ix.index) == night1 {
			t.Errorf("%s: a segment listed in index.files does not change the index state", ix.index)
		}
	}
	put("plain/index.cdxj", "com,example)/ 20100101000000 {}\n")
	before := state("cdxj:gs://idx/plain/index.cdxj")
	put("plain/index.cdxj", "com,example)/ 20100101000000 {}\ncom,example)/b 20100101000000 {}\n")
	if state("cdxj:gs://idx/plain/index.cdxj") == before {
		t.Error("an index without index.files: a larger index.cdxj does not change the index state")
	}
}
