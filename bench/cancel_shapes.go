package bench

// cancelShape is one kind of long statement the cancel bench interrupts:
// each keeps one operator (or phase) busy for most of its run, so a
// CancelRequest sent at a spread of moments lands in it.
type cancelShape struct {
	name, sql string
}

// cancelTableSQL makes the bench's table t of n rows: an integer key, a
// low- and a high-cardinality group, a number and a text column.
const cancelTableSQL = `CREATE TABLE t AS SELECT g AS id, g %% 1000 AS k, (g::bigint * 7919) %% 100003 AS grp,
	((g * 31 %% 10007) / 7.0)::numeric(12,2) AS v, 'row ' || ((g::bigint * 7919) %% %d) || ' of the cancel bench' AS s
	FROM generate_series(1, %d) AS g`

// cancelShapes are the statements, over t, one per operator family.
var cancelShapes = []cancelShape{
	{"scan + LIKE filter", "SELECT count(*) FROM t WHERE s LIKE '%7%3%9%' OR s LIKE '%8%8%8%'"},
	{"hash aggregate (many groups)", "SELECT grp, count(*), sum(v), min(s) FROM t GROUP BY grp ORDER BY 4 DESC LIMIT 3"},
	{"hash join (build and probe)", "SELECT count(*), sum(a.v + b.v) FROM t a JOIN t b ON a.id = b.id + 1"},
	{"nested loop join", "SELECT count(*) FROM t a JOIN t b ON a.grp > b.grp * 7 WHERE a.id % 500 = 0 AND b.id % 500 = 0"},
	{"sort", "SELECT id, s FROM t ORDER BY s DESC, id OFFSET 1000000 LIMIT 1"},
	{"top-N", "SELECT id, s FROM t ORDER BY v DESC, s LIMIT 10"},
	{"window", "SELECT count(*) FROM (SELECT row_number() OVER (PARTITION BY k ORDER BY v, id) AS r FROM t) w WHERE r = 1"},
	{"DISTINCT", "SELECT count(*) FROM (SELECT DISTINCT s, k FROM t) d"},
	{"count(DISTINCT)", "SELECT k % 10, count(DISTINCT s) FROM t GROUP BY 1 ORDER BY 1 LIMIT 1"},
	{"set operation", "SELECT count(*) FROM (SELECT s FROM t EXCEPT SELECT s FROM t WHERE k < 500) x"},
	{"NOT IN anti join", "SELECT count(*) FROM t WHERE id NOT IN (SELECT id * 2 FROM t)"},
	{"correlated subquery (grouped join)", "SELECT count(*) FROM t o WHERE o.v > (SELECT avg(i.v) FROM t i WHERE i.k = o.k)"},
	{"generate_series cross join", "SELECT count(*) FROM generate_series(1, 2000) a, generate_series(1, 2000) b WHERE a + b = 3000"},
}
