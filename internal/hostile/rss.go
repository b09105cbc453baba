package hostile

import (
	"os/exec"
	"syscall"
)

// PeakRSS is the peak resident set size of a finished command in bytes
// (getrusage's ru_maxrss, which Linux gives in KiB).
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
