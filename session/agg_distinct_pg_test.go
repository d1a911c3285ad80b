package session

import "testing"

// array_agg and string_agg with DISTINCT give PostgreSQL 15's values: in
// the values' order (DISTINCT sorts them, NULL last), each once, with the
// delimiters; string_agg's DISTINCT is over the value and the delimiter.
// They were in input order, and string_agg(DISTINCT x, ',') lost its
// delimiters; repeats were found by comparing each value with every one
// kept, which over half a million distinct values is 10^11 comparisons:
// hours (issue 48).
func TestDistinctAggregatesMatchPostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	mustPG(t, conn, "DROP TABLE IF EXISTS ad")
	ddl := "CREATE TABLE ad (g int, x int, n numeric(8,2), v text, sep text)"
	mustPG(t, conn, ddl)
	mustQuery(t, s, ddl)
	script := []string{
		`INSERT INTO ad VALUES (1, 3, 1.50, 'b', ','), (1, 1, 1.5, 'a', ';'), (1, NULL, NULL, NULL, ','),
			(1, 2, 2.25, 'c', ','), (1, 1, -1, 'a', ','), (1, NULL, 0, 'a', ';'),
			(2, 7, 7, 'z', '-'), (2, 7, 7, 'z', '-'), (2, -7, NULL, 'y', NULL), (3, NULL, NULL, NULL, NULL)`,
		"INSERT INTO ad SELECT 4, g % 5000, (g % 300) / 4.0, 'v' || (g % 2000), '/' FROM generate_series(1, 20000) g",
		"SELECT g, array_agg(DISTINCT x) FROM ad WHERE g < 4 GROUP BY g ORDER BY g",
		"SELECT g, array_agg(DISTINCT n) FROM ad WHERE g < 4 GROUP BY g ORDER BY g",
		"SELECT g, array_agg(DISTINCT v ORDER BY v DESC) FROM ad WHERE g < 4 GROUP BY g ORDER BY g",
		"SELECT g, string_agg(DISTINCT v, ',') FROM ad WHERE g < 4 GROUP BY g ORDER BY g",
		"SELECT g, string_agg(DISTINCT v, sep) FROM ad WHERE g < 4 GROUP BY g ORDER BY g",
		"SELECT g, string_agg(DISTINCT v, ',' ORDER BY v DESC) FROM ad WHERE g < 4 GROUP BY g ORDER BY g",
		"SELECT array_agg(DISTINCT x), string_agg(DISTINCT v, '|'), count(DISTINCT x) FROM ad WHERE g < 4",
		"SELECT g, array_agg(x ORDER BY x NULLS FIRST), string_agg(v, '+' ORDER BY v) FROM ad WHERE g < 4 GROUP BY g ORDER BY g",
		"SELECT array_agg(DISTINCT x ORDER BY n) FROM ad",
		// Thousands of distinct values, compared by digest.
		"SELECT md5(array_agg(DISTINCT x)::text), md5(array_agg(DISTINCT n ORDER BY n DESC)::text), md5(string_agg(DISTINCT v, ',')) FROM ad",
		"SELECT g, length(string_agg(DISTINCT v, sep)), md5(string_agg(DISTINCT v, sep)) FROM ad GROUP BY g ORDER BY g",
		// Half a million distinct values: 10^11 comparisons the old way.
		"SELECT cardinality(array_agg(DISTINCT g % 500000)), md5(array_agg(DISTINCT g % 500000)::text) FROM generate_series(1, 1000000) g",
	}
	for _, q := range script {
		compareStatement(t, s, conn, q)
	}
}
