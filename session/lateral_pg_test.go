package session

import "testing"

// A LATERAL subquery returning more rows than a batch holds, under ON
// conditions that keep some, all or none of them, in inner and LEFT joins:
// the joined rows (passed on a batch at a time) and the NULL-extended left
// rows are PostgreSQL 15's (issue 48: the rows of a whole left batch were
// built as one batch, however many there were).
func TestLateralLargeRunsMatchPostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	mustPG(t, conn, "DROP TABLE IF EXISTS lt")
	mustPG(t, conn, "CREATE TABLE lt (id int, k int)")
	mustQuery(t, s, "CREATE TABLE lt (id int, k int)")
	script := []string{
		"INSERT INTO lt SELECT g, g % 4 FROM generate_series(1, 60) g",
		"INSERT INTO lt VALUES (NULL, 1), (0, NULL)",
		"SELECT count(*), sum(s.g), min(s.g), max(s.g) FROM lt, LATERAL (SELECT g FROM generate_series(1, lt.id * 150) g) s",
		"SELECT lt.id, count(s.g), sum(s.g) FROM lt LEFT JOIN LATERAL (SELECT g FROM generate_series(1, lt.id * 150) g) s ON s.g % 7 = lt.k GROUP BY lt.id ORDER BY lt.id",
		"SELECT lt.id, count(s.g) FROM lt LEFT JOIN LATERAL (SELECT g FROM generate_series(1, lt.id * 150) g) s ON s.g > 8900 GROUP BY lt.id ORDER BY lt.id",
		"SELECT lt.id, s.g FROM lt JOIN LATERAL (SELECT g FROM generate_series(1, lt.id * 150) g) s ON s.g % 1000 = lt.k ORDER BY 1, 2",
		"SELECT lt.id, s.g FROM lt LEFT JOIN LATERAL (SELECT g FROM generate_series(1, lt.id) g WHERE g > 1000) s ON true ORDER BY 1, 2",
	}
	for _, q := range script {
		compareStatement(t, s, conn, q)
	}
}
