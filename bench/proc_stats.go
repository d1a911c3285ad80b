package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Other processes' CPU and memory, from Linux's /proc: the server's CPU
// around a query is the figure `bench tpch` compares, since the client's
// work (reading and comparing rows) is not the engine's. Where there is no
// /proc the readers return zero and the report shows no CPU.

// clockTick is USER_HZ, the unit of /proc/PID/stat's times: 100 on every
// Linux architecture Go runs on.
const clockTick = 10 * time.Millisecond

// procStat is what /proc/PID/stat says of a process's CPU: its own and
// that of the children it has waited for.
type procStat struct {
	ppid     int
	own      time.Duration // utime + stime
	children time.Duration // cutime + cstime
}

func readProcStat(pid int) (procStat, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, err
	}
	// The command name (field 2) may hold spaces and parentheses: the
	// fields proper start after its last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 15 {
		return procStat{}, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	n := func(k int) int64 { v, _ := strconv.ParseInt(f[k], 10, 64); return v }
	// f[0] is field 3 (state): ppid is field 4, utime..cstime fields 14-17.
	return procStat{
		ppid:     int(n(1)),
		own:      time.Duration(n(11)+n(12)) * clockTick,
		children: time.Duration(n(13)+n(14)) * clockTick,
	}, nil
}

// processCPUOf is a process's CPU time so far, every thread (0 when it
// cannot be read).
func processCPUOf(pid int) time.Duration {
	st, err := readProcStat(pid)
	if err != nil {
		return 0
	}
	return st.own
}

// treeCPU is the CPU time of a process, of its live children and of the
// children it has reaped: a PostgreSQL cluster's postmaster, its backends
// and the parallel workers that came and went.
func treeCPU(root int) time.Duration {
	st, err := readProcStat(root)
	if err != nil {
		return 0
	}
	total := st.own + st.children
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == root {
			continue
		}
		if c, err := readProcStat(pid); err == nil && c.ppid == root {
			total += c.own
		}
	}
	return total
}

// peakRSS is a process's resident set high-water mark (VmHWM), in bytes.
func peakRSS(pid int) uint64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// resetPeakRSS sets the high-water mark back to the current RSS (Linux
// 4.0 on), so the next peakRSS is one query's; false when it could not.
func resetPeakRSS(pid int) bool {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0) == nil
}

// postmasterPID is the first line of a cluster's postmaster.pid.
func postmasterPID(dataDir string) (int, error) {
	b, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		return 0, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return strconv.Atoi(strings.TrimSpace(line))
}
