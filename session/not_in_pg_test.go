package session

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// TestNotInAsAntiJoinMatchesPostgres: x NOT IN (SELECT y ...) and
// x <> ALL (...) in WHERE, uncorrelated or tied to the enclosing row by
// equalities, run as an anti join that knows NOT IN's NULLs, and give
// PostgreSQL's rows: NULL tests and NULL values on either side, groups
// with and without a NULL value, empty subqueries (where NOT IN is true
// even for a NULL x), duplicates. At a work_mem too small for the
// subquery's rows the join spills (where the subquery failed with 53200)
// and answers the same (issue 52).
func TestNotInAsAntiJoinMatchesPostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	rng := rand.New(rand.NewSource(52))
	for _, tb := range []struct {
		name string
		rows int
	}{{"no", 60}, {"ni", 90}, {"nob", 1500}, {"nib", 6000}} {
		ddl := fmt.Sprintf("CREATE TABLE %s (id int, k int, k2 bigint, x int, s text)", tb.name)
		mustPG(t, conn, "DROP TABLE IF EXISTS "+tb.name)
		mustPG(t, conn, ddl)
		mustQuery(t, s, ddl)
		for start := 0; start < tb.rows; start += 500 {
			var rows []string
			for i := start; i < min(start+500, tb.rows); i++ {
				null := func(v string, pct int) string {
					if rng.Intn(100) < pct {
						return "NULL"
					}
					return v
				}
				rows = append(rows, fmt.Sprintf("(%d, %s, %s, %s, %s)", i,
					null(fmt.Sprint(rng.Intn(tb.rows/6+2)), 8), null(fmt.Sprint(rng.Intn(3)), 8),
					null(fmt.Sprint(rng.Intn(tb.rows/2+5)), 3), null(fmt.Sprintf("'%c'", 'a'+rune(rng.Intn(20))), 3)))
			}
			ins := "INSERT INTO " + tb.name + " VALUES " + strings.Join(rows, ", ")
			mustPG(t, conn, ins)
			mustQuery(t, s, ins)
		}
	}
	query := func(outer, inner string) string {
		test := []string{"o.x", "i.x"}
		switch rng.Intn(5) {
		case 0:
			test = []string{"o.s", "i.s"}
		case 1:
			test = []string{"o.x + 1", "i.x"}
		case 2:
			test = []string{"o.k", "i.x / 2"}
		}
		var where []string
		switch rng.Intn(5) {
		case 1:
			where = append(where, "i.k = o.k")
		case 2:
			where = append(where, "i.k = o.k", "o.k2 = i.k2")
		case 3:
			where = append(where, "o.k = i.k + 1")
		}
		switch rng.Intn(6) {
		case 0:
			where = append(where, "i.x IS NOT NULL", "i.s IS NOT NULL")
		case 1:
			where = append(where, fmt.Sprintf("i.x > %d", rng.Intn(40)))
		case 2:
			where = append(where, "i.s <> 'b'")
		case 3:
			where = append(where, "i.id < 0") // empty
		}
		sub := "SELECT " + test[1] + " FROM " + inner + " i"
		if len(where) > 0 {
			sub += " WHERE " + strings.Join(where, " AND ")
		}
		cond := test[0] + " NOT IN (" + sub + ")"
		if rng.Intn(4) == 0 {
			cond = test[0] + " <> ALL (" + sub + ")"
		}
		if rng.Intn(3) == 0 {
			cond = fmt.Sprintf("o.id %% 3 <> %d AND ", rng.Intn(3)) + cond
		}
		return "SELECT o.id, o.x FROM " + outer + " o WHERE " + cond + " ORDER BY 1"
	}
	for range 70 {
		compareStatement(t, s, conn, query("no", "ni"))
	}
	// The forms above are anti joins, not subqueries run per row or held.
	for _, q := range []string{
		"SELECT o.id FROM no o WHERE o.x NOT IN (SELECT i.x FROM ni i)",
		"SELECT o.id FROM no o WHERE o.s <> ALL (SELECT i.s FROM ni i WHERE i.k = o.k AND i.x > 3)",
	} {
		plan := strings.Join(flatRows(mustQuery(t, s, "EXPLAIN "+q)), "\n")
		if !strings.Contains(plan, "Hash Anti Join") || !strings.Contains(plan, "Null-Aware Test") {
			t.Fatalf("NOT IN is no null-aware anti join:\n%s", plan)
		}
	}
	// Past work_mem: the subquery's rows (6,000) are partitioned to disk.
	mustQuery(t, s, "SET work_mem = '64kB'")
	for range 20 {
		compareStatement(t, s, conn, query("nob", "nib"))
	}
	for _, q := range []string{
		// Without group keys the value partitions; a NULL value anywhere
		// (the second) drops every row.
		"SELECT o.id FROM nob o WHERE o.s || (o.id % 700) NOT IN (SELECT i.s || i.id FROM nib i WHERE i.s IS NOT NULL AND i.id IS NOT NULL)",
		"SELECT o.id FROM nob o WHERE o.s || (o.id % 700) NOT IN (SELECT i.s || i.id FROM nib i)",
		"SELECT o.id FROM nob o WHERE o.x NOT IN (SELECT i.x FROM nib i WHERE i.k = o.k AND i.k2 = o.k2)",
	} {
		compareStatement(t, s, conn, q+" ORDER BY 1")
		spilled := analyzed(t, s, q)
		if hj := nodeOf(t, spilled, "Hash Join", ""); planNum(hj, "Hash Batches") <= 1 && planNum(hj, "Disk Usage") <= 0 {
			t.Errorf("the NOT IN join did not spill at 64kB: %v", hj)
		}
	}
}
