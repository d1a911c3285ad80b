package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/pgerr"
)

// DDL inside BEGIN ... COMMIT (issue 11): what psycopg2, SQLAlchemy and
// pgjdbc with autocommit off send. The block sees its own CREATE and DROP;
// ROLLBACK leaves no table and no files; COMMIT applies drops and alters
// after the block's DML.
func TestDDLInTransactionBlocks(t *testing.T) {
	dir := t.TempDir()
	eng := testEngine(t, dir)
	s := testSessionOn(t, eng)
	other := testSessionOn(t, eng)

	// CREATE + INSERT + COMMIT: the table and its rows stay.
	mustQuery(t, s, "BEGIN")
	mustQuery(t, s, "CREATE TABLE a (id int, v text)")
	mustQuery(t, s, "INSERT INTO a VALUES (1, 'x'), (2, 'y')")
	if got := mustQuery(t, s, "SELECT count(*) FROM a").text(); got != "2\n" {
		t.Fatalf("the block's own table: %q", got)
	}
	if got := mustQuery(t, other, "SELECT count(*) FROM a").text(); got != "0\n" {
		t.Fatalf("another session sees the block's rows: %q", got)
	}
	mustQuery(t, s, "COMMIT")
	if got := mustQuery(t, other, "SELECT count(*) FROM a").text(); got != "2\n" {
		t.Fatalf("after COMMIT: %q", got)
	}

	// CREATE SCHEMA + CREATE TABLE + INSERT + ROLLBACK: nothing left.
	before := listFiles(t, dir)
	mustQuery(t, s, "BEGIN")
	mustQuery(t, s, "CREATE SCHEMA s2")
	mustQuery(t, s, "CREATE TABLE s2.b (id int)")
	mustQuery(t, s, "INSERT INTO s2.b VALUES (1)")
	mustQuery(t, s, "ROLLBACK")
	mustFail(t, s, pgerr.UndefinedTable, "SELECT * FROM s2.b")
	mustQuery(t, s, "CREATE SCHEMA s2") // it was dropped again
	mustQuery(t, s, "DROP SCHEMA s2")
	if after := listFiles(t, dir); len(after) > len(before) {
		t.Fatalf("ROLLBACK left files: %v", newFiles(before, after))
	}

	// DROP in a block: gone for the block, back after ROLLBACK.
	mustQuery(t, s, "BEGIN")
	mustQuery(t, s, "DELETE FROM a WHERE id = 1")
	mustQuery(t, s, "DROP TABLE a")
	mustFail(t, s, pgerr.UndefinedTable, "SELECT * FROM a")
	if got := mustQuery(t, other, "SELECT count(*) FROM a").text(); got != "2\n" {
		t.Fatalf("another session during the block's DROP: %q", got)
	}
	mustQuery(t, s, "ROLLBACK")
	if got := mustQuery(t, s, "SELECT count(*) FROM a").text(); got != "2\n" {
		t.Fatalf("after ROLLBACK of DROP: %q", got)
	}

	// ALTER then DROP, committed.
	mustQuery(t, s, "BEGIN")
	mustQuery(t, s, "ALTER TABLE a SET ('write.delete.mode' = 'merge-on-read')")
	mustQuery(t, s, "COMMIT")
	// merge-on-read now: a DELETE writes a delete file instead of rewriting.
	mustQuery(t, s, "DELETE FROM a WHERE id = 2")
	if got := mustQuery(t, s, `SELECT count(*) FROM "a$delete_files"`).text(); got != "1\n" {
		t.Fatalf("ALTER committed in a block: %q delete files after a DELETE", got)
	}
	mustQuery(t, s, "BEGIN")
	mustQuery(t, s, "DROP TABLE a")
	mustQuery(t, s, "COMMIT")
	mustFail(t, other, pgerr.UndefinedTable, "SELECT * FROM a")

	// A failed block rolls its CREATE back at COMMIT.
	mustQuery(t, s, "BEGIN")
	mustQuery(t, s, "CREATE TABLE c (id int)")
	mustFail(t, s, pgerr.DivisionByZero, "SELECT 1/0")
	if r := mustQuery(t, s, "COMMIT"); r.tag != "ROLLBACK" {
		t.Fatalf("COMMIT of a failed block: %s", r.tag)
	}
	mustFail(t, s, pgerr.UndefinedTable, "SELECT * FROM c")
}

func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && !strings.HasSuffix(p, ".db") && !strings.Contains(p, ".db-") {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func newFiles(before, after []string) []string {
	seen := map[string]bool{}
	for _, p := range before {
		seen[p] = true
	}
	var out []string
	for _, p := range after {
		if !seen[p] {
			out = append(out, p)
		}
	}
	return out
}
