package session

import "testing"

// TestDistinctAggregatesSpillMatchPostgres: count, sum, avg, min and max
// with DISTINCT over integers, numeric(12,2), numerics of varying scale,
// floats and text, with NULLs, give PostgreSQL 15's answers under a
// work_mem of 64kB that holds a small part of their values — without GROUP
// BY and in a group holding most rows — as with memory to spare: the
// spilled pairs are deduplicated partition by partition and the sums keep
// PostgreSQL's result scale, the averages its division scale (issue 52:
// they failed with 53200).
func TestDistinctAggregatesSpillMatchPostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	mustPG(t, conn, "DROP TABLE IF EXISTS ads")
	ddl := "CREATE TABLE ads (g int, k int, i bigint, d numeric(12,2), f float8, v text)"
	mustPG(t, conn, ddl)
	mustQuery(t, s, ddl)
	fill := `INSERT INTO ads SELECT g, CASE WHEN g % 10 = 0 THEN g % 3 ELSE 9 END,
		CASE WHEN g % 13 = 0 THEN NULL ELSE (g * 7919) % 20011 - 5000 END,
		CASE WHEN g % 17 = 0 THEN NULL ELSE ((g * 10007) % 30011) / 100.0 END,
		CASE WHEN g % 23 = 0 THEN NULL ELSE ((g * 13) % 16001) / 4.0 END,
		CASE WHEN g % 29 = 0 THEN NULL ELSE 'value ' || ((g * 37) % 14009) END
		FROM generate_series(1, 40000) g`
	mustPG(t, conn, fill)
	mustQuery(t, s, fill)
	// An unconstrained numeric (no Iceberg column holds one), its
	// values' scales 0 to 3.
	const ads = "(SELECT *, CASE WHEN g % 19 = 0 THEN NULL ELSE round(((g * 31) % 12007) / 7.0, g % 4) END AS n FROM ads) AS a"
	queries := []string{
		"SELECT count(DISTINCT i), sum(DISTINCT i), avg(DISTINCT i), min(DISTINCT i), max(DISTINCT i), count(*) FROM " + ads,
		"SELECT count(DISTINCT d), sum(DISTINCT d), avg(DISTINCT d) FROM " + ads,
		"SELECT count(DISTINCT n), sum(DISTINCT n), avg(DISTINCT n) FROM " + ads,
		"SELECT count(DISTINCT f), sum(DISTINCT f), avg(DISTINCT f) FROM " + ads,
		"SELECT count(DISTINCT v), min(DISTINCT v), max(DISTINCT v) FROM " + ads,
		"SELECT count(DISTINCT i), sum(i), count(DISTINCT v) FROM " + ads + " WHERE i IS NULL",
		"SELECT k, count(DISTINCT i), sum(DISTINCT i), avg(DISTINCT d), sum(DISTINCT n), avg(DISTINCT n), sum(DISTINCT f), count(DISTINCT v), count(*) FROM " + ads + " GROUP BY k ORDER BY k",
		"SELECT k, count(DISTINCT i) FILTER (WHERE i > 0), sum(DISTINCT d) FILTER (WHERE v > 'value 5') FROM " + ads + " GROUP BY k HAVING count(DISTINCT n) > 10 ORDER BY k",
	}
	for _, q := range queries {
		compareStatement(t, s, conn, q)
	}
	mustQuery(t, s, "SET work_mem = '64kB'")
	for _, q := range queries {
		compareStatement(t, s, conn, q)
	}
}
