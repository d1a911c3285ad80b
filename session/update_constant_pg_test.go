package session

import "testing"

// TestUpdateConstantFitsAtPlanLikePostgres: a constant assigned to a
// varchar(n) or smallint column is checked when the statement is planned,
// as PostgreSQL coerces it, so it fails even when no row matches.
func TestUpdateConstantFitsAtPlanLikePostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	for _, q := range []string{
		"CREATE TABLE uc (id int, v varchar(3), sm smallint, c char(2))",
		"UPDATE uc SET v = 'toolong' WHERE false",
		"UPDATE uc SET sm = 70000 WHERE id = 1",
		"UPDATE uc SET c = 'abc'",
		"UPDATE uc SET v = 'ab   ', c = 'x ' WHERE false",
		"INSERT INTO uc VALUES (1, 'a', 1, 'b')",
		"UPDATE uc SET v = 'abcd' WHERE id = 2",
		"UPDATE uc SET v = 'abc', sm = -32768 WHERE id = 1",
		"UPDATE uc SET v = v || 'xyz' WHERE id = 99",
		"UPDATE uc SET v = v || 'xyz' WHERE id = 1",
		"SELECT * FROM uc",
	} {
		compareStatement(t, s, conn, q)
	}
}
