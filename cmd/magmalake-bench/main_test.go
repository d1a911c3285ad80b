package main

import (
	"strings"
	"testing"

	"github.com/magmalake/magmalake/internal/cli"
)

// run names the benchmarks, lists one's flags on -h, and reports a bad
// command line in one line with exit status 2, before any benchmark runs.
func TestRunExitStatus(t *testing.T) {
	env := func(string) string { return "" }
	tests := []struct {
		args   []string
		status int
		stderr string
		stdout string // a prefix
	}{
		{args: nil, status: 2, stderr: usage},
		{args: []string{"help"}, status: 0, stdout: usage},
		{args: []string{"frobnicate"}, status: 2, stderr: "magmalake-bench: unknown benchmark \"frobnicate\"\n" + usage},
		{args: []string{"delete", "--rows", "0"}, status: 2, stderr: "magmalake-bench: --rows and --files must be positive, with at least one row per file\n"},
		{args: []string{"select", "extra"}, status: 2, stderr: "magmalake-bench: unexpected argument \"extra\"\n"},
		{args: []string{"merge", "--no-such-flag"}, status: 2, stderr: "magmalake-bench: flag provided but not defined: -no-such-flag\n"},
		{args: []string{"contention", "-h"}, status: 0, stdout: "usage of magmalake-bench contention:\n"},
	}
	for _, tt := range tests {
		var out, errOut strings.Builder
		got := run(t.Context(), tt.args, env, cli.Stdio{Out: &out, Err: &errOut})
		if got != tt.status || errOut.String() != tt.stderr || !strings.HasPrefix(out.String(), tt.stdout) || (tt.stdout == "") != (out.Len() == 0) {
			t.Errorf("run(%q) = %d, stdout %q, stderr %q; want %d, %q..., %q", tt.args, got, out.String(), errOut.String(), tt.status, tt.stdout, tt.stderr)
		}
	}
	for _, name := range []string{"delete", "overwrite", "select", "merge", "maintenance", "contention"} {
		var out strings.Builder
		if got := run(t.Context(), []string{name, "-h"}, env, cli.Stdio{Out: &out, Err: &out}); got != 0 || !strings.Contains(out.String(), "-json") {
			t.Errorf("%s -h = %d, %q", name, got, out.String())
		}
	}
}
