package runners

// The cluster tests run recrawl's two pipelines, as the programs users run,
// on real standalone Flink and Spark clusters on loopback, through Beam's
// Flink and Spark job servers, all started by the project's scripts
// (scripts/flink-cluster.sh, spark-cluster.sh, beam-jobserver.sh; the
// software comes from scripts/install-cluster-deps.sh at the versions of
// scripts/versions.env). On each cluster:
//
//   - the index pipeline writes a CDXJ index and a ZipNum index,
//   - the extraction runs 3 rounds (one job per round),
//
// with LOOPBACK workers (the Go SDK harness runs in the submitting program),
// and every output must be byte for byte that of the same command on
// in-process prism. On Flink one more job runs through scripts/run-flink.sh
// with PROCESS workers: the TaskManager starts the Go SDK's boot program,
// which fetches the worker binary from the job server and runs it, as a
// cluster without docker does. Each job must be seen on the cluster itself
// (Flink: its REST API's job list; Spark: the master's application list),
// not only in the job server's log.
//
// The clusters run one after the other, so that at most one cluster's JVMs
// (about 3 GB) are up at a time. A cluster that cannot start fails the
// test under CI and skips it elsewhere (internal/testservers).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recrawl/recrawl/internal/archivegen"
	"github.com/recrawl/recrawl/internal/extracttest"
	"github.com/recrawl/recrawl/internal/sharedtest"
	"github.com/recrawl/recrawl/internal/testservers"
)

// clusterEvent is the event the extraction collects; clusterExtractFlags
// make it 3 Beam rounds of K = 10.
const clusterEvent = "hrafnfell-eruption-2010"

var clusterExtractFlags = []string{"--batch_size=10", "--max_rounds=3"}

// clusterFixture is what every cluster run reads, built once per test
// process: the two programs, the index's input archives (real WARC and ARC
// files of ../shared) and a generated archive with its index for the
// extraction, and the reference outputs of in-process prism.
type clusterFixture struct {
	index, extract string // the programs
	warcs          []string
	archive        *extracttest.Archive
	refCDXJ        string // index.cdxj of prism
	refZipNum      string // the ZipNum directory of prism
	refExtract     string // the extraction's output directory of prism
}

var (
	clusterOnce sync.Once
	clusterFix  *clusterFixture
	clusterRoot string // the fixture's directory, removed by TestClusters
	clusterErr  error
)

func clusterSetup(t *testing.T) *clusterFixture {
	t.Helper()
	if testing.Short() {
		t.Skip("cluster tests: skipped with -short")
	}
	warcs := []string{}
	for _, rel := range []string{
		"conformance/pywb/example.warc.gz",
		"conformance/pywb/example.arc.gz",
		"conformance/pywb/dupes.warc.gz",
		"conformance/pywb/iana.warc.gz",
		"conformance/pywb/example-extra.warc",
	} {
		warcs = append(warcs, sharedtest.Path(t, rel))
	}
	clusterOnce.Do(func() {
		start := time.Now()
		root, err := os.MkdirTemp("", "recrawl-clusters-")
		if err != nil {
			clusterErr = err
			return
		}
		clusterRoot = root
		f := &clusterFixture{warcs: warcs}
		if f.index, err = extracttest.BuildBinary(root, "./pipelines/index"); err != nil {
			clusterErr = err
			return
		}
		if f.extract, err = extracttest.BuildBinary(root, "./pipelines/extract"); err != nil {
			clusterErr = err
			return
		}
		f.archive, err = extracttest.Build(context.Background(), filepath.Join(root, "archive"),
			archivegen.Config{Seed: 11, Pages: 2000, MaxFileSize: 8 << 20})
		if err != nil {
			clusterErr = err
			return
		}
		fmt.Fprintf(os.Stderr, "cluster fixture: programs and archive in %v\n", time.Since(start).Round(time.Millisecond))
		f.refCDXJ = filepath.Join(root, "prism-cdxj")
		f.refZipNum = filepath.Join(root, "prism-zipnum")
		f.refExtract = filepath.Join(root, "prism-extract")
		for _, run := range []struct {
			bin  string
			args []string
		}{
			{f.index, f.indexArgs(f.refCDXJ, "cdxj")},
			{f.index, f.indexArgs(f.refZipNum, "zipnum")},
			{f.extract, f.extractArgs(f.refExtract)},
		} {
			if out, err := runProgram(run.bin, nil, run.args...); err != nil {
				clusterErr = fmt.Errorf("prism reference %s: %v\n%s", strings.Join(run.args, " "), err, out)
				return
			}
		}
		clusterFix = f
	})
	if clusterErr != nil {
		t.Fatal(clusterErr)
	}
	return clusterFix
}

func (f *clusterFixture) indexArgs(out, format string) []string {
	return []string{"--input=" + strings.Join(f.warcs, ","), "--output=" + out, "--format=" + format,
		"--shards=2", "--lines_per_block=20"}
}

func (f *clusterFixture) extractArgs(out string) []string {
	return append([]string{"--spec", f.archive.Spec(clusterEvent), "--archive", f.archive.WARCDir,
		"--index", f.archive.IndexSpec(), "--output", out, "--quiet"}, clusterExtractFlags...)
}

// runProgram runs a pipeline program with a private TMPDIR (Beam leaves a
// file per LOOPBACK job there) and returns its combined output.
func runProgram(bin string, env []string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	tmp, err := os.MkdirTemp("", "recrawl-cluster-run-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(append(os.Environ(), "TMPDIR="+tmp), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// runOn runs a program against a job server and returns the wall time.
func runOn(t *testing.T, bin, runner, endpoint, job string, args ...string) time.Duration {
	t.Helper()
	start := time.Now()
	out, err := runProgram(bin, nil, append([]string{"--runner=" + runner, "--endpoint=" + endpoint,
		"--environment_type=LOOPBACK", "--job_name=" + job}, args...)...)
	if err != nil {
		t.Fatalf("%s on %s: %v\n%s", filepath.Base(bin), runner, err, tail(out, 6000))
	}
	d := time.Since(start)
	t.Logf("%s %s on %s: %.1fs", filepath.Base(bin), job, runner, d.Seconds())
	return d
}

// sameFiles compares every regular file of the reference directory with the
// same file of got, byte for byte; rounds.jsonl and run.json without their
// timing fields and run.json without the runner's flags.
func sameFiles(t *testing.T, want, got string) {
	t.Helper()
	entries, err := os.ReadDir(want)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		n++
		w := comparableBytes(t, filepath.Join(want, e.Name()))
		g := comparableBytes(t, filepath.Join(got, e.Name()))
		if !bytes.Equal(w, g) {
			t.Errorf("%s differs from prism's (%d bytes, prism's %d)", filepath.Join(got, e.Name()), len(g), len(w))
		}
	}
	if n == 0 {
		t.Fatalf("the prism run wrote nothing into %s", want)
	}
}

// comparableBytes returns a file's bytes, timing and runner fields taken out of
// rounds.jsonl and run.json (they differ between runners on purpose).
func comparableBytes(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	switch filepath.Base(path) {
	case "rounds.jsonl":
		var out bytes.Buffer
		for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
			var m map[string]any
			if err := json.Unmarshal(line, &m); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			delete(m, "seconds")
			b, _ := json.Marshal(m)
			out.Write(append(b, '\n'))
		}
		return out.Bytes()
	case "run.json":
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		delete(m, "seconds")
		delete(m, "flags")
		delete(m, "engine")
		b, _ := json.MarshalIndent(m, "", "  ")
		return b
	}
	return data
}

// logRounds logs the wall time of each round of an extraction, from its
// rounds.jsonl: what a round costs on the runner (docs/scaling.md).
func logRounds(t *testing.T, runner, out string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, "rounds.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var secs []string
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var r struct {
			Seconds float64 `json:"seconds"`
		}
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("%s/rounds.jsonl: %v", out, err)
		}
		secs = append(secs, fmt.Sprintf("%.1fs", r.Seconds))
	}
	t.Logf("extraction rounds on %s: %s", runner, strings.Join(secs, ", "))
}

// getJSON fetches a cluster's REST resource into v.
func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s\n%s", url, resp.Status, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %v\n%s", url, err, body)
	}
}

// flinkJobs returns the names of the jobs the Flink cluster ran to the end
// (FINISHED) and its failed ones.
func flinkJobs(t *testing.T, master string) (finished, failed []string) {
	t.Helper()
	var overview struct {
		Jobs []struct {
			ID    string `json:"jid"`
			Name  string `json:"name"`
			State string `json:"state"`
		} `json:"jobs"`
	}
	getJSON(t, "http://"+master+"/jobs/overview", &overview)
	for _, j := range overview.Jobs {
		switch j.State {
		case "FINISHED":
			finished = append(finished, j.Name+" "+j.ID)
		case "FAILED":
			failed = append(failed, j.Name+" "+j.ID)
		}
	}
	return finished, failed
}

// countWith counts the entries that start with prefix.
func countWith(list []string, prefix string) int {
	n := 0
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			n++
		}
	}
	return n
}

func TestClusters(t *testing.T) {
	t.Cleanup(func() {
		if clusterRoot != "" {
			os.RemoveAll(clusterRoot)
		}
	})
	f := clusterSetup(t)
	t.Run("flink", func(t *testing.T) { testFlink(t, f) })
	t.Run("spark", func(t *testing.T) { testSpark(t, f) })
}

func testFlink(t *testing.T, f *clusterFixture) {
	start := time.Now()
	cluster := testservers.FlinkCluster(t)
	endpoint, jsLog := testservers.JobServer(t, "flink", cluster.Master)
	t.Logf("%v and its job server at %s started in %.1fs", cluster, endpoint, time.Since(start).Seconds())
	dir := t.TempDir()

	// Each job is named after its --job_name; Flink's job list shows it.
	runOn(t, f.index, "flink", endpoint, "recrawl-flink-cdxj", f.indexArgs(filepath.Join(dir, "cdxj"), "cdxj")...)
	sameFiles(t, f.refCDXJ, filepath.Join(dir, "cdxj"))
	runOn(t, f.index, "flink", endpoint, "recrawl-flink-zipnum", f.indexArgs(filepath.Join(dir, "zipnum"), "zipnum")...)
	sameFiles(t, f.refZipNum, filepath.Join(dir, "zipnum"))
	runOn(t, f.extract, "flink", endpoint, "recrawl-flink-extract", f.extractArgs(filepath.Join(dir, "extract"))...)
	sameFiles(t, f.refExtract, filepath.Join(dir, "extract"))
	logRounds(t, "flink", filepath.Join(dir, "extract"))

	// One job with PROCESS workers through scripts/run-flink.sh: the
	// TaskManager runs the Go SDK's boot program (built by the script),
	// which runs the index program as the worker.
	procStart := time.Now()
	cmd := exec.Command("bash", testservers.ScriptPath("run-flink.sh"))
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir(), "RECRAWL_BIN="+t.TempDir(),
		"FLINK_JOB_ENDPOINT="+endpoint, "ENVIRONMENT_TYPE=PROCESS", "LOCAL_FILES=1", "JOB_NAME=recrawl-flink-process",
		"WORKER_BINARY="+f.index, "INPUT="+strings.Join(f.warcs, ","), "OUTPUT="+filepath.Join(dir, "process"),
		"FORMAT=cdxj", "SHARDS=2")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/run-flink.sh with PROCESS workers: %v\n%s", err, tail(string(out), 6000))
	}
	t.Logf("index recrawl-flink-process on flink, PROCESS workers (boot program built by the script): %.1fs", time.Since(procStart).Seconds())
	if !strings.Contains(string(out), "--environment_type=PROCESS --job_name=recrawl-flink-process") {
		t.Errorf("run-flink.sh did not print the command it ran:\n%s", out)
	}
	sameFiles(t, f.refCDXJ, filepath.Join(dir, "process"))

	// The jobs ran on the cluster: its REST API lists them as finished,
	// the extraction once per round. Flink's job name is the --job_name
	// with every character other than a letter or digit replaced by "0",
	// then "-USER-TIME-ID".
	finished, failed := flinkJobs(t, cluster.Master)
	for _, want := range []struct {
		prefix string
		n      int
	}{{"recrawl-flink-cdxj", 1}, {"recrawl-flink-zipnum", 1}, {"recrawl-flink-extract", 3}, {"recrawl-flink-process", 1}} {
		if got := countWith(finished, strings.ReplaceAll(want.prefix, "-", "0")+"-"); got != want.n {
			t.Errorf("Flink's REST API lists %d finished jobs %s*, want %d; finished: %v", got, want.prefix, want.n, finished)
		}
	}
	if len(failed) > 0 {
		t.Errorf("failed Flink jobs: %v", failed)
	}
	t.Logf("Flink's /jobs/overview: %v", finished)
	if !strings.Contains(jsLog.String(), "recrawl-flink-extract") {
		t.Errorf("the job server's log does not name the jobs:\n%s", tail(jsLog.String(), 4000))
	}
}

func testSpark(t *testing.T, f *clusterFixture) {
	start := time.Now()
	cluster := testservers.SparkCluster(t)
	endpoint, jsLog := testservers.JobServer(t, "spark", cluster.MasterURL)
	t.Logf("%v and its job server at %s started in %.1fs", cluster, endpoint, time.Since(start).Seconds())
	dir := t.TempDir()

	runOn(t, f.index, "spark", endpoint, "recrawl-spark-cdxj", f.indexArgs(filepath.Join(dir, "cdxj"), "cdxj")...)
	sameFiles(t, f.refCDXJ, filepath.Join(dir, "cdxj"))
	runOn(t, f.index, "spark", endpoint, "recrawl-spark-zipnum", f.indexArgs(filepath.Join(dir, "zipnum"), "zipnum")...)
	sameFiles(t, f.refZipNum, filepath.Join(dir, "zipnum"))
	runOn(t, f.extract, "spark", endpoint, "recrawl-spark-extract", f.extractArgs(filepath.Join(dir, "extract"))...)
	sameFiles(t, f.refExtract, filepath.Join(dir, "extract"))
	logRounds(t, "spark", filepath.Join(dir, "extract"))

	// The jobs ran on the cluster: the master lists one finished
	// application per job, named after its --job_name (the job server's
	// Spark driver registers each job as an application).
	var status struct {
		Completed []struct {
			ID    string `json:"id"`
			Name  string `json:"name"`
			State string `json:"state"`
		} `json:"completedapps"`
	}
	getJSON(t, cluster.Web+"/json/", &status)
	var apps []string
	for _, a := range status.Completed {
		if a.State == "FINISHED" {
			apps = append(apps, a.Name+" "+a.ID)
		}
	}
	t.Logf("Spark master's /json/ finished applications: %v", apps)
	for _, want := range []struct {
		job string
		n   int
	}{{"recrawl-spark-cdxj", 1}, {"recrawl-spark-zipnum", 1}, {"recrawl-spark-extract", 3}} {
		if got := countWith(apps, want.job+" "); got != want.n {
			t.Errorf("the Spark master lists %d finished applications %s, want %d: %v", got, want.job, want.n, status.Completed)
		}
	}
	for _, job := range []string{"recrawl-spark-cdxj", "recrawl-spark-zipnum", "recrawl-spark-extract"} {
		if !strings.Contains(jsLog.String(), job) {
			t.Errorf("the job server's log does not name job %s:\n%s", job, tail(jsLog.String(), 4000))
		}
	}
}

// tail returns the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
