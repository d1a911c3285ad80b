package session

import "testing"

// SQL-level PREPARE / EXECUTE / DEALLOCATE (issue 11), statement by
// statement against PostgreSQL 15: rows, tags and SQLSTATEs.
func TestSQLPrepareMatchesPostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	script := []string{
		"CREATE TABLE pt (id int, v text, d date)",
		"INSERT INTO pt VALUES (1, 'a', '2024-01-01'), (2, 'b', '2024-02-01'), (3, NULL, NULL)",
		"PREPARE q1 (int) AS SELECT id, v FROM pt WHERE id > $1 ORDER BY id",
		"EXECUTE q1(1)",
		"EXECUTE q1 ('2')",
		"EXECUTE q1(1 + 1)",
		"PREPARE q1 AS SELECT 1",
		"EXECUTE q1",
		"EXECUTE q1(1, 2)",
		"PREPARE ins (int, text, date) AS INSERT INTO pt VALUES ($1, $2, $3)",
		"EXECUTE ins(10, 'x', '2024-04-11')",
		"EXECUTE ins(11, NULL, DATE '2024-04-12')",
		"PREPARE byday AS SELECT id FROM pt WHERE d = $1 ORDER BY id",
		"EXECUTE byday('2024-04-11')",
		"PREPARE del AS DELETE FROM pt WHERE id = $1",
		"EXECUTE del(10)",
		"EXECUTE del(10)",
		"PREPARE upd (text, int) AS UPDATE pt SET v = $1 WHERE id = $2",
		"EXECUTE upd('z', 11)",
		"SELECT id, v, d FROM pt ORDER BY id",
		"EXECUTE nope",
		"DEALLOCATE q1",
		"EXECUTE q1(1)",
		"DEALLOCATE q1",
		"DEALLOCATE PREPARE ins",
		"PREPARE b AS BEGIN",
		"BEGIN",
		"PREPARE intx AS SELECT 2",
		"ROLLBACK",
		"EXECUTE intx",
		"DEALLOCATE ALL",
		"EXECUTE intx",
	}
	for _, q := range script {
		compareStatement(t, s, conn, q)
	}
}
