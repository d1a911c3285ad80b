package cli

import (
	"math"
	"runtime/debug"
	"strings"
	"testing"
)

func TestMemoryLimitSources(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"max\n", 0, false},
		{"4294967296\n", 4294967296, true},
		{"0\n", 0, false},
		{"", 0, false},
	} {
		if got, ok := cgroupLimit(tc.in); got != tc.want || ok != tc.ok {
			t.Errorf("cgroupLimit(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	meminfo := "MemFree:        1000 kB\nMemTotal:       24576000 kB\nBuffers: 3 kB\n"
	if got, ok := memTotal(strings.NewReader(meminfo)); !ok || got != 24576000*1024 {
		t.Errorf("memTotal = %d, %v; want %d", got, ok, 24576000*1024)
	}
	if _, ok := memTotal(strings.NewReader("MemFree: 1 kB\n")); ok {
		t.Error("memTotal found a total in text without one")
	}
}

// TestGCPolicyLeavesEnvironmentAlone: the defaults apply only where the
// environment sets neither GOGC nor GOMEMLIMIT.
func TestGCPolicyLeavesEnvironmentAlone(t *testing.T) {
	prevPct := debug.SetGCPercent(100)
	prevLimit := debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() {
		debug.SetGCPercent(prevPct)
		debug.SetMemoryLimit(prevLimit)
	})
	set := func(k, v string) Getenv {
		return func(name string) string {
			if name == k {
				return v
			}
			return ""
		}
	}
	ApplyGCPolicy(set("GOGC", "50"))
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("with GOGC set, GOGC became %d", got)
	}
	if _, ok := ProcessMemory(); ok && debug.SetMemoryLimit(-1) == math.MaxInt64 {
		t.Error("without GOMEMLIMIT no limit was set")
	}
	debug.SetMemoryLimit(math.MaxInt64)
	ApplyGCPolicy(set("GOMEMLIMIT", "1GiB"))
	if got := debug.SetGCPercent(100); got != defaultGCPercent {
		t.Errorf("without GOGC, GOGC became %d, want %d", got, defaultGCPercent)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("with GOMEMLIMIT set, the limit became %d", got)
	}
}

// TestRuntimeMemoryLimit: the collector's limit is the statements' memory
// and half as much again (at least 256MB), unless GOMEMLIMIT sets it or
// the statements' memory is unbounded.
func TestRuntimeMemoryLimit(t *testing.T) {
	none := func(string) string { return "" }
	for _, tc := range []struct {
		env         Getenv
		pool, limit int64
	}{
		{none, 4 << 30, 6 << 30},
		{none, 64 << 20, 320 << 20},
		{none, 0, 0},
		{func(k string) string { return map[string]string{"GOMEMLIMIT": "1GiB"}[k] }, 4 << 30, 0},
	} {
		if got := RuntimeMemoryLimit(tc.env, tc.pool); got != tc.limit {
			t.Errorf("RuntimeMemoryLimit(%d) = %d, want %d", tc.pool, got, tc.limit)
		}
	}
}
