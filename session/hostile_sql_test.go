package session

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
)

// Hostile SQL (issue 19): expressions nested past max_stack_depth in every
// clause answer 54001 instead of overflowing the goroutine stack (which Go
// cannot recover from: the whole server would die), the session and its
// tables stay as they were, and the long-but-flat shapes PostgreSQL accepts
// (40,000-term OR chains, huge IN lists) answer what PostgreSQL answers.

// deepShapes build an expression nested n deep around a column or literal.
var deepShapes = map[string]func(n int) string{
	"sum":    func(n int) string { return strings.Repeat("1+", n) + "id" },
	"not":    func(n int) string { return strings.Repeat("NOT ", n) + "(id > 0)" },
	"parens": func(n int) string { return strings.Repeat("(", n) + "id" + strings.Repeat(")", n) },
	"calls":  func(n int) string { return strings.Repeat("abs(", n) + "id" + strings.Repeat(")", n) },
	"case": func(n int) string {
		return strings.Repeat("CASE WHEN true THEN ", n) + "id" + strings.Repeat(" END", n)
	},
	"casts":    func(n int) string { return "id" + strings.Repeat("::bigint", n) },
	"negation": func(n int) string { return strings.Repeat("- ", n) + "id" },
	"concat":   func(n int) string { return "'a'" + strings.Repeat("||'a'", n) },
	"coalesce": func(n int) string { return strings.Repeat("coalesce(", n) + "id" + strings.Repeat(", 1)", n) },
	"between":  func(n int) string { return "id" + strings.Repeat(" BETWEEN 0 AND 2", n) },
	"isnull":   func(n int) string { return "id" + strings.Repeat(" IS NULL", n) },
}

// deepClauses place an expression in each clause that takes one.
var deepClauses = []string{
	"SELECT %s FROM h",
	"SELECT id FROM h WHERE %s IS NOT NULL",
	"SELECT id FROM h ORDER BY %s",
	"SELECT count(*) FROM h GROUP BY %s",
	"SELECT count(*) FROM h HAVING count(%s) > 0",
	"SELECT %s",
	"DELETE FROM h WHERE %s IS NULL",
	"UPDATE h SET v = (%s)::text",
	"INSERT INTO h VALUES (1, (%s)::text)",
	"SELECT id FROM h WHERE id IN (1, %s)",
}

func TestDeepExpressionsAnswer54001(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE h (id int, v text)")
	mustQuery(t, s, "INSERT INTO h VALUES (1, 'a'), (2, 'b')")
	before := mustQuery(t, s, "SELECT id, v FROM h ORDER BY id").text()
	for name, shape := range deepShapes {
		// Five times the default limit in every clause; the 3,000,000-deep
		// forms that used to kill the process are in the wire tests.
		deep := shape(20000)
		for _, clause := range deepClauses {
			mustFail(t, s, pgerr.StatementTooComplex, fmt.Sprintf(clause, deep))
		}
		t.Logf("%s: refused in %d clauses", name, len(deepClauses))
	}
	if got := mustQuery(t, s, "SELECT id, v FROM h ORDER BY id").text(); got != before {
		t.Fatalf("table changed:\n%s\nwas\n%s", got, before)
	}
	// Within the limit the same shapes work (and agree with their flat forms).
	for name, shape := range deepShapes {
		if _, err := s.query(t.Context(), "SELECT "+shape(500)+" FROM h"); err != nil {
			if se, ok := err.(*pgerr.Error); ok && se.Code == pgerr.StatementTooComplex {
				t.Fatalf("%s at depth 500: %v", name, err)
			}
		}
	}
	if got := mustQuery(t, s, "SELECT "+deepShapes["sum"](1000)+" FROM h ORDER BY 1").text(); got != mustQuery(t, s, "SELECT id + 1000 FROM h ORDER BY 1").text() {
		t.Fatalf("1000-term sum: %s", got)
	}
}

func TestMaxStackDepthSetting(t *testing.T) {
	s := testSession(t)
	q := "SELECT " + strings.Repeat("1+", 5000) + "1"
	mustFail(t, s, pgerr.StatementTooComplex, q) // PostgreSQL's default refuses it too
	mustQuery(t, s, "SET max_stack_depth = '8MB'")
	if got := mustQuery(t, s, q).text(); !strings.Contains(got, "5001") {
		t.Fatalf("with 8MB: %s", got)
	}
	if got := mustQuery(t, s, "SHOW max_stack_depth").text(); !strings.Contains(got, "8MB") {
		t.Fatalf("SHOW: %s", got)
	}
	mustFail(t, s, pgerr.InvalidParameterValue, "SET max_stack_depth = '1GB'")
	mustFail(t, s, pgerr.InvalidParameterValue, "SET max_stack_depth = 'deep'")
	mustQuery(t, s, "RESET max_stack_depth")
	mustFail(t, s, pgerr.StatementTooComplex, q)
}

// TestLongChainsMatchPostgres: generated OR chains (merged into IN sets
// where they compare one column with constants, balanced where they do not),
// AND chains with BETWEEN inside, and IN lists past the hash and Iceberg
// thresholds, with NULLs, in SELECT and DELETE, against PostgreSQL 15.
func TestLongChainsMatchPostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	const cols = "id int, a int, s text"
	var rows []string
	rng := rand.New(rand.NewPCG(19, 19))
	for i := range 300 {
		a, sv := fmt.Sprint(rng.IntN(400)), fmt.Sprintf("'s%d'", rng.IntN(50))
		if i%7 == 0 {
			a = "NULL"
		}
		if i%11 == 0 {
			sv = "NULL"
		}
		rows = append(rows, fmt.Sprintf("(%d, %s, %s)", i, a, sv))
	}
	mustPG(t, conn, "CREATE TABLE c ("+cols+")")
	mustPG(t, conn, "INSERT INTO c VALUES "+strings.Join(rows, ", "))
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE c ("+cols+") WITH ('format-version' = '3', 'write.delete.mode' = 'merge-on-read')")
	mustQuery(t, s, "INSERT INTO c VALUES "+strings.Join(rows[:150], ", "))
	mustQuery(t, s, "INSERT INTO c VALUES "+strings.Join(rows[150:], ", "))
	for _, n := range []int{40, 700, 3000} {
		for _, cond := range []string{orChain(rng, n, false), orChain(rng, n, true), andChain(rng, n), inList(rng, n, false), inList(rng, n, true)} {
			q := "SELECT id FROM c WHERE " + cond + " ORDER BY id"
			fnCompare(t, s, conn, q, q, nil)
			q = "SELECT count(*) FROM c WHERE NOT (" + cond + ")"
			fnCompare(t, s, conn, q, q, nil)
		}
	}
	// DELETE with an OR chain, checked against PostgreSQL; then with a
	// 40,000-term one (PostgreSQL's planner takes 20 s over it), checked
	// against a model of the rows.
	cond := orChain(rng, 3000, false)
	want := pgExecTx(t, conn, "DELETE FROM c WHERE "+cond)
	if got := mustQuery(t, s, "DELETE FROM c WHERE "+cond); got.tag != want.tag {
		t.Fatalf("DELETE: %s, PostgreSQL %s", got.tag, want.tag)
	}
	mustPG(t, conn, "DELETE FROM c WHERE "+cond)
	fnCompare(t, s, conn, "SELECT id, a, s FROM c ORDER BY id", "SELECT id, a, s FROM c ORDER BY id", nil)
	left := mustPG(t, conn, "SELECT id, a FROM c ORDER BY id").rows
	set := map[string]bool{}
	terms := make([]string, 40000)
	for k := range terms {
		v := fmt.Sprint(rng.IntN(400))
		terms[k], set[v] = "a = "+v, true
	}
	var keep []string
	for _, r := range left {
		if !set[r[1]] {
			keep = append(keep, r[0])
		}
	}
	got := mustQuery(t, s, "DELETE FROM c WHERE "+strings.Join(terms, " OR "))
	if want := fmt.Sprintf("DELETE %d", len(left)-len(keep)); got.tag != want {
		t.Fatalf("40,000-term DELETE: %s, model %s", got.tag, want)
	}
	if len(keep) == 0 || len(keep) == len(left) {
		t.Fatalf("the model deletes %d of %d rows: not a useful case", len(left)-len(keep), len(left))
	}
	if got, want := mustQuery(t, s, "SELECT id FROM c ORDER BY id").text(), strings.Join(keep, "\n")+"\n"; got != want {
		t.Fatalf("after the 40,000-term DELETE:\n%s\nmodel keeps %v", got, keep)
	}
}

// orChain is n terms joined by OR: equalities on a (mergeable into IN),
// mixed with other columns and predicates when mixed.
func orChain(rng *rand.Rand, n int, mixed bool) string {
	terms := make([]string, n)
	for k := range terms {
		switch {
		case mixed && k%5 == 1:
			terms[k] = fmt.Sprintf("s = 's%d'", rng.IntN(80))
		case mixed && k%5 == 2:
			terms[k] = fmt.Sprintf("(a > %d AND id < %d)", 390+rng.IntN(20), rng.IntN(300))
		case k%97 == 3:
			terms[k] = "a = NULL"
		default:
			terms[k] = fmt.Sprintf("a = %d", rng.IntN(2000))
		}
	}
	return strings.Join(terms, " OR ")
}

// andChain is n terms joined by AND, with BETWEEN's own AND among them.
func andChain(rng *rand.Rand, n int) string {
	terms := make([]string, n)
	for k := range terms {
		if k%9 == 0 {
			terms[k] = fmt.Sprintf("id NOT BETWEEN %d AND %d", rng.IntN(300), rng.IntN(300))
			continue
		}
		terms[k] = fmt.Sprintf("a <> %d", rng.IntN(2000))
	}
	return strings.Join(terms, " AND ")
}

// inList is a [NOT] IN over n integer items, one of them NULL when withNull.
func inList(rng *rand.Rand, n int, withNull bool) string {
	items := make([]string, n)
	for k := range items {
		items[k] = fmt.Sprint(rng.IntN(1000))
	}
	op := "IN"
	if withNull {
		items[n/2] = "NULL"
		op = "NOT IN"
	}
	return "a " + op + " (" + strings.Join(items, ", ") + ")"
}

// Past work_mem an ORDER BY without LIMIT spills sorted runs to the temp
// directory, a GROUP BY (of ROLLUP's sets too) the rows of the groups it
// cannot hold, DISTINCT and set operations the rows of the values they
// cannot hold, count(DISTINCT) its values by hash, a running window its
// sorted input, and they remove them; a top-N holds only its LIMIT. Where
// no temporary file can be made the spill fails with 58030 and the
// session goes on.
func TestWorkMemBoundsMaterialising(t *testing.T) {
	ctx := context.Background()
	wh, err := lake.Open(ctx, lake.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { wh.Close() })
	tmp := t.TempDir()
	eng, err := NewEngine(ctx, wh, EngineOptions{TempDir: tmp})
	if err != nil {
		t.Fatal(err)
	}
	s := testSessionOn(t, eng)
	mustQuery(t, s, "CREATE TABLE w (id int, v text)")
	var rows []string
	for i := range 3000 {
		rows = append(rows, fmt.Sprintf("(%d, '%s')", i, strings.Repeat("x", 40)+fmt.Sprint(i)))
	}
	mustQuery(t, s, "INSERT INTO w VALUES "+strings.Join(rows, ", "))
	sorted := []string{"SELECT id, v FROM w ORDER BY v", "SELECT v, id FROM w ORDER BY v DESC OFFSET 10",
		"SELECT v, count(*) FROM w GROUP BY v ORDER BY v",
		"SELECT DISTINCT v, id % 3 FROM w ORDER BY v",
		"SELECT v FROM w EXCEPT SELECT v FROM w WHERE id % 2 = 0 ORDER BY 1",
		"SELECT count(DISTINCT v) FROM w",
		"SELECT id, row_number() OVER (ORDER BY v) FROM w ORDER BY id",
		"SELECT v, count(*) FROM w GROUP BY ROLLUP (v) ORDER BY v"}
	want := map[string]string{}
	for _, q := range sorted {
		want[q] = mustQuery(t, s, q).text() // 256MB default: fine
	}
	if got := mustQuery(t, s, "SHOW work_mem").text(); got != "256MB\n" {
		t.Fatalf("SHOW work_mem: %q", got)
	}
	mustQuery(t, s, "SET work_mem = '64kB'")
	for _, q := range sorted {
		if got := mustQuery(t, s, q).text(); got != want[q] {
			t.Fatalf("%s spilled under 64kB differs", q)
		}
		if left, _ := os.ReadDir(tmp); len(left) != 0 {
			t.Fatalf("%s left %d temporary entries", q, len(left))
		}
	}
	// A top-N holds only its LIMIT: one row fits; 2,000 do not, and go
	// to the spilling sort with the rest of the input.
	if got := mustQuery(t, s, sorted[0]+" LIMIT 1").rows[0]; fmt.Sprint(got) != fmt.Sprint(mustQuery(t, s, "SELECT id, v FROM w WHERE v = (SELECT min(v) FROM w)").rows[0]) {
		t.Fatalf("LIMIT 1: %v", got)
	}
	if got, all := mustQuery(t, s, sorted[0]+" LIMIT 2000").rows, mustQuery(t, s, sorted[0]).rows; fmt.Sprint(got) != fmt.Sprint(all[:2000]) {
		t.Fatalf("LIMIT 2000 under 64kB: %d rows, not the first 2000 sorted", len(got))
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("LIMIT 2000 left %d temporary entries", len(left))
	}
	// The runs go to the engine's TempDir: where none can be made the
	// spill fails with 58030, in words, and the session goes on.
	blocked := filepath.Join(t.TempDir(), "not-a-directory")
	if err := os.WriteFile(blocked, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	eng.opts.TempDir = blocked
	_, err = s.query(ctx, sorted[0])
	var se *pgerr.Error
	if !errors.As(err, &se) || se.Code != pgerr.IOError || !strings.Contains(se.Message, "temporary file") {
		t.Fatalf("spill under a file: %v, want 58030 about a temporary file", err)
	}
	eng.opts.TempDir = tmp
	mustQuery(t, s, "SELECT 1")
	// Small results still fit, and streaming needs no budget.
	mustQuery(t, s, "SELECT id FROM w WHERE id < 10 ORDER BY id")
	if n := len(mustQuery(t, s, "SELECT id, v FROM w").rows); n != 3000 {
		t.Fatalf("streamed %d rows", n)
	}
	mustFail(t, s, pgerr.InvalidParameterValue, "SET work_mem = '1kB'")
	mustQuery(t, s, "SET work_mem = '4MB'")
	for _, q := range sorted {
		if got := mustQuery(t, s, q).text(); got != want[q] {
			t.Fatalf("%s under 4MB differs", q)
		}
	}
}

// statement_timeout cancels a statement that runs longer (57014, "statement
// timeout"), leaves the table as it was, and keeps the session usable.
func TestStatementTimeout(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE st (id int, v text)")
	var rows []string
	for i := range 20000 {
		rows = append(rows, fmt.Sprintf("(%d, 'v%d')", i, i))
	}
	mustQuery(t, s, "INSERT INTO st VALUES "+strings.Join(rows, ", "))
	// Seconds of work: 2,000 terms over two columns for every row.
	terms := make([]string, 2000)
	for k := range terms {
		terms[k] = fmt.Sprintf("(id = %d AND v || 'x' = 'v%dy')", k, k)
	}
	slow := strings.Join(terms, " OR ")
	if got := mustQuery(t, s, "SHOW statement_timeout").text(); got != "0\n" {
		t.Fatalf("SHOW: %q", got)
	}
	mustQuery(t, s, "SET statement_timeout = '50ms'")
	if got := mustQuery(t, s, "SHOW statement_timeout").text(); got != "50ms\n" {
		t.Fatalf("SHOW: %q", got)
	}
	for _, q := range []string{"SELECT count(*) FROM st WHERE " + slow, "DELETE FROM st WHERE " + slow, "UPDATE st SET v = 'z' WHERE " + slow} {
		_, err := s.query(t.Context(), q)
		var se *pgerr.Error
		if !errors.As(err, &se) || se.Code != pgerr.QueryCanceled || !strings.Contains(se.Message, "statement timeout") {
			t.Fatalf("%.40s: %v", q, err)
		}
	}
	mustFail(t, s, pgerr.InvalidParameterValue, "SET statement_timeout = 'soon'")
	mustQuery(t, s, "SET statement_timeout = '1min'")
	if got := mustQuery(t, s, "SELECT count(*) FROM st WHERE v <> 'z'").text(); got != "20000\n" {
		t.Fatalf("after the cancelled DML: %q", got)
	}
	// Rows streamed after Execute returned still flow under a deadline.
	if n := len(mustQuery(t, s, "SELECT id, v FROM st").rows); n != 20000 {
		t.Fatalf("streamed %d rows", n)
	}
	mustQuery(t, s, "RESET statement_timeout")
}
