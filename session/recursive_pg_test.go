package session

import (
	"strconv"
	"testing"
)

// TestRecursiveCTEMatchesPostgres compares WITH RECURSIVE with PostgreSQL
// 15: counting, UNION's cycle stop, a graph walk over a table, LIMIT over
// an endless recursion, and the errors of malformed recursions.
func TestRecursiveCTEMatchesPostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	for _, q := range []string{
		"CREATE TABLE edges (src int, dst int, w int)",
		"INSERT INTO edges VALUES (1, 2, 5), (2, 3, 1), (3, 1, 2), (3, 4, 7), (4, 5, NULL), (6, 6, 1)",
	} {
		mustPG(t, conn, q)
		mustQuery(t, s, q)
	}
	for i, q := range []string{
		"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT * FROM r",
		"WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) SELECT n FROM t LIMIT 3",
		"WITH RECURSIVE g(a, b) AS (SELECT 1, 1 UNION SELECT b, (a + b) % 5 FROM g) SELECT * FROM g ORDER BY 1, 2",
		"WITH RECURSIVE x AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM x x2 WHERE x2.n < 3), y AS (SELECT n * 10 AS m FROM x) SELECT * FROM y ORDER BY m",
		"WITH RECURSIVE r(n) AS (SELECT 1::bigint UNION ALL SELECT n + 1 FROM r WHERE n < 2) SELECT sum(n) FROM r",
		"WITH RECURSIVE r AS (SELECT 1 AS n) SELECT * FROM r",
		// Reachability from 1 (the cycle 1-2-3-1 ends under UNION).
		"WITH RECURSIVE reach(node) AS (SELECT 1 UNION SELECT e.dst FROM edges e JOIN reach r ON e.src = r.node) SELECT node FROM reach ORDER BY node",
		// Paths with their length and cost, bounded by depth.
		`WITH RECURSIVE p(node, depth, cost) AS (SELECT 1, 0, 0 UNION ALL
			SELECT e.dst, p.depth + 1, p.cost + coalesce(e.w, 0) FROM p JOIN edges e ON e.src = p.node WHERE p.depth < 4)
			SELECT node, depth, cost FROM p ORDER BY depth, node, cost`,
		"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n::bigint + 1 FROM r WHERE n < 2) SELECT * FROM r",
		"WITH RECURSIVE r(n) AS (SELECT n FROM r UNION ALL SELECT 1) SELECT * FROM r",
		"WITH RECURSIVE r(n) AS (SELECT 1 INTERSECT SELECT n FROM r) SELECT * FROM r",
		"WITH RECURSIVE s(n, total) AS (SELECT 1, 1 UNION ALL SELECT n + 1, total + n + 1 FROM s WHERE n < 10) SELECT max(total), count(*) FROM s",
	} {
		t.Run(strconv.Itoa(i), func(t *testing.T) { compareStatement(t, s, conn, q) })
	}
}

// TestNestedDistinctOnMatchesPostgres compares DISTINCT ON below the
// statement's own level (derived tables, scalar subqueries, WITH queries,
// set operation branches) with PostgreSQL 15.
func TestNestedDistinctOnMatchesPostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	for _, q := range []string{
		"CREATE TABLE dons (k int, v text, n int)",
		"INSERT INTO dons VALUES (1, 'a', 3), (1, 'b', 1), (2, 'c', NULL), (2, NULL, 5), (NULL, 'z', 2)",
	} {
		mustPG(t, conn, q)
		mustQuery(t, s, q)
	}
	for i, q := range []string{
		"SELECT * FROM (SELECT DISTINCT ON (x % 2) x FROM generate_series(1, 5) x ORDER BY x % 2, x DESC) s ORDER BY x",
		"SELECT (SELECT DISTINCT ON (x % 2) x FROM generate_series(1, 5) x ORDER BY x % 2 DESC, x LIMIT 1)",
		"WITH w AS (SELECT DISTINCT ON (k) k, v FROM dons ORDER BY k, v DESC) SELECT * FROM w ORDER BY k",
		"SELECT k, v FROM (SELECT DISTINCT ON (k) k, v, n FROM dons ORDER BY k NULLS FIRST, n DESC NULLS LAST) d ORDER BY 1, 2",
		"SELECT count(*) FROM (SELECT DISTINCT ON (k) * FROM dons) d",
		"SELECT v FROM dons WHERE n IN (SELECT DISTINCT ON (k) n FROM dons ORDER BY k, n) ORDER BY v",
		"SELECT * FROM (SELECT DISTINCT ON (k) k, n FROM dons ORDER BY k, n) a UNION ALL SELECT 0, 0 ORDER BY 1, 2",
		// A set operation's branches keep their own DISTINCT ON.
		"SELECT DISTINCT ON (k) k, n FROM dons UNION ALL SELECT 0, 0 ORDER BY 1, 2",
		"SELECT 0, 0 UNION ALL SELECT DISTINCT ON (k) k, n FROM dons ORDER BY 1, 2",
		"SELECT DISTINCT ON (k) * FROM dons UNION ALL SELECT 9, 'q', 9 ORDER BY 1, 2, 3",
		"SELECT DISTINCT ON (k) k, v FROM dons INTERSECT SELECT DISTINCT ON (v) k, v FROM dons ORDER BY 1, 2",
		"SELECT DISTINCT ON (k) k FROM dons EXCEPT SELECT 1 ORDER BY 1",
	} {
		t.Run(strconv.Itoa(i), func(t *testing.T) { compareStatement(t, s, conn, q) })
	}
}

// TestGroupsFramesMatchPostgres compares GROUPS window frames (peer groups
// as the unit) with PostgreSQL 15; "groups" stays a usable name.
func TestGroupsFramesMatchPostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	for _, q := range []string{
		"CREATE TABLE gf (g int, v int, groups text)",
		"INSERT INTO gf VALUES (1, 10, 'a'), (1, 11, 'b'), (2, 20, 'c'), (3, 30, NULL), (3, 31, 'd'), (NULL, 5, 'e')",
	} {
		mustPG(t, conn, q)
		mustQuery(t, s, q)
	}
	for i, q := range []string{
		"SELECT g, v, sum(v) OVER (ORDER BY g GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM gf ORDER BY g, v",
		"SELECT g, v, count(*) OVER (ORDER BY g GROUPS BETWEEN CURRENT ROW AND 1 FOLLOWING) FROM gf ORDER BY g, v",
		"SELECT g, v, min(v) OVER (ORDER BY g DESC GROUPS 1 PRECEDING) FROM gf ORDER BY g, v",
		"SELECT g, v, first_value(v) OVER (ORDER BY g NULLS FIRST GROUPS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) FROM gf ORDER BY g, v",
		"SELECT g, groups FROM gf ORDER BY groups",
	} {
		t.Run(strconv.Itoa(i), func(t *testing.T) { compareStatement(t, s, conn, q) })
	}
}

// TestGroupingFunctionMatchesPostgres compares GROUPING(...) over ROLLUP,
// CUBE and plain GROUP BY, in HAVING and CASE, and its errors, with
// PostgreSQL 15.
func TestGroupingFunctionMatchesPostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	for _, q := range []string{"CREATE TABLE gg (a int, b text, n int)", "INSERT INTO gg VALUES (1, 'x', 5), (1, 'y', 6), (2, 'x', 7), (NULL, NULL, 8)"} {
		mustPG(t, conn, q)
		mustQuery(t, s, q)
	}
	for i, q := range []string{
		"SELECT a, b, GROUPING(a), GROUPING(a, b), GROUPING(b, a), count(*) FROM gg GROUP BY ROLLUP (a, b) ORDER BY 1, 2, 4",
		"SELECT a, GROUPING(a), sum(n) FROM gg GROUP BY CUBE (a) ORDER BY 2, 1",
		"SELECT a, b, GROUPING(a, b, a) FROM gg GROUP BY GROUPING SETS ((a), (b), ()) ORDER BY 3, 1, 2",
		"SELECT a, GROUPING(a) FROM gg GROUP BY a ORDER BY a",
		"SELECT CASE WHEN GROUPING(a) = 1 THEN 'total' ELSE a::text END, sum(n) FROM gg GROUP BY ROLLUP (a) HAVING GROUPING(a) = 1 OR a > 1 ORDER BY 1",
		"SELECT GROUPING(a) FROM gg",
		"SELECT a, GROUPING(b) FROM gg GROUP BY a",
		"SELECT a, sum(GROUPING(a)) FROM gg GROUP BY a",
	} {
		t.Run(strconv.Itoa(i), func(t *testing.T) { compareStatement(t, s, conn, q) })
	}
}
