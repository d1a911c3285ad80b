// Package testenv is the test support every package's tests share; it
// imports no magmalake package, so tests inside any package can use it.
// It finds the programs tests drive (psql, pgjdbc, Python drivers,
// node-postgres, pgbench) through the variables README names, decides what
// a test does when one is missing, and waits on conditions.
//
// A missing program skips the test on a developer's machine with a
// message saying what to install; in CI (.ci/run sets
// MAGMALAKE_REQUIRE_TOOLS=1) it fails, so a broken install cannot turn the
// end-to-end tests into silent passes.
//
// Tests above session and wire start servers with internal/testserver, and
// PostgreSQL with internal/pgtest.
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
