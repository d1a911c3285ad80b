package main

import (
	"strings"
	"testing"

	"github.com/magmalake/magmalake/internal/cli"
)

func TestParseMemoryLimit(t *testing.T) {
	const machine = 8 << 30
	known := func() (int64, bool) { return machine, true }
	unknown := func() (int64, bool) { return 0, false }
	for _, tc := range []struct {
		in   string
		want int64
		err  string
	}{
		{in: "4GB", want: 4 << 30},
		{in: "512MB", want: 512 << 20},
		{in: "1.5gb", want: 3 << 29},
		{in: "2048kB", want: 2 << 20},
		{in: "50%", want: machine / 2},
		{in: "12.5%", want: machine / 8},
		{in: "100%", want: machine},
		{in: "0", want: 0},
		{in: "4", err: "want a unit"},
		{in: "lots", err: "want a size"},
		{in: "512kB", err: "at least 1MB"},
		{in: "150%", err: "between 0 and 100%"},
		{in: "0%", err: "between 0 and 100%"},
	} {
		got, err := parseMemoryLimit(tc.in, known)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: %d, %v; want an error saying %q", tc.in, got, err, tc.err)
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("%q: %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	if _, err := parseMemoryLimit("50%", unknown); err == nil {
		t.Error("a share of unknown memory was accepted")
	}
	if got, err := parseMemoryLimit("2GB", unknown); err != nil || got != 2<<30 {
		t.Errorf("a size without knowing the machine's memory: %d, %v", got, err)
	}
}

// TestMemoryLimitFlags: serve and the embedded shell take --memory-limit
// (by default half the process's memory) and give the collector a soft
// limit half as much again unless GOMEMLIMIT sets one; a shell connected
// to a server refuses it.
func TestMemoryLimitFlags(t *testing.T) {
	s, _, err := parseServe([]string{"--memory-limit", "2GB"}, envMap(nil))
	if err != nil || s.MemoryLimit != 2<<30 || s.RuntimeLimit != 3<<30 {
		t.Fatalf("serve --memory-limit 2GB: %+v, %v", s.memoryConfig, err)
	}
	s, _, err = parseServe([]string{"--memory-limit", "64MB"}, envMap(map[string]string{"GOMEMLIMIT": "1GiB"}))
	if err != nil || s.MemoryLimit != 64<<20 || s.RuntimeLimit != 0 {
		t.Fatalf("serve --memory-limit 64MB under GOMEMLIMIT: %+v, %v", s.memoryConfig, err)
	}
	if s, _, err = parseServe([]string{"--memory-limit", "0"}, envMap(nil)); err != nil || s.MemoryLimit != 0 || s.RuntimeLimit != 0 {
		t.Fatalf("serve --memory-limit 0: %+v, %v", s.memoryConfig, err)
	}
	_, _, err = parseServe([]string{"--memory-limit", "4"}, envMap(nil))
	wantUsageError(t, err, `--memory-limit "4": want a unit: a size such as 4GB or 512MB`)
	if total, ok := cli.ProcessMemory(); ok {
		s, _, err = parseServe(nil, envMap(nil))
		if err != nil || s.MemoryLimit != total/2 || s.RuntimeLimit != total/2+max(total/4, 256<<20) {
			t.Fatalf("serve's default memory limit: %+v, %v (the process may use %d)", s.memoryConfig, err, total)
		}
		r, _, err := parseRepl(nil, envMap(nil))
		if err != nil || r.MemoryLimit != total/2 {
			t.Fatalf("the shell's default memory limit: %+v, %v", r.memoryConfig, err)
		}
	}
	r, _, err := parseRepl([]string{"--memory-limit", "1GB"}, envMap(nil))
	if err != nil || r.MemoryLimit != 1<<30 {
		t.Fatalf("repl --memory-limit 1GB: %+v, %v", r.memoryConfig, err)
	}
	_, _, err = parseRepl([]string{"--memory-limit", "1GB", "-h", "localhost"}, envMap(nil))
	wantUsageError(t, err, "--memory-limit is for the embedded engine; it cannot be combined with -h")
}
