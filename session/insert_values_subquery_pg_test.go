package session

import "testing"

// TestInsertValuesSubqueriesLikePostgres: scalar, EXISTS and IN subqueries
// among INSERT ... VALUES, over the target itself and another table, with
// the target's types applied to the literals beside them; more than one
// row is 21000; the rows and RETURNING as PostgreSQL 15 gives them.
func TestInsertValuesSubqueriesLikePostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	for _, q := range []string{
		"CREATE TABLE iv (id int, v text, d date)",
		"CREATE TABLE src (k int, name text)",
		"INSERT INTO src VALUES (1, 'one'), (2, 'two'), (3, NULL)",
		"INSERT INTO iv VALUES (1, 'x', '2024-01-01')",
		"INSERT INTO iv VALUES ((SELECT max(id) + 1 FROM iv), 'y', '2024-02-02'), (3, (SELECT name FROM src WHERE k = 2), NULL)",
		"INSERT INTO iv VALUES ((SELECT k FROM src), 'many', NULL)",
		"INSERT INTO iv VALUES ((SELECT k FROM src WHERE k > 5), (SELECT name FROM src WHERE k = 3), '2024-03-03')",
		"INSERT INTO iv (id, v) VALUES ((SELECT count(*) FROM iv) + 10, (SELECT string_agg(v, ',' ORDER BY id) FROM iv)) RETURNING id, v, d",
		"INSERT INTO iv VALUES (CASE WHEN EXISTS (SELECT 1 FROM iv WHERE id = 2) THEN 20 ELSE 0 END, 'e', NULL)",
		"INSERT INTO iv VALUES (30, CASE WHEN 2 IN (SELECT k FROM src) THEN 'in' ELSE 'out' END, (SELECT max(d) FROM iv) + 1)",
		"INSERT INTO iv VALUES ((SELECT 'nope'), 'bad type', NULL)",
		"SELECT * FROM iv ORDER BY id NULLS FIRST, v",
	} {
		compareStatement(t, s, conn, q)
	}
}
