// Package pgtest starts throwaway PostgreSQL 15 clusters for tests that
// compare magmalake with the real thing.
package pgtest

import (
	"errors"
	"fmt"
	"github.com/magmalake/magmalake/internal/testenv"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// DefaultBinDir is where Debian installs the PostgreSQL 15 server binaries;
// MAGMALAKE_PG_BIN overrides it.
const DefaultBinDir = "/usr/lib/postgresql/15/bin"

// ErrNotInstalled is why Launch fails when the binaries are missing or
// cannot run; Start skips the test on it.
var ErrNotInstalled = errors.New("PostgreSQL 15 server binaries not usable")

// Options change how the cluster is created; the zero value is the usual
// one (C locale, unix socket only).
type Options struct {
	// Locale for initdb, "C" when empty. C collates by bytes and folds
	// case in ASCII only, as magmalake does; C.UTF-8 is what clients see
	// on a Debian server (\l shows it).
	Locale string
	// TCP also listens on 127.0.0.1:Port, for clients (JDBC) that cannot
	// use a unix socket.
	TCP bool
}

// Cluster is a running throwaway server.
type Cluster struct {
	Dir  string // holds the data directory, the socket and the log
	Port int
	tcp  bool
}

// BinDir is the directory of the server binaries and psql.
func BinDir() string {
	if d := os.Getenv("MAGMALAKE_PG_BIN"); d != "" {
		return d
	}
	return DefaultBinDir
}

// Start initialises and starts a cluster with default options; see StartWith.
func Start(t testing.TB) *Cluster {
	t.Helper()
	return StartWith(t, Options{})
}

// StartWith initialises and starts a cluster (UTF8, UTC, trust auth, fsync
// off) that is stopped and removed when the test ends. It skips the test,
// saying why, when the binaries are missing or cannot run.
func StartWith(t testing.TB, o Options) *Cluster {
	t.Helper()
	c, err := Launch(o)
	if errors.Is(err, ErrNotInstalled) {
		testenv.Missing(t, "%v (apt-get install postgresql-15); skipping comparison with PostgreSQL", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	return c
}

// Launch starts a cluster that outlives any one test (a package's TestMain
// stops it); most tests want Start.
func Launch(o Options) (*Cluster, error) {
	if _, err := os.Stat(filepath.Join(BinDir(), "initdb")); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotInstalled, err)
	}
	dir, err := os.MkdirTemp("", "magmalake-pg-")
	if err != nil {
		return nil, err
	}
	// initdb refuses to run as root; the server user must own the directory.
	if err := os.Chmod(dir, 0o777); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	c := &Cluster{Dir: dir, Port: port, tcp: o.TCP}
	if err := c.initAndStart(o); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return c, nil
}

func (c *Cluster) initAndStart(o Options) error {
	locale := o.Locale
	if locale == "" {
		locale = "C"
	}
	data := filepath.Join(c.Dir, "data")
	if out, err := asPostgres("initdb", "-D", data, "-A", "trust", "-U", "postgres",
		"-E", "UTF8", "--locale="+locale, "--no-sync").CombinedOutput(); err != nil {
		return fmt.Errorf("%w: initdb: %v: %s", ErrNotInstalled, err, out)
	}
	listen := "''"
	if c.tcp {
		listen = "127.0.0.1"
	}
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=%s -c fsync=off -c TimeZone=UTC -c max_connections=50",
		c.Port, c.Dir, listen)
	if out, err := asPostgres("pg_ctl", "-D", data, "-w", "-l", filepath.Join(c.Dir, "log"),
		"-o", opts, "start").CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(c.Dir, "log"))
		return fmt.Errorf("start PostgreSQL: %v: %s\n%s", err, out, log)
	}
	return nil
}

// Stop stops the server at once and removes its directory.
func (c *Cluster) Stop() {
	asPostgres("pg_ctl", "-D", filepath.Join(c.Dir, "data"), "-m", "immediate", "-w", "stop").Run()
	os.RemoveAll(c.Dir)
}

// asPostgres runs a server binary as the postgres user when we are root.
func asPostgres(name string, args ...string) *exec.Cmd {
	bin := filepath.Join(BinDir(), name)
	if os.Geteuid() == 0 {
		return exec.Command("runuser", append([]string{"-u", "postgres", "--", bin}, args...)...)
	}
	return exec.Command(bin, args...)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pick a port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Addr is host:port on 127.0.0.1; only a cluster started with TCP listens there.
func (c *Cluster) Addr() string {
	return fmt.Sprintf("127.0.0.1:%d", c.Port)
}
