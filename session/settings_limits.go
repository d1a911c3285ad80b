package session

import (
	"strconv"
	"strings"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// checkStackDepth reads max_stack_depth as PostgreSQL spells it (an integer
// of kB, or with a kB/MB unit) and keeps it within what one statement may
// use: the goroutine stack grows on demand, so this is a memory bound.
func checkStackDepth(v string) (string, error) {
	kb, ok := parseKB(v)
	if !ok {
		return "", pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for parameter \"max_stack_depth\": \"%s\"", v)
	}
	if kb < 100 || kb > sql.MaxStackDepthKBLimit {
		return "", pgerr.Errorf(pgerr.InvalidParameterValue,
			"%d kB is outside the valid range for parameter \"max_stack_depth\" (100 .. %d)", kb, sql.MaxStackDepthKBLimit)
	}
	return sql.FormatKB(int64(kb)), nil
}

// checkWorkMem reads work_mem: at least 64kB (PostgreSQL's minimum).
func checkWorkMem(v string) (string, error) {
	kb, ok := parseKB(v)
	if !ok {
		return "", pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for parameter \"work_mem\": \"%s\"", v)
	}
	if kb < 64 {
		return "", pgerr.Errorf(pgerr.InvalidParameterValue,
			"%d kB is outside the valid range for parameter \"work_mem\" (64 .. 2147483647)", kb)
	}
	return sql.FormatKB(int64(kb)), nil
}

// parseKB reads "2048", "2048kB", "2MB" or "1GB" as kilobytes.
func parseKB(v string) (int, bool) {
	s := strings.TrimSpace(v)
	mult := 1
	for _, u := range []struct {
		suffix string
		mult   int
	}{{"kB", 1}, {"MB", 1024}, {"GB", 1024 * 1024}} {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 1<<30/mult {
		return 0, false
	}
	return n * mult, true
}

// maxDepth is the expression nesting the session's max_stack_depth allows.
func (s *Settings) maxDepth() int {
	v, _ := s.Get("max_stack_depth")
	kb, ok := parseKB(v)
	if !ok {
		kb = sql.DefaultMaxStackDepthKB
	}
	return sql.DepthForStackKB(kb)
}

// workMem is the session's work_mem in bytes (0: unbounded).
func (s *Settings) workMem() int64 {
	v, _ := s.Get("work_mem")
	kb, ok := parseKB(v)
	if !ok {
		return 0
	}
	return int64(kb) * 1024
}
