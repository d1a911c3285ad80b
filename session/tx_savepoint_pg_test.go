package session

import (
	"fmt"
	"testing"
)

// SAVEPOINT / ROLLBACK TO / RELEASE (issue 11), statement by statement
// against PostgreSQL 15, in the four table modes: rows, tags, SQLSTATEs.
func TestSavepointsMatchPostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	script := []string{
		"SAVEPOINT outside",
		"BEGIN",
		"INSERT INTO sp VALUES (1, 'a'), (2, 'b'), (3, 'c')",
		"SAVEPOINT a",
		"INSERT INTO sp VALUES (4, 'd')",
		"DELETE FROM sp WHERE id = 1",
		"UPDATE sp SET v = 'B' WHERE id = 2",
		"SELECT id, v FROM sp ORDER BY id",
		"ROLLBACK TO SAVEPOINT a",
		"SELECT id, v FROM sp ORDER BY id",
		"DELETE FROM sp WHERE id = 3",
		"SAVEPOINT b",
		"UPDATE sp SET v = 'x'",
		"SELECT 1/0",
		"SELECT id FROM sp",
		"ROLLBACK TO b",
		"SELECT id, v FROM sp ORDER BY id",
		"SAVEPOINT c",
		"CREATE TABLE sp2 (id int)",
		"INSERT INTO sp2 VALUES (1)",
		"ROLLBACK TO c",
		"SELECT * FROM sp2",
		"ROLLBACK TO c",
		"RELEASE SAVEPOINT a",
		"ROLLBACK TO b",
		"INSERT INTO sp VALUES (5, 'e')",
		"COMMIT",
		"SELECT id, v FROM sp ORDER BY id",
		"BEGIN",
		"SAVEPOINT s",
		"DELETE FROM sp",
		"RELEASE s",
		"SAVEPOINT s",
		"ROLLBACK TO s",
		"ROLLBACK",
		"SELECT id, v FROM sp ORDER BY id",
	}
	for mi, mode := range fnTableModes {
		t.Run(fmt.Sprintf("mode%d", mi), func(t *testing.T) {
			mustPG(t, conn, "DROP TABLE IF EXISTS sp")
			mustPG(t, conn, "CREATE TABLE sp (id int, v text)")
			eng := testEngine(t, t.TempDir())
			s := testSessionOn(t, eng)
			mustQuery(t, s, "CREATE TABLE sp (id int, v text) "+mode)
			for _, q := range script {
				compareStatement(t, s, conn, q)
			}
		})
	}
}

// ROLLBACK TO removes the files written after the savepoint: a block that
// only rolls back leaves exactly the files it found.
func TestSavepointRollbackRemovesFiles(t *testing.T) {
	dir := t.TempDir()
	s := testSessionOn(t, testEngine(t, dir))
	mustQuery(t, s, "CREATE TABLE f (id int) WITH ('format-version' = '3', 'write.delete.mode' = 'merge-on-read')")
	mustQuery(t, s, "INSERT INTO f VALUES (1), (2), (3)")
	before := listFiles(t, dir)
	mustQuery(t, s, "BEGIN")
	mustQuery(t, s, "INSERT INTO f VALUES (4)")
	mustQuery(t, s, "SAVEPOINT a")
	mustQuery(t, s, "DELETE FROM f WHERE id = 1")
	mustQuery(t, s, "INSERT INTO f VALUES (5)")
	mustQuery(t, s, "ROLLBACK TO a")
	mustQuery(t, s, "DELETE FROM f WHERE id = 2")
	mustQuery(t, s, "ROLLBACK TO a")
	if got := mustQuery(t, s, "SELECT count(*) FROM f").text(); got != "4\n" {
		t.Fatalf("after ROLLBACK TO: %q", got)
	}
	mustQuery(t, s, "ROLLBACK")
	if after := listFiles(t, dir); len(after) != len(before) {
		t.Fatalf("left behind: %v", newFiles(before, after))
	}
}
