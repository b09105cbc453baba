package hostile

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
)

// PeakRSS is the peak resident set size of a finished command in bytes
// (getrusage's ru_maxrss, which Linux gives in KiB).
//
// It over-reports when the parent is large: os/exec starts a child that
// shares the parent's memory until it execs (CLONE_VM), and Linux carries
// that memory's high-water mark over the exec into the child's ru_maxrss.
// MeterRSS measures the child's own memory only.
func PeakRSS(cmd *exec.Cmd) int64 {
	if cmd.ProcessState == nil {
		return 0
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	return ru.Maxrss << 10
}

// RSSMeter samples the peak resident set of a running process (VmHWM in
// /proc/PID/status: the high-water mark of its own memory since its exec)
// every 10 ms.
type RSSMeter struct {
	stop chan struct{}
	done chan int64
}

// MeterRSS starts sampling process pid (a command just started).
func MeterRSS(pid int) *RSSMeter {
	m := &RSSMeter{stop: make(chan struct{}), done: make(chan int64, 1)}
	go func() {
		var peak int64
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			if v, err := vmHWM(pid); err == nil && v > peak {
				peak = v
			}
			select {
			case <-m.stop:
				m.done <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return m
}

// Stop ends the sampling, once the process has ended, and returns the peak
// in bytes: the last sample, taken at most 10 ms before the process ended
// (the mark only grows).
func (m *RSSMeter) Stop() int64 {
	close(m.stop)
	return <-m.done
}

func vmHWM(pid int) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if rest, ok := bytes.CutPrefix(sc.Bytes(), []byte("VmHWM:")); ok {
			kb, err := strconv.ParseInt(string(bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(rest), []byte("kB")))), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("/proc/%d/status: no VmHWM", pid)
}
