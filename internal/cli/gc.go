package cli

import (
	"bufio"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// defaultGCPercent is the collector's GOGC unless the environment sets
// one. A query streams Arrow batches through a small live heap, so at Go's
// 100 the collector runs every few tens of megabytes decoded, and the
// goroutines that allocate assist it: bench select at 10M rows spent a
// third less CPU at 400 (join 2090 -> 1273 ms, top-N 2583 -> 1580 ms) for
// a peak heap of 248-362 MiB (98-128 MiB at 100).
const defaultGCPercent = 400

// memoryLimitShare of the memory the process may use (the cgroup's limit,
// else the machine's) is the collector's soft limit unless GOMEMLIMIT sets
// one, or the command bounds its statements' memory (RuntimeMemoryLimit):
// near it the collector runs as often as it must, whatever GOGC says, so
// a large live heap (hash tables up to work_mem) cannot grow the garbage
// beside it into an out-of-memory kill.
const memoryLimitShare = 0.75

// ApplyGCPolicy sets the collector's policy for a magmalake process.
func ApplyGCPolicy(env Getenv) {
	if env("GOGC") == "" {
		debug.SetGCPercent(defaultGCPercent)
	}
	if env("GOMEMLIMIT") == "" {
		if total, ok := ProcessMemory(); ok {
			debug.SetMemoryLimit(int64(float64(total) * memoryLimitShare))
		}
	}
}

// minHeadroom is the least memory RuntimeMemoryLimit allows beyond what
// the statements' operators account for.
const minHeadroom = 256 << 20

// RuntimeMemoryLimit is the collector's soft limit for a process whose
// statements' operators hold at most serverMemory bytes together (the
// --memory-limit), 0 when GOMEMLIMIT sets it or serverMemory is unbounded
// (ApplyGCPolicy's then stands). Beyond the operators' memory it leaves
// half as much again, at least 256MB, for what they do not account for:
// the batches streaming between operators and out of scans (a scan
// decodes several row groups at once), the manifest and data file caches,
// connections' buffers, goroutine stacks, and the garbage the collector
// has not reached yet. At the default --memory-limit (half of the
// process's memory) that is ApplyGCPolicy's three quarters.
func RuntimeMemoryLimit(env Getenv, serverMemory int64) int64 {
	if env("GOMEMLIMIT") != "" || serverMemory <= 0 {
		return 0
	}
	return serverMemory + max(serverMemory/2, minHeadroom)
}

// ProcessMemory is the memory the process may use: its cgroup's limit
// (v2, else v1) when there is one below the machine's total, else the
// machine's total.
func ProcessMemory() (int64, bool) {
	total, ok := machineMemory()
	for _, f := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// cgroup v1 spells "no limit" as a huge number.
		if n, limited := cgroupLimit(string(b)); limited && (!ok || n < total) {
			return n, true
		}
	}
	return total, ok
}

// machineMemory is MemTotal from /proc/meminfo.
func machineMemory() (int64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	return memTotal(f)
}

// cgroupLimit reads a cgroup v2 memory.max: a byte count, or "max" (none).
func cgroupLimit(s string) (int64, bool) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	return n, err == nil && n > 0
}

// memTotal reads MemTotal (in kB) from /proc/meminfo's text.
func memTotal(r io.Reader) (int64, bool) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			return kb * 1024, err == nil && kb > 0
		}
	}
	return 0, false
}
