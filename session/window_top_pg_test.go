package session

import (
	"fmt"
	"strings"
	"testing"
)

// TestWindowTopMatchesPostgres: a query keeping the first rows of each
// window partition (rn <= k over row_number()) reads the table through a
// heap per partition (engine/window_top.go); its answers are
// PostgreSQL 15's, with ties in the ORDER BY (broken by input order:
// the tie-free queries are compared row for row), NULL partitions, k
// larger than a partition, k <= 0, a CTE and renamed columns, and enough
// 3-row batches that the heap compacts its rows many times.
func TestWindowTopMatchesPostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s, _ := copySession(t) // 3-row batches
	mustPG(t, conn, "DROP TABLE IF EXISTS wt")
	mustPG(t, conn, "CREATE TABLE wt (id int, g int, p int, s text)")
	mustQuery(t, s, "CREATE TABLE wt (id int, g int, p int, s text)")
	fill := "INSERT INTO wt SELECT i, CASE WHEN i % 11 = 0 THEN NULL ELSE i % 7 END, (i * 37) % 101, 's' || (i % 13) FROM generate_series(1, 1500) i"
	mustPG(t, conn, fill)
	mustQuery(t, s, fill)
	queries := []string{
		"SELECT * FROM (SELECT id, g, p, row_number() OVER (PARTITION BY g ORDER BY p DESC, id) AS rn FROM wt) w WHERE rn <= 3 ORDER BY g, rn",
		"SELECT * FROM (SELECT id, g, row_number() OVER (PARTITION BY g ORDER BY p, id DESC) AS rn FROM wt WHERE id > 100) w WHERE rn < 5 AND id % 2 = 0 ORDER BY g NULLS FIRST, rn",
		"SELECT * FROM (SELECT id, row_number() OVER (ORDER BY p DESC NULLS LAST, id) AS rn FROM wt) w WHERE 2 >= rn ORDER BY rn",
		"SELECT * FROM (SELECT id, s, row_number() OVER (PARTITION BY s, g ORDER BY id) AS rn FROM wt) w WHERE rn = 1 ORDER BY s, id",
		"SELECT * FROM (SELECT id, row_number() OVER (PARTITION BY g ORDER BY id) AS rn FROM wt) w WHERE rn <= 1000 ORDER BY id",
		"SELECT count(*) FROM (SELECT row_number() OVER (PARTITION BY g ORDER BY id) AS rn FROM wt) w WHERE rn <= 0",
		"WITH r AS (SELECT id, g, row_number() OVER (PARTITION BY g ORDER BY p, id) FROM wt) SELECT * FROM r AS x(a, b, n) WHERE n <= 2 ORDER BY b, n",
		"SELECT a, b, c FROM wt AS x(a, b, c) WHERE a < 5 ORDER BY a",
		"SELECT g, count(*), sum(id) FROM (SELECT id, g, row_number() OVER (PARTITION BY g ORDER BY p, id) AS rn FROM wt) w WHERE rn <= 4 GROUP BY g ORDER BY g",
	}
	for i, q := range queries {
		t.Run(fmt.Sprint(i), func(t *testing.T) { compareStatement(t, s, conn, q) })
	}
	plan := mustQuery(t, s, "EXPLAIN "+queries[0]).text()
	if !strings.Contains(plan, "only the first 3 rows of each partition") {
		t.Fatalf("the heap per partition is not used:\n%s", plan)
	}
	plan = mustQuery(t, s, "EXPLAIN SELECT * FROM (SELECT id, rank() OVER (ORDER BY p) AS rn FROM wt) w WHERE rn <= 3").text()
	if strings.Contains(plan, "rows of each partition") {
		t.Fatalf("rank() is cut like row_number():\n%s", plan)
	}
}
