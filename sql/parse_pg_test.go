package sql

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
)

const parsePGBin = "/usr/lib/postgresql/15/bin"

// startParsePostgres starts a throwaway PostgreSQL 15 listening only on a
// unix socket and returns a connection; it skips when PostgreSQL is absent.
func startParsePostgres(t *testing.T) *parsePGConn {
	t.Helper()
	if _, err := os.Stat(filepath.Join(parsePGBin, "initdb")); err != nil {
		t.Skip("PostgreSQL 15 binaries not found at " + parsePGBin + "; skipping comparison with PostgreSQL")
	}
	dir, err := os.MkdirTemp("", "magmalake-parse-pg-")
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
	run(filepath.Join(parsePGBin, "initdb"), "-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync")
	port := parseFreePort(t)
	run(filepath.Join(parsePGBin, "pg_ctl"), "-D", data, "-w", "-l", filepath.Join(dir, "log"),
		"-o", fmt.Sprintf("-p %d -k %s -c listen_addresses='' -c fsync=off", port, dir), "start")
	t.Cleanup(func() {
		exec.Command("runuser", "-u", "postgres", "--", filepath.Join(parsePGBin, "pg_ctl"), "-D", data, "-m", "immediate", "stop").Run()
	})
	return dialParsePG(t, filepath.Join(dir, fmt.Sprintf(".s.PGSQL.%d", port)))
}

// parsePGConn is a minimal simple-protocol client over pgproto3 (the pgx
// driver package would need go.mod changes this task may not make).
type parsePGConn struct {
	fe *pgproto3.Frontend
}

func dialParsePG(t *testing.T, socket string) *parsePGConn {
	t.Helper()
	nc, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatalf("connect to PostgreSQL: %v", err)
	}
	t.Cleanup(func() { nc.Close() })
	c := &parsePGConn{fe: pgproto3.NewFrontend(nc, nc)}
	c.fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber,
		Parameters: map[string]string{"user": "postgres", "database": "postgres"}})
	if err := c.fe.Flush(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.untilReady(); err != nil {
		t.Fatalf("PostgreSQL startup: %v", err)
	}
	return c
}

// untilReady reads to ReadyForQuery and returns the first ErrorResponse seen.
func (c *parsePGConn) untilReady() (*pgproto3.ErrorResponse, error) {
	var first *pgproto3.ErrorResponse
	for {
		msg, err := c.fe.Receive()
		if err != nil {
			return nil, err
		}
		switch m := msg.(type) {
		case *pgproto3.ErrorResponse:
			if first == nil {
				cp := *m
				first = &cp
			}
		case *pgproto3.ReadyForQuery:
			return first, nil
		}
	}
}

func parseFreePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// pgError runs query through the simple protocol and returns PostgreSQL's error.
func pgError(t *testing.T, conn *parsePGConn, query string) *pgproto3.ErrorResponse {
	t.Helper()
	conn.fe.Send(&pgproto3.Query{String: query})
	if err := conn.fe.Flush(); err != nil {
		t.Fatal(err)
	}
	e, err := conn.untilReady()
	if err != nil {
		t.Fatal(err)
	}
	if e == nil {
		t.Fatalf("PostgreSQL accepted %q; not a syntax-error case", query)
	}
	return e
}

// TestSyntaxErrorPositionsMatchPostgres compares SQLSTATE, message and
// character position of syntax errors with real PostgreSQL 15.
func TestSyntaxErrorPositionsMatchPostgres(t *testing.T) {
	conn := startParsePostgres(t)
	cases := []string{
		"SELEC 1",
		"SELECT 1 +",
		"DELETE FROM t WHERE",
		"SELECT 'abc",
		"SELECT * FROM",
		"SELECT * FROM t WHERE a = = 1",
		"INSERT INTO t VALUES (1, 2",
		"UPDATE t SET WHERE a = 1",
		"CREATE TABLE t (a int,)",
		"SELECT a, FROM t",
		"SELECT (1 + 2",
		"SELECT 1; SELEC 2",
		`SELECT "abc`,
		"SELECT /* unterminated",
		"SELECT $$abc",
		"DROP TABLE",
		"SELECT * FROM t ORDER a",
		"INSERT t VALUES (1)",
		"SELECT 1::",
		"SELECT * FROM t WHERE a IN (1, 2",
		"select x from t where y = 'a' and",
		"SELECT 1 2",
		"DELETE FROM t WHERE a = 1; DELETE t",
		"SELECT 'éé', ",
		"SELECT * FROM t LIMIT",
		"CREATE SCHEMA",
		"BEGIN ISOLATION LEVEL foo",
		"UPDATE t SET a = WHERE b = 1",
		"DELETE FROM t WHERE a = 1 RETURNING",
		"SELECT a FROM t WHERE b = 1 GROUP",
		"SELECT CAST(1 AS int",
		"SELECT E'abc",
		"SELECT a b c FROM t",
		"SELECT a FROM t WHERE a ILIKE",
		"SELECT x:: FROM t",
		"SELECT * FROM t WHERE a IS DISTINCT FROM",
		"SELECT count(* FROM t",
		"SELECT a FROM t ORDER BY a NULLS",
		"SELECT 1 FROM t LIMIT 1 OFFSET",
		"UPDATE t SET a = 1,",
		"SELECT CASE WHEN a THEN 1 FROM t",
		"INSERT INTO t (a, b VALUES (1)",
		"SELECT 'a' 'b'",
		"SELECT 1 /* c */ +",
		"COPY t FROM",
		"SET x =",
		"SHOW",
	}
	for _, q := range cases {
		want := pgError(t, conn, q)
		_, err := Parse(q)
		var got *Error
		if !errors.As(err, &got) {
			t.Errorf("%q: got %v, want PostgreSQL's %s %q at %d", q, err, want.Code, want.Message, want.Position)
			continue
		}
		if got.Code != want.Code || got.Position != int(want.Position) || got.Message != want.Message {
			t.Errorf("%q:\n got  %s %q at %d\n want %s %q at %d", q, got.Code, got.Message, got.Position, want.Code, want.Message, want.Position)
		}
	}
}
