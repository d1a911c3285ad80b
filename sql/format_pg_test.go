package sql

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const pgBin = "/usr/lib/postgresql/15/bin"

// formatPG is a throwaway PostgreSQL 15 cluster queried through psql, so the
// comparison needs no Go driver.
type formatPG struct {
	port int
}

// startFormatPostgres starts the cluster as user postgres (initdb refuses
// root). It skips when PostgreSQL or psql is not installed.
func startFormatPostgres(t *testing.T) *formatPG {
	t.Helper()
	if _, err := os.Stat(filepath.Join(pgBin, "initdb")); err != nil {
		t.Skip("PostgreSQL 15 not installed at " + pgBin)
	}
	if _, err := exec.LookPath("psql"); err != nil {
		t.Skip("psql not installed")
	}
	dir, err := os.MkdirTemp("", "magmalake-fmt-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	run := func(args ...string) {
		cmd := exec.Command("runuser", append([]string{"-u", "postgres", "--"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Skipf("cannot run PostgreSQL (%v): %s", err, out)
		}
	}
	run(filepath.Join(pgBin, "initdb"), "-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync")
	port := freePort(t)
	run(filepath.Join(pgBin, "pg_ctl"), "-D", data, "-w", "-l", filepath.Join(dir, "log"),
		"-o", fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off", port, dir), "start")
	t.Cleanup(func() {
		exec.Command("runuser", "-u", "postgres", "--", filepath.Join(pgBin, "pg_ctl"), "-D", data, "-m", "immediate", "stop").Run()
	})
	return &formatPG{port: port}
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// texts runs query, which returns one text column, and returns its values.
func (p *formatPG) texts(t *testing.T, query string) []string {
	t.Helper()
	cmd := exec.Command("psql", "-X", "-q", "-A", "-t", "-0", "-v", "ON_ERROR_STOP=1",
		"-h", "127.0.0.1", "-p", strconv.Itoa(p.port), "-U", "postgres", "-d", "postgres", "-c", query)
	cmd.Env = append(os.Environ(), "PGOPTIONS=-c TimeZone=UTC -c DateStyle=ISO -c extra_float_digits=1", "PGCLIENTENCODING=UTF8")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("psql: %v: %s\nquery: %.300s", err, stderr.String(), query)
	}
	s := strings.TrimSuffix(string(out), "\n")
	s = strings.TrimSuffix(s, "\x00")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\x00")
}

// unnestQuery selects expr (over x.v) for each of the SQL literals in order;
// psql prints the type output function's text, which is what the wire sends.
func unnestQuery(expr, elemType string, literals []string) string {
	return "SELECT (" + expr + ") FROM unnest(ARRAY[" + strings.Join(literals, ",") + "]::" + elemType +
		"[]) WITH ORDINALITY AS x(v, n) ORDER BY n"
}

func itoa(v int) string { return strconv.Itoa(v) }
