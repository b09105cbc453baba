//go:build unix

package scoring_test

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process has used (user + system, all
// threads). On a machine shared with other jobs, wall time also counts the
// time the benchmark waited for a core; CPU time counts only its work.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
