package runners

import (
	"bytes"
	"flag"
	"fmt"
	"github.com/recrawl/recrawl/internal/testkit/sharedtest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

// The tests below run scripts/run-flink.sh, run-spark.sh and run-dataflow.sh
// with --print, which prints every command a script would run (job server,
// builds, the pipeline) and runs none: no build, no job server, no cluster.
// They check that the job server is Beam's, started by scripts/beam-jobserver.sh
// at the versions of scripts/versions.env with the flags Beam's job servers
// take, that no docker is needed, and that the pipeline gets the runner flags
// runners.FromFlags reads. cluster_test.go runs the scripts for real against
// Flink and Spark clusters.
//
// Before they build or start anything, the scripts run the pipeline's own
// check of its command line, recrawl PIPELINE --check, with the
// RECRAWL_CHECK_BINARY these tests build once (recrawlBinary), or through
// go run without it.

// repoRoot is the repository's top directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	return sharedtest.Repo()
}

// versionsEnv returns the variables of scripts/versions.env, where the
// scripts read the job servers' and clusters' versions.
func versionsEnv(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "scripts", "versions.env"))
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("scripts/versions.env: %q is no VAR=VALUE", line)
		}
		m[k] = v
	}
	for _, k := range []string{"BEAM_JOB_SERVER_VERSION", "FLINK_MINOR", "FLINK_VERSION", "SPARK_VERSION"} {
		if m[k] == "" {
			t.Fatalf("scripts/versions.env sets no %s", k)
		}
	}
	return m
}

// scriptEnv are the variables the scripts read; the caller's values are
// dropped so that only the test's count.
var scriptEnv = []string{"FLINK_JOB_ENDPOINT", "FLINK_MASTER", "FLINK_VERSION", "SPARK_JOB_ENDPOINT",
	"SPARK_MASTER_URL", "BEAM_VERSION", "JOB_SERVER_IMAGE", "JOB_PORT", "ARTIFACT_PORT", "EXPANSION_PORT",
	"ARTIFACTS_DIR", "PIPELINE", "INPUT", "OUTPUT", "FORMAT", "SHARDS", "BIGTABLE", "SPEC", "INDEX", "ARCHIVE",
	"WORK", "ENVIRONMENT_TYPE", "BOOT_BINARY", "LOCAL_FILES", "ENVIRONMENT_CONFIG", "WORKER_BINARY", "PARALLELISM", "JOB_NAME", "PRINT_ONLY",
	"DRY_RUN", "PROJECT", "REGION", "BUCKET", "STAGING_LOCATION", "TEMP_LOCATION", "BIGTABLE_INSTANCE",
	"BIGTABLE_TABLE", "NUM_WORKERS", "MAX_NUM_WORKERS", "MACHINE_TYPE", "RECRAWL_BIN",
	"RECRAWL_PORTABLE_RUNNER", "RECRAWL_SCRIPT", "RECRAWL_CHECK_BINARY", "RECRAWL_WORKERS_SHARE_FILES"}

// recrawlBuild is recrawl built for this machine, once per test process
// (TestMain removes it): the scripts' RECRAWL_CHECK_BINARY.
var recrawlBuild struct {
	once      sync.Once
	dir, path string
	err       error
}

// recrawlBinary returns the path of recrawl built for this machine.
func recrawlBinary(t *testing.T) string {
	t.Helper()
	recrawlBuild.once.Do(func() {
		if recrawlBuild.dir, recrawlBuild.err = os.MkdirTemp("", "recrawl-scripts-"); recrawlBuild.err != nil {
			return
		}
		recrawlBuild.path = filepath.Join(recrawlBuild.dir, "recrawl")
		cmd := exec.Command("go", "build", "-o", recrawlBuild.path, "./cmd/recrawl")
		cmd.Dir = repoRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			recrawlBuild.err = fmt.Errorf("go build ./cmd/recrawl: %w\n%s", err, out)
		}
	})
	if recrawlBuild.err != nil {
		t.Fatal(recrawlBuild.err)
	}
	return recrawlBuild.path
}

// printScript runs scripts/NAME --print with env and returns the commands
// it printed, each as its argument list, or its error output when it fails.
// RECRAWL_BIN is a fresh directory that must stay empty: --print builds
// nothing. RECRAWL_CHECK_BINARY is recrawlBinary unless env sets it ("":
// the script checks through go run).
func printScript(t *testing.T, name string, env map[string]string, args ...string) ([][]string, string, error) {
	t.Helper()
	bin := t.TempDir()
	cmd := exec.Command("bash", append([]string{filepath.Join(repoRoot(t), "scripts", name), "--print"}, args...)...)
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !slices.Contains(scriptEnv, k) {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "RECRAWL_BIN="+bin)
	if _, ok := env["RECRAWL_CHECK_BINARY"]; !ok {
		cmd.Env = append(cmd.Env, "RECRAWL_CHECK_BINARY="+recrawlBinary(t))
	}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if stdout.Len() > 0 {
		t.Errorf("%s --print wrote to standard output: %q", name, stdout.String())
	}
	if left, _ := os.ReadDir(bin); len(left) > 0 {
		t.Errorf("%s --print created %v in RECRAWL_BIN: it must build nothing", name, left)
	}
	var cmds [][]string
	for _, line := range strings.Split(stderr.String(), "\n") {
		if rest, ok := strings.CutPrefix(line, "+ "); ok {
			cmds = append(cmds, shellWords(t, rest))
		}
	}
	return cmds, stderr.String(), err
}

// shellWords splits a line the scripts printed with printf %q: words
// separated by spaces, special characters escaped with a backslash.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	if strings.Contains(line, "$'") {
		t.Fatalf("unexpected $'...' quoting in %q", line)
	}
	var words []string
	var w strings.Builder
	for i := 0; i < len(line); i++ {
		switch c := line[i]; c {
		case '\\':
			i++
			if i < len(line) {
				w.WriteByte(line[i])
			}
		case ' ':
			words = append(words, w.String())
			w.Reset()
		default:
			w.WriteByte(c)
		}
	}
	return append(words, w.String())
}

// pipelineCommand returns the printed command that runs the pipeline (the
// last one), after checking the ones before it: at most a job server and
// builds.
func pipelineCommand(t *testing.T, cmds [][]string) []string {
	t.Helper()
	if len(cmds) == 0 {
		t.Fatal("the script printed no command")
	}
	for _, c := range cmds[:len(cmds)-1] {
		if c[0] != jobServerScript && c[0] != "env" {
			t.Errorf("unexpected command before the pipeline: %q", c)
		}
	}
	return cmds[len(cmds)-1]
}

// jobServerScript starts Beam's Flink and Spark job servers.
const jobServerScript = "scripts/beam-jobserver.sh"

// jobServerCommand returns the printed command that starts a job server, or
// nil.
func jobServerCommand(cmds [][]string) []string {
	for _, c := range cmds {
		if c[0] == jobServerScript {
			return c
		}
	}
	return nil
}

// bootBuild returns the printed build of the Go SDK's boot program, or nil.
func bootBuild(cmds [][]string) []string {
	for _, c := range cmds {
		if c[0] == "env" && slices.Contains(c, "github.com/apache/beam/sdks/v2/go/container") {
			return c
		}
	}
	return nil
}

// flagValues maps the --name=value arguments of a pipeline command,
// `recrawl index|extract FLAGS`, to their values (a bare --name is "true").
func flagValues(t *testing.T, cmd []string) map[string]string {
	t.Helper()
	m := map[string]string{}
	if len(cmd) < 2 || (cmd[1] != "index" && cmd[1] != "extract") {
		t.Fatalf("%q: want recrawl index|extract FLAGS", cmd)
	}
	for _, a := range cmd[2:] {
		if !strings.HasPrefix(a, "--") {
			t.Errorf("argument %q of %s is not a --flag", a, cmd[0])
			continue
		}
		name, value, ok := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if !ok {
			value = "true"
		}
		m[name] = value
	}
	return m
}

// wantFlags checks flags[k] == v for every pair of want.
func wantFlags(t *testing.T, flags map[string]string, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got, ok := flags[k]; !ok || got != v {
			t.Errorf("--%s=%q, want %q (flags %v)", k, got, v, flags)
		}
	}
}

// beamFlagsOf are the runner flags the scripts pass: they must be flags the
// Beam SDK defines, which runners.FromFlags reads.
var beamFlagsOf = []string{"runner", "endpoint", "environment_type", "environment_config", "worker_binary",
	"job_name", "parallelism", "project", "region", "staging_location", "temp_location", "dry_run"}

func checkBeamFlags(t *testing.T, flags map[string]string) {
	t.Helper()
	for _, name := range beamFlagsOf {
		if _, ok := flags[name]; ok && flag.Lookup(name) == nil {
			t.Errorf("the script passes --%s, which the Beam SDK does not define", name)
		}
	}
}

func TestRunFlinkScriptStartsJobServer(t *testing.T) {
	cmds, log, err := printScript(t, "run-flink.sh", map[string]string{
		"FLINK_MASTER": "flink-jobmanager:8081", "INPUT": "gs://crawl/warc/*.warc.gz", "OUTPUT": "gs://crawl/index",
		"WORKER_BINARY": "/opt/recrawl/recrawl-linux-amd64", "JOB_NAME": "recrawl-index-test", "PARALLELISM": "8",
	})
	if err != nil {
		t.Fatalf("run-flink.sh --print: %v\n%s", err, log)
	}
	want := []string{jobServerScript, "flink", "--flink-master=flink-jobmanager:8081", "--job-port=8099", "--artifact-port=8098"}
	if js := jobServerCommand(cmds); !slices.Equal(js, want) {
		t.Errorf("job server %q, want %q\n%s", js, want, log)
	}
	if strings.Contains(log, "docker") {
		t.Errorf("run-flink.sh needs docker:\n%s", log)
	}

	// PROCESS workers by default: the TaskManagers start the Go SDK's
	// boot program, built here from the SDK of go.mod.
	boot := bootBuild(cmds)
	if boot == nil || !slices.Contains(boot, "GOOS=linux") || !slices.Contains(boot, "CGO_ENABLED=0") {
		t.Fatalf("no static linux build of the Go SDK's boot program: %q", cmds)
	}
	bootPath := boot[slices.Index(boot, "-o")+1]
	p := pipelineCommand(t, cmds)
	flags := flagValues(t, p)
	wantFlags(t, flags, map[string]string{
		"runner": "flink", "endpoint": "localhost:8099", "environment_type": "PROCESS",
		"environment_config": `{"command": "` + bootPath + `"}`,
		"worker_binary":      "/opt/recrawl/recrawl-linux-amd64", "job_name": "recrawl-index-test", "parallelism": "8",
		"input": "gs://crawl/warc/*.warc.gz", "output": "gs://crawl/index", "format": "zipnum", "shards": "16",
	})
	checkBeamFlags(t, flags)
	if runtime.GOOS+"/"+runtime.GOARCH == "linux/amd64" && p[0] != "/opt/recrawl/recrawl-linux-amd64" {
		t.Errorf("on linux/amd64 the worker binary is the driver too; the script runs %s", p[0])
	}

	// A boot program given: none is built.
	cmds, log, err = printScript(t, "run-flink.sh", map[string]string{
		"FLINK_MASTER": "jm:8081", "INPUT": "gs://a/x.warc.gz", "OUTPUT": "gs://a/index", "WORKER_BINARY": "/w",
		"BOOT_BINARY": "/opt/beam/boot",
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	if b := bootBuild(cmds); b != nil {
		t.Errorf("BOOT_BINARY is set, yet the script builds one: %q", b)
	}
	if f := flagValues(t, pipelineCommand(t, cmds)); f["environment_config"] != `{"command": "/opt/beam/boot"}` {
		t.Errorf("--environment_config=%s, want the BOOT_BINARY", f["environment_config"])
	}
}

func TestRunFlinkScriptVersions(t *testing.T) {
	minor := versionsEnv(t)["FLINK_MINOR"]
	base := map[string]string{"FLINK_MASTER": "jm:8081", "INPUT": "gs://a/x.warc.gz", "OUTPUT": "gs://a/index", "WORKER_BINARY": "/w"}
	for _, v := range []string{minor, "1.18", "1.20", "2.0", "2"} {
		env := map[string]string{"FLINK_VERSION": v}
		for k, x := range base {
			env[k] = x
		}
		cmds, log, err := printScript(t, "run-flink.sh", env)
		if v == minor {
			if err != nil || jobServerCommand(cmds) == nil {
				t.Errorf("FLINK_VERSION=%s (the job server's): %v %q\n%s", v, err, cmds, log)
			}
		} else if err == nil || !strings.Contains(log, "FLINK_VERSION="+v) {
			t.Errorf("FLINK_VERSION=%s (no job server for it here) was accepted: %v\n%s", v, err, log)
		}
	}
}

func TestRunSparkScript(t *testing.T) {
	cmds, log, err := printScript(t, "run-spark.sh", map[string]string{
		"SPARK_MASTER_URL": "spark://spark-master:7077", "ARTIFACTS_DIR": "/shared/beam-artifacts",
		"PIPELINE": "extract", "SPEC": "specs/examples/election2009.yaml", "INDEX": "zipnum:gs://crawl/index",
		"ARCHIVE": "gs://crawl/warc,gs://special/warc", "OUTPUT": "gs://crawl/out", "WORK": "gs://crawl/work",
		"WORKER_BINARY": "/opt/recrawl/recrawl-linux-amd64", "JOB_NAME": "recrawl-extract-test",
		"BOOT_BINARY": "/opt/beam/boot",
	}, "--max_rounds=3")
	if err != nil {
		t.Fatalf("run-spark.sh --print: %v\n%s", err, log)
	}
	want := []string{jobServerScript, "spark", "--spark-master-url=spark://spark-master:7077", "--job-port=8099",
		"--artifact-port=8098", "--artifacts-dir=/shared/beam-artifacts"}
	if js := jobServerCommand(cmds); !slices.Equal(js, want) {
		t.Errorf("job server %q, want %q\n%s", js, want, log)
	}
	p := pipelineCommand(t, cmds)
	if p[1] != "extract" {
		t.Errorf("PIPELINE=extract runs %q, want recrawl extract", p[:2])
	}
	flags := flagValues(t, p)
	wantFlags(t, flags, map[string]string{
		"runner": "spark", "endpoint": "localhost:8099", "environment_type": "PROCESS",
		"environment_config": `{"command": "/opt/beam/boot"}`,
		"worker_binary":      "/opt/recrawl/recrawl-linux-amd64", "job_name": "recrawl-extract-test",
		"spec": "specs/examples/election2009.yaml", "index": "zipnum:gs://crawl/index",
		"archive": "gs://crawl/warc,gs://special/warc", "output": "gs://crawl/out", "work": "gs://crawl/work",
		"max_rounds": "3",
	})
	checkBeamFlags(t, flags)
}

func TestRunPortableScriptLocalFiles(t *testing.T) {
	// A cluster on this machine (scripts/flink-cluster.sh): LOCAL_FILES=1
	// lets PROCESS workers take local paths.
	cmds, log, err := printScript(t, "run-flink.sh", map[string]string{
		"FLINK_MASTER": "127.0.0.1:8081", "LOCAL_FILES": "1", "INPUT": "/data/a.warc.gz", "OUTPUT": "/data/index",
		"WORKER_BINARY": "/w", "BOOT_BINARY": "/b",
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	wantFlags(t, flagValues(t, pipelineCommand(t, cmds)), map[string]string{"environment_type": "PROCESS",
		"input": "/data/a.warc.gz", "output": "/data/index"})
}

func TestRunPortableScriptWithEndpoint(t *testing.T) {
	for _, tc := range []struct {
		script, endpointVar, runner string
	}{{"run-flink.sh", "FLINK_JOB_ENDPOINT", "flink"}, {"run-spark.sh", "SPARK_JOB_ENDPOINT", "spark"}} {
		t.Run(tc.runner, func(t *testing.T) {
			// A running job server: none is started. LOOPBACK: the
			// workers are the submitting process; local paths are fine
			// and there is no worker binary.
			cmds, log, err := printScript(t, tc.script, map[string]string{
				tc.endpointVar: "jobserver.internal:8099", "ENVIRONMENT_TYPE": "loopback",
				"INPUT": "/data/crawl/a.warc.gz", "OUTPUT": "/data/index", "FORMAT": "cdxj", "SHARDS": "2",
			})
			if err != nil {
				t.Fatalf("%v\n%s", err, log)
			}
			if d := jobServerCommand(cmds); d != nil {
				t.Errorf("a job server was started although %s is set: %q", tc.endpointVar, d)
			}
			flags := flagValues(t, pipelineCommand(t, cmds))
			wantFlags(t, flags, map[string]string{"runner": tc.runner, "endpoint": "jobserver.internal:8099",
				"environment_type": "LOOPBACK", "input": "/data/crawl/a.warc.gz", "output": "/data/index", "format": "cdxj", "shards": "2"})
			if _, ok := flags["worker_binary"]; ok {
				t.Errorf("LOOPBACK needs no --worker_binary: %v", flags)
			}
			checkBeamFlags(t, flags)

			// Outside LOOPBACK, local paths are refused by the pipeline's
			// own check, naming the flag.
			index := t.TempDir()
			for want, env := range map[string]map[string]string{
				"recrawl index: --output=/data/index is a local path": {tc.endpointVar: "js:8099",
					"INPUT": "gs://a/x.warc.gz", "OUTPUT": "/data/index", "WORKER_BINARY": "/w", "BOOT_BINARY": "/b"},
				"recrawl extract: --index=" + index + " is a local path": {tc.endpointVar: "js:8099", "PIPELINE": "extract",
					"SPEC": "specs/examples/minimal.yaml", "INDEX": "zipnum:" + index,
					"ARCHIVE": "gs://a/warc", "OUTPUT": "gs://a/out", "WORKER_BINARY": "/w", "BOOT_BINARY": "/b"},
			} {
				if _, log, err := printScript(t, tc.script, env); err == nil || !strings.Contains(log, want) {
					t.Errorf("want %q: %v\n%s", want, err, log)
				}
			}
			// No job server at all.
			if _, log, err := printScript(t, tc.script, map[string]string{"INPUT": "gs://a/x", "OUTPUT": "gs://a/i"}); err == nil ||
				!strings.Contains(log, tc.endpointVar) {
				t.Errorf("no job server: %v\n%s", err, log)
			}
		})
	}
}

func TestRunFlinkScriptBuildsWorker(t *testing.T) {
	// Without WORKER_BINARY the script builds one (printed, not run here).
	cmds, log, err := printScript(t, "run-flink.sh", map[string]string{
		"FLINK_JOB_ENDPOINT": "js:8099", "INPUT": "gs://a/x.warc.gz", "OUTPUT": "gs://a/index",
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	var build []string
	for _, c := range cmds {
		if c[0] == "env" && slices.Contains(c, "GOOS=linux") && slices.Contains(c, "./cmd/recrawl") {
			build = c
		}
	}
	if build == nil || !slices.Contains(build, "GOARCH=amd64") || !slices.Contains(build, "CGO_ENABLED=0") ||
		!slices.Contains(build, "./cmd/recrawl") {
		t.Fatalf("no static linux/amd64 build of ./cmd/recrawl: %q", cmds)
	}
	if p := pipelineCommand(t, cmds); p[1] != "index" {
		t.Errorf("the script runs %q, want recrawl index", p[:2])
	}
	out := build[slices.Index(build, "-o")+1]
	if flags := flagValues(t, pipelineCommand(t, cmds)); flags["worker_binary"] != out {
		t.Errorf("--worker_binary=%s, the build writes %s", flags["worker_binary"], out)
	}
}

func TestRunDataflowScript(t *testing.T) {
	cmds, log, err := printScript(t, "run-dataflow.sh", map[string]string{
		"PROJECT": "my-project", "REGION": "europe-west1", "BUCKET": "my-bucket",
		"PIPELINE": "extract", "SPEC": "specs/examples/minimal.yaml", "INDEX": "bigtable:my-project/recrawl/captures",
		"ARCHIVE": "gs://my-bucket/warc", "OUTPUT": "gs://my-bucket/out", "WORKER_BINARY": "/w", "JOB_NAME": "j", "DRY_RUN": "1",
		"RECRAWL_CHECK_BINARY": "", // checked through go run ./cmd/recrawl
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	if d := jobServerCommand(cmds); d != nil {
		t.Errorf("Dataflow needs no job server: %q", d)
	}
	flags := flagValues(t, pipelineCommand(t, cmds))
	wantFlags(t, flags, map[string]string{"runner": "dataflow", "project": "my-project", "region": "europe-west1",
		"staging_location": "gs://my-bucket/staging", "temp_location": "gs://my-bucket/staging/tmp",
		"worker_binary": "/w", "job_name": "j", "spec": "specs/examples/minimal.yaml", "index": "bigtable:my-project/recrawl/captures",
		"archive": "gs://my-bucket/warc", "output": "gs://my-bucket/out"})
	checkBeamFlags(t, flags)
	if flags["dry_run"] != "true" {
		t.Errorf("DRY_RUN=1 passes no --dry_run: %q", pipelineCommand(t, cmds))
	}
}

// TestRunScriptsCheckCommandLine: a wrong path, index spec, spec or runner
// option stops every script before it builds or starts anything, with the
// error of the pipeline's own check (recrawl PIPELINE --check), not a rule
// of the script's.
func TestRunScriptsCheckCommandLine(t *testing.T) {
	dir := t.TempDir()
	extract := map[string]string{"PIPELINE": "extract", "SPEC": "specs/examples/minimal.yaml",
		"INDEX": "zipnum:gs://a/index", "ARCHIVE": "gs://a/warc", "OUTPUT": "gs://a/out"}
	index := map[string]string{"INPUT": "gs://a/x.warc.gz", "OUTPUT": "gs://a/index"}
	scripts := map[string]map[string]string{
		"run-flink.sh":    {"FLINK_JOB_ENDPOINT": "js:8099", "WORKER_BINARY": "/w", "BOOT_BINARY": "/b"},
		"run-spark.sh":    {"SPARK_JOB_ENDPOINT": "js:8099", "WORKER_BINARY": "/w", "BOOT_BINARY": "/b"},
		"run-dataflow.sh": {"PROJECT": "p", "REGION": "r", "BUCKET": "b", "WORKER_BINARY": "/w"},
	}
	for _, tc := range []struct {
		name       string
		base, set  map[string]string
		want       string
		onlyScript string
	}{
		{"local archive", extract, map[string]string{"ARCHIVE": "gs://a/warc," + dir},
			"recrawl extract: --archive=" + dir + " is a local path", ""},
		{"local work", extract, map[string]string{"WORK": dir}, "recrawl extract: --work=" + dir + " is a local path", ""},
		{"local input", index, map[string]string{"INPUT": "gs://a/x.warc.gz, /data/y.warc.gz"},
			"recrawl index: --input=/data/y.warc.gz is a local path", ""},
		{"unknown index kind", extract, map[string]string{"INDEX": "warc:gs://a/index"},
			`recrawl extract: --index: index "warc:gs://a/index": unknown kind "warc"`, ""},
		{"index without a kind", extract, map[string]string{"INDEX": "a-index"},
			`recrawl extract: --index: index "a-index": want cdxj:FILE, zipnum:DIR or bigtable:PROJECT/INSTANCE/TABLE`, ""},
		{"bigtable without a table", extract, map[string]string{"INDEX": "bigtable:p/i"},
			`recrawl extract: --index: index "bigtable:p/i": want bigtable:PROJECT/INSTANCE/TABLE`, ""},
		{"missing spec", extract, map[string]string{"SPEC": filepath.Join(dir, "nonexistent.yaml")},
			"recrawl extract: --spec=" + filepath.Join(dir, "nonexistent.yaml") + ": no such file", ""},
		{"unknown scheme", index, map[string]string{"OUTPUT": "s3://a/index"},
			"recrawl index: --output=s3://a/index: unsupported scheme s3://", ""},
		{"environment type", index, map[string]string{"ENVIRONMENT_TYPE": "thread"},
			`recrawl index: --environment_type="THREAD": must be LOOPBACK, DOCKER, PROCESS or EXTERNAL`, "run-flink.sh"},
		{"local temp location", index, map[string]string{"TEMP_LOCATION": "/tmp/x"},
			`recrawl index: --temp_location="/tmp/x": Dataflow workers need a gs:// location`, "run-dataflow.sh"},
	} {
		for script, runner := range scripts {
			if tc.onlyScript != "" && script != tc.onlyScript {
				continue
			}
			t.Run(tc.name+"/"+script, func(t *testing.T) {
				env := map[string]string{}
				for _, m := range []map[string]string{runner, tc.base, tc.set} {
					for k, v := range m {
						env[k] = v
					}
				}
				cmds, log, err := printScript(t, script, env)
				if err == nil || !strings.Contains(log, tc.want) {
					t.Errorf("want the error %q: %v\n%s", tc.want, err, log)
				}
				if len(cmds) > 0 {
					t.Errorf("the script went on after the check failed: %q", cmds)
				}
			})
		}
	}
}
