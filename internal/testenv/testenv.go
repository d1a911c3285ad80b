// Package testenv decides what a test does when a program it drives (psql,
// PostgreSQL, pgjdbc, Python drivers, node-postgres, pgbench) is missing:
// on a developer's machine it skips with a message saying what to install;
// in CI (.ci/run sets MAGMALAKE_REQUIRE_TOOLS=1) it fails, so a broken
// install cannot turn the end-to-end tests into silent passes.
package testenv

import (
	"os"
	"testing"
)

// RequireTools reports whether missing tools fail tests.
func RequireTools() bool { return os.Getenv("MAGMALAKE_REQUIRE_TOOLS") == "1" }

// Missing skips t, or fails it when tools are required.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if RequireTools() {
		t.Fatalf("MAGMALAKE_REQUIRE_TOOLS=1 but a required tool is missing: "+format, args...)
	}
	t.Skipf(format, args...)
}
