package session

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// A constant SELECT gives what the general pipeline gives for the same
// outputs (WHERE true forces that path), on its first and repeated runs.
func TestConstSelectMatchesPipeline(t *testing.T) {
	s := testSession(t)
	for _, q := range []string{
		"SELECT 1",
		"SELECT 1 AS a, 'x' || 'y' AS b, NULL AS c, 2.5 AS d, true AS e",
		"SELECT 7 * 6 AS n, upper('abc') AS u",
		"SELECT 1 AS a LIMIT 0",
		"SELECT 1 AS a OFFSET 1",
		"SELECT 1 AS a LIMIT 1 OFFSET 0",
	} {
		want := mustQuery(t, s, insertWhereTrue(q))
		for run := range 3 {
			got := mustQuery(t, s, q)
			if !slices.Equal(got.cols, want.cols) || got.text() != want.text() {
				t.Errorf("%s (run %d): got %v %q, pipeline gives %v %q", q, run, got.cols, got.text(), want.cols, want.text())
			}
		}
	}
}

// insertWhereTrue adds WHERE true before any LIMIT/OFFSET of a FROM-less query.
func insertWhereTrue(q string) string {
	for _, kw := range []string{" LIMIT", " OFFSET"} {
		for i := 0; i+len(kw) <= len(q); i++ {
			if q[i:i+len(kw)] == kw {
				return q[:i] + " WHERE true" + q[i:]
			}
		}
	}
	return q + " WHERE true"
}

// The tag counts the rows LIMIT/OFFSET leave, through the wire's own
// accessor (CommandTag after draining).
func TestConstSelectTag(t *testing.T) {
	ctx := context.Background()
	s := testSession(t)
	for q, want := range map[string]string{"SELECT 1": "SELECT 1", "SELECT 1 LIMIT 0": "SELECT 0", "SELECT 'a' OFFSET 5": "SELECT 0"} {
		for range 2 {
			p, err := s.Prepare(ctx, q, nil)
			if err != nil {
				t.Fatal(err)
			}
			res, err := s.Execute(ctx, p, nil)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for {
				b, err := res.Rows.Next(ctx)
				if err != nil {
					break
				}
				n += int(b.NumRows())
			}
			if got := res.CommandTag(); got != want {
				t.Errorf("%s: tag %q, want %q", q, got, want)
			}
			if (want == "SELECT 1") != (n == 1) {
				t.Errorf("%s: %d rows with tag %q", q, n, want)
			}
			res.Rows.Close()
		}
	}
}

// now() is evaluated per statement even though the plan is reused.
func TestConstSelectEvaluatesPerStatement(t *testing.T) {
	s := testSession(t)
	first := mustQuery(t, s, "SELECT now()::text").rows[0][0]
	wall := time.Now()
	for wall.Truncate(time.Microsecond).Equal(time.Now().Truncate(time.Microsecond)) {
	}
	second := mustQuery(t, s, "SELECT now()::text").rows[0][0]
	if first == second {
		t.Errorf("now() was %s in two statements at least a microsecond apart", first)
	}
}

// A cached SELECT over a table binds against the catalog as it is now:
// another session's DDL and this session's search_path both take effect.
func TestPlanCacheFollowsCatalogAndSearchPath(t *testing.T) {
	dir := t.TempDir()
	eng := testEngine(t, dir)
	s := eng.NewSession(stmt.SessionInfo{User: "tester", Database: "db"})
	other := eng.NewSession(stmt.SessionInfo{User: "tester", Database: "db"})
	t.Cleanup(s.Close)
	t.Cleanup(other.Close)
	mustQuery(t, other, "CREATE SCHEMA a")
	mustQuery(t, other, "CREATE SCHEMA b")
	mustQuery(t, other, "CREATE TABLE a.t (x int)")
	mustQuery(t, other, "INSERT INTO a.t VALUES (1)")
	mustQuery(t, other, "CREATE TABLE b.t (y text, z int)")
	mustQuery(t, other, "INSERT INTO b.t VALUES ('b', 2)")

	const q = "SELECT * FROM t"
	mustQuery(t, s, "SET search_path = a")
	if got := mustQuery(t, s, q); !slices.Equal(got.cols, []string{"x"}) || got.text() != "1\n" {
		t.Fatalf("search_path a: %v %q", got.cols, got.text())
	}
	mustQuery(t, s, "SET search_path = b")
	if got := mustQuery(t, s, q); !slices.Equal(got.cols, []string{"y", "z"}) || got.text() != "b|2\n" {
		t.Fatalf("search_path b: %v %q", got.cols, got.text())
	}
	mustQuery(t, other, "DROP TABLE b.t")
	mustQuery(t, other, "CREATE TABLE b.t (w bigint)")
	mustQuery(t, other, "INSERT INTO b.t VALUES (9)")
	if got := mustQuery(t, s, q); !slices.Equal(got.cols, []string{"w"}) || got.text() != "9\n" {
		t.Fatalf("after another session recreated b.t: %v %q", got.cols, got.text())
	}
	mustQuery(t, other, "DROP TABLE b.t")
	mustFail(t, s, pgerr.UndefinedTable, q)
}

// A cached statement is still refused in an aborted transaction, and
// client-given parameter types are not answered from the untyped entry.
func TestPlanCacheKeepsTransactionAndParamRules(t *testing.T) {
	ctx := context.Background()
	s := testSession(t)
	mustQuery(t, s, "SELECT 1")
	mustQuery(t, s, "BEGIN")
	mustFail(t, s, pgerr.UndefinedTable, "SELECT * FROM nope")
	mustFail(t, s, pgerr.InFailedSQLTransaction, "SELECT 1")
	mustQuery(t, s, "ROLLBACK")
	mustQuery(t, s, "SELECT 1")

	untyped, err := s.Prepare(ctx, "SELECT $1 AS v", nil)
	if err != nil {
		t.Fatal(err)
	}
	typed, err := s.Prepare(ctx, "SELECT $1 AS v", []uint32{sql.Int64.OID()})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(untyped.ParamTypes, typed.ParamTypes) || typed.ParamTypes[0] != sql.Int64.OID() {
		t.Errorf("param types: untyped %v, typed %v", untyped.ParamTypes, typed.ParamTypes)
	}
	if got := mustQuery(t, s, "SELECT $1 AS v", "x"); got.text() != "x\n" {
		t.Errorf("SELECT $1 with 'x': %q", got.text())
	}
}
