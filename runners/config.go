package runners

import (
	"debug/elf"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/gcpopts"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	beamrunners "github.com/apache/beam/sdks/v2/go/pkg/beam/runners"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"
)

// beamx registers every runner Beam ships and the local and gs filesystems;
// the Dataflow runner it imports defines --staging_location, --temp_location
// and --dry_run, which FromFlags reads by name.
var _ = beamx.Run

// Runner names, canonical forms of --runner.
const (
	Prism     = "prism"
	Direct    = "direct"
	Vet       = "vet"
	Universal = "universal"
	Flink     = "flink"
	Spark     = "spark"
	Dataflow  = "dataflow"
)

// Environment types (--environment_type), upper case.
const (
	Loopback = "LOOPBACK"
	Docker   = "DOCKER"
	Process  = "PROCESS"
	External = "EXTERNAL"
)

// runnerAliases maps every name Beam registers (lower-cased) to its
// canonical form.
var runnerAliases = map[string]string{
	"":               Prism,
	"prism":          Prism,
	"prismrunner":    Prism,
	"direct":         Direct,
	"directrunner":   Direct,
	"vet":            Vet,
	"universal":      Universal,
	"portable":       Universal,
	"portablerunner": Universal,
	"flink":          Flink,
	"flinkrunner":    Flink,
	"spark":          Spark,
	"sparkrunner":    Spark,
	"dataflow":       Dataflow,
	"dataflowrunner": Dataflow,
}

// Config is a validated choice of runner and its options. The zero value is
// in-process prism.
type Config struct {
	Runner            string // canonical runner name: Prism, Direct, Vet, Universal, Flink, Spark, Dataflow
	Endpoint          string // job service HOST:PORT (portable runners; prism: a standalone job server)
	EnvironmentType   string // "", Loopback, Docker, Process or External, as given
	EnvironmentConfig string // image (DOCKER), worker pool address (EXTERNAL), JSON with "command" (PROCESS)
	WorkerBinary      string // linux/amd64 build of this program for the workers; "" to build one when needed
	Project           string // Dataflow
	Region            string // Dataflow
	StagingLocation   string // Dataflow, gs://
	TempLocation      string // Dataflow, gs://; defaults to StagingLocation/tmp
	DryRun            bool   // Dataflow: translate and print the job, do not submit
	// WorkersShareFiles says that the workers of a portable runner see
	// this machine's files at the same paths (a Flink or Spark cluster
	// on this machine, or one that mounts the same file system), so
	// local paths are allowed in PROCESS, DOCKER and EXTERNAL
	// environments too. FromFlags sets it from the environment variable
	// RECRAWL_WORKERS_SHARE_FILES=1 (scripts/run-flink.sh: LOCAL_FILES=1).
	WorkersShareFiles bool

	built    string // worker binary EnsureWorkerBinary built; removed by Close
	builtDir string // its directory, if EnsureWorkerBinary created that too
}

// FromFlags reads the runner configuration from Beam's flag variables
// (flag.Parse must have run) and validates it. The result names the flag at
// fault, e.g. "--runner=dataflow needs --project, --region and a gs://
// --staging_location (missing: --region)".
func FromFlags() (Config, error) {
	c := Config{
		Runner:            *beamrunners.Runner,
		Endpoint:          *jobopts.Endpoint,
		EnvironmentType:   *jobopts.EnvironmentType,
		EnvironmentConfig: *jobopts.EnvironmentConfig,
		WorkerBinary:      *jobopts.WorkerBinary,
		Project:           *gcpopts.Project,
		Region:            *gcpopts.Region,
		StagingLocation:   flagValue("staging_location"),
		TempLocation:      flagValue("temp_location"),
		DryRun:            flagValue("dry_run") == "true",
		WorkersShareFiles: os.Getenv(WorkersShareFilesEnv) == "1",
	}
	if err := c.normalize(); err != nil {
		return Config{}, err
	}
	if err := c.Validate(nil); err != nil {
		return Config{}, err
	}
	return c, nil
}

// WorkersShareFilesEnv is the environment variable that sets
// Config.WorkersShareFiles in FromFlags.
const WorkersShareFilesEnv = "RECRAWL_WORKERS_SHARE_FILES"

// flagValue is the value of a flag another package defined, "" if there is
// no such flag.
func flagValue(name string) string {
	if f := flag.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

// normalize turns aliases into canonical names and fills Beam's defaults
// that validation depends on.
func (c *Config) normalize() error {
	r, ok := runnerAliases[strings.ToLower(c.Runner)]
	if !ok {
		return fmt.Errorf("--runner=%q: unknown runner; use prism (the default), direct, vet, universal, flink, spark or dataflow", c.Runner)
	}
	c.Runner = r
	c.EnvironmentType = strings.ToUpper(c.EnvironmentType)
	if c.Runner == Dataflow && c.TempLocation == "" && strings.HasPrefix(c.StagingLocation, "gs://") {
		c.TempLocation = strings.TrimRight(c.StagingLocation, "/") + "/tmp"
	}
	return nil
}

// Environment is the environment the workers run in: Loopback, Docker,
// Process or External, following Beam's defaults (prism without --endpoint
// forces LOOPBACK; other portable runners and Dataflow assume DOCKER). It is
// "" for direct and vet, which run no SDK harness.
func (c Config) Environment() string {
	switch c.Runner {
	case Direct, Vet:
		return ""
	case Dataflow:
		return Docker
	}
	if c.EnvironmentType != "" {
		return strings.ToUpper(c.EnvironmentType)
	}
	if (c.Runner == Prism || c.Runner == "") && c.Endpoint == "" {
		return Loopback
	}
	return Docker
}

// LocalFilesReachable reports whether all user code runs on this machine, so
// that local paths name the same files for every worker.
func (c Config) LocalFilesReachable() bool {
	env := c.Environment()
	return env == "" || env == Loopback
}

// NeedsWorkerBinary reports whether workers will run a separate build of
// this program, i.e. the job is submitted and not run in LOOPBACK mode.
func (c Config) NeedsWorkerBinary() bool {
	if c.Runner == Dataflow && c.DryRun {
		return false
	}
	return !c.LocalFilesReachable()
}

// Validate checks the runner options and that the storage paths of the
// pipeline can be reached by every worker. paths maps a flag name ("--input";
// the leading dashes may be left out) to its value: one path or a
// comma-separated list of paths and glob patterns. Empty values are skipped.
// Errors name the flag at fault.
func (c Config) Validate(paths map[string]string) error {
	if err := c.validateRunner(); err != nil {
		return err
	}
	names := make([]string, 0, len(paths))
	for name := range paths {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := c.checkPath(name, paths[name]); err != nil {
			return err
		}
	}
	return nil
}

func (c Config) validateRunner() error {
	runner := c.Runner
	if canon, ok := runnerAliases[strings.ToLower(runner)]; ok {
		runner = canon
	} else {
		return fmt.Errorf("--runner=%q: unknown runner; use prism (the default), direct, vet, universal, flink, spark or dataflow", c.Runner)
	}
	c.Runner = runner
	env := strings.ToUpper(c.EnvironmentType)
	switch env {
	case "", Loopback, Docker, Process, External:
	default:
		return fmt.Errorf("--environment_type=%q: must be LOOPBACK, DOCKER, PROCESS or EXTERNAL", c.EnvironmentType)
	}
	if c.DryRun && runner != Dataflow {
		return fmt.Errorf("--dry_run applies only to --runner=dataflow, not --runner=%s", runner)
	}

	switch runner {
	case Direct, Vet:
		return nil
	case Universal, Flink, Spark:
		if c.Endpoint == "" {
			return fmt.Errorf("--runner=%s needs --endpoint=HOST:PORT, the address of the Beam job service", runner)
		}
	case Dataflow:
		var missing []string
		if c.Project == "" {
			missing = append(missing, "--project")
		}
		if c.Region == "" {
			missing = append(missing, "--region")
		}
		if c.StagingLocation == "" {
			missing = append(missing, "--staging_location")
		}
		const need = "--runner=dataflow needs --project, --region and a gs:// --staging_location"
		if len(missing) > 0 {
			return fmt.Errorf("%s (missing: %s)", need, strings.Join(missing, ", "))
		}
		if !strings.HasPrefix(c.StagingLocation, "gs://") {
			return fmt.Errorf("%s (--staging_location=%q is not gs://)", need, c.StagingLocation)
		}
		if c.TempLocation != "" && !strings.HasPrefix(c.TempLocation, "gs://") {
			return fmt.Errorf("--temp_location=%q: Dataflow workers need a gs:// location", c.TempLocation)
		}
		if env != "" && env != Docker {
			return fmt.Errorf("--environment_type=%s: Dataflow runs workers in containers; leave it unset or use DOCKER", env)
		}
	}

	switch env {
	case External:
		if c.EnvironmentConfig == "" {
			return fmt.Errorf("--environment_type=EXTERNAL needs --environment_config=HOST:PORT, the address of the worker pool")
		}
	case Process:
		var cfg struct {
			Command string `json:"command"`
		}
		if err := json.Unmarshal([]byte(c.EnvironmentConfig), &cfg); err != nil || cfg.Command == "" {
			return fmt.Errorf(`--environment_type=PROCESS needs --environment_config={"command": "/path/to/boot"}, got %q`, c.EnvironmentConfig)
		}
	}
	if c.NeedsWorkerBinary() && c.WorkerBinary != "" {
		if err := checkWorkerBinary(c.WorkerBinary); err != nil {
			return fmt.Errorf("--worker_binary=%s: %w", c.WorkerBinary, err)
		}
	}
	return nil
}

// checkWorkerBinary checks that path is a linux/amd64 executable, the only
// kind Beam's Flink, Spark and Dataflow workers run.
func checkWorkerBinary(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return errors.New("not a regular file")
	}
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("not a linux executable (build it with GOOS=linux GOARCH=amd64 CGO_ENABLED=0 go build): %w", err)
	}
	defer f.Close()
	if f.Machine != elf.EM_X86_64 || f.Type != elf.ET_EXEC && f.Type != elf.ET_DYN {
		return fmt.Errorf("a %v %v file, not a linux/amd64 executable (build it with GOOS=linux GOARCH=amd64 CGO_ENABLED=0 go build)", f.Machine, f.Type)
	}
	return nil
}

// checkPath checks one flag's value: every comma-separated element must be a
// gs:// URI or, where workers share this machine's files, a local path.
func (c Config) checkPath(name, value string) error {
	flagName := "--" + strings.TrimLeft(name, "-")
	for _, p := range strings.Split(value, ",") {
		p = strings.TrimSpace(p)
		if p == "" || strings.HasPrefix(p, "gs://") {
			continue
		}
		if scheme, _, ok := strings.Cut(p, "://"); ok && !strings.ContainsAny(scheme, `/\`) {
			return fmt.Errorf("%s=%s: unsupported scheme %s://; use a local path or gs://", flagName, p, scheme)
		}
		if !c.LocalFilesReachable() && !(c.WorkersShareFiles && c.Runner != Dataflow) {
			where := fmt.Sprintf("in %s environments", c.Environment())
			if c.Runner == Dataflow {
				where = "on Google Cloud"
			}
			return fmt.Errorf("%s=%s is a local path, but --runner=%s runs workers %s that cannot see this machine's files; use a gs:// path (or, if they share this machine's files, set "+WorkersShareFilesEnv+"=1)",
				flagName, p, c.Runner, where)
		}
	}
	return nil
}
