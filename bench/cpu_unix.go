//go:build unix

package bench

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user + system, every thread, GC included) the
// process has used. Contenders run one after another, so the difference
// around one is its CPU cost: a figure the machine's other load does not
// inflate, unlike wall time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
