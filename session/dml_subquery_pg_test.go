package session

import (
	"fmt"
	"testing"
)

// Subqueries in DELETE and UPDATE (WHERE, SET, RETURNING) run in the query
// engine; each statement's rows, tags and SQLSTATEs are PostgreSQL 15's, in
// every table mode, self-references included (issues 12 and 13).
func TestDMLSubqueriesMatchPostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	script := []string{
		"INSERT INTO ds VALUES (1,1,10.5,'a'),(2,1,20,'b'),(3,1,20,'c'),(4,2,5,'d'),(5,2,NULL,'e'),(6,NULL,7,'f'),(7,2,5,NULL),(8,3,1,'h'),(9,3,2,'i')",
		"INSERT INTO de VALUES (2),(4),(NULL)",
		"DELETE FROM ds WHERE id IN (SELECT id FROM de)",
		"SELECT * FROM ds ORDER BY id",
		"DELETE FROM ds WHERE id NOT IN (SELECT id FROM de)",
		"UPDATE ds SET s = (SELECT max(s) FROM ds d2 WHERE d2.g = ds.g) WHERE g IS NOT NULL",
		"SELECT * FROM ds ORDER BY id",
		"UPDATE ds SET v = (SELECT count(*) FROM de) WHERE id > 6 RETURNING id, v",
		"DELETE FROM ds WHERE EXISTS (SELECT 1 FROM ds d2 WHERE d2.g = ds.g AND d2.id > ds.id) RETURNING id",
		"SELECT * FROM ds ORDER BY id",
		"DELETE FROM ds WHERE id = (SELECT id FROM ds)",
		"DELETE FROM ds WHERE id IN (SELECT id FROM ds WHERE g = 3)",
		"DELETE FROM ds WHERE id = ANY(ARRAY[6, 100])",
		"SELECT * FROM ds ORDER BY id",
	}
	for mi, mode := range fnTableModes {
		t.Run(fmt.Sprintf("mode%d", mi), func(t *testing.T) {
			s := testSession(t)
			mustPG(t, conn, "DROP TABLE IF EXISTS ds, de")
			for _, ddl := range []string{"CREATE TABLE ds (id int, g int, v numeric(10,2), s text)", "CREATE TABLE de (id int)"} {
				mustPG(t, conn, ddl)
				mustQuery(t, s, ddl+" "+mode)
			}
			for _, q := range script {
				compareStatement(t, s, conn, q)
			}
		})
	}
}
