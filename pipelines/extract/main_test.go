package extract

// End-to-end tests of the extract command. They build the binary once and
// run it as a subprocess (flags, exit codes and SIGKILL as a user sees them),
// on one generated archive indexed once (internal/testkit/extracttest). The
// archive, the binary and every run's TMPDIR live in one temporary
// directory, removed by TestMain.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recrawl/recrawl/internal/corpus/archivegen"
	"github.com/recrawl/recrawl/internal/testkit/extracttest"
)

// The test archive: a few thousand article pages (plus home, section and tag
// pages, redirects, revisits, 404s and resources), 1-4 captures per article,
// in several WARC files so that one can go missing.
const (
	archiveSeed  = 11
	archivePages = 2000
	archiveFile  = 8 << 20 // → 4 WARC files
)

// testEvent is the event most tests extract. Its strategy ordering is the
// clearest of the generated events (see TestStrategiesOrdering).
const testEvent = "hrafnfell-eruption-2010"

var (
	fixtureOnce sync.Once
	fixtureErr  error
	testRoot    string // removed by TestMain
	recrawlBin  string // the recrawl command (cmd/recrawl)
	testArchive *extracttest.Archive
)

func TestMain(m *testing.M) {
	code := m.Run()
	if testRoot != "" {
		os.RemoveAll(testRoot)
	}
	os.Exit(code)
}

// fixture builds the extract binary and the indexed archive, once per test
// process.
func fixture(t *testing.T) *extracttest.Archive {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end extraction test: skipped with -short")
	}
	fixtureOnce.Do(func() {
		start := time.Now()
		if testRoot, fixtureErr = os.MkdirTemp("", "extract-e2e-"); fixtureErr != nil {
			return
		}
		// The binary builds (mostly the linker, one core) while the
		// archive is generated and indexed.
		var buildErr error
		var built time.Duration
		building := make(chan struct{})
		go func() {
			defer close(building)
			recrawlBin, buildErr = extracttest.BuildBinary(testRoot, "./cmd/recrawl")
			built = time.Since(start)
		}()
		testArchive, fixtureErr = extracttest.Build(context.Background(), filepath.Join(testRoot, "fixture"),
			archivegen.Config{Seed: archiveSeed, Pages: archivePages, MaxFileSize: archiveFile})
		archived := time.Since(start)
		<-building
		if buildErr != nil {
			fixtureErr = buildErr
		}
		if fixtureErr == nil {
			fmt.Fprintf(os.Stderr, "fixture: recrawl built in %v; archive of %d pages (%d WARC files, %d index lines) in %v, at the same time\n",
				built.Round(time.Millisecond), archivePages, len(testArchive.WARCs), len(testArchive.Lines),
				archived.Round(time.Millisecond))
		}
	})
	if fixtureErr != nil {
		t.Fatalf("test fixture: %v", fixtureErr)
	}
	return testArchive
}

// result is what one run of the binary did.
type result struct {
	err            error // nil or an *exec.ExitError
	stdout, stderr string
}

func (r result) String() string {
	return fmt.Sprintf("err=%v\nstdout:\n%s\nstderr:\n%s", r.err, r.stdout, tail(r.stderr, 4000))
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// command prepares `recrawl extract ARGS` with extra environment, or
// `recrawl explain|eval|serve …` when args start with that subcommand; its
// TMPDIR is a directory of the test (a Beam loopback job leaves files there).
func command(t *testing.T, env []string, args ...string) *exec.Cmd {
	t.Helper()
	if len(args) == 0 || !slices.Contains([]string{"explain", "eval", "serve"}, args[0]) {
		args = append([]string{"extract"}, args...)
	}
	return recrawlCommand(t, env, args...)
}

// indexCommand prepares `recrawl index ARGS` as command does.
func indexCommand(t *testing.T, env []string, args ...string) *exec.Cmd {
	t.Helper()
	return recrawlCommand(t, env, append([]string{"index"}, args...)...)
}

// recrawlCommand prepares `recrawl ARGS` with extra environment and a
// TMPDIR of the test.
func recrawlCommand(t *testing.T, env []string, args ...string) *exec.Cmd {
	t.Helper()
	fixture(t) // builds the binary
	cmd := exec.Command(recrawlBin, args...)
	tmp := filepath.Join(testRoot, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(append(os.Environ(), "TMPDIR="+tmp), env...)
	return cmd
}

// run runs the binary to the end.
func runBin(t *testing.T, env []string, args ...string) result {
	t.Helper()
	cmd := command(t, env, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return result{err: err, stdout: stdout.String(), stderr: stderr.String()}
}

// mustRun runs the binary and fails the test if it fails.
func mustRun(t *testing.T, env []string, args ...string) result {
	t.Helper()
	start := time.Now()
	r := runBin(t, env, args...)
	if r.err != nil {
		t.Fatalf("extract %s: %s", strings.Join(args, " "), r)
	}
	t.Logf("extract %s: %v", shortArgs(args), time.Since(start).Round(time.Millisecond))
	return r
}

// shortArgs leaves the fixture's paths out of a logged command line.
func shortArgs(args []string) string {
	s := strings.Join(args, " ")
	if testRoot != "" {
		s = strings.ReplaceAll(s, testRoot+string(filepath.Separator), "")
	}
	return s
}

// extractArgs is the command line of an extraction of event from the test
// archive into out, with the CDXJ index unless extra says otherwise.
func extractArgs(a *extracttest.Archive, event, out string, extra ...string) []string {
	args := []string{"--spec", a.Spec(event), "--archive", a.WARCDir, "--output", out, "--quiet"}
	hasIndex := false
	for _, e := range extra {
		hasIndex = hasIndex || strings.HasPrefix(e, "--index")
	}
	if !hasIndex {
		args = append(args, "--index", a.IndexSpec())
	}
	return append(args, extra...)
}

// Outputs of a run, compared byte for byte...
var exactOutputs = []string{
	"documents.jsonl", "missing.jsonl", "links.tsv", "collection.warc.gz", "collection.cdxj",
	"collection.wacz", "links.graphml",
}

// ...and after their timing fields are taken out.
var timedOutputs = []string{"rounds.jsonl", "run.json"}

// readOutput returns an output file; rounds.jsonl without its "seconds"
// fields; run.json without "seconds", the time of each refresh and, with dropFlags, without the
// flags and the engine (which differ between the runs compared on purpose),
// else without the --output and --work flags (which differ between two
// runs of the same command into two directories).
func readOutput(t *testing.T, dir, name string, dropFlags bool) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	switch name {
	case "rounds.jsonl":
		var out bytes.Buffer
		for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
			var m map[string]any
			if err := json.Unmarshal(line, &m); err != nil {
				t.Fatalf("%s: %v", filepath.Join(dir, name), err)
			}
			if _, ok := m["seconds"]; !ok {
				t.Fatalf("%s: no seconds field in %s", filepath.Join(dir, name), line)
			}
			delete(m, "seconds")
			b, _ := json.Marshal(m)
			out.Write(b)
			out.WriteByte('\n')
		}
		return out.Bytes()
	case "run.json":
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("%s: %v", filepath.Join(dir, name), err)
		}
		delete(m, "seconds")
		if refreshes, ok := m["refreshes"].([]any); ok { // when each was made
			for _, r := range refreshes {
				delete(r.(map[string]any), "time")
			}
		}
		if dropFlags {
			delete(m, "flags")
			delete(m, "engine")
		} else if flags, ok := m["flags"].(map[string]any); ok {
			delete(flags, "output")
			delete(flags, "work")
		}
		b, _ := json.MarshalIndent(m, "", "  ")
		return b
	}
	return data
}

// sameOutputs reports every output that differs between two runs.
func sameOutputs(t *testing.T, want, got string, dropFlags bool) {
	t.Helper()
	for _, name := range append(append([]string{}, exactOutputs...), timedOutputs...) {
		w, g := readOutput(t, want, name, dropFlags), readOutput(t, got, name, dropFlags)
		if !bytes.Equal(w, g) {
			t.Errorf("%s differs between %s and %s:\n%s", name, shortArgs([]string{want}), shortArgs([]string{got}), firstDiff(w, g))
		}
	}
}

// firstDiff describes the first differing line of two files.
func firstDiff(a, b []byte) string {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < len(la) || i < len(lb); i++ {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			return fmt.Sprintf("line %d (of %d / %d):\n  want %.400q\n  got  %.400q", i+1, len(la), len(lb), x, y)
		}
	}
	return fmt.Sprintf("same lines, %d vs %d bytes", len(a), len(b))
}

// doc is the part of a documents.jsonl line the tests look at.
type doc struct {
	URL, SURT, Timestamp, Filename string
	Offset, Length                 int64
	Revisit                        bool
	PayloadFile                    string  `json:"payload_filename"`
	PayloadOffset                  int64   `json:"payload_offset"`
	TopicR                         float64 `json:"topic_r"`
	TempR                          float64 `json:"temp_r"`
	Round, Rank, Outlinks, Depth   int
	ScoreReason                    string `json:"score_reason"`
	DocTime                        string `json:"doc_time"`
	DocTimeSource                  string `json:"doc_time_source"`
	Language                       string
}

type missingURL struct {
	URL        string `json:"url"`
	SURT       string `json:"surt"`
	ReasonCode string `json:"reason_code"`
	Reason     string `json:"reason"`
	Round      int    `json:"round"`
}

func readJSONL[T any](t *testing.T, path string) []T {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []T
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var v T
		if err := json.Unmarshal(line, &v); err != nil {
			t.Fatalf("%s line %d: %v", path, i+1, err)
		}
		out = append(out, v)
	}
	return out
}

func readDocs(t *testing.T, out string) []doc {
	return readJSONL[doc](t, filepath.Join(out, "documents.jsonl"))
}

func readMissing(t *testing.T, out string) []missingURL {
	return readJSONL[missingURL](t, filepath.Join(out, "missing.jsonl"))
}

// runTotals is the totals part of run.json.
type runTotals struct {
	Collected      int              `json:"collected"`
	Missing        int              `json:"missing"`
	Redirects      int              `json:"redirects"`
	Rounds         int              `json:"rounds"`
	MissingReasons map[string]int   `json:"missing_reasons"`
	Counters       map[string]int64 `json:"counters"`
	StopReason     string           `json:"stop_reason"`
}

func readTotals(t *testing.T, out string) runTotals {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Totals runTotals `json:"totals"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return v.Totals
}

// countReasons counts missing.jsonl by reason code.
func countReasons(ms []missingURL) map[string]int {
	c := map[string]int{}
	for _, m := range ms {
		c[m.ReasonCode]++
	}
	return c
}

// checkReasonsAgree checks that run.json counts exactly the reason codes of
// missing.jsonl: missing_reasons, plus the redirects (in missing.jsonl with
// reason_code "redirected", counted as redirects in run.json).
func checkReasonsAgree(t *testing.T, out string) {
	t.Helper()
	tot := readTotals(t, out)
	got := map[string]int{}
	for r, n := range tot.MissingReasons {
		got[r] = n
	}
	if tot.Redirects > 0 {
		got["redirected"] += tot.Redirects
	}
	want := countReasons(readMissing(t, out))
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: run.json counts missing_reasons %v and %d redirects; missing.jsonl has %v", out, tot.MissingReasons, tot.Redirects, want)
	}
}

// fileState is a file's content and modification time.
type fileState struct {
	data  string
	mtime time.Time
}

// snapshotDir records every regular file below dir.
func snapshotDir(t *testing.T, dir string) map[string]fileState {
	t.Helper()
	out := map[string]fileState{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[rel] = fileState{string(data), info.ModTime()}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// diffSnapshots lists what changed between two snapshots.
func diffSnapshots(before, after map[string]fileState) []string {
	var diffs []string
	for p, b := range before {
		a, ok := after[p]
		switch {
		case !ok:
			diffs = append(diffs, "removed "+p)
		case a.data != b.data:
			diffs = append(diffs, "changed "+p)
		case !a.mtime.Equal(b.mtime):
			diffs = append(diffs, "rewritten (mtime) "+p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			diffs = append(diffs, "added "+p)
		}
	}
	sort.Strings(diffs)
	return diffs
}

var (
	cacheMu sync.Mutex
	cache   = map[string]string{}
)

// cachedRun runs an extraction once per test process and returns its
// output directory; tests must not change it.
func cachedRun(t *testing.T, name string, args func(out string) []string) string {
	t.Helper()
	cacheMu.Lock()
	defer cacheMu.Unlock()
	if out, ok := cache[name]; ok {
		return out
	}
	out := filepath.Join(testRoot, "runs", name)
	mustRun(t, nil, args(out)...)
	cache[name] = out
	return out
}

// referenceArgs is the extraction most tests compare with: several Beam
// rounds of K = 25.
var referenceFlags = []string{"--batch_size=25", "--target_size=120"}

// referenceRun is that extraction, uninterrupted.
func referenceRun(t *testing.T, a *extracttest.Archive) string {
	return cachedRun(t, "reference", func(out string) []string {
		return extractArgs(a, testEvent, out, referenceFlags...)
	})
}
