package repl

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

// pgHarness is a throwaway PostgreSQL 15 cluster on a Unix socket, started
// on first use and stopped by TestMain. psql's output against it is the
// reference the formatter is checked against.
type pgHarness struct {
	once    sync.Once
	bin     string
	dir     string // socket directory and cluster parent
	port    int
	skipMsg string
	err     error
}

var testPG pgHarness

func TestMain(m *testing.M) {
	if os.Getenv(ptyChildEnv) == "1" {
		os.Exit(runPtyChild())
	}
	code := m.Run()
	testPG.stop()
	os.Exit(code)
}

// requirePG returns the running cluster, skipping the test when the
// PostgreSQL 15 binaries are not installed.
func requirePG(t *testing.T) *pgHarness {
	t.Helper()
	testPG.once.Do(testPG.start)
	if testPG.skipMsg != "" {
		t.Skip(testPG.skipMsg)
	}
	if testPG.err != nil {
		t.Fatalf("start PostgreSQL: %v", testPG.err)
	}
	return &testPG
}

func (h *pgHarness) start() {
	h.bin = os.Getenv("MAGMALAKE_PG_BIN")
	if h.bin == "" {
		h.bin = "/usr/lib/postgresql/15/bin"
	}
	for _, b := range []string{"initdb", "pg_ctl", "psql"} {
		if _, err := os.Stat(filepath.Join(h.bin, b)); err != nil {
			h.skipMsg = fmt.Sprintf("PostgreSQL 15 binaries not found in %s (set MAGMALAKE_PG_BIN): %v", h.bin, err)
			return
		}
	}
	dir, err := os.MkdirTemp("", "magmalake-repl-pg-")
	if err != nil {
		h.err = err
		return
	}
	h.dir, h.port = dir, 20000+os.Getpid()%20000
	if err := h.ownDir(); err != nil {
		h.err = err
		return
	}
	data := filepath.Join(dir, "data")
	if out, err := h.server("initdb", "-D", data, "-E", "UTF8", "--locale=C.UTF-8", "-A", "trust", "-U", "postgres").CombinedOutput(); err != nil {
		h.err = fmt.Errorf("initdb: %v\n%s", err, out)
		return
	}
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses='' -c fsync=off -c TimeZone=UTC", h.port, dir)
	if out, err := h.server("pg_ctl", "-D", data, "-l", filepath.Join(dir, "log"), "-w", "-o", opts, "start").CombinedOutput(); err != nil {
		h.err = fmt.Errorf("pg_ctl start: %v\n%s", err, out)
	}
}

// ownDir hands the cluster directory to the postgres user when running as
// root, because initdb refuses to run as root.
func (h *pgHarness) ownDir() error {
	if os.Geteuid() != 0 {
		return nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return fmt.Errorf("running as root needs a postgres user: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chmod(h.dir, 0o755); err != nil {
		return err
	}
	return os.Chown(h.dir, uid, gid)
}

// server runs a server binary, as postgres when we are root.
func (h *pgHarness) server(name string, args ...string) *exec.Cmd {
	path := filepath.Join(h.bin, name)
	if os.Geteuid() == 0 {
		return exec.Command("runuser", append([]string{"-u", "postgres", "--", path}, args...)...)
	}
	return exec.Command(path, args...)
}

func (h *pgHarness) stop() {
	if h.dir == "" {
		return
	}
	if h.err == nil && h.skipMsg == "" {
		h.server("pg_ctl", "-D", filepath.Join(h.dir, "data"), "-m", "immediate", "-w", "stop").Run()
	}
	os.RemoveAll(h.dir)
}

// psql runs psql -X with extra arguments and returns stdout and stderr.
func (h *pgHarness) psql(t *testing.T, stdin string, args ...string) (string, string) {
	t.Helper()
	base := []string{"-X", "-h", h.dir, "-p", strconv.Itoa(h.port), "-U", "postgres", "-d", "postgres", "-P", "pager=off"}
	cmd := exec.Command(filepath.Join(h.bin, "psql"), append(base, args...)...)
	cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8", "PGCLIENTENCODING=UTF8", "PGTZ=UTC", "COLUMNS=", "PSQLRC=/dev/null")
	cmd.Stdin = bytes.NewBufferString(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.Run() // a failing statement is part of what we compare
	return out.String(), errOut.String()
}

func (h *pgHarness) connect(t *testing.T) *pgClient {
	t.Helper()
	c, err := dialPG(filepath.Join(h.dir, fmt.Sprintf(".s.PGSQL.%d", h.port)))
	if err != nil {
		t.Fatalf("connect to test PostgreSQL: %v", err)
	}
	t.Cleanup(c.close)
	return c
}
