package session

import (
	"testing"

	"github.com/magmalake/magmalake/internal/pgtest"
)

// TestPlanReuseLikePostgres: a prepared statement run again after what
// another session (or this one) did answers as PostgreSQL 15's plan cache
// does: another session's rows are seen; a column added under SELECT *
// fails with 0A000 while a query of the old columns reads on; SET DateStyle
// leaves the statement's literals as they were read at PREPARE; a table
// created later earlier in search_path goes unnoticed until the plan is
// bound again because its own table changed; SET search_path finds the
// table the name means now.
func TestPlanReuseLikePostgres(t *testing.T) {
	cluster := pgtest.Start(t)
	pgA, pgB := cluster.Connect(t, "postgres"), cluster.Connect(t, "postgres")
	eng := testEngine(t, t.TempDir())
	s, other := testSessionOn(t, eng), testSessionOn(t, eng)
	steps := []struct {
		other bool // run by the other session
		q     string
	}{
		{false, "CREATE SCHEMA sa"},
		{false, "CREATE SCHEMA sb"},
		{false, "CREATE TABLE public.t (id int)"},
		{false, "INSERT INTO public.t VALUES (1)"},
		{false, "CREATE TABLE public.pd (d date)"},
		{false, "INSERT INTO public.pd VALUES ('2020-03-04')"},
		{false, "CREATE TABLE sb.sp (v text)"},
		{false, "INSERT INTO sb.sp VALUES ('b')"},
		{false, "SET search_path = sa, sb, public"},
		{false, "PREPARE star AS SELECT * FROM t"},
		{false, "PREPARE ids AS SELECT id FROM t ORDER BY id"},
		{false, "PREPARE n AS SELECT count(*) FROM t"},
		{false, "PREPARE lit AS SELECT d = '03/04/2020' FROM pd"},
		{false, "PREPARE sp AS SELECT v FROM sp"},
		{false, "EXECUTE star"},
		{false, "EXECUTE n"},
		{false, "EXECUTE sp"},
		{true, "INSERT INTO public.t VALUES (2)"},
		{false, "EXECUTE n"},
		{false, "EXECUTE ids"},
		{false, "SET DateStyle = 'ISO, DMY'"},
		{false, "EXECUTE lit"},
		{true, "CREATE TABLE sa.sp (v text)"},
		{true, "INSERT INTO sa.sp VALUES ('a')"},
		{false, "EXECUTE sp"},
		{true, "ALTER TABLE sb.sp ADD COLUMN x int"},
		{false, "EXECUTE sp"},
		{true, "ALTER TABLE public.t ADD COLUMN note text"},
		{false, "EXECUTE star"},
		{false, "EXECUTE ids"},
		{false, "SET search_path = sb, public"},
		{false, "EXECUTE sp"},
		{false, "BEGIN"},
		{false, "INSERT INTO t VALUES (3)"},
		{false, "EXECUTE n"},
		{false, "ROLLBACK"},
		{false, "EXECUTE n"},
	}
	for _, st := range steps {
		if st.other {
			compareStatement(t, other, pgB, st.q)
		} else {
			compareStatement(t, s, pgA, st.q)
		}
	}
}
