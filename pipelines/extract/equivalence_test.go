package extract

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/recrawl/recrawl/internal/testkit/extracttest"
	"github.com/recrawl/recrawl/internal/testkit/testservers"
)

// TestBeamK1EqualsSequential: with K = 1 the Beam rounds are exactly the
// sequential Algorithm 1 (method.md §3): the same collection in the same
// order, the same missing URLs, links, collection WARC and round statistics.
func TestBeamK1EqualsSequential(t *testing.T) {
	a := fixture(t)
	dir := t.TempDir()
	seq, beam := filepath.Join(dir, "sequential"), filepath.Join(dir, "beam")
	// target_size 70: about 80 rounds of one URL (~0.2 s each on prism).
	// The sequential engine takes one URL at a time whatever the batch
	// size; it is given K = 1 too so that run.json records the same spec.
	mustRun(t, nil, extractArgs(a, testEvent, seq, "--engine=sequential", "--batch_size=1", "--target_size=70")...)
	mustRun(t, nil, extractArgs(a, testEvent, beam, "--engine=beam", "--batch_size=1", "--target_size=70")...)
	sameOutputs(t, seq, beam, true)
	// Several rounds per job (--rounds_per_job): the same rounds, planned
	// inside the pipeline instead of by the driver.
	perJob := filepath.Join(dir, "beam-3-per-job")
	mustRun(t, nil, extractArgs(a, testEvent, perJob, "--engine=beam", "--batch_size=1", "--target_size=70", "--rounds_per_job=3")...)
	sameOutputs(t, seq, perJob, true)
	// withOption runs the sequential engine with one focus option set
	// and, with beamToo, Beam at K = 1, which must equal it; and it checks
	// that the option changes the run, so that the comparisons cover it.
	// The options compared with Beam run 40 documents (each changes the
	// first 40 already; a Beam run at K = 1 costs a job per document); the
	// others run 70, as the default's comparisons above: switching off
	// the post-event discount changes nothing in the first 40.
	seq40 := filepath.Join(dir, "sequential-40")
	mustRun(t, nil, extractArgs(a, testEvent, seq40, "--engine=sequential", "--batch_size=1", "--target_size=40")...)
	withOption := func(name, option string, beamToo bool) {
		t.Helper()
		spec := focusSpec(t, a, option)
		base, target := seq, "--target_size=70"
		if beamToo {
			base, target = seq40, "--target_size=40"
		}
		optSeq := filepath.Join(dir, name+"-sequential")
		mustRun(t, nil, focusArgs(a, spec)(optSeq, "--engine=sequential", "--batch_size=1", target)...)
		if beamToo {
			optBeam := filepath.Join(dir, name+"-beam")
			mustRun(t, nil, focusArgs(a, spec)(optBeam, "--engine=beam", "--batch_size=1", target)...)
			sameOutputs(t, optSeq, optBeam, true)
		}
		if reflect.DeepEqual(readDocs(t, base), readDocs(t, optSeq)) {
			t.Errorf("%s changes nothing in this run: the comparisons do not cover it", strings.TrimSpace(option))
		}
	}
	// The template-link discount (an option, off in the default:
	// each entry counts the pages of its host that link to it,
	// summed through merges and the rounds' state): K = 1 equals the
	// sequential engine with it too.
	withOption("template", "discount_template_links: true\n", true)
	// The default's pre-event discount (each URL new to the frontier
	// looked up in the index: the sequential engine per step, the Beam
	// rounds in MergeFrontier) and post-event discount (a factor from the
	// link's URL alone) are covered by the comparisons above.
	withOption("no-pre-event-links", "discount_pre_event_links: false\n", false)
	withOption("no-post-event-links", "discount_post_event_links: false\n", false)
	// The other rule, pre_event_rule: tempr (a factor of its own per
	// entry, the TempR of its first capture, carried through merges and
	// the rounds' state): K = 1 equals the sequential engine too.
	withOption("tempr", "pre_event_rule: tempr\n", true)

	// The comparison covers what it should: a full collection with
	// revisits, missing URLs and redirects.
	docs := readDocs(t, beam)
	revisits := 0
	for _, d := range docs {
		if d.Revisit {
			revisits++
		}
	}
	tot := readTotals(t, beam)
	if len(docs) != 70 || revisits == 0 || tot.Missing == 0 || tot.Redirects == 0 || tot.Rounds < 70 {
		t.Errorf("weak comparison: %d documents (%d revisits), %d missing, %d redirects, %d rounds; want 70 documents with revisits, missing URLs and redirects",
			len(docs), revisits, tot.Missing, tot.Redirects, tot.Rounds)
	}
	for i, d := range docs {
		if d.Rank != 0 || i > 0 && d.Round <= docs[i-1].Round {
			t.Errorf("document %d: round %d rank %d; with K = 1 every document has a round of its own", i, d.Round, d.Rank)
		}
	}
	checkReasonsAgree(t, beam)
}

// TestBeamK1LabelledRefresh: a refresh with a researcher's labels at
// K = 1 gives the same bytes with one round per job and with several
// rounds per job (the rounds planned inside the pipeline, each reading
// the labels' state of the refresh), and the labels change what it
// collects, so that the comparison covers them. The sequential engine
// keeps no state to continue and refuses --refresh: the reference of a
// labelled refresh is Beam's rounds at K = 1 one job each, whose
// extraction TestBeamK1EqualsSequential holds equal to the sequential
// engine's.
//
// Over 10 s: three 8-document extractions at K = 1, a job each, and
// three refreshes to 14, one of them a job a round (49 s of runs on 2
// cores under a load average of 15).
func TestBeamK1LabelledRefresh(t *testing.T) {
	a := fixture(t)
	dir := t.TempDir()
	extractWith := func(out string, extra ...string) []string {
		return extractArgs(a, testEvent, out, append([]string{"--engine=beam", "--batch_size=1", "--target_size=8", "--rounds_per_job=8"}, extra...)...)
	}
	perRound, perJob, plain := filepath.Join(dir, "job-per-round"), filepath.Join(dir, "6-per-job"), filepath.Join(dir, "plain")
	for _, out := range []string{perRound, perJob, plain} {
		mustRun(t, nil, extractWith(out)...)
	}
	labels := filepath.Join(dir, "labels.tsv")
	writeTopicRLabels(t, labels, readDocs(t, perRound), 2, 2)
	refresh := []string{"--refresh", "--target_size=14"}
	mustRun(t, nil, extractWith(perRound, append(refresh, "--labels_file", labels, "--rounds_per_job=1")...)...)
	mustRun(t, nil, extractWith(perJob, append(refresh, "--labels_file", labels, "--rounds_per_job=6")...)...)
	sameOutputs(t, perRound, perJob, true)
	mustRun(t, nil, extractWith(plain, append(refresh, "--rounds_per_job=6")...)...)
	docs := readDocs(t, perRound)
	if info := readRunInfo(t, perRound); len(docs) != 14 || len(info.Refreshes) != 1 || info.Refreshes[0].Labels == nil || info.Refreshes[0].Reprioritised == 0 {
		t.Fatalf("the labelled refresh: %d documents, refreshes %+v; want 14 documents and one refresh with labels that ranked the frontier again", len(docs), info.Refreshes)
	}
	if reflect.DeepEqual(readDocs(t, plain), docs) {
		t.Errorf("the labels change nothing in this refresh: the comparison does not cover them")
	}
	for i, d := range docs {
		if d.Rank != 0 || i > 0 && d.Round <= docs[i-1].Round {
			t.Errorf("document %d: round %d rank %d; with K = 1 every document has a round of its own", i, d.Round, d.Rank)
		}
	}
}

// TestDeterministic: with any K the same command gives the same outputs
// (timing fields aside), and the outputs do not depend on the runner (prism
// or direct), the join (batched look-ups or CoGroupByKey), the index
// backend (CDXJ file, ZipNum, Bigtable) or the rounds per job.
func TestDeterministic(t *testing.T) {
	a := fixture(t)
	dir := t.TempDir()
	k := referenceFlags
	base := referenceRun(t, a)
	if tot := readTotals(t, base); tot.Rounds < 5 || tot.Collected != 120 {
		t.Fatalf("base run: %d rounds, %d documents; want 5 or more rounds and 120 documents", tot.Rounds, tot.Collected)
	}
	checkReasonsAgree(t, base)

	t.Run("same command again", func(t *testing.T) {
		again := filepath.Join(dir, "again")
		mustRun(t, nil, extractArgs(a, testEvent, again, k...)...)
		sameOutputs(t, base, again, false)
	})
	variants := []struct{ name, flag string }{
		{"runner direct", "--runner=direct"},
		{"runner prism", "--runner=prism"},
		{"join cogroup", "--join=cogroup"},
		{"zipnum", "--index=zipnum:" + a.ZipNumDir},
		{"3 rounds per job", "--rounds_per_job=3"},
		{"10 rounds per job", "--rounds_per_job=10"}, // more than the run has: the last ones do nothing
	}
	for i, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			out := filepath.Join(dir, "variant"+string(rune('a'+i)))
			mustRun(t, nil, extractArgs(a, testEvent, out, append(k, v.flag)...)...)
			sameOutputs(t, base, out, true)
		})
	}
	t.Run("zipnum cogroup", func(t *testing.T) {
		out := filepath.Join(dir, "zipnum-cogroup")
		mustRun(t, nil, extractArgs(a, testEvent, out, append(k, "--index=zipnum:"+a.ZipNumDir, "--join=cogroup")...)...)
		sameOutputs(t, base, out, true)
	})
	t.Run("bigtable", func(t *testing.T) {
		testBigtable(t, a, dir, k)
	})
}

// testBigtable loads the index into the Bigtable emulator, captures and
// document frequencies (internal/btindex, "Document frequencies"), and
// compares an extraction through it, with no --dictionary flag, with one
// through the CDXJ file, which finds the same frequencies as df-LANG.tsv
// next to its index (every language, not only the default one); and with
// one through the ZipNum index. --dictionary naming the directory still
// gives the same run.
func testBigtable(t *testing.T, a *extracttest.Archive, dir string, k []string) {
	host := testservers.Bigtable(t)
	t.Setenv("BIGTABLE_EMULATOR_HOST", host)
	if err := a.LoadBigtable(context.Background(), "proj", "inst", "captures"); err != nil {
		t.Fatal(err)
	}
	env := []string{"BIGTABLE_EMULATOR_HOST=" + host}
	dict := "--dictionary=" + filepath.Dir(a.Dictionary("en"))
	cdxj, bt := filepath.Join(dir, "cdxj-dict"), filepath.Join(dir, "bigtable")
	mustRun(t, nil, extractArgs(a, testEvent, cdxj, k...)...)
	mustRun(t, env, extractArgs(a, testEvent, bt, append(k, "--index=bigtable:proj/inst/captures")...)...)
	sameOutputs(t, cdxj, bt, true)
	zn := filepath.Join(dir, "zipnum-nodictflag")
	mustRun(t, nil, extractArgs(a, testEvent, zn, append(k, "--index=zipnum:"+a.ZipNumDir)...)...)
	sameOutputs(t, zn, bt, true)
	btDict := filepath.Join(dir, "bigtable-dictflag")
	mustRun(t, env, extractArgs(a, testEvent, btDict, append(k, dict, "--index=bigtable:proj/inst/captures")...)...)
	sameOutputs(t, cdxj, btDict, true)
	// A file is the default language's dictionary only: the German
	// documents then score without IDF, and the outputs differ.
	en := filepath.Join(dir, "bigtable-en")
	mustRun(t, env, extractArgs(a, testEvent, en, append(k, "--dictionary="+a.Dictionary("en"), "--index=bigtable:proj/inst/captures")...)...)
	all, _ := os.ReadFile(filepath.Join(bt, "documents.jsonl"))
	enOnly, _ := os.ReadFile(filepath.Join(en, "documents.jsonl"))
	if len(all) == 0 || bytes.Equal(all, enOnly) {
		t.Error("the default language's dictionary alone gave the same documents as all languages' dictionaries")
	}
	r0 := runBin(t, env, extractArgs(a, testEvent, filepath.Join(dir, "bigtable-nodict"), append(k, "--dictionary="+dir, "--index=bigtable:proj/inst/captures")...)...)
	if r0.err == nil || !strings.Contains(r0.stderr, "without df-LANG.tsv") {
		t.Errorf("--dictionary with a directory without df files: want an error naming it, got %s", r0)
	}

	// The cogroup join reads the whole index and cannot read a table: it
	// must say so instead of extracting nothing.
	r := runBin(t, env, extractArgs(a, testEvent, filepath.Join(dir, "bigtable-cogroup"),
		append(k, dict, "--index=bigtable:proj/inst/captures", "--join=cogroup")...)...)
	if r.err == nil || !strings.Contains(r.stderr, "cogroup") {
		t.Errorf("--join=cogroup with a Bigtable index: want an error naming the join, got %s", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "bigtable-cogroup", "run.json")); err == nil {
		t.Errorf("--join=cogroup with a Bigtable index wrote outputs")
	}
}
