package runners

// The cluster tests run recrawl's two pipelines, as the command users run,
// on real standalone Flink and Spark clusters on loopback, through Beam's
// Flink and Spark job servers, all started by the project's scripts
// (scripts/flink-cluster.sh, spark-cluster.sh, beam-jobserver.sh; the
// software comes from scripts/install-cluster-deps.sh at the versions of
// scripts/versions.env). On each cluster (testCluster, the same steps for
// both):
//
//   - the index pipeline writes a CDXJ index with LOOPBACK workers (the Go
//     SDK harness runs in the submitting program);
//   - it writes a ZipNum index through scripts/run-flink.sh / run-spark.sh
//     given only the cluster's address, with PROCESS workers: the script
//     starts its own job server, and the TaskManager or executor starts the
//     Go SDK's boot program, which fetches the worker binary from the job
//     server and runs it, as a cluster without docker does;
//   - the extraction runs 3 rounds with LOOPBACK workers, against prism's
//     one job per round: on Flink as one job of 10 rounds
//     (--rounds_per_job=10: 7 rounds past --max_rounds that do nothing, and
//     a plan that Flink's own DataSet optimizer would take hours to make;
//     scripts/flink-planner), on Spark as one job (--rounds_per_job=3);
//
// and every output must be byte for byte that of the same command on
// in-process prism (built once, clusterSetup). Each job must be seen on the
// cluster itself (Flink: its REST API's job list; Spark: the master's
// application list), not only in the job server's log.
//
// The clusters run one after the other, so that at most one cluster's JVMs
// (about 3 GB) are up at a time. A cluster that cannot start fails the
// test under CI and skips it elsewhere (internal/testkit/testservers).

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
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/recrawl/recrawl/internal/corpus/archivegen"
	"github.com/recrawl/recrawl/internal/testkit/extracttest"
	"github.com/recrawl/recrawl/internal/testkit/proctest"
	"github.com/recrawl/recrawl/internal/testkit/sharedtest"
	"github.com/recrawl/recrawl/internal/testkit/testservers"
)

// clusterEvent is the event the extraction collects; clusterExtractFlags
// make it 3 Beam rounds of K = 10.
const clusterEvent = "hrafnfell-eruption-2010"

var clusterExtractFlags = []string{"--batch_size=10", "--max_rounds=3"}

// clusterJobTimeout bounds one program's run (a job, or the jobs of an
// extraction). An unloaded 2-core machine needs well under 2 minutes for
// any of them; a heavily loaded one (load average 30+) needed more than 8
// for one Spark job.
const clusterJobTimeout = 15 * time.Minute

// clusterFixture is what every cluster run reads, built once per test
// process: the recrawl command, the index's input archives (real WARC and ARC
// files of ../shared) and a generated archive with its index for the
// extraction, and the reference outputs of in-process prism.
type clusterFixture struct {
	recrawl    string // the command (cmd/recrawl), which runs both pipelines
	warcs      []string
	archive    *extracttest.Archive
	refCDXJ    string // index.cdxj of prism
	refZipNum  string // the ZipNum directory of prism
	refExtract string // the extraction's output directory of prism
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
		if f.recrawl, err = extracttest.BuildBinary(root, "./cmd/recrawl"); err != nil {
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
			sub  string
			args []string
		}{
			{"index", f.indexArgs(f.refCDXJ, "cdxj")},
			{"index", f.indexArgs(f.refZipNum, "zipnum")},
			{"extract", f.extractArgs(f.refExtract)},
		} {
			if out, err := runProgram(f.recrawl, nil, append([]string{run.sub}, run.args...)...); err != nil {
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
	ctx, cancel := context.WithTimeout(context.Background(), clusterJobTimeout)
	defer cancel()
	tmp, err := os.MkdirTemp("", "recrawl-cluster-run-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(append(os.Environ(), "TMPDIR="+tmp), env...)
	cmd.Dir = tmp // files the SDK leaves in its working directory go with tmp
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// runOn runs `recrawl SUB` against a job server and returns the wall time.
func runOn(t *testing.T, bin, sub, runner, endpoint, job string, args ...string) time.Duration {
	t.Helper()
	start := time.Now()
	out, err := runProgram(bin, nil, append([]string{sub, "--runner=" + runner, "--endpoint=" + endpoint,
		"--environment_type=LOOPBACK", "--job_name=" + job}, args...)...)
	if err != nil {
		t.Fatalf("%s %s on %s: %v\n%s", filepath.Base(bin), sub, runner, err, tail(out, 6000))
	}
	d := time.Since(start)
	t.Logf("%s %s %s on %s: %.1fs", filepath.Base(bin), sub, job, runner, d.Seconds())
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

// clusterJobs returns the jobs a cluster lists at url (a JSON object with
// a list of jobs under listKey, each with a "name", its id under idKey and a
// "state") that finished and that failed (failedStates), each "NAME ID".
// Flink's REST API: /jobs/overview, "jobs", "jid"; the Spark master:
// /json/, "completedapps", "id" (the job server's Spark driver registers
// each job as one application).
func clusterJobs(t *testing.T, url, listKey, idKey string, failedStates ...string) (finished, failed []string) {
	t.Helper()
	var doc map[string]json.RawMessage
	getJSON(t, url, &doc)
	var jobs []map[string]any
	if err := json.Unmarshal(doc[listKey], &jobs); err != nil {
		t.Fatalf("GET %s: %q: %v", url, listKey, err)
	}
	for _, j := range jobs {
		entry := fmt.Sprintf("%v %v", j["name"], j[idKey])
		switch state := fmt.Sprint(j["state"]); {
		case state == "FINISHED":
			finished = append(finished, entry)
		case slices.Contains(failedStates, state):
			failed = append(failed, entry)
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

// clusterUnderTest is one runner's cluster as TestClusters drives it.
type clusterUnderTest struct {
	runner string // --runner, scripts/beam-jobserver.sh RUNNER, scripts/run-RUNNER.sh
	// start starts the cluster for the test and returns its address for
	// Beam's job server (--flink-master, --spark-master-url; masterEnv for
	// run-RUNNER.sh) and the URL of the list of its jobs.
	start     func(t *testing.T) (master, jobsURL string)
	masterEnv string
	// The list of jobs (clusterJobs): the key of the list, of a job's id,
	// the states of a failed job; listed is how a job submitted with
	// --job_name=name is named there.
	listKey, idKey string
	failedStates   []string
	listed         func(name string) string
	// extractFlags are added to the extraction's flags; extractJobs is the
	// number of jobs the extraction then runs.
	extractFlags []string
	extractJobs  int
	// jobServerSays is a line the job server's log must have.
	jobServerSays string
	// afterJobs, if set, runs once every job has run, with the job server.
	afterJobs func(t *testing.T, f *clusterFixture, js *testservers.BeamJobServer)
}

// plannerFix is what scripts/beam-jobserver.sh prints when Flink's job
// server plans with scripts/flink-planner's visitors.
const plannerFix = "with scripts/flink-planner's visitors"

var clustersUnderTest = []clusterUnderTest{{
	runner: "flink", masterEnv: "FLINK_MASTER",
	start: func(t *testing.T) (string, string) {
		c := testservers.FlinkCluster(t)
		return c.Master, "http://" + c.Master + "/jobs/overview"
	},
	listKey: "jobs", idKey: "jid", failedStates: []string{"FAILED"},
	// Flink names the job after the job_name pipeline option, which
	// runners sets to --job_name.
	listed: func(name string) string { return name + " " },
	// Ten rounds as one job: 3 that extract and 7 past --max_rounds that do
	// nothing. Flink gives an empty round's global TopK no value at all
	// (prism and Spark give the empty default), so MergeFrontier reads the
	// batch as an iterable side input, not a singleton. Flink's own batch
	// optimizer needs hours to plan 10 rounds (7 minutes for 7); the job
	// server runs with scripts/flink-planner's replacements, which plan it
	// in seconds (the job server says so: plannerFix).
	extractFlags: []string{"--rounds_per_job=10"}, extractJobs: 1, jobServerSays: plannerFix,
}, {
	runner: "spark", masterEnv: "SPARK_MASTER_URL",
	start: func(t *testing.T) (string, string) {
		sparkUnderTest = testservers.SparkCluster(t)
		return sparkUnderTest.MasterURL, sparkUnderTest.Web + "/json/"
	},
	afterJobs: func(t *testing.T, f *clusterFixture, js *testservers.BeamJobServer) {
		sparkWorkerCleaned(t, sparkUnderTest)
		sparkWorkerLost(t, f, sparkUnderTest, js)
	},
	// The job server's Spark driver registers each job as one application,
	// named after its --job_name.
	listKey: "completedapps", idKey: "id", failedStates: []string{"FAILED", "KILLED"},
	listed: func(name string) string { return name + " " },
	// The 3 rounds as one job (--rounds_per_job): the same bytes as
	// prism's one job per round.
	extractFlags: []string{"--rounds_per_job=3"}, extractJobs: 1,
}}

func TestClusters(t *testing.T) {
	t.Cleanup(func() {
		if clusterRoot != "" {
			os.RemoveAll(clusterRoot)
		}
	})
	f := clusterSetup(t)
	for _, c := range clustersUnderTest {
		t.Run(c.runner, func(t *testing.T) { testCluster(t, f, c) })
	}
}

// testCluster starts a cluster and runs the pipelines on it: the CDXJ index and the extraction with LOOPBACK workers through a job server
// started here, the ZipNum index with PROCESS workers through
// scripts/run-RUNNER.sh given the cluster's address (the script starts its
// own job server and builds the boot program). Every output must be
// prism's, and the cluster must list every job as finished.
func testCluster(t *testing.T, f *clusterFixture, c clusterUnderTest) {
	start := time.Now()
	master, jobsURL := c.start(t)
	js := testservers.StartJobServer(t, c.runner, master)
	endpoint, jsLog := js.Endpoint, js.Log
	t.Logf("%s cluster at %s and a job server at %s started in %.1fs", c.runner, master, endpoint, time.Since(start).Seconds())
	dir := t.TempDir()
	name := func(what string) string { return "recrawl-" + c.runner + "-" + what }

	runOn(t, f.recrawl, "index", c.runner, endpoint, name("cdxj"), f.indexArgs(filepath.Join(dir, "cdxj"), "cdxj")...)
	sameFiles(t, f.refCDXJ, filepath.Join(dir, "cdxj"))

	// PROCESS workers: the TaskManager or executor runs the Go SDK's boot
	// program, which runs recrawl (started with --worker) as the worker.
	procStart := time.Now()
	out := runScript(t, "run-"+c.runner+".sh", c.masterEnv+"="+master, "JOB_PORT=0", "ARTIFACT_PORT=0",
		"ARTIFACTS_DIR="+t.TempDir(), "TMPDIR="+t.TempDir(), "RECRAWL_BIN="+filepath.Join(clusterRoot, "bin"),
		"ENVIRONMENT_TYPE=PROCESS", "LOCAL_FILES=1", "JOB_NAME="+name("zipnum"), "WORKER_BINARY="+f.recrawl,
		"INPUT="+strings.Join(f.warcs, ","), "OUTPUT="+filepath.Join(dir, "zipnum"), "FORMAT=zipnum", "SHARDS=2",
		"--lines_per_block=20")
	t.Logf("index %s on %s, PROCESS workers, through run-%s.sh with its own job server: %.1fs",
		name("zipnum"), c.runner, c.runner, time.Since(procStart).Seconds())
	masterFlag := "--" + strings.ToLower(strings.ReplaceAll(c.masterEnv, "_", "-")) + "=" + master
	for _, want := range []string{"beam-jobserver.sh " + c.runner + " " + masterFlag,
		"--environment_type=PROCESS --job_name=" + name("zipnum")} {
		if !strings.Contains(out, want) {
			t.Errorf("run-%s.sh did not print a command with %q:\n%s", c.runner, want, tail(out, 4000))
		}
	}
	sameFiles(t, f.refZipNum, filepath.Join(dir, "zipnum"))

	runOn(t, f.recrawl, "extract", c.runner, endpoint, name("extract"),
		append(f.extractArgs(filepath.Join(dir, "extract")), c.extractFlags...)...)
	sameFiles(t, f.refExtract, filepath.Join(dir, "extract"))
	logRounds(t, c.runner, filepath.Join(dir, "extract"))

	// The jobs ran on the cluster: it lists them as finished itself.
	finished, failed := clusterJobs(t, jobsURL, c.listKey, c.idKey, c.failedStates...)
	t.Logf("%s lists these jobs as finished: %v", c.runner, finished)
	for _, want := range []struct {
		job string
		n   int
	}{{name("cdxj"), 1}, {name("zipnum"), 1}, {name("extract"), c.extractJobs}} {
		if got := countWith(finished, c.listed(want.job)); got != want.n {
			t.Errorf("%s lists %d finished jobs %s, want %d; finished: %v", c.runner, got, want.job, want.n, finished)
		}
	}
	if len(failed) > 0 {
		t.Errorf("failed %s jobs: %v", c.runner, failed)
	}
	if c.jobServerSays != "" && !strings.Contains(jsLog.String(), c.jobServerSays) {
		t.Errorf("the job server's log does not say %q:\n%s", c.jobServerSays, tail(jsLog.String(), 4000))
	}
	for _, job := range []string{name("cdxj"), name("extract")} {
		if !strings.Contains(jsLog.String(), job) {
			t.Errorf("the job server's log does not name job %s:\n%s", job, tail(jsLog.String(), 4000))
		}
	}
	artifactsCleaned(t, js)
	if c.afterJobs != nil {
		c.afterJobs(t, f, js)
	}
}

// artifactsCleaned waits until the job server's artifacts directory holds
// no folder of a finished job (beam-jobserver.sh removes them).
func artifactsCleaned(t *testing.T, js *testservers.BeamJobServer) {
	t.Helper()
	if js.Artifacts == "" {
		t.Fatal("beam-jobserver.sh printed no JOB_ARTIFACTS_DIR")
	}
	var left []string
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(time.Second) {
		left = nil
		filepath.WalkDir(js.Artifacts, func(path string, d os.DirEntry, err error) error {
			if err == nil && path != js.Artifacts {
				left = append(left, path)
			}
			return nil
		})
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("the job server's artifacts directory still holds %d entries 2 minutes after its jobs ended: %v", len(left), left)
			return
		}
	}
}

// sparkUnderTest is the Spark cluster of TestClusters' spark run.
var sparkUnderTest *testservers.Spark

// sparkWorkerCleaned waits until the Spark worker removed the folders of
// the applications that ended (spark-cluster.sh's spark.worker.cleanup).
func sparkWorkerCleaned(t *testing.T, c *testservers.Spark) {
	t.Helper()
	var apps []string
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Second) {
		apps, _ = filepath.Glob(filepath.Join(c.WorkerDir, "app-*"))
		if len(apps) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("the Spark worker still keeps %d folders of ended applications a minute later: %v", len(apps), apps)
			return
		}
	}
}

// sparkWorkerLost kills the Spark worker's JVM (SIGKILL) while an
// extraction runs on the cluster. spark-cluster.sh then stops the master
// too, and the job server's Spark driver waits for the cluster for ever:
// beam-jobserver.sh must restart the job server, the extraction must end
// with one line naming the job server, and the restarted job server must
// run the next job on a new cluster at the same address (no "Only one
// SparkContext should be running in this JVM").
func sparkWorkerLost(t *testing.T, f *clusterFixture, c *testservers.Spark, js *testservers.BeamJobServer) {
	t.Helper()
	const job = "recrawl-spark-lost"
	out := filepath.Join(t.TempDir(), "lost")
	ctx, cancel := context.WithTimeout(context.Background(), clusterJobTimeout)
	defer cancel()
	tmp := t.TempDir()
	cmd := exec.CommandContext(ctx, f.recrawl, append([]string{"extract", "--runner=spark", "--endpoint=" + js.Endpoint,
		"--environment_type=LOOPBACK", "--job_name=" + job, "--rounds_per_job=3"}, f.extractArgs(out)...)...)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	cmd.Dir = tmp
	run := proctest.Start(t, cmd)
	// The application runs on the cluster, then 10 s more.
	run.WaitFor(t, "application "+job+" RUNNING", 200*time.Millisecond, 10*time.Minute, func() bool {
		var doc struct {
			ActiveApps []struct {
				Name, State string
			} `json:"activeapps"`
		}
		getJSON(t, c.Web+"/json/", &doc)
		for _, a := range doc.ActiveApps {
			if a.Name == job && a.State == "RUNNING" {
				return true
			}
		}
		return false
	})
	time.Sleep(10 * time.Second)
	if err := syscall.Kill(c.WorkerPID, syscall.SIGKILL); err != nil {
		t.Fatalf("kill the Spark worker %d: %v", c.WorkerPID, err)
	}
	killed := time.Now()
	err := run.Wait()
	t.Logf("the extraction ended %.1fs after the Spark worker was killed: %v", time.Since(killed).Seconds(), err)
	if err == nil {
		t.Fatalf("the extraction succeeded although its Spark worker was killed:\n%s", tail(run.Output(), 4000))
	}
	var failure string
	for _, line := range strings.Split(run.Output(), "\n") {
		if strings.HasPrefix(line, "recrawl extract: ") {
			failure = line
		}
	}
	for _, want := range []string{js.Endpoint, "restart the job server"} {
		if !strings.Contains(failure, want) {
			t.Errorf("the extraction's failure line does not say %q: %q\n%s", want, failure, tail(run.Output(), 4000))
		}
	}
	for deadline := time.Now().Add(2 * time.Minute); !strings.Contains(js.Log.String(), "restarted the spark job server"); time.Sleep(time.Second) {
		if time.Now().After(deadline) {
			t.Fatalf("beam-jobserver.sh did not restart the job server:\n%s", tail(js.Log.String(), 4000))
		}
	}
	// A new cluster at the same address; the restarted job server runs the
	// next job on it.
	port := c.MasterURL[strings.LastIndex(c.MasterURL, ":")+1:]
	again := testservers.SparkCluster(t, "--port", port)
	if again.MasterURL != c.MasterURL {
		t.Fatalf("the new cluster's master is %s, want %s", again.MasterURL, c.MasterURL)
	}
	runOn(t, f.recrawl, "index", "spark", js.Endpoint, "recrawl-spark-after-lost", f.indexArgs(filepath.Join(t.TempDir(), "cdxj"), "cdxj")...)
}

// runScript runs scripts/NAME with env (VAR=VALUE) and args in its own
// process group, so that on a timeout SIGTERM reaches the job server it
// started too, and returns its combined output; the test fails if it fails.
func runScript(t *testing.T, name string, envAndArgs ...string) string {
	t.Helper()
	var env, args []string
	for _, s := range envAndArgs {
		if strings.HasPrefix(s, "--") {
			args = append(args, s)
		} else {
			env = append(env, s)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), clusterJobTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", append([]string{testservers.ScriptPath(name)}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	// The Go SDK leaves pipeline_options.json in its working directory:
	// not in the source tree.
	cmd.Dir = t.TempDir()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = 30 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/%s: %v\n%s", name, err, tail(string(out), 6000))
	}
	return string(out)
}

// tail returns the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
