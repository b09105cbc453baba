package runners

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// beamFlags are the Beam flags FromFlags reads and Run writes.
var beamFlags = []string{"runner", "endpoint", "environment_type", "environment_config", "worker_binary",
	"project", "region", "staging_location", "temp_location", "dry_run"}

// setFlags sets Beam flags for one test and restores all of them after it.
func setFlags(t *testing.T, kv ...string) {
	t.Helper()
	saved := map[string]string{}
	for _, name := range beamFlags {
		f := flag.Lookup(name)
		if f == nil {
			t.Fatalf("Beam flag --%s is not defined", name)
		}
		saved[name] = f.Value.String()
	}
	t.Cleanup(func() {
		for name, v := range saved {
			flag.Set(name, v)
		}
	})
	for i := 0; i+1 < len(kv); i += 2 {
		if err := flag.Set(kv[i], kv[i+1]); err != nil {
			t.Fatal(err)
		}
	}
}

// fakeELF writes a file that is not a linux/amd64 executable.
func notExecutable(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "worker")
	if err := os.WriteFile(p, []byte("#!/bin/sh\necho not a Go worker\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFromFlags(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags []string
		want  Config
	}{
		{"default is prism", nil, Config{Runner: Prism}},
		{"aliases and case", []string{"runner", "FlinkRunner", "endpoint", "localhost:8099", "environment_type", "loopback"},
			Config{Runner: Flink, Endpoint: "localhost:8099", EnvironmentType: Loopback}},
		{"dataflow temp_location defaults to staging/tmp",
			[]string{"runner", "DataflowRunner", "project", "p", "region", "r", "staging_location", "gs://b/staging/", "dry_run", "true"},
			Config{Runner: Dataflow, Project: "p", Region: "r", StagingLocation: "gs://b/staging/", TempLocation: "gs://b/staging/tmp", DryRun: true}},
		{"dataflow keeps temp_location", []string{"runner", "dataflow", "project", "p", "region", "r", "staging_location", "gs://b/s", "temp_location", "gs://t/x"},
			Config{Runner: Dataflow, Project: "p", Region: "r", StagingLocation: "gs://b/s", TempLocation: "gs://t/x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setFlags(t, append([]string{"runner", "", "endpoint", "", "environment_type", "", "dry_run", "false"}, tc.flags...)...)
			got, err := FromFlags()
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("FromFlags() = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestFromFlagsErrors checks that FromFlags validates what it read.
func TestFromFlagsErrors(t *testing.T) {
	setFlags(t, "runner", "dataflow", "project", "", "region", "r", "staging_location", "gs://b/s")
	_, err := FromFlags()
	want := "--runner=dataflow needs --project, --region and a gs:// --staging_location (missing: --project)"
	if err == nil || err.Error() != want {
		t.Errorf("FromFlags() error = %v, want %q", err, want)
	}
	setFlags(t, "runner", "samza")
	if _, err := FromFlags(); err == nil || !strings.Contains(err.Error(), `--runner="samza": unknown runner`) {
		t.Errorf("FromFlags() error = %v, want unknown runner", err)
	}
}

func TestValidateRunnerErrors(t *testing.T) {
	bad := notExecutable(t)
	df := Config{Runner: Dataflow, Project: "p", Region: "r", StagingLocation: "gs://b/staging"}
	with := func(c Config, f func(*Config)) Config { f(&c); return c }
	for _, tc := range []struct {
		name string
		c    Config
		want string // the whole error
	}{
		{"unknown runner", Config{Runner: "samza"},
			`--runner="samza": unknown runner; use prism (the default), direct, vet, universal, flink, spark or dataflow`},
		{"unknown environment", Config{Runner: Prism, EnvironmentType: "k8s"},
			`--environment_type="k8s": must be LOOPBACK, DOCKER, PROCESS or EXTERNAL`},
		{"dry run elsewhere", Config{Runner: Flink, Endpoint: "h:1", DryRun: true},
			`--dry_run applies only to --runner=dataflow, not --runner=flink`},
		{"universal without endpoint", Config{Runner: Universal, EnvironmentType: Loopback},
			`--runner=universal needs --endpoint=HOST:PORT, the address of the Beam job service`},
		{"flink without endpoint", Config{Runner: Flink},
			`--runner=flink needs --endpoint=HOST:PORT, the address of the Beam job service`},
		{"spark without endpoint", Config{Runner: "SparkRunner"},
			`--runner=spark needs --endpoint=HOST:PORT, the address of the Beam job service`},
		{"dataflow without anything", Config{Runner: Dataflow},
			`--runner=dataflow needs --project, --region and a gs:// --staging_location (missing: --project, --region, --staging_location)`},
		{"dataflow without region", with(df, func(c *Config) { c.Region = "" }),
			`--runner=dataflow needs --project, --region and a gs:// --staging_location (missing: --region)`},
		{"dataflow local staging", with(df, func(c *Config) { c.StagingLocation = "/tmp/staging" }),
			`--runner=dataflow needs --project, --region and a gs:// --staging_location (--staging_location="/tmp/staging" is not gs://)`},
		{"dataflow local temp", with(df, func(c *Config) { c.TempLocation = "/tmp/t" }),
			`--temp_location="/tmp/t": Dataflow workers need a gs:// location`},
		{"dataflow loopback", with(df, func(c *Config) { c.EnvironmentType = "loopback" }),
			`--environment_type=LOOPBACK: Dataflow runs workers in containers; leave it unset or use DOCKER`},
		{"external without config", Config{Runner: Flink, Endpoint: "h:1", EnvironmentType: External, WorkerBinary: "/bin/true"},
			`--environment_type=EXTERNAL needs --environment_config=HOST:PORT, the address of the worker pool`},
		{"process without command", Config{Runner: Spark, Endpoint: "h:1", EnvironmentType: Process, EnvironmentConfig: `{"os":"linux"}`},
			`--environment_type=PROCESS needs --environment_config={"command": "/path/to/boot"}, got "{\"os\":\"linux\"}"`},
		{"process config not json", Config{Runner: Spark, Endpoint: "h:1", EnvironmentType: Process, EnvironmentConfig: `/opt/boot`},
			`--environment_type=PROCESS needs --environment_config={"command": "/path/to/boot"}, got "/opt/boot"`},
		{"missing worker binary", Config{Runner: Flink, Endpoint: "h:1", WorkerBinary: "/no/such/worker"},
			`--worker_binary=/no/such/worker: stat /no/such/worker: no such file or directory`},
		{"worker binary is a directory", Config{Runner: Flink, Endpoint: "h:1", WorkerBinary: t.TempDir()},
			"not a regular file"},
		{"worker binary not ELF", with(df, func(c *Config) { c.WorkerBinary = bad }),
			"--worker_binary=" + bad + ": not a linux executable (build it with GOOS=linux GOARCH=amd64 CGO_ENABLED=0 go build)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.c.Validate(nil)
			if err == nil {
				t.Fatalf("Validate(%+v) = nil, want %q", tc.c, tc.want)
			}
			if !strings.HasPrefix(err.Error(), tc.want) && !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate(%+v) = %q, want %q", tc.c, err, tc.want)
			}
		})
	}
}

func TestValidateRunnerOK(t *testing.T) {
	self, err := os.Executable() // a linux/amd64 executable on the CI machines
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []Config{
		{},
		{Runner: Direct},
		{Runner: Vet},
		{Runner: Prism, Endpoint: "localhost:8073"},
		{Runner: Universal, Endpoint: "localhost:8073", EnvironmentType: "loopback"},
		{Runner: Flink, Endpoint: "flink:8099"}, // DOCKER; a worker binary is built at Run
		{Runner: Flink, Endpoint: "flink:8099", WorkerBinary: self},
		{Runner: Spark, Endpoint: "spark:8099", EnvironmentType: External, EnvironmentConfig: "pool:50000"},
		{Runner: Spark, Endpoint: "spark:8099", EnvironmentType: Process, EnvironmentConfig: `{"command":"/opt/apache/beam/boot"}`},
		{Runner: Universal, Endpoint: "h:1", EnvironmentType: Loopback, WorkerBinary: "/ignored/in/loopback"},
		{Runner: Dataflow, Project: "p", Region: "r", StagingLocation: "gs://b/s", EnvironmentType: "docker"},
	} {
		if err := c.Validate(nil); err != nil {
			t.Errorf("Validate(%+v) = %v, want nil", c, err)
		}
	}
}

func TestEnvironment(t *testing.T) {
	for _, tc := range []struct {
		c                  Config
		env                string
		local, needsWorker bool
	}{
		{Config{}, Loopback, true, false},
		{Config{Runner: Prism, Endpoint: "h:1"}, Docker, false, true},
		{Config{Runner: Prism, Endpoint: "h:1", EnvironmentType: "Loopback"}, Loopback, true, false},
		{Config{Runner: Direct}, "", true, false},
		{Config{Runner: Vet}, "", true, false},
		{Config{Runner: Flink, Endpoint: "h:1"}, Docker, false, true},
		{Config{Runner: Spark, Endpoint: "h:1", EnvironmentType: "external"}, External, false, true},
		{Config{Runner: Universal, Endpoint: "h:1", EnvironmentType: "LOOPBACK"}, Loopback, true, false},
		{Config{Runner: Dataflow}, Docker, false, true},
		{Config{Runner: Dataflow, DryRun: true}, Docker, false, false},
	} {
		if got := tc.c.Environment(); got != tc.env {
			t.Errorf("%+v: Environment() = %q, want %q", tc.c, got, tc.env)
		}
		if got := tc.c.LocalFilesReachable(); got != tc.local {
			t.Errorf("%+v: LocalFilesReachable() = %v, want %v", tc.c, got, tc.local)
		}
		if got := tc.c.NeedsWorkerBinary(); got != tc.needsWorker {
			t.Errorf("%+v: NeedsWorkerBinary() = %v, want %v", tc.c, got, tc.needsWorker)
		}
	}
}

func TestValidatePaths(t *testing.T) {
	paths := map[string]string{
		"--input":  "/data/a.warc.gz, gs://b/archives/*.warc.gz",
		"output":   "gs://b/index",
		"--work":   "",
		"--extras": "gs://b/x",
	}
	local := map[string]string{"input": "gs://b/in", "--output": "out/index"}
	for _, tc := range []struct {
		name  string
		c     Config
		paths map[string]string
		want  string // "" for no error
	}{
		{"prism takes local paths", Config{}, paths, ""},
		{"direct takes local paths", Config{Runner: Direct}, paths, ""},
		{"loopback takes local paths", Config{Runner: Flink, Endpoint: "h:1", EnvironmentType: Loopback}, paths, ""},
		{"flink docker rejects the local input", Config{Runner: Flink, Endpoint: "h:1"}, paths,
			"--input=/data/a.warc.gz is a local path, but --runner=flink runs workers in DOCKER environments that cannot see this machine's files; use a gs:// path"},
		{"prism on a job server rejects local output", Config{Runner: Prism, Endpoint: "h:1"}, local,
			"--output=out/index is a local path, but --runner=prism runs workers in DOCKER environments that cannot see this machine's files; use a gs:// path"},
		{"spark external rejects local output", Config{Runner: Spark, Endpoint: "h:1", EnvironmentType: External, EnvironmentConfig: "p:1"}, local,
			"--output=out/index is a local path, but --runner=spark runs workers in EXTERNAL environments"},
		{"dataflow rejects local output", Config{Runner: Dataflow, Project: "p", Region: "r", StagingLocation: "gs://b/s"}, local,
			"--output=out/index is a local path, but --runner=dataflow runs workers on Google Cloud that cannot see this machine's files; use a gs:// path"},
		{"flink process takes local paths when the workers share the files", Config{Runner: Flink, Endpoint: "h:1",
			EnvironmentType: Process, EnvironmentConfig: `{"command": "/b"}`, WorkersShareFiles: true}, paths, ""},
		{"dataflow workers never share the files", Config{Runner: Dataflow, Project: "p", Region: "r", StagingLocation: "gs://b/s",
			WorkersShareFiles: true}, local, "--output=out/index is a local path, but --runner=dataflow runs workers on Google Cloud"},
		{"dataflow takes gs", Config{Runner: Dataflow, Project: "p", Region: "r", StagingLocation: "gs://b/s"},
			map[string]string{"--input": "gs://b/a.warc.gz,gs://c/*.arc.gz", "--output": "gs://b/out"}, ""},
		{"unsupported scheme everywhere", Config{}, map[string]string{"--input": "s3://bucket/a.warc.gz"},
			"--input=s3://bucket/a.warc.gz: unsupported scheme s3://; use a local path or gs://"},
		{"runner errors come first", Config{Runner: Flink}, local, "--runner=flink needs --endpoint"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.c.Validate(tc.paths)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("Validate = %v, want nil", err)
			case tc.want != "" && err == nil:
				t.Errorf("Validate = nil, want %q", tc.want)
			case tc.want != "" && !strings.HasPrefix(err.Error(), tc.want):
				t.Errorf("Validate = %q, want %q", err, tc.want)
			}
		})
	}
}
