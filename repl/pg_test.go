package repl

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/magmalake/magmalake/internal/pgtest"
)

// testPG is a throwaway PostgreSQL 15 cluster (C.UTF-8, as psql users see
// it) shared by the package's tests: started on first use and stopped by
// TestMain. psql's output against it is the reference the formatter is
// checked against.
var testPG = pgtest.Shared{Options: pgtest.Options{Locale: "C.UTF-8"}}

// pgHarness is the running cluster, with psql beside it.
type pgHarness struct {
	c *pgtest.Cluster
}

func TestMain(m *testing.M) {
	switch os.Getenv(ptyChildEnv) {
	case "1":
		os.Exit(runPtyChild())
	case "progress":
		os.Exit(runProgressPtyChild())
	case "tools":
		os.Exit(runToolsPtyChild())
	}
	code := m.Run()
	testPG.Stop()
	os.Exit(code)
}

// requirePG returns the running cluster, skipping the test when the
// PostgreSQL 15 binaries or psql are not installed.
func requirePG(t *testing.T) *pgHarness {
	t.Helper()
	return &pgHarness{c: testPG.Get(t)}
}

// psql runs psql -X with extra arguments and returns stdout and stderr.
func (h *pgHarness) psql(t *testing.T, stdin string, args ...string) (string, string) {
	t.Helper()
	base := []string{"-X", "-h", h.c.Dir, "-p", strconv.Itoa(h.c.Port), "-U", "postgres", "-d", "postgres", "-P", "pager=off"}
	cmd := exec.Command(pgtest.PsqlPath(), append(base, args...)...)
	cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8", "PGCLIENTENCODING=UTF8", "PGTZ=UTC", "COLUMNS=", "PSQLRC=/dev/null")
	cmd.Stdin = bytes.NewBufferString(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.Run() // a failing statement is part of what we compare
	return out.String(), errOut.String()
}

func (h *pgHarness) connect(t *testing.T) *pgx.Conn {
	t.Helper()
	return h.c.Connect(t, "postgres")
}
