package session

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/stmt"
)

// bindsOf runs f and returns how many statements the session bound meanwhile.
func bindsOf(s *Session, f func()) int64 {
	before := s.binds.Load()
	f()
	return s.binds.Load() - before
}

// prepareT prepares q or fails the test.
func prepareT(t *testing.T, s *Session, q string) *stmt.Prepared {
	t.Helper()
	p, err := s.Prepare(t.Context(), q, nil)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return p
}

// executeT executes p and renders its result, or fails the test.
func executeT(t *testing.T, s *Session, p *stmt.Prepared, params ...stmt.Param) *result {
	t.Helper()
	r, err := executeR(s, p, params...)
	if err != nil {
		t.Fatalf("%s: %v", p.Query, err)
	}
	return r
}

func executeR(s *Session, p *stmt.Prepared, params ...stmt.Param) (*result, error) {
	res, err := s.Execute(context.Background(), p, params)
	if err != nil {
		return nil, err
	}
	return resultOf(context.Background(), res)
}

// A simple query over a table is bound once, not at Prepare and again at
// Execute.
func TestPlanOnceSimpleQuery(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE po (id int, name text)")
	mustQuery(t, s, "INSERT INTO po VALUES (1, 'a'), (2, 'b')")
	for _, q := range []string{
		"SELECT name FROM po WHERE id = 2",
		"SELECT count(*) FROM po",
		"SELECT name FROM po WHERE id IN (SELECT max(id) FROM po)",
		"EXPLAIN SELECT name FROM po",
	} {
		var r *result
		if n := bindsOf(s, func() { r = mustQuery(t, s, q) }); n != 1 {
			t.Errorf("%s: bound %d times, want 1", q, n)
		}
		if len(r.rows) == 0 {
			t.Errorf("%s: no rows", q)
		}
	}
}

// A prepared query executed again with nothing changed runs the plan
// Prepare bound; a commit of another session (or another server on the
// same warehouse) is seen by the same plan, moved to the table's new
// snapshot: bind once, read current data.
func TestPlanReusedWhileCurrent(t *testing.T) {
	dir := t.TempDir()
	eng := testEngine(t, dir)
	s, other := testSessionOn(t, eng), testSessionOn(t, eng)
	server2 := testSessionOn(t, testEngine(t, dir))
	mustQuery(t, s, "CREATE TABLE pr (id int)")
	mustQuery(t, s, "INSERT INTO pr VALUES (1)")
	p := prepareT(t, s, "SELECT count(*) FROM pr WHERE id > $1")
	for range 3 {
		var got string
		if n := bindsOf(s, func() { got = executeT(t, s, p, "0").text() }); n != 0 {
			t.Errorf("unchanged: bound %d times, want 0", n)
		}
		if got != "1\n" {
			t.Fatalf("count %q, want 1", got)
		}
	}
	for i, w := range []*Session{other, server2} {
		mustQuery(t, w, "INSERT INTO pr VALUES (2)")
		var got string
		if n := bindsOf(s, func() { got = executeT(t, s, p, "0").text() }); n != 0 {
			t.Errorf("after a commit elsewhere: bound %d times, want 0 (the plan reads the new snapshot)", n)
		}
		if want := []string{"2\n", "3\n"}[i]; got != want {
			t.Errorf("after a commit elsewhere: count %q, want %q", got, want)
		}
	}
}

// A table another session altered binds again: a SELECT * whose columns
// changed fails as PostgreSQL's does (0A000), a query of the old columns
// reads on.
func TestPlanRebindsAfterAlter(t *testing.T) {
	eng := testEngine(t, t.TempDir())
	s, other := testSessionOn(t, eng), testSessionOn(t, eng)
	mustQuery(t, s, "CREATE TABLE pa (id int)")
	mustQuery(t, s, "INSERT INTO pa VALUES (1)")
	star := prepareT(t, s, "SELECT * FROM pa")
	ids := prepareT(t, s, "SELECT id FROM pa")
	executeT(t, s, star)
	mustQuery(t, other, "ALTER TABLE pa ADD COLUMN note text")
	_, err := executeR(s, star)
	var se *pgerr.Error
	if !errors.As(err, &se) || se.Code != pgerr.FeatureNotSupported {
		t.Fatalf("SELECT * after ADD COLUMN: %v, want 0A000", err)
	}
	var got string
	if n := bindsOf(s, func() { got = executeT(t, s, ids).text() }); n != 1 {
		t.Errorf("after ADD COLUMN: bound %d times, want 1", n)
	}
	if got != "1\n" {
		t.Errorf("after ADD COLUMN: %q, want 1", got)
	}
}

// SET search_path binds a prepared query again, over the table the name
// now finds.
func TestPlanRebindsAfterSearchPath(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE SCHEMA sa")
	mustQuery(t, s, "CREATE SCHEMA sb")
	mustQuery(t, s, "CREATE TABLE sa.sp (v text)")
	mustQuery(t, s, "CREATE TABLE sb.sp (v text)")
	mustQuery(t, s, "INSERT INTO sa.sp VALUES ('a')")
	mustQuery(t, s, "INSERT INTO sb.sp VALUES ('b')")
	mustQuery(t, s, "SET search_path = sa")
	p := prepareT(t, s, "SELECT v FROM sp")
	if got := executeT(t, s, p).text(); got != "a\n" {
		t.Fatalf("%q, want a", got)
	}
	mustQuery(t, s, "SET search_path = sb")
	var got string
	if n := bindsOf(s, func() { got = executeT(t, s, p).text() }); n != 1 {
		t.Errorf("after SET search_path: bound %d times, want 1", n)
	}
	if got != "b\n" {
		t.Errorf("after SET search_path: %q, want b", got)
	}
}

// SET DateStyle keeps the plan, as PostgreSQL's plan cache does: the
// statement's literals keep the reading they had at Prepare, while a text
// cast at run time reads in the new order (plan_reuse_pg_test.go compares
// with PostgreSQL).
func TestPlanKeptAfterDateStyle(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE pd (d date, s text)")
	mustQuery(t, s, "INSERT INTO pd VALUES ('2020-03-04', '03/04/2020')")
	p := prepareT(t, s, "SELECT s::date = d, d = '03/04/2020' FROM pd")
	if got := executeT(t, s, p).text(); got != "t|t\n" {
		t.Fatalf("MDY: %q, want t|t", got)
	}
	mustQuery(t, s, "SET DateStyle = 'ISO, DMY'")
	var got string
	if n := bindsOf(s, func() { got = executeT(t, s, p).text() }); n != 0 {
		t.Errorf("after SET DateStyle: bound %d times, want 0", n)
	}
	if got != "f|t\n" {
		t.Errorf("after SET DateStyle: %q, want f|t (the text 03/04 read as the 3rd of April, the literal as at Prepare)", got)
	}
}

// SET of a setting binding reads (work_mem) binds again; SQL-level
// EXECUTE of a query keeps the plan like the protocol's Execute.
func TestPlanGenerationSettings(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE pw (id int)")
	mustQuery(t, s, "PREPARE pw_q AS SELECT count(*) FROM pw")
	for _, c := range []struct {
		q     string
		binds int64
	}{
		{"EXECUTE pw_q", 1}, // PREPARE moved the generation on
		{"EXECUTE pw_q", 0},
		{"SET application_name = 'x'", 0},
		{"EXECUTE pw_q", 0},
		{"SET work_mem = '64MB'", 0},
		{"EXECUTE pw_q", 1},
		{"EXECUTE pw_q", 0},
	} {
		if n := bindsOf(s, func() { mustQuery(t, s, c.q) }); n != c.binds {
			t.Errorf("%s: bound %d times, want %d", c.q, n, c.binds)
		}
	}
}

// Inside a transaction block a prepared query sees the rows the block
// inserted since it last ran.
func TestPlanSeesBlockWrites(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE pb (id int)")
	mustQuery(t, s, "INSERT INTO pb VALUES (1)")
	p := prepareT(t, s, "SELECT count(*) FROM pb")
	mustQuery(t, s, "BEGIN")
	if got := executeT(t, s, p).text(); got != "1\n" {
		t.Fatalf("%q, want 1", got)
	}
	mustQuery(t, s, "INSERT INTO pb VALUES (2), (3)")
	if got := executeT(t, s, p).text(); got != "3\n" {
		t.Errorf("after the block's INSERT: %q, want 3", got)
	}
	var got string
	if n := bindsOf(s, func() { got = executeT(t, s, p).text() }); n != 0 || got != "3\n" {
		t.Errorf("again: %q bound %d times, want 3 and 0", got, n)
	}
	mustQuery(t, s, "ROLLBACK")
	if got := executeT(t, s, p).text(); got != "1\n" {
		t.Errorf("after ROLLBACK: %q, want 1", got)
	}
}

// A correlated subquery of the keyed form (one equality with the outer
// row) keeps its rows for one execution only: a plan run again with
// another parameter reads them again.
func TestPlanKeyedSubqueryPerExecution(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE kt (k int)")
	mustQuery(t, s, "CREATE TABLE ku (k int, b int)")
	mustQuery(t, s, "INSERT INTO kt VALUES (1), (2)")
	mustQuery(t, s, "INSERT INTO ku VALUES (1, 10), (2, 20)")
	p := prepareT(t, s, "SELECT k, (SELECT b FROM ku WHERE ku.k = kt.k AND ku.b > $1) FROM kt ORDER BY k")
	for _, c := range []struct{ arg, want string }{{"0", "1|10\n2|20\n"}, {"15", "1|NULL\n2|20\n"}, {"5", "1|10\n2|20\n"}} {
		if got := executeT(t, s, p, c.arg).text(); got != c.want {
			t.Errorf("$1 = %s: %q, want %q", c.arg, got, c.want)
		}
	}
}

// A prepared query run while an earlier run's rows are still open (a
// suspended portal) gives every row to both runs: the second binds a plan
// of its own, since a plan holds run state (a recursive query's working
// table).
func TestPlanOverlappingRuns(t *testing.T) {
	ctx := context.Background()
	s := testSession(t)
	p := prepareT(t, s, "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT n FROM r")
	first, err := s.Execute(ctx, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for range 2 {
		b, err := first.Rows.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, int64(b.NumRows()))
	}
	second := executeT(t, s, p).text()
	rest, err := resultOf(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	if n := got[0] + got[1] + int64(len(rest.rows)); n != 5 || second != "1\n2\n3\n4\n5\n" {
		t.Errorf("overlapping runs: the first read %d rows (%v then %v), the second %q; want 5 each", n, got, rest.rows, second)
	}
}

// Each statement that binds a query, sent as a simple query, is bound at
// Prepare and run by its Execute without binding again; CREATE TABLE AS
// binds its query once more, as the INSERT into the table it created.
func TestPlanOnceStatements(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE ds (id int, v text)")
	mustQuery(t, s, "CREATE TABLE dd (id int, v text)")
	mustQuery(t, s, "INSERT INTO ds VALUES (1, 'a'), (2, 'b'), (3, 'c')")
	for _, c := range []struct {
		q, tag string
		binds  int64
	}{
		{"INSERT INTO dd SELECT id, v FROM ds WHERE id < 3", "INSERT 0 2", 0},
		{"UPDATE dd SET v = 'x' WHERE id IN (SELECT id FROM ds WHERE v = 'a')", "UPDATE 1", 0},
		{"UPDATE dd SET v = ds.v FROM ds WHERE dd.id = ds.id AND ds.id = 2", "UPDATE 1", 0},
		{"DELETE FROM dd WHERE id = (SELECT min(id) FROM ds)", "DELETE 1", 0},
		{"MERGE INTO dd USING ds ON dd.id = ds.id WHEN NOT MATCHED THEN INSERT VALUES (ds.id, ds.v)", "MERGE 2", 0},
		{"DELETE FROM dd USING ds WHERE dd.id = ds.id AND ds.v = 'c'", "DELETE 1", 0},
		{"EXPLAIN DELETE FROM dd WHERE id = 1", "", 0},
		{"CREATE TABLE dc AS SELECT id FROM ds", "SELECT 3", 1},
		{"DECLARE cur CURSOR WITH HOLD FOR SELECT id FROM ds", "DECLARE CURSOR", 0},
	} {
		p := prepareT(t, s, c.q)
		var r *result
		if n := bindsOf(s, func() { r = executeT(t, s, p) }); n != c.binds {
			t.Errorf("%s: Execute bound %d times after Prepare, want %d", c.q, n, c.binds)
		}
		if c.tag != "" && r.tag != c.tag {
			t.Errorf("%s: %q, want %q", c.q, r.tag, c.tag)
		}
	}
	if got := mustQuery(t, s, "SELECT id, v FROM dd ORDER BY id").text(); got != "1|a\n2|b\n" {
		t.Errorf("dd: %q", got)
	}
}

// A statement prepared before another session's commit and executed
// after it reads the table as committed: the kept plan is not current,
// and the statement binds again.
func TestPlanStatementsSeeCommitsSincePrepare(t *testing.T) {
	eng := testEngine(t, t.TempDir())
	s, other := testSessionOn(t, eng), testSessionOn(t, eng)
	mustQuery(t, s, "CREATE TABLE cs (id int)")
	mustQuery(t, s, "CREATE TABLE cd (id int)")
	mustQuery(t, s, "INSERT INTO cs VALUES (1)")
	ins := prepareT(t, s, "INSERT INTO cd SELECT id FROM cs")
	del := prepareT(t, s, "DELETE FROM cs WHERE id IN (SELECT id FROM cd)")
	mustQuery(t, other, "INSERT INTO cs VALUES (2)")
	if r := executeT(t, s, ins); r.tag != "INSERT 0 2" {
		t.Errorf("INSERT ... SELECT after another session's INSERT: %q, want INSERT 0 2", r.tag)
	}
	if r := executeT(t, s, del); r.tag != "DELETE 2" {
		t.Errorf("DELETE after the INSERT: %q, want DELETE 2", r.tag)
	}
	mustQuery(t, other, "ALTER TABLE cs ADD COLUMN note text")
	mustQuery(t, other, "INSERT INTO cs VALUES (3, 'n')")
	if r := executeT(t, s, ins); r.tag != "INSERT 0 1" {
		t.Errorf("INSERT ... SELECT after ADD COLUMN: %q, want INSERT 0 1", r.tag)
	}
}

// A prepared INSERT ... SELECT whose source column changed type since
// Prepare casts the values as they come now, as PostgreSQL replans it.
func TestInsertSelectRebindsSourceType(t *testing.T) {
	eng := testEngine(t, t.TempDir())
	s, other := testSessionOn(t, eng), testSessionOn(t, eng)
	mustQuery(t, s, "CREATE TABLE ts (v int)")
	mustQuery(t, s, "CREATE TABLE td (v bigint)")
	mustQuery(t, s, "INSERT INTO ts VALUES (1)")
	p := prepareT(t, s, "INSERT INTO td SELECT v FROM ts")
	executeT(t, s, p)
	mustQuery(t, other, "ALTER TABLE ts ALTER COLUMN v TYPE bigint")
	mustQuery(t, other, "INSERT INTO ts VALUES (5000000000)")
	if r, err := executeR(s, p); err != nil || r.tag != "INSERT 0 2" {
		t.Fatalf("after the source's type changed: %v %v, want INSERT 0 2", r, err)
	}
	if got := mustQuery(t, s, "SELECT v FROM td ORDER BY v").text(); got != "1\n1\n5000000000\n" {
		t.Errorf("td: %q", got)
	}
}

// A prepared INSERT whose VALUES hold a subquery reads the subquery's
// table as it is at each execution, also after it changed twice.
func TestInsertValuesSubqueryFresh(t *testing.T) {
	eng := testEngine(t, t.TempDir())
	s, other := testSessionOn(t, eng), testSessionOn(t, eng)
	mustQuery(t, s, "CREATE TABLE va (n bigint)")
	mustQuery(t, s, "CREATE TABLE vb (id int)")
	p := prepareT(t, s, "INSERT INTO va VALUES ((SELECT count(*) FROM vb))")
	executeT(t, s, p)
	for _, v := range []string{"1", "2"} {
		mustQuery(t, other, "INSERT INTO vb VALUES ("+v+")")
		executeT(t, s, p)
	}
	if got := mustQuery(t, s, "SELECT n FROM va ORDER BY n").text(); got != "0\n1\n2\n" {
		t.Errorf("counts inserted: %q, want 0, 1, 2", got)
	}
}

// FOR TIMESTAMP AS OF an expression picks its snapshot by the clock when
// bound (now() - interval '1 minute' means another snapshot a minute
// later, with no commit in between), so its plan is bound at every
// execution.
func TestPlanAsOfTimestampBindsEachTime(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE at1 (id int)")
	mustQuery(t, s, "INSERT INTO at1 VALUES (1)")
	p := prepareT(t, s, "SELECT count(*) FROM at1 FOR TIMESTAMP AS OF now() + interval '1 hour'")
	for range 2 {
		var got string
		if n := bindsOf(s, func() { got = executeT(t, s, p).text() }); n != 1 || got != "1\n" {
			t.Errorf("AS OF now(): %q bound %d times, want 1 and 1", got, n)
		}
	}
}

// A prepared COPY t TO STDOUT executed after another session added a
// column copies the table's columns as they are then: COPY has no row
// description a changed plan would contradict.
func TestCopyToRebindsOverChangedTable(t *testing.T) {
	eng := testEngine(t, t.TempDir())
	s, other := testSessionOn(t, eng), testSessionOn(t, eng)
	mustQuery(t, s, "CREATE TABLE ct (id int)")
	mustQuery(t, s, "INSERT INTO ct VALUES (1)")
	p := prepareT(t, s, "COPY ct TO STDOUT")
	mustQuery(t, other, "ALTER TABLE ct ADD COLUMN note text")
	mustQuery(t, other, "INSERT INTO ct VALUES (2, 'n')")
	r, err := executeR(s, p)
	if err != nil {
		t.Fatalf("COPY after ADD COLUMN: %v", err)
	}
	if len(r.cols) != 2 || len(r.rows) != 2 {
		t.Errorf("COPY after ADD COLUMN: columns %v, rows %v; want 2 columns, 2 rows", r.cols, r.rows)
	}
}

// A prepared query over read_csv reads the files a pattern matches at each
// execution: the files are nothing the catalog knows of, so the plan is
// bound every time.
func TestPlanFilesBindEachTime(t *testing.T) {
	dir := t.TempDir()
	s := fileSession(t, dir)
	writeFile(t, filepath.Join(dir, "a.csv"), "id\n1\n")
	p := prepareT(t, s, "SELECT count(*) FROM read_csv('"+filepath.Join(dir, "*.csv")+"')")
	if got := executeT(t, s, p).text(); got != "1\n" {
		t.Fatalf("one file: %q, want 1", got)
	}
	writeFile(t, filepath.Join(dir, "b.csv"), "id\n2\n")
	if got := executeT(t, s, p).text(); got != "2\n" {
		t.Errorf("after a second file matched: %q, want 2", got)
	}
}

// A query that reads a branch (FOR VERSION AS OF 'b', or t@b) reads the
// branch's head as it is at each execution: the snapshot binding chose
// does not stay when another session commits to the branch.
func TestPlanBranchReadsItsHead(t *testing.T) {
	eng := testEngine(t, t.TempDir())
	s, other := testSessionOn(t, eng), testSessionOn(t, eng)
	mustQuery(t, s, "CREATE TABLE bh (id int)")
	mustQuery(t, s, "INSERT INTO bh VALUES (1)")
	mustQuery(t, s, "ALTER TABLE bh CREATE BRANCH audit")
	ps := []*stmt.Prepared{
		prepareT(t, s, "SELECT count(*) FROM bh FOR VERSION AS OF 'audit'"),
		prepareT(t, s, `SELECT count(*) FROM "bh@audit"`),
	}
	for _, p := range ps {
		executeT(t, s, p)
	}
	mustQuery(t, other, "SET magmalake.branch = 'audit'")
	mustQuery(t, other, "INSERT INTO bh VALUES (2)")
	for _, p := range ps {
		if got := executeT(t, s, p).text(); got != "2\n" {
			t.Errorf("%s after a commit to the branch: %q, want 2", p.Query, got)
		}
	}
	if got := mustQuery(t, s, "SELECT count(*) FROM bh").text(); got != "1\n" {
		t.Errorf("main: %q, want 1", got)
	}
}
