package session

import (
	"fmt"
	"strings"
	"testing"
)

// One-row INSERTs in a block are buffered: a read of the table inside the
// block sees them (and writes them first), COMMIT writes the rest, and the
// block makes one snapshot of two data files, not one file per INSERT.
// ROLLBACK leaves nothing.
func TestBlockInsertsBuffered(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE b (id int, name text)")
	mustQuery(t, s, "BEGIN")
	for i := 0; i < 40; i++ {
		mustQuery(t, s, fmt.Sprintf("INSERT INTO b VALUES (%d, 'n%d')", i, i))
	}
	if got := mustQuery(t, s, "SELECT count(*), sum(id) FROM b").text(); got != "40|780\n" {
		t.Fatalf("inside the block: %q", got)
	}
	for i := 40; i < 60; i++ {
		mustQuery(t, s, fmt.Sprintf("INSERT INTO b VALUES (%d, 'n%d')", i, i))
	}
	mustQuery(t, s, "COMMIT")
	if got := mustQuery(t, s, "SELECT count(*), sum(id) FROM b").text(); got != "60|1770\n" {
		t.Fatalf("after COMMIT: %q", got)
	}
	if got := mustQuery(t, s, `SELECT count(*) FROM "b$files"`).text(); got != "2\n" {
		t.Fatalf("data files: %q, want 2", got)
	}
	if got := mustQuery(t, s, `SELECT count(*) FROM "b$snapshots"`).text(); got != "1\n" {
		t.Fatalf("snapshots: %q, want 1", got)
	}
	mustQuery(t, s, "BEGIN")
	mustQuery(t, s, "INSERT INTO b VALUES (100, 'x')")
	mustQuery(t, s, "ROLLBACK")
	if got := mustQuery(t, s, "SELECT count(*) FROM b WHERE id = 100").text(); strings.TrimSpace(got) != "0" {
		t.Fatalf("rolled back row: %q", got)
	}
}
