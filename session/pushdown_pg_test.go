package session

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// TestPushdownMatchesPostgres: WHERE conditions over USING and NATURAL
// joins of every kind, over LATERAL joins, and over derived tables, views
// and WITH queries (plain, DISTINCT, grouped, limited, windowed: the ones
// a condition may not cross) give PostgreSQL's rows, NULL keys included
// (issue 52: such conditions were checked only after the join).
func TestPushdownMatchesPostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	rng := rand.New(rand.NewSource(7))
	for _, tb := range []struct {
		name string
		rows int
	}{{"pa", 30}, {"pb", 20}, {"pc", 12}} {
		ddl := fmt.Sprintf("CREATE TABLE %s (id int, k bigint, v int, s text)", tb.name)
		mustPG(t, conn, "DROP TABLE IF EXISTS "+tb.name+" CASCADE")
		mustPG(t, conn, ddl)
		mustQuery(t, s, ddl)
		ins := "INSERT INTO " + tb.name + " VALUES " + joinOrderRows(rng, tb.rows) + ", (NULL, NULL, 5, NULL)"
		mustPG(t, conn, ins)
		mustQuery(t, s, ins)
	}
	for _, v := range []string{
		"CREATE VIEW pv AS SELECT a.id, a.k, b.v, b.s FROM pa a JOIN pb b ON a.k = b.id",
		"CREATE VIEW pw AS SELECT DISTINCT k, s FROM pa",
		"CREATE VIEW pg AS SELECT k, count(*) AS n, sum(v) AS v FROM pb GROUP BY k",
	} {
		mustPG(t, conn, v)
		mustQuery(t, s, v)
	}
	filter := func(cols ...string) string {
		c := cols[rng.Intn(len(cols))]
		switch rng.Intn(4) {
		case 0:
			return fmt.Sprintf("%s > %d", c, rng.Intn(60))
		case 1:
			return c + " IS NULL"
		case 2:
			return fmt.Sprintf("%s IN (%d, %d, %d)", c, rng.Intn(10), rng.Intn(10), rng.Intn(10))
		}
		return fmt.Sprintf("%s <> %d", c, rng.Intn(10))
	}
	kinds := []string{"JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"}
	for i := 0; i < 60; i++ {
		kind := kinds[rng.Intn(len(kinds))]
		var q string
		switch rng.Intn(6) {
		case 0:
			q = fmt.Sprintf("SELECT id, a.v, b.v FROM pa a %s pb b USING (id) WHERE %s AND %s ORDER BY 1, 2, 3",
				kind, filter("id", "a.v", "b.v"), filter("id", "a.k"))
		case 1:
			q = fmt.Sprintf("SELECT * FROM pa NATURAL %s pc WHERE %s ORDER BY 1, 2, 3, 4", kind, filter("id", "k", "v"))
		case 2:
			q = fmt.Sprintf(`SELECT a.id, l.n FROM pa a %s LATERAL (SELECT count(*) AS n FROM pb b WHERE b.k = a.k) l ON true
				WHERE %s ORDER BY 1, 2`, []string{"JOIN", "LEFT JOIN"}[rng.Intn(2)], filter("a.id", "a.v", "l.n"))
		case 3:
			q = fmt.Sprintf("SELECT * FROM pv WHERE %s AND %s ORDER BY 1, 2, 3, 4", filter("id", "k", "v"), filter("s", "v"))
		case 4:
			q = fmt.Sprintf("SELECT * FROM %s WHERE %s ORDER BY 1, 2", []string{"pw", "pg"}[rng.Intn(2)], filter("k"))
		default:
			q = fmt.Sprintf(`WITH c AS (SELECT id, k, v FROM pa WHERE v > 10), d AS (SELECT k, v FROM pb ORDER BY v LIMIT 5),
				w AS (SELECT id, row_number() OVER (PARTITION BY k ORDER BY v, id) AS rn FROM pc)
				SELECT c.id, d.v, w.rn FROM c JOIN d ON c.k = d.k LEFT JOIN w ON w.id = c.id WHERE %s AND %s ORDER BY 1, 2, 3`,
				filter("c.id", "c.v"), filter("d.v", "w.rn"))
		}
		compareStatement(t, s, conn, q)
	}
}

// TestPushdownReachesTheScans: a condition over one side of a USING join,
// over a LATERAL join's left side and over a view filters that side's
// scan, not only the joined rows: EXPLAIN shows it there as the scan's
// Filter and the Iceberg filter its files are pruned by (issue 52: it
// showed neither).
func TestPushdownReachesTheScans(t *testing.T) {
	s := testSession(t)
	for _, ddl := range []string{
		"CREATE TABLE ua (id int, v int)", "CREATE TABLE ub (id int, w int)",
		"INSERT INTO ua VALUES (1, 10), (2, 20), (3, 30)", "INSERT INTO ub VALUES (1, 5), (3, 7)",
		"CREATE VIEW uv AS SELECT ua.id, v, w FROM ua JOIN ub ON ua.id = ub.id",
	} {
		mustQuery(t, s, ddl)
	}
	cases := []struct {
		q, want string
		times   int
	}{
		{"SELECT * FROM ua JOIN ub USING (id) WHERE w > 6", "Filter: ub.w > 6\n        Iceberg filter: {\"type\":\"gt\",\"term\":\"w\",\"value\":6}", 1},
		{"SELECT * FROM ua JOIN LATERAL (SELECT ub.w FROM ub WHERE ub.id = ua.id) l ON true WHERE ua.v < 25", "Filter: ua.v < 25", 1},
		{"SELECT * FROM uv WHERE w = 7", "Filter: ub.w = 7\n              Iceberg filter: {\"type\":\"eq\",\"term\":\"w\",\"value\":7}", 1},
	}
	for _, c := range cases {
		plan := strings.Join(flatRows(mustQuery(t, s, "EXPLAIN "+c.q)), "\n")
		if strings.Count(plan, c.want) < c.times {
			t.Errorf("%s: want %q %d times in the plan:\n%s", c.q, c.want, c.times, plan)
		}
	}
}

// TestOnConditionFiltersASide: an ON conjunct that reads one side only
// filters that side before the join where that changes no answer (the
// right side of inner and LEFT joins, the left side of inner and RIGHT
// joins; TPC-H Q13's NOT LIKE on orders), and stays a join condition
// elsewhere (the preserved side, FULL joins): all as PostgreSQL answers.
func TestOnConditionFiltersASide(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	for _, q := range []string{
		"CREATE TABLE oa (id int, k int, s text)",
		"CREATE TABLE ob (id int, k int, s text)",
		"INSERT INTO oa VALUES (1, 1, 'x special y'), (2, 2, 'plain'), (3, NULL, NULL), (4, 4, 'special requests'), (5, 1, 'z')",
		"INSERT INTO ob VALUES (10, 1, 'special requests here'), (11, 1, 'ok'), (12, 2, NULL), (13, NULL, 'n'), (14, 5, 'ok')",
	} {
		mustPG(t, conn, q)
		mustQuery(t, s, q)
	}
	plan := strings.Join(flatRows(mustQuery(t, s, "EXPLAIN SELECT oa.id, count(ob.id) FROM oa LEFT JOIN ob ON oa.k = ob.k AND ob.s NOT LIKE '%special%requests%' GROUP BY oa.id")), "\n")
	if !strings.Contains(plan, "Filter: ob.s NOT LIKE '%special%requests%'") || strings.Contains(plan, "Join Filter") {
		t.Fatalf("the ON conjunct on ob does not filter ob's scan:\n%s", plan)
	}
	for _, q := range []string{
		"SELECT oa.id, count(ob.id) FROM oa LEFT JOIN ob ON oa.k = ob.k AND ob.s NOT LIKE '%special%requests%' GROUP BY oa.id ORDER BY 1",
		"SELECT oa.id, ob.id FROM oa LEFT JOIN ob ON oa.k = ob.k AND oa.s LIKE '%special%' ORDER BY 1, 2",
		"SELECT oa.id, ob.id FROM oa LEFT JOIN ob ON ob.s IS NULL ORDER BY 1, 2",
		"SELECT oa.id, ob.id FROM oa RIGHT JOIN ob ON oa.k = ob.k AND oa.id > 1 AND ob.id > 10 ORDER BY 1, 2",
		"SELECT oa.id, ob.id FROM oa FULL JOIN ob ON oa.k = ob.k AND ob.s = 'ok' AND oa.id < 5 ORDER BY 1, 2",
		"SELECT oa.id, ob.id FROM oa JOIN ob ON oa.k = ob.k AND ob.s <> 'ok' AND oa.s IS NOT NULL ORDER BY 1, 2",
		"SELECT oa.id, ob.id FROM oa LEFT JOIN ob ON ob.id > 12 AND oa.id = 1 ORDER BY 1, 2",
		"SELECT count(*) FROM oa LEFT JOIN ob ON ob.id > 100",
	} {
		compareStatement(t, s, conn, q)
	}
}
