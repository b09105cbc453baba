package extract

// Hostile input end to end: compressed bombs must not drive the
// memory of either pipeline, and two runs cannot share an output directory.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/testkit/extracttest"
	"github.com/recrawl/recrawl/internal/testkit/hostile"
	"github.com/recrawl/recrawl/internal/worklock"
	"github.com/recrawl/recrawl/specs"
)

// bombBytes is what each bomb inflates to.
const bombBytes = 2 << 30

// maxBombRSS is how much more peak RSS a run with the bombs may take than
// the same run without them.
const maxBombRSS = 300 << 20

// TestBombsBoundedMemory runs index --dictionary and the extraction over the
// fixture archive with and without a file of two bombs (a WARC record whose
// block inflates to 2 GiB, and one whose gzip Content-Encoding body does),
// both reached by the extraction as seeds at the event's date: the peak RSS
// of each run with the bombs stays within maxBombRSS of the run without, and
// the bombs are collected, cut at max_document_bytes and flagged.
func TestBombsBoundedMemory(t *testing.T) {
	a := fixture(t)
	dir := filepath.Join(testRoot, "bombs")
	s, err := specs.Load(a.Spec(testEvent))
	if err != nil {
		t.Fatal(err)
	}
	date := s.Event.Start.First().Add(12 * time.Hour)
	bombs := []hostile.Bomb{
		{URL: "http://bomb.example/block", Date: date, Kind: hostile.BlockBomb, Size: bombBytes},
		{URL: "http://bomb.example/body", Date: date, Kind: hostile.BodyBomb, Size: bombBytes},
	}
	// The archive: the fixture's files (hard links) and the bombs.
	archive := filepath.Join(dir, "archive")
	if err := os.MkdirAll(archive, 0o755); err != nil {
		t.Fatal(err)
	}
	var plainInputs []string
	for _, w := range a.WARCs {
		p := filepath.Join(archive, filepath.Base(w))
		if err := os.Link(w, p); err != nil {
			t.Fatal(err)
		}
		plainInputs = append(plainInputs, p)
	}
	bombFile := filepath.Join(archive, "bombs.warc.gz")
	size, err := hostile.WriteBombFile(bombFile, bombs...)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("bomb file: %d bytes inflating to 2 x %d MiB", size, bombBytes>>20)

	// The index pipeline with --dictionary (which reads every HTML record).
	var indexOut string // the output of the last run
	index := func(name string, inputs []string) int64 {
		cmd := indexCommand(t, nil, "--input", strings.Join(inputs, ","), "--output", filepath.Join(dir, name), "--dictionary")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		rss, err := meteredRun(cmd)
		if err != nil {
			t.Fatalf("index %s: %v\n%s", name, err, tail(out.String(), 3000))
		}
		t.Logf("index --dictionary %s: peak RSS %d MiB, %v", name, rss>>20, time.Since(start).Round(time.Millisecond))
		indexOut = out.String()
		return rss
	}
	base := index("index-plain", plainInputs)
	withBombs := index("index-bombs", append(plainInputs, bombFile))
	if withBombs-base > maxBombRSS {
		t.Errorf("index --dictionary: peak RSS %d MiB with the bombs, %d MiB without; want at most %d MiB more", withBombs>>20, base>>20, maxBombRSS>>20)
	}
	lines, err := os.ReadFile(filepath.Join(dir, "index-bombs", "index.cdxj"))
	if err != nil || !bytes.Contains(lines, []byte("bomb.example/block")) || !bytes.Contains(lines, []byte("bomb.example/body")) {
		t.Fatalf("the bombs are not in the index (%v)", err)
	}

	// The extraction, with the bombs among the seeds.
	bombLines := append([]string(nil), a.Lines...)
	data, err := os.ReadFile(bombFile)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cdxj.IndexFile(bytes.NewReader(data), "bombs.warc.gz", cdxj.IndexOptions{}, func(c cdxj.Capture) error {
		bombLines = append(bombLines, c.Line())
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	bombIndex := filepath.Join(dir, "extract-index", "index.cdxj")
	if err := extracttest.WriteLines(bombIndex, sortedLines(bombLines)); err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"en", "de"} {
		copyFile(t, a.Dictionary(lang), filepath.Join(dir, "extract-index", "df-"+lang+".tsv"))
	}
	seeds := []doc{{URL: bombs[0].URL}, {URL: bombs[1].URL}}
	for _, u := range s.Seeds {
		seeds = append(seeds, doc{URL: u})
	}
	spec := filepath.Join(dir, "spec.yaml")
	writeSpecWithSeeds(t, a.Spec(testEvent), spec, seeds)
	extractRSS := func(name, index string) int64 {
		cmd := command(t, nil, "--spec", spec, "--index", "cdxj:"+index, "--archive", archive,
			"--output", filepath.Join(dir, name), "--quiet", "--batch_size=40", "--max_rounds=2")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		rss, err := meteredRun(cmd)
		if err != nil {
			t.Fatalf("extract %s: %v\n%s", name, err, tail(out.String(), 3000))
		}
		t.Logf("extract %s: peak RSS %d MiB, %v", name, rss>>20, time.Since(start).Round(time.Millisecond))
		return rss
	}
	base = extractRSS("extract-plain", a.CDXJ)
	withBombs = extractRSS("extract-bombs", bombIndex)
	if withBombs-base > maxBombRSS {
		t.Errorf("extraction: peak RSS %d MiB with the bombs, %d MiB without; want at most %d MiB more", withBombs>>20, base>>20, maxBombRSS>>20)
	}
	truncated := map[string]bool{}
	for _, line := range bytes.Split(readOutput(t, filepath.Join(dir, "extract-bombs"), "documents.jsonl", false), []byte("\n")) {
		var d struct {
			URL       string `json:"url"`
			Truncated bool   `json:"truncated"`
		}
		if json.Unmarshal(line, &d) == nil && strings.HasPrefix(d.URL, "http://bomb.example/") {
			truncated[d.URL] = d.Truncated
		}
	}
	for _, b := range bombs {
		if got, ok := truncated[b.URL]; !ok || !got {
			t.Errorf("%s bomb %s: collected %v, truncated %v; want collected and truncated", b.Kind, b.URL, ok, got)
		}
	}
	// The counters say the same: run.json counts the cut bodies, and the
	// index summary the dictionary's.
	var run struct {
		Totals struct {
			Counters map[string]int64 `json:"counters"`
		} `json:"totals"`
	}
	if err := json.Unmarshal(readOutput(t, filepath.Join(dir, "extract-bombs"), "run.json", false), &run); err != nil {
		t.Fatal(err)
	}
	if n := run.Totals.Counters[extract.CounterTruncatedBodies]; n != int64(len(bombs)) {
		t.Errorf("run.json counters %v: %s = %d; want %d", run.Totals.Counters, extract.CounterTruncatedBodies, n, len(bombs))
	}
	if !strings.Contains(indexOut, fmt.Sprintf("dictionary: %d captures had a body over", len(bombs))) {
		t.Errorf("index --dictionary with the bombs does not report %d cut bodies:\n%s", len(bombs), tail(indexOut, 2000))
	}
}

// meteredRun runs cmd and returns its own peak RSS (hostile.MeterRSS: the
// test process, which built the fixture, is large, and ru_maxrss would
// carry its peak over into the child's).
func meteredRun(cmd *exec.Cmd) (int64, error) {
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	m := hostile.MeterRSS(cmd.Process.Pid)
	err := cmd.Wait()
	return m.Stop(), err
}

// sortedLines sorts index lines as `LC_ALL=C sort` does.
func sortedLines(lines []string) []string {
	out := append([]string(nil), lines...)
	sort.Strings(out)
	return out
}

// TestConcurrentRunsRefused: a second run into the output directory of a
// running one is refused with one line naming the first run's pid; once the
// first is killed, the next run takes its lock over, says so, and resumes.
func TestConcurrentRunsRefused(t *testing.T) {
	a := fixture(t)
	out := filepath.Join(testRoot, "concurrent")
	args := extractArgs(a, testEvent, out, "--batch_size=20", "--max_rounds=6")
	first := command(t, nil, args...)
	var firstOut bytes.Buffer
	first.Stdout, first.Stderr = &firstOut, &firstOut
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer first.Process.Kill()
	lock := filepath.Join(out, worklock.FileName)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		if b, err := os.ReadFile(lock); err == nil && len(b) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no lock file after a minute\n%s", firstOut.String())
		}
	}
	r := runBin(t, nil, args...)
	want := fmt.Sprintf("%s is in use by pid %d since ", out, first.Process.Pid)
	if r.err == nil || !strings.Contains(r.stderr, want) {
		t.Fatalf("the second run: %s\nwant it refused with %q", r, want)
	}
	if strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 || strings.Contains(r.stderr, "goroutine") {
		t.Errorf("the refusal is not one line:\n%s", r.stderr)
	}
	first.Process.Kill()
	first.Wait()
	r = mustRun(t, nil, args...)
	if !strings.Contains(r.stderr, fmt.Sprintf("took over the lock of %s from pid %d", out, first.Process.Pid)) {
		t.Errorf("the run after the kill does not say it took the lock over:\n%s", tail(r.stderr, 2000))
	}
	if _, err := os.Stat(lock); !os.IsNotExist(err) {
		t.Errorf("the lock file is left after the run: %v", err)
	}
}
