package session

import "testing"

// The query engine's constructs (issue 12), statement by statement against
// PostgreSQL 15 on the same data: joins, subqueries, WITH, set operations,
// window functions, FILTER and ANY over arrays. Every query has a total
// ORDER BY, so rows compare in order.
func TestQueryEngineMatchesPostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	script := []string{
		"CREATE TABLE qa (id int, x text)",
		"CREATE TABLE qb (id int, y text)",
		"CREATE TABLE qt (id int, g int, v numeric(10,2), s text)",
		"INSERT INTO qa VALUES (1,'a1'),(2,'a2'),(3,'a3'),(NULL,'an')",
		"INSERT INTO qb VALUES (2,'b2'),(3,'b3'),(3,'b3b'),(4,'b4'),(NULL,'bn')",
		"INSERT INTO qt VALUES (1,1,10.5,'a'),(2,1,20,'b'),(3,1,20,'c'),(4,2,5,'d'),(5,2,NULL,'e'),(6,NULL,7,'f'),(7,2,5,NULL),(8,3,1,'h')",
		// joins
		"SELECT qa.id, x, y FROM qa JOIN qb ON qa.id = qb.id ORDER BY 1, 3",
		"SELECT * FROM qa LEFT JOIN qb USING (id) ORDER BY 1, 2, 3",
		"SELECT * FROM qa FULL JOIN qb USING (id) ORDER BY 1, 2, 3",
		"SELECT * FROM qa RIGHT JOIN qb ON qa.id = qb.id ORDER BY 3, 4",
		"SELECT * FROM qa NATURAL JOIN qb ORDER BY 1, 3",
		"SELECT count(*) FROM qa, qb",
		"SELECT count(*) FROM qt a CROSS JOIN qt b WHERE a.id < b.id",
		"SELECT count(*) FROM qt a, qt b, qt c WHERE a.id = b.id AND b.id = c.g",
		"SELECT * FROM qt a FULL JOIN qt b ON a.id = b.g ORDER BY 1, 5",
		"SELECT * FROM qt a JOIN qt b USING (id, g) ORDER BY id",
		"SELECT u.* FROM qt JOIN qt u USING (id) WHERE u.g = 1 ORDER BY id",
		"SELECT a.id, b.g FROM qt a LEFT JOIN qt b ON a.id = b.id + 1 WHERE b.g IS NOT NULL ORDER BY 1",
		"SELECT * FROM qa JOIN qb ON qa.id < qb.id ORDER BY 1, 3, 4",
		// subqueries
		"SELECT x FROM qa WHERE id IN (SELECT id FROM qb) ORDER BY 1",
		// row IN, NOT IN, = ANY and <> ALL with NULLs on both sides, correlated too
		"SELECT id, g FROM qt WHERE (id, g) IN (SELECT g, id FROM qt) ORDER BY 1",
		"SELECT id, (g, v) NOT IN (SELECT g, v FROM qt WHERE id > 4), (id, s) = ANY (SELECT id, s FROM qt WHERE id <> 2), (g, 5) <> ALL (SELECT g, v FROM qt) FROM qt ORDER BY 1",
		"SELECT id FROM qt a WHERE (a.g, a.v) IN (SELECT b.g, b.v FROM qt b WHERE b.id <> a.id) ORDER BY 1",
		"SELECT (1, NULL) IN (SELECT 1, 2), (1, NULL) NOT IN (SELECT 2, 2), (1, 2) IN (SELECT 1, 2 WHERE false), (NULL, 1) NOT IN (SELECT 1, 1 WHERE false)",
		"SELECT (1, 2) IN (SELECT 1)",
		"SELECT (1, 2) < ANY (SELECT 1, 2), (1, 2) <= ALL (SELECT 1, 3 UNION ALL SELECT 2, 0), (1, NULL) < ANY (SELECT 2, 1), (NULL, 1) > ALL (SELECT 0, 0), (1, 2) <> ANY (SELECT 1, NULL)",
		"SELECT id FROM qt WHERE (g, v) >= ALL (SELECT g, v FROM qt WHERE g IS NOT NULL AND v IS NOT NULL) ORDER BY 1",
		"SELECT x FROM qa WHERE id NOT IN (SELECT id FROM qb) ORDER BY 1",
		"SELECT x FROM qa WHERE EXISTS (SELECT 1 FROM qb WHERE qb.id = qa.id) ORDER BY 1",
		"SELECT x, (SELECT max(y) FROM qb WHERE qb.id = qa.id) FROM qa ORDER BY 1",
		"SELECT id, (SELECT count(*) FROM qt t2 WHERE t2.g = qt.g) FROM qt ORDER BY id",
		"SELECT g, (SELECT count(*) FROM qt t2 WHERE t2.g = qt.g) FROM qt GROUP BY g ORDER BY g",
		"SELECT id FROM qt WHERE v > ALL (SELECT v FROM qt WHERE g = 2) ORDER BY id",
		"SELECT id FROM qt WHERE v > ANY (SELECT v FROM qt WHERE g = 2) ORDER BY id",
		"SELECT id FROM qt WHERE g NOT IN (SELECT g FROM qt WHERE id > 5) ORDER BY id",
		"SELECT (SELECT id FROM qt)",
		"SELECT id FROM qt t1 WHERE NOT EXISTS (SELECT 1 FROM qt t2 WHERE t2.id = t1.id + 1) ORDER BY 1",
		"SELECT * FROM (SELECT id, g FROM qt WHERE g > 1) AS s(a, b) ORDER BY a",
		// WITH, VALUES, set operations, generate_series
		"WITH c AS (SELECT id, x FROM qa WHERE id > 1) SELECT * FROM c JOIN c AS d USING (id) ORDER BY 1",
		"WITH a AS (SELECT g, count(*) c FROM qt GROUP BY g), b AS (SELECT * FROM a WHERE c > 1) SELECT * FROM b ORDER BY g",
		"WITH x AS (SELECT 1 AS a) SELECT (a) FROM x",
		"SELECT * FROM (VALUES (1,'a'),(2,'b')) AS v(n, s) ORDER BY 1",
		"VALUES (1, 'x'), (2, NULL) ORDER BY 1 DESC",
		"SELECT 1 UNION SELECT 2 INTERSECT SELECT 2 ORDER BY 1",
		"SELECT id FROM qa EXCEPT SELECT id FROM qb ORDER BY 1",
		"SELECT g FROM qt UNION ALL SELECT id FROM qt ORDER BY 1 LIMIT 5",
		"SELECT 1 UNION SELECT NULL ORDER BY 1",
		"SELECT 'a' UNION SELECT 1",
		"SELECT g, v FROM qt INTERSECT ALL SELECT g, v FROM qt WHERE id > 3 ORDER BY 1, 2",
		"SELECT count(*), max(g) FROM generate_series(1, 300000) g",
		"SELECT * FROM generate_series(1, 10, 3) AS g(x) JOIN qt ON qt.id = g.x ORDER BY x",
		"SELECT x FROM generate_series(5, 1, -2) x ORDER BY 1",
		// window functions
		"SELECT id, row_number() OVER (PARTITION BY g ORDER BY id) FROM qt ORDER BY id",
		"SELECT id, rank() OVER (ORDER BY v), dense_rank() OVER (ORDER BY v), percent_rank() OVER (ORDER BY v), cume_dist() OVER (ORDER BY v) FROM qt ORDER BY id",
		"SELECT id, sum(v) OVER (PARTITION BY g ORDER BY id), avg(v) OVER (PARTITION BY g), count(*) OVER (), count(v) OVER (ORDER BY v DESC) FROM qt ORDER BY id",
		"SELECT id, lag(id) OVER (ORDER BY id), lead(id, 2, -1) OVER (ORDER BY id), first_value(s) OVER (PARTITION BY g ORDER BY id), last_value(s) OVER (PARTITION BY g ORDER BY id) FROM qt ORDER BY id",
		"SELECT id, sum(id) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING), max(v) OVER (ORDER BY id ROWS 2 PRECEDING), nth_value(id, 2) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM qt ORDER BY id",
		"SELECT id, ntile(3) OVER (ORDER BY id), ntile(5) OVER (PARTITION BY g ORDER BY id) FROM qt ORDER BY id",
		"SELECT g, count(*), sum(count(*)) OVER (), rank() OVER (ORDER BY count(*) DESC) FROM qt GROUP BY g ORDER BY g",
		"SELECT id, sum(id) OVER w, min(id) OVER w FROM qt WINDOW w AS (PARTITION BY g ORDER BY id) ORDER BY id",
		"SELECT id, sum(id) OVER (ORDER BY g RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM qt ORDER BY id",
		"SELECT * FROM (SELECT id, g, row_number() OVER (PARTITION BY g ORDER BY v DESC, id) AS rn FROM qt) s WHERE rn = 1 ORDER BY g",
		"SELECT id FROM qt WHERE row_number() OVER () > 1",
		// FILTER, ANY over arrays
		"SELECT g, count(*) FILTER (WHERE v > 6), sum(v) FILTER (WHERE id < 5), count(DISTINCT v) FILTER (WHERE id > 1), string_agg(s, '-') FILTER (WHERE id % 2 = 0) FROM qt GROUP BY g ORDER BY g",
		"SELECT id, count(*) FILTER (WHERE g = 1) OVER (ORDER BY id) FROM qt ORDER BY id",
		"SELECT 1 = ANY(ARRAY[1,2]), 3 = ANY('{1,2}'::int[]), 3 <> ALL(ARRAY[1,2]), 2 > ANY(ARRAY[3, NULL]), NULL = ANY(ARRAY[1]), 1 = ANY('{}'::int[])",
		"SELECT id FROM qt WHERE s = ANY('{a,\"c\",h}') ORDER BY 1",
		"SELECT id FROM qt WHERE v > ALL('{1, 5.5}'::numeric[]) ORDER BY 1",
		"SELECT id FROM qt WHERE id <> ALL(ARRAY[1,2,NULL])",
		"PREPARE anyp AS SELECT id FROM qt WHERE id = ANY($1) ORDER BY id",
		"EXECUTE anyp('{1,3,NULL,8}')",
		"SELECT 'x' = ANY('{a,b')",
		// LATERAL
		"SELECT * FROM qt, LATERAL (SELECT qt.id * 2 AS d) s ORDER BY id LIMIT 3",
		"SELECT qt.id, s.* FROM qt CROSS JOIN LATERAL (SELECT t2.id AS nid FROM qt t2 WHERE t2.g = qt.g AND t2.id > qt.id ORDER BY t2.id LIMIT 1) s ORDER BY 1",
		"SELECT qt.id, s.nid FROM qt LEFT JOIN LATERAL (SELECT t2.id AS nid FROM qt t2 WHERE t2.g = qt.g AND t2.id > qt.id ORDER BY t2.id LIMIT 1) s ON true ORDER BY 1",
		"SELECT qt.id, s.c FROM qt LEFT JOIN LATERAL (SELECT count(*) AS c FROM qt t2 WHERE t2.g = qt.g) s ON s.c > 2 ORDER BY 1",
		"SELECT qt.id, x.n FROM qt JOIN LATERAL (SELECT qt.id + 1 AS n UNION ALL SELECT qt.id + 2) x ON x.n % 2 = 0 ORDER BY 1, 2",
		"SELECT * FROM qa RIGHT JOIN LATERAL (SELECT qa.id) s ON true",
		// ROLLUP, CUBE, GROUPING SETS
		"SELECT g, s IS NULL AS n, count(*) FROM qt GROUP BY ROLLUP (g, s IS NULL) ORDER BY 1, 2, 3",
		"SELECT g, v, sum(id) FROM qt GROUP BY CUBE (g, v) ORDER BY 1, 2, 3",
		"SELECT g, v, count(*) FROM qt GROUP BY GROUPING SETS ((g), (v), ()) ORDER BY 1, 2, 3",
		"SELECT g, count(*) FROM qt GROUP BY g, ROLLUP (v) HAVING count(*) > 1 ORDER BY 1, 2",
		"SELECT count(*) FROM qt WHERE false GROUP BY ROLLUP (g)",
		"SELECT count(*), sum(v) FROM qt GROUP BY ()",
		"SELECT g, s, count(*) FROM qt GROUP BY ROLLUP ((g, s)) ORDER BY 1, 2, 3",
		"SELECT g, count(*), rank() OVER (ORDER BY count(*)) FROM qt GROUP BY ROLLUP (g) ORDER BY 1, 2",
		// DISTINCT ON
		"SELECT DISTINCT ON (g) g, id FROM qt ORDER BY g, id DESC",
		"SELECT DISTINCT ON (g, v) g, v, id FROM qt ORDER BY g, v, id",
		"SELECT DISTINCT ON (1) g, id FROM qt ORDER BY 1, 2 DESC",
		"SELECT DISTINCT ON (g) id FROM qt ORDER BY id",
		"SELECT DISTINCT ON (g) g, s FROM qt ORDER BY g DESC NULLS LAST, s NULLS FIRST",
	}
	for _, q := range script {
		compareStatement(t, s, conn, q)
	}
}
