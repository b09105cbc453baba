package main

import (
	"log/slog"
	"os"
	"runtime/pprof"
	"runtime/trace"
)

// startProfiles starts the diagnostics the environment asks for and returns
// the function that stops them (written at the end of a successful run):
//
//	RECRAWL_CPUPROFILE=FILE   a CPU profile of the whole process (go tool pprof)
//	RECRAWL_MEMPROFILE=FILE   a heap profile at the end (go tool pprof)
//	RECRAWL_TRACE=FILE        an execution trace (go tool trace): which stage runs when, on how many cores
//
// With prism in process the profiles cover the runner, the SDK harness and
// the DoFns as well as the driver.
func startProfiles() func() {
	var stops []func()
	if p := os.Getenv("RECRAWL_CPUPROFILE"); p != "" {
		if f, err := os.Create(p); err != nil {
			slog.Warn("cpu profile", "err", err)
		} else if err := pprof.StartCPUProfile(f); err != nil {
			slog.Warn("cpu profile", "err", err)
		} else {
			stops = append(stops, func() { pprof.StopCPUProfile(); f.Close() })
		}
	}
	if p := os.Getenv("RECRAWL_TRACE"); p != "" {
		if f, err := os.Create(p); err != nil {
			slog.Warn("trace", "err", err)
		} else if err := trace.Start(f); err != nil {
			slog.Warn("trace", "err", err)
		} else {
			stops = append(stops, func() { trace.Stop(); f.Close() })
		}
	}
	if p := os.Getenv("RECRAWL_MEMPROFILE"); p != "" {
		stops = append(stops, func() {
			f, err := os.Create(p)
			if err != nil {
				slog.Warn("heap profile", "err", err)
				return
			}
			defer f.Close()
			if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
				slog.Warn("heap profile", "err", err)
			}
		})
	}
	return func() {
		for _, stop := range stops {
			stop()
		}
	}
}
