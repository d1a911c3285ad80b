package session

import "testing"

// TestGroupingSetsSpillMatchPostgres: ROLLUP, CUBE and GROUPING SETS over
// keys with NULLs and thousands of groups, with grouping(), HAVING, plain,
// DISTINCT, FILTER and ordered aggregates, give PostgreSQL 15's rows under
// a work_mem of 64kB that holds a small part of their groups, as with
// memory to spare: each set spills the rows of the groups it cannot hold
// by its own keys (issue 52: they failed with 53200). Nested in a
// derived table, a CTE or a subquery they parse (they were syntax errors).
func TestGroupingSetsSpillMatchPostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	mustPG(t, conn, "DROP TABLE IF EXISTS gss")
	ddl := "CREATE TABLE gss (g int, a int, b text, c int, d numeric(12,2))"
	mustPG(t, conn, ddl)
	mustQuery(t, s, ddl)
	fill := `INSERT INTO gss SELECT g, CASE WHEN g % 53 = 0 THEN NULL ELSE g % 2000 END,
		CASE WHEN g % 31 = 0 THEN NULL ELSE 'b' || (g % 7) END, g % 3,
		CASE WHEN g % 11 = 0 THEN NULL ELSE ((g * 13) % 5000) / 100.0 END
		FROM generate_series(1, 30000) g`
	mustPG(t, conn, fill)
	mustQuery(t, s, fill)
	queries := []string{
		"SELECT a, b, count(*), sum(d), grouping(a, b) FROM gss GROUP BY ROLLUP (a, b) ORDER BY 5, a, b",
		"SELECT a, b, c, count(*), max(d), grouping(a, b, c) FROM gss GROUP BY CUBE (a, b, c) HAVING count(*) > 2 ORDER BY 6, a, b, c",
		"SELECT a, c, grouping(a, c), count(DISTINCT b), sum(d) FILTER (WHERE c = 1), string_agg(b, ',' ORDER BY g) FILTER (WHERE g % 500 = 0) FROM gss GROUP BY GROUPING SETS ((a), (c), (a, c), ()) ORDER BY 3, a, c",
		"SELECT b, count(*), avg(d), grouping(b) FROM gss GROUP BY ROLLUP (b) ORDER BY 4, b",
		// Nested: a derived table, a CTE, a scalar subquery.
		"SELECT count(*), sum(n), max(a) FROM (SELECT a, c, count(*) AS n FROM gss GROUP BY CUBE (a, c)) AS x",
		"WITH r AS (SELECT b, c, sum(d) AS t, grouping(b, c) AS gr FROM gss GROUP BY ROLLUP (b, c)) SELECT gr, count(*), sum(t) FROM r GROUP BY gr ORDER BY gr",
		"SELECT (SELECT count(*) FROM (SELECT a FROM gss GROUP BY GROUPING SETS ((a), ())) AS y), count(*) FROM gss",
	}
	for _, q := range queries {
		compareStatement(t, s, conn, q)
	}
	mustQuery(t, s, "SET work_mem = '64kB'")
	for _, q := range queries {
		compareStatement(t, s, conn, q)
	}
}
