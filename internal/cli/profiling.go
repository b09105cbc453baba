// This file starts the diagnostics that the environment asks a
// command for: a CPU profile, a heap profile and an execution trace. Both
// pipelines (index and extract) call StartProfiling first thing in main and the
// returned stop function at the end of a successful run.
//
//	RECRAWL_CPUPROFILE=FILE   a CPU profile of the whole process (go tool pprof)
//	RECRAWL_MEMPROFILE=FILE   a heap profile at the end (go tool pprof)
//	RECRAWL_TRACE=FILE        an execution trace (go tool trace): which stage runs when, on how many cores
//
// With prism in process the profiles cover the runner, the SDK harness and
// the DoFns as well as the driver. A profile that cannot be started is a
// warning, never a failed run.

package cli

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/pprof"
	"runtime/trace"
)

// StartProfiling starts what the environment asks for and returns the function that
// stops it and writes the files.
func StartProfiling() (stop func()) {
	var stops []func()
	startFile := func(env string, start func(io.Writer) error, end func()) {
		path := os.Getenv(env)
		if path == "" {
			return
		}
		f, err := os.Create(path)
		if err == nil {
			err = start(f)
		}
		if err != nil {
			slog.Warn("profiling", "env", env, "err", err)
			if f != nil {
				f.Close()
			}
			return
		}
		stops = append(stops, func() { end(); f.Close() })
	}
	startFile("RECRAWL_CPUPROFILE", pprof.StartCPUProfile, pprof.StopCPUProfile)
	startFile("RECRAWL_TRACE", trace.Start, trace.Stop)
	if path := os.Getenv("RECRAWL_MEMPROFILE"); path != "" {
		stops = append(stops, func() {
			if err := writeHeapProfile(path); err != nil {
				slog.Warn("profiling", "env", "RECRAWL_MEMPROFILE", "err", err)
			}
		})
	}
	return func() {
		for _, s := range stops {
			s()
		}
	}
}

func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		f.Close()
		return fmt.Errorf("heap profile %s: %w", path, err)
	}
	return f.Close()
}
