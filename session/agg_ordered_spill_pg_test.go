package session

import "testing"

// TestOrderedAggregatesSpillMatchPostgres: array_agg and string_agg with
// ORDER BY, DISTINCT or neither, over integers, numeric(12,2), floats,
// text needing quotes and NULLs, give PostgreSQL 15's answers under a
// work_mem of 64kB that holds a small part of their rows — without GROUP
// BY, in a group holding most rows, and over thousands of groups whose
// hash table spills too — as with memory to spare (issue 52: they failed
// with 53200 once a group's rows passed work_mem).
func TestOrderedAggregatesSpillMatchPostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	mustPG(t, conn, "DROP TABLE IF EXISTS oas")
	ddl := "CREATE TABLE oas (g int, k int, i bigint, d numeric(12,2), f float8, v text)"
	mustPG(t, conn, ddl)
	mustQuery(t, s, ddl)
	fill := `INSERT INTO oas SELECT g, CASE WHEN g % 10 = 0 THEN g % 3 ELSE 9 END,
		CASE WHEN g % 13 = 0 THEN NULL ELSE (g * 7919) % 20011 - 5000 END,
		CASE WHEN g % 17 = 0 THEN NULL ELSE ((g * 10007) % 30011) / 100.0 END,
		CASE WHEN g % 23 = 0 THEN NULL ELSE ((g * 13) % 16001) / 4.0 END,
		CASE WHEN g % 29 = 0 THEN NULL ELSE 'value ' || ((g * 37) % 14009) END
		FROM generate_series(1, 30000) g`
	mustPG(t, conn, fill)
	mustQuery(t, s, fill)
	queries := []string{
		"SELECT md5(string_agg(v, ',' ORDER BY v DESC, g)), md5(array_agg(d ORDER BY d NULLS FIRST, g)::text), md5(array_agg(v ORDER BY i, g)::text) FROM oas",
		"SELECT md5(string_agg(DISTINCT v, ';')), md5(array_agg(DISTINCT i)::text), md5(array_agg(DISTINCT f ORDER BY f DESC)::text) FROM oas",
		"SELECT md5(array_agg(g)::text), length(string_agg(v, ' | ')), md5(string_agg(v, ',' ORDER BY g) FILTER (WHERE i > 0)) FROM oas",
		"SELECT k, md5(string_agg(v, ',' ORDER BY d DESC NULLS LAST, g)), md5(array_agg(f ORDER BY v, g)::text), md5(array_agg(DISTINCT d)::text), count(*) FROM oas GROUP BY k ORDER BY k",
		"SELECT g % 4000 AS b, string_agg(v, ',' ORDER BY g DESC), array_agg(d ORDER BY g), array_agg(DISTINCT i % 3) FROM oas GROUP BY 1 HAVING count(*) > 7 ORDER BY 1",
	}
	for _, q := range queries {
		compareStatement(t, s, conn, q)
	}
	mustQuery(t, s, "SET work_mem = '64kB'")
	for _, q := range queries {
		compareStatement(t, s, conn, q)
	}
}
