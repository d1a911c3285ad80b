package pgtest

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/magmalake/magmalake/internal/testenv"
)

// PsqlPath is the psql 15 beside the server binaries (MAGMALAKE_PG_BIN):
// the client whose output tests compare the shell's with.
func PsqlPath() string { return filepath.Join(BinDir(), "psql") }

// Psql returns PsqlPath, skipping the test (failing it when tools are
// required) when it is not installed.
func Psql(t testing.TB) string {
	t.Helper()
	p := PsqlPath()
	if _, err := os.Stat(p); err != nil {
		testenv.Missing(t, "psql: %v (apt-get install postgresql-client-15, or set MAGMALAKE_PG_BIN)", err)
	}
	return p
}

// Shared is one cluster for all of a package's tests, which need psql
// beside it: started by the first Get, stopped by Stop from the package's
// TestMain.
type Shared struct {
	Options Options
	once    sync.Once
	c       *Cluster
	err     error
}

// Get returns the running cluster, starting it on first use; it skips the
// test (fails it when tools are required) when PostgreSQL 15 or its psql
// is not installed.
func (s *Shared) Get(t testing.TB) *Cluster {
	t.Helper()
	s.once.Do(func() {
		if _, err := os.Stat(PsqlPath()); err != nil {
			s.err = errors.Join(ErrNotInstalled, err)
			return
		}
		s.c, s.err = Launch(s.Options)
	})
	if errors.Is(s.err, ErrNotInstalled) {
		testenv.Missing(t, "%v (set MAGMALAKE_PG_BIN)", s.err)
	}
	if s.err != nil {
		t.Fatalf("start PostgreSQL: %v", s.err)
	}
	return s.c
}

// Stop stops the cluster if Get started it.
func (s *Shared) Stop() {
	if s.c != nil {
		s.c.Stop()
	}
}
