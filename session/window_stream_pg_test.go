package session

import "testing"

// TestStreamedWindowsMatchPostgres: ranks, lag by a constant (with a
// default, by 0) and running aggregates (RANGE's peers, GROUPS,
// ROWS) over integers, numeric(12,2), floats and text, ordered with NULLs
// first or last, without PARTITION BY and with partitions far larger than
// a work_mem of 64kB, give PostgreSQL 15's rows as they do in memory: the
// rows are sorted on disk and the calls computed in one pass (issue 52:
// they failed with 53200).
func TestStreamedWindowsMatchPostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	mustPG(t, conn, "DROP TABLE IF EXISTS ws")
	ddl := "CREATE TABLE ws (g int, k int, o int, d numeric(12,2), f float8, v text)"
	mustPG(t, conn, ddl)
	mustQuery(t, s, ddl)
	fill := `INSERT INTO ws SELECT g, g % 3,
		CASE WHEN g % 101 = 0 THEN NULL ELSE (g * 7) % 1500 END,
		CASE WHEN g % 11 = 0 THEN NULL ELSE ((g * 13) % 2000) / 100.0 END,
		CASE WHEN g % 17 = 0 THEN NULL ELSE ((g * 31) % 999) / 4.0 END,
		CASE WHEN g % 19 = 0 THEN NULL ELSE 'text ' || g END
		FROM generate_series(1, 6000) g`
	mustPG(t, conn, fill)
	mustQuery(t, s, fill)
	// Each row's values are determined: peers share them, or the order
	// is unique.
	queries := []string{
		`SELECT g, rank() OVER w, dense_rank() OVER w, sum(d) OVER w, avg(d) OVER w, sum(f) OVER w, count(v) OVER w, min(v) OVER w, max(d) OVER w
		 FROM ws WINDOW w AS (ORDER BY o NULLS FIRST) ORDER BY g`,
		`SELECT g, rank() OVER w, avg(g) OVER w, stddev_samp(o) OVER w, var_pop(d) OVER w
		 FROM ws WINDOW w AS (PARTITION BY k ORDER BY o DESC) ORDER BY g`,
		`SELECT g, avg(d) OVER (PARTITION BY k ORDER BY o DESC NULLS LAST GROUPS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM ws ORDER BY g`,
		`SELECT g, row_number() OVER w, lag(v) OVER w, lag(d, 2, -1.5) OVER w, lag(f, 0) OVER w,
		   sum(d) OVER (ORDER BY g DESC ROWS UNBOUNDED PRECEDING), avg(f) OVER (ORDER BY g DESC ROWS UNBOUNDED PRECEDING)
		 FROM ws WINDOW w AS (ORDER BY g DESC) ORDER BY g`,
		`SELECT g, row_number() OVER w, lag(g, 5, 0) OVER w, count(*) OVER (PARTITION BY k ORDER BY g ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
		 FROM ws WINDOW w AS (PARTITION BY k ORDER BY g) ORDER BY g`,
		`SELECT count(*), sum(r), max(s) FROM (SELECT row_number() OVER (ORDER BY o, g) AS r, sum(o) OVER (ORDER BY o, g) AS s FROM ws) AS x`,
	}
	for _, q := range queries {
		compareStatement(t, s, conn, q)
	}
	mustQuery(t, s, "SET work_mem = '64kB'")
	for _, q := range queries {
		compareStatement(t, s, conn, q)
	}
}
