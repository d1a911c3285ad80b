package repl

import (
	"bytes"
	"errors"
	"github.com/magmalake/magmalake/internal/testenv"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/magmalake/magmalake/internal/pgtest"
)

// pgHarness is a throwaway PostgreSQL 15 cluster (C.UTF-8, as psql users
// see it) shared by the package's tests: started on first use and stopped by
// TestMain. psql's output against it is the reference the formatter is
// checked against.
type pgHarness struct {
	once sync.Once
	c    *pgtest.Cluster
	err  error
}

var testPG pgHarness

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
	if testPG.c != nil {
		testPG.c.Stop()
	}
	os.Exit(code)
}

// requirePG returns the running cluster, skipping the test when the
// PostgreSQL 15 binaries or psql are not installed.
func requirePG(t *testing.T) *pgHarness {
	t.Helper()
	testPG.once.Do(func() {
		if _, err := os.Stat(psqlPath()); err != nil {
			testPG.err = errors.Join(pgtest.ErrNotInstalled, err)
			return
		}
		testPG.c, testPG.err = pgtest.Launch(pgtest.Options{Locale: "C.UTF-8"})
	})
	if errors.Is(testPG.err, pgtest.ErrNotInstalled) {
		testenv.Missing(t, "%v (set MAGMALAKE_PG_BIN)", testPG.err)
	}
	if testPG.err != nil {
		t.Fatalf("start PostgreSQL: %v", testPG.err)
	}
	return &testPG
}

func psqlPath() string { return filepath.Join(pgtest.BinDir(), "psql") }

// psql runs psql -X with extra arguments and returns stdout and stderr.
func (h *pgHarness) psql(t *testing.T, stdin string, args ...string) (string, string) {
	t.Helper()
	base := []string{"-X", "-h", h.c.Dir, "-p", strconv.Itoa(h.c.Port), "-U", "postgres", "-d", "postgres", "-P", "pager=off"}
	cmd := exec.Command(psqlPath(), append(base, args...)...)
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
