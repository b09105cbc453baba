package replaytest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recrawl/recrawl/internal/collection"
	"github.com/recrawl/recrawl/internal/corpus/archivegen"
	"github.com/recrawl/recrawl/internal/replay"
	"github.com/recrawl/recrawl/internal/testkit/extracttest"
	"github.com/recrawl/recrawl/internal/wacz"
)

// steerEvent is the generated event the steering test extracts (the one
// the extraction tests of pipelines/extract extract).
const steerEvent = "hrafnfell-eruption-2010"

// TestLabelClickThenRefresh is a researcher steering a collection, every
// step the real one: `recrawl extract` collects 30 documents of an event
// from a generated archive (with its collection.wacz), eval writes the
// report, "recrawl serve" (replay.Start, with the options replay.Command
// gives it) serves it, and in Chromium a mouse click marks one listed
// document relevant and another not relevant, which writes labels.tsv in
// the report folder. `recrawl extract --refresh --labels_file` of that
// file, to 40 documents, uses both labels: run.json's refresh records the
// file, its sha256, one positive and one negative label and no label of a
// URL the collection does not hold; the first run's documents.jsonl is
// the prefix of the new one, followed by more documents.
//
// 10 to 17 s on 2 cores under a load of 7 to 9: two extractions through
// Beam (about 4 s and 2 s; the test binary is the recrawl command, so
// nothing is built), the archive (300 article pages, 1,205 captures,
// under 2 s) and Chromium's start. On archives of 120 and 200 article
// pages the two extractions took 12 to 18 s.
func TestLabelClickThenRefresh(t *testing.T) {
	viewer := ReplayWebPageDir(t)
	Chromium(t)
	base := t.TempDir()
	a := steerArchive(t, base)
	out := filepath.Join(base, "collection")
	extractArgs := func(extra ...string) []string {
		return append([]string{"extract", "--spec", a.Spec(steerEvent), "--archive", a.WARCDir, "--index", a.IndexSpec(),
			"--output", out, "--quiet", "--batch_size=10", "--rounds_per_job=4"}, extra...)
	}
	runRecrawl(t, base, extractArgs("--target_size=30")...)
	if _, err := os.Stat(filepath.Join(out, wacz.FileName)); err != nil {
		t.Fatalf("the extraction wrote no %s: %v", wacz.FileName, err)
	}
	docsBefore := readLines(t, filepath.Join(out, collection.DocumentsFile))

	rep := filepath.Join(base, "report")
	ctx, _, p := serveReportForLabels(t, viewer, out, rep)
	urls := rowURLs(t, ctx, p)
	if len(urls) < 2 {
		t.Fatalf("the report lists %d documents: %v", len(urls), urls)
	}
	// The first and the last listed document (the tables of highest
	// topic_r and of highest relevance can list a document twice).
	relevant, notRelevant := urls[0], urls[len(urls)-1]
	if notRelevant == relevant {
		notRelevant = urls[1]
	}
	click(t, ctx, p, relevant, "1")
	waitStatus(t, ctx, p, ": "+relevant+" relevant.")
	click(t, ctx, p, notRelevant, "0")
	waitStatus(t, ctx, p, ": "+notRelevant+" not relevant.")

	labels := filepath.Join(rep, "labels.tsv")
	want := fmt.Sprintf("url\tevent\tgrade\n%s\t%s\t1\n%s\t%s\t0\n", relevant, replay.NoEvent, notRelevant, replay.NoEvent)
	data, err := os.ReadFile(labels)
	if err != nil || string(data) != want {
		t.Fatalf("labels file: %q (%v), want %q", data, err, want)
	}

	runRecrawl(t, base, extractArgs("--target_size=40", "--refresh", "--labels_file", labels)...)
	sum := sha256.Sum256(data)
	wantLabels := collection.RefreshLabels{Path: labels, SHA256: hex.EncodeToString(sum[:]), Positive: 1, Negative: 1}
	info := readRun(t, out)
	if len(info.Refreshes) != 1 || info.Refreshes[0].Labels == nil || *info.Refreshes[0].Labels != wantLabels {
		t.Fatalf("run.json's refreshes %s: want one with the labels %+v", jsonString(info.Refreshes), wantLabels)
	}
	docs := readLines(t, filepath.Join(out, collection.DocumentsFile))
	if len(docs) <= len(docsBefore) || strings.Join(docs[:len(docsBefore)], "\n") != strings.Join(docsBefore, "\n") {
		t.Fatalf("the labelled refresh did not keep the %d documents of the first run as they were and add more (%d now)", len(docsBefore), len(docs))
	}
	t.Logf("clicked %s relevant and %s not relevant; the refresh went from %d to %d documents, %d frontier entries ranked again",
		relevant, notRelevant, len(docsBefore), len(docs), info.Refreshes[0].Reprioritised)
}

// steerArchive generates a small archive (300 article pages, one WARC
// file) into dir and indexes it there.
func steerArchive(t *testing.T, dir string) *extracttest.Archive {
	t.Helper()
	start := time.Now()
	a, err := extracttest.Build(context.Background(), filepath.Join(dir, "fixture"), archivegen.Config{Seed: 11, Pages: 300})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("archive of %d index lines in %v", len(a.Lines), time.Since(start).Round(time.Millisecond))
	return a
}

// runRecrawl runs `recrawl ARGS` (this test binary as the recrawl
// command: TestMain) with a TMPDIR below dir (a Beam loopback job leaves
// files there) and fails the test when it fails.
func runRecrawl(t *testing.T, dir string, args ...string) {
	t.Helper()
	tmp := filepath.Join(dir, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, asRecrawlEnv+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("recrawl %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, stdout, stderr.Bytes())
	}
	t.Logf("recrawl %s: %v", args[0], time.Since(start).Round(time.Millisecond))
}

// readLines returns the lines of a file.
func readLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// readRun reads a run's run.json.
func readRun(t *testing.T, dir string) collection.RunInfo {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var info collection.RunInfo
	if err := json.Unmarshal(data, &info); err != nil {
		t.Fatalf("%s/run.json: %v", dir, err)
	}
	return info
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
