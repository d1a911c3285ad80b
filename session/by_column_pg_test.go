package session

import "testing"

// TestColumnNamedBy: BY is reserved in TiDB's grammar but not in
// PostgreSQL's, where a column may be called by; it works in every
// position, beside the ORDER BY, GROUP BY and PARTITION BY it must not be
// confused with, as on PostgreSQL 15.
func TestColumnNamedBy(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	for _, q := range []string{
		"CREATE TABLE bt (id int, by int)",
		"INSERT INTO bt (id, by) VALUES (1, 10), (2, 20), (3, 20)",
		"SELECT by FROM bt ORDER BY by",
		"SELECT id, by FROM bt WHERE by > 10 ORDER BY by DESC, id",
		"SELECT by, count(*) FROM bt GROUP BY by ORDER BY by",
		"SELECT id, sum(by) OVER (PARTITION BY by ORDER BY id) FROM bt ORDER BY id",
		"SELECT string_agg(id::text, ',' ORDER BY by, id) FROM bt",
		"SELECT bt.by + 1 AS by FROM bt ORDER BY 1",
		"UPDATE bt SET by = by + 1 WHERE by = 10",
		"SELECT id, by FROM bt ORDER BY id",
		"DELETE FROM bt WHERE by = 11",
		"SELECT count(*), min(by) FROM bt",
	} {
		compareStatement(t, s, conn, q)
	}
}
