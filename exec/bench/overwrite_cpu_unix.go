//go:build unix

package bench

import (
	"syscall"
	"time"
)

// owCPU is the process's CPU time so far (user + system, all threads, GC
// included). Statements run one at a time, so the difference around one is
// its CPU cost, which the machine's other load does not inflate as it does
// wall time.
func owCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
