package main

import (
	"flag"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/magmalake/magmalake/internal/cli"
	"github.com/magmalake/magmalake/maintenance"
	"github.com/magmalake/magmalake/session"
)

// defaultMemoryShare is --memory-limit's default: half of the memory the
// process may use (its cgroup's limit, else the machine's). The other
// half is for what operators do not account for (cli.RuntimeMemoryLimit
// gives the collector a quarter more) and for the rest of the machine.
const defaultMemoryShare = "50%"

// minMemoryLimit is the least --memory-limit: one operator's grant from
// the pool is a megabyte.
const minMemoryLimit = 1 << 20

// memoryConfig is the memory serve and the embedded shell's statements
// may hold together.
type memoryConfig struct {
	// MemoryLimit bounds what all statements' operators hold together,
	// in bytes (0: unbounded).
	MemoryLimit int64
	// RuntimeLimit is the collector's soft limit that goes with it (0:
	// GOMEMLIMIT's or the default policy's).
	RuntimeLimit int64
}

type memoryFlags struct{ limit string }

func (m *memoryFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&m.limit, "memory-limit", defaultMemoryShare,
		"memory all statements' operators may hold together (sorts, hash tables, groups): a size such as 4GB, a share of the machine's (or cgroup's) memory such as 50%, or 0 for no limit; past it statements spill or wait")
}

func (m *memoryFlags) finish(env cli.Getenv) (memoryConfig, error) {
	n, err := parseMemoryLimit(m.limit, cli.ProcessMemory)
	if err != nil {
		return memoryConfig{}, cli.Usagef("--memory-limit %q: %v", m.limit, err)
	}
	return memoryConfig{MemoryLimit: n, RuntimeLimit: cli.RuntimeMemoryLimit(env, n)}, nil
}

// parseMemoryLimit reads --memory-limit: a size with a unit (B, kB, MB,
// GB, TB as PostgreSQL spells them, any case), a percentage of what total
// says the process may use, or 0 for none.
func parseMemoryLimit(v string, total func() (int64, bool)) (int64, error) {
	s := strings.TrimSpace(v)
	if s == "0" {
		return 0, nil
	}
	if pct, ok := strings.CutSuffix(s, "%"); ok {
		p, err := strconv.ParseFloat(strings.TrimSpace(pct), 64)
		if err != nil || p <= 0 || p > 100 {
			return 0, fmt.Errorf("want a share between 0 and 100%%")
		}
		t, ok := total()
		if !ok {
			return 0, fmt.Errorf("the machine's memory is unknown: give a size such as 4GB")
		}
		return max(int64(float64(t)*p/100), minMemoryLimit), nil
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return 0, fmt.Errorf("want a unit: a size such as 4GB or 512MB")
	}
	n, err := maintenance.ParseByteSize(s)
	if err != nil || n < minMemoryLimit {
		return 0, fmt.Errorf("want a size of at least 1MB such as 4GB or 512MB, a share such as 50%%, or 0")
	}
	return n, nil
}

// engineOptions are the memory options of the command's engine: the pool,
// and the return of memory to the system after large statements.
func (m memoryConfig) engineOptions(opts session.EngineOptions) session.EngineOptions {
	opts.MemoryLimit = m.MemoryLimit
	opts.ReturnMemory = debug.FreeOSMemory
	return opts
}

// applyRuntimeLimit sets the collector's soft limit from the pool's
// (cli.RuntimeMemoryLimit), unless GOMEMLIMIT or no pool leaves the
// default policy's.
func (m memoryConfig) applyRuntimeLimit() {
	if m.RuntimeLimit > 0 {
		debug.SetMemoryLimit(m.RuntimeLimit)
	}
}
