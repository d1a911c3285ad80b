package session

import "testing"

// INSERT ... RETURNING answers PostgreSQL 15's rows and tag: VALUES and
// SELECT sources, column lists (the others NULL), expressions, *, values
// as stored (varchar(n) trims trailing spaces), subqueries, inside a
// transaction block and rolled back, and the errors leaving nothing.
func TestInsertReturningMatchesPostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	script := []string{
		"CREATE TABLE ir (id int NOT NULL, name varchar(3), v double precision)",
		"INSERT INTO ir VALUES (1, 'ab  ', 1.5), (2, NULL, NULL) RETURNING *",
		"INSERT INTO ir (id, v) VALUES (3, 2) RETURNING id, name, v * 2 AS twice, length(name) IS NULL",
		"INSERT INTO ir SELECT g, 'n' || g, g / 2.0 FROM generate_series(4, 6) g RETURNING name, (SELECT count(*) FROM ir) AS before",
		"BEGIN",
		"INSERT INTO ir (id) VALUES (7) RETURNING id",
		"SELECT count(*) FROM ir",
		"ROLLBACK",
		"INSERT INTO ir (name) VALUES ('x') RETURNING id",
		"INSERT INTO ir VALUES (8, 'abcd') RETURNING id",
		"INSERT INTO ir VALUES (9) RETURNING *",
		"INSERT INTO ir SELECT 10 RETURNING *",
		"INSERT INTO ir VALUES (11, 'a'), (12) RETURNING *",
		"INSERT INTO ir (id, name) VALUES (13) RETURNING *",
		"INSERT INTO ir VALUES (9) RETURNING nosuch",
		"INSERT INTO ir VALUES (9) RETURNING count(*)",
		"SELECT * FROM ir ORDER BY id",
	}
	mustPG(t, conn, "DROP TABLE IF EXISTS ir")
	for _, q := range script {
		compareStatement(t, s, conn, q)
	}
}
