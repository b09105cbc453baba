package runners

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
)

// Run runs the pipeline on the configured runner and waits for it, like
// beamx.RunWithMetrics but with the runner and options of c. It validates c,
// builds a worker binary once if the runner needs one and none was given
// (see EnsureWorkerBinary), writes c into Beam's flag variables and calls
// beam.Run. Call it once per round of a multi-round job; jobs in LOOPBACK mode
// leave no files behind in the temporary directory.
//
// The result is nil when the runner produces none: Dataflow with --dry_run,
// and vet.
func (c *Config) Run(ctx context.Context, p *beam.Pipeline) (beam.PipelineResult, error) {
	if !beam.Initialized() {
		return nil, errors.New("runners: beam.Init() has not been called (call it in main, after flag.Parse)")
	}
	if err := c.normalize(); err != nil {
		return nil, err
	}
	if err := c.Validate(nil); err != nil {
		return nil, err
	}
	if err := c.EnsureWorkerBinary(ctx, ""); err != nil {
		return nil, err
	}
	if err := c.apply(); err != nil {
		return nil, err
	}
	if c.Environment() == Loopback {
		leave, err := enterLoopbackTemp()
		if err != nil {
			return nil, err
		}
		defer leave()
	}
	start := time.Now()
	var res beam.PipelineResult
	var err error
	switch c.Runner {
	case Universal, Flink, Spark:
		res, err = c.executePortable(ctx, p) // errors name the job server: no prefix
	default:
		if res, err = beam.Run(ctx, c.Runner, p); err != nil {
			err = fmt.Errorf("run on %s: %w", c.Runner, err)
		}
	}
	if err != nil {
		return res, err
	}
	slog.Debug("pipeline done", "runner", c.Runner, "environment", c.Environment(), "seconds", time.Since(start).Seconds())
	return res, nil
}

// apply writes c into Beam's flag variables, where the Beam runners read
// their options. Empty fields leave the flags alone: in particular prism,
// started in process on the first run, records its endpoint in --endpoint and
// later rounds reuse that server.
func (c Config) apply() error {
	set := func(name, value string) error {
		if value == "" {
			return nil
		}
		if err := flag.Set(name, value); err != nil {
			return fmt.Errorf("runners: set Beam flag --%s=%s: %w", name, value, err)
		}
		return nil
	}
	for _, kv := range [][2]string{
		{"runner", c.Runner},
		{"endpoint", c.Endpoint},
		{"environment_type", c.EnvironmentType},
		{"environment_config", c.EnvironmentConfig},
		{"worker_binary", c.WorkerBinary},
		{"project", c.Project},
		{"region", c.Region},
		{"staging_location", c.StagingLocation},
		{"temp_location", c.TempLocation},
	} {
		if err := set(kv[0], kv[1]); err != nil {
			return err
		}
	}
	return flag.Set("dry_run", strconv.FormatBool(c.DryRun))
}

// EnsureWorkerBinary makes sure c has a worker binary when its runner needs
// one: if none was given it builds this program for linux/amd64 into dir (a
// new temporary directory if dir is "") with BuildWorkerBinary and sets
// c.WorkerBinary and Beam's --worker_binary to it, so every later round
// submits the same file instead of compiling again. It does nothing for
// runners that need no binary or when one is set. Close removes what it
// built.
func (c *Config) EnsureWorkerBinary(ctx context.Context, dir string) error {
	if c.WorkerBinary != "" || !c.NeedsWorkerBinary() {
		return nil
	}
	own := dir == ""
	if own {
		d, err := os.MkdirTemp("", "recrawl-worker-")
		if err != nil {
			return fmt.Errorf("--worker_binary is not set and no directory to build one in: %w", err)
		}
		dir = d
	}
	path, err := BuildWorkerBinary(ctx, dir)
	if err != nil {
		if own {
			os.RemoveAll(dir)
		}
		return fmt.Errorf("--worker_binary is not set and --runner=%s needs one: %w", c.Runner, err)
	}
	if err := flag.Set("worker_binary", path); err != nil {
		return fmt.Errorf("runners: set Beam flag --worker_binary: %w", err)
	}
	c.WorkerBinary = path
	c.built = path
	if own {
		c.builtDir = dir
	}
	return nil
}

// Close removes the worker binary EnsureWorkerBinary built, if any, and
// clears --worker_binary. The Config stays usable: a later Run builds again.
func (c *Config) Close() error {
	if c.built == "" {
		return nil
	}
	var err error
	if c.builtDir != "" {
		err = os.RemoveAll(c.builtDir)
	} else if rerr := os.Remove(c.built); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
		err = rerr
	}
	if f := flag.Lookup("worker_binary"); f != nil && f.Value.String() == c.built {
		f.Value.Set("")
	}
	if c.WorkerBinary == c.built {
		c.WorkerBinary = ""
	}
	c.built, c.builtDir = "", ""
	if err != nil {
		return fmt.Errorf("remove worker binary: %w", err)
	}
	return nil
}

// loopbackTemp is the private temporary directory of the LOOPBACK jobs
// running in this process. Beam's portable runner creates an empty
// beamloopbackworker-* file in os.TempDir() per LOOPBACK job and never
// removes it; pointing TMPDIR at a directory of our own while jobs run makes
// those files ours to delete, without guessing which files in a shared /tmp
// belong to which process. Overlapping jobs share the directory; the last one
// to finish cleans up and restores TMPDIR.
var loopbackTemp struct {
	mu       sync.Mutex
	users    int
	dir      string
	saved    string
	hadSaved bool
}

// LoopbackFilePattern is the name pattern of the files Beam's portable runner
// leaves in the temporary directory after each LOOPBACK job.
const LoopbackFilePattern = "beamloopbackworker-*"

// loopbackTempPrefix starts the name of a private temporary directory,
// followed by the id of the process that owns it: recrawl-beam-PID-RANDOM.
const loopbackTempPrefix = "recrawl-beam-"

// removeStaleLoopbackTemps removes the private temporary directories in
// dir whose process is gone (a driver killed with SIGKILL cannot remove
// its own): Beam's loopback files in them and then the directory if it is
// empty. Directories of running processes, and files a job created, stay.
func removeStaleLoopbackTemps(dir string) {
	dirs, _ := filepath.Glob(filepath.Join(dir, loopbackTempPrefix+"*"))
	for _, d := range dirs {
		pidText, _, ok := strings.Cut(strings.TrimPrefix(filepath.Base(d), loopbackTempPrefix), "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || processAlive(pid) {
			continue
		}
		left, _ := filepath.Glob(filepath.Join(d, LoopbackFilePattern))
		for _, f := range left {
			os.Remove(f)
		}
		if err := os.Remove(d); err == nil {
			slog.Debug("removed the temporary directory of a process that is gone", "dir", d)
		}
	}
}

// processAlive reports whether a process with this id exists.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

func enterLoopbackTemp() (leave func(), err error) {
	lt := &loopbackTemp
	lt.mu.Lock()
	defer lt.mu.Unlock()
	if lt.users == 0 {
		removeStaleLoopbackTemps(os.TempDir())
		dir, err := os.MkdirTemp("", fmt.Sprintf("%s%d-", loopbackTempPrefix, os.Getpid()))
		if err != nil {
			return nil, fmt.Errorf("runners: temporary directory for the job: %w", err)
		}
		lt.dir = dir
		lt.saved, lt.hadSaved = os.LookupEnv("TMPDIR")
		os.Setenv("TMPDIR", dir)
	}
	lt.users++
	return leaveLoopbackTemp, nil
}

func leaveLoopbackTemp() {
	lt := &loopbackTemp
	lt.mu.Lock()
	defer lt.mu.Unlock()
	lt.users--
	if lt.users > 0 {
		return
	}
	if lt.hadSaved {
		os.Setenv("TMPDIR", lt.saved)
	} else {
		os.Unsetenv("TMPDIR")
	}
	left, _ := filepath.Glob(filepath.Join(lt.dir, LoopbackFilePattern))
	for _, f := range left {
		if err := os.Remove(f); err != nil {
			slog.Warn("cannot remove Beam's loopback file", "file", f, "err", err)
		}
	}
	// Anything else in there was created by the job's own code: keep it.
	if err := os.Remove(lt.dir); err != nil {
		slog.Debug("job left files in its temporary directory", "dir", lt.dir, "err", err)
	}
	lt.dir = ""
}
