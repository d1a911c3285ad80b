package sql

import (
	"errors"
	"testing"

	"github.com/magmalake/magmalake/internal/pgtest"
	"github.com/magmalake/magmalake/pgerr"
)

// TestSyntaxErrorPositionsMatchPostgres compares SQLSTATE, message and
// character position of syntax errors with real PostgreSQL 15.
func TestSyntaxErrorPositionsMatchPostgres(t *testing.T) {
	conn := pgtest.Start(t).Connect(t, "postgres")
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
		"ANALYZE a b",
		"ANALYZE (FULL) t",
		"ANALYZE (VERBOSE maybe) t",
		"ANALYZE t (a,",
		"ANALYZE (VERBOSE",
	}
	for _, q := range cases {
		want := pgtest.ExecErr(t, conn, q)
		_, err := Parse(q)
		var got *pgerr.Error
		if !errors.As(err, &got) {
			t.Errorf("%q: got %v, want PostgreSQL's %s %q at %d", q, err, want.Code, want.Message, want.Position)
			continue
		}
		if string(got.Code) != want.Code || got.Position != int(want.Position) || got.Message != want.Message {
			t.Errorf("%q:\n got  %s %q at %d\n want %s %q at %d", q, got.Code, got.Message, got.Position, want.Code, want.Message, want.Position)
		}
	}
}
