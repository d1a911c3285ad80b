// Package pgtest starts throwaway PostgreSQL 15 clusters for tests that
// compare magmalake with the real thing.
package pgtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"
)

// BinDir is where Debian installs the PostgreSQL 15 server binaries.
const BinDir = "/usr/lib/postgresql/15/bin"

// Cluster is a running throwaway server listening on a unix socket only.
type Cluster struct {
	Dir  string // holds the data directory, the socket and the log
	Port int
}

// Start initialises and starts a cluster (C locale, UTF8, UTC, trust auth,
// fsync off) that is stopped and removed when the test ends. It skips the
// test, saying why, when the binaries are missing or cannot run.
func Start(t testing.TB) *Cluster {
	t.Helper()
	if _, err := os.Stat(filepath.Join(BinDir, "initdb")); err != nil {
		t.Skipf("PostgreSQL 15 server binaries not found in %s (apt-get install postgresql-15); skipping comparison with PostgreSQL", BinDir)
	}
	dir, err := os.MkdirTemp("", "magmalake-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	// initdb refuses to run as root; the server user must own the directory.
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	c := &Cluster{Dir: dir, Port: freePort(t)}
	data := filepath.Join(dir, "data")
	if out, err := asPostgres(filepath.Join(BinDir, "initdb"), "-D", data, "-A", "trust", "-U", "postgres",
		"-E", "UTF8", "--locale=C", "--no-sync").CombinedOutput(); err != nil {
		t.Skipf("initdb failed (%v): %s", err, out)
	}
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses='' -c fsync=off -c TimeZone=UTC -c max_connections=50", c.Port, dir)
	if out, err := asPostgres(filepath.Join(BinDir, "pg_ctl"), "-D", data, "-w", "-l", filepath.Join(dir, "log"),
		"-o", opts, "start").CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		t.Fatalf("start PostgreSQL: %v: %s\n%s", err, out, log)
	}
	t.Cleanup(func() {
		asPostgres(filepath.Join(BinDir, "pg_ctl"), "-D", data, "-m", "immediate", "stop").Run()
	})
	return c
}

// asPostgres runs a server binary as the postgres user when we are root.
func asPostgres(bin string, args ...string) *exec.Cmd {
	if os.Geteuid() == 0 {
		return exec.Command("runuser", append([]string{"-u", "postgres", "--", bin}, args...)...)
	}
	return exec.Command(bin, args...)
}

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// DSN is a libpq connection string for database db over the unix socket.
func (c *Cluster) DSN(db string) string {
	return fmt.Sprintf("host=%s port=%d user=postgres dbname=%s sslmode=disable", c.Dir, c.Port, db)
}

// URL is the same as DSN in URL form, for database/sql drivers.
func (c *Cluster) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@/%s?host=%s&port=%d&sslmode=disable", db, c.Dir, c.Port)
}

// Connect opens a pgx connection to database db, closed when the test ends.
func (c *Cluster) Connect(t testing.TB, db string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), c.DSN(db))
	if err != nil {
		t.Fatalf("connect to PostgreSQL: %v", err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// CreateDatabase creates an empty database.
func (c *Cluster) CreateDatabase(t testing.TB, name string) {
	t.Helper()
	conn := c.Connect(t, "postgres")
	if _, err := conn.Exec(context.Background(), "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
}
