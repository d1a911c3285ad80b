package session

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/magmalake/magmalake/lake"
)

// branchSteps write to the branch audit: magmalake's statements run on w
// with magmalake.branch = 'audit'; PostgreSQL keeps the branch as table wb
// (the same statements with wb for w) and main as table w.
var branchSteps = []string{
	"INSERT INTO w SELECT g, 'c' || (g % 3), g * 10 FROM generate_series(121, 160) g",
	"DELETE FROM w WHERE id % 10 = 0",
	"UPDATE w SET v = v + 1000 WHERE id % 7 = 0",
	"MERGE INTO w t USING src s ON t.id = s.id WHEN MATCHED AND s.id % 2 = 0 THEN DELETE WHEN MATCHED THEN UPDATE SET v = -s.v WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.cat, s.v)",
	"BEGIN; DELETE FROM w WHERE id < 20; INSERT INTO w VALUES (5000, 'x', 1); UPDATE w SET cat = 'y' WHERE id = 21; COMMIT",
	"INSERT INTO w REPLACE WHERE cat = 'c1' SELECT id + 1000, cat, v FROM src WHERE cat = 'c1'",
	"ALTER TABLE w EXECUTE optimize",
	"DELETE FROM w WHERE v < 300",
}

// pgBranchStep is step as PostgreSQL runs it on the branch's table wb.
func pgBranchStep(step string) []string {
	if strings.HasPrefix(step, "ALTER TABLE") {
		return nil // maintenance: the rows stay
	}
	step = strings.ReplaceAll(step, "INTO w ", "INTO wb ")
	step = strings.ReplaceAll(step, "FROM w ", "FROM wb ")
	step = strings.ReplaceAll(step, "UPDATE w ", "UPDATE wb ")
	if strings.Contains(step, "REPLACE WHERE") {
		return []string{"DELETE FROM wb WHERE cat = 'c1'", "INSERT INTO wb SELECT id + 1000, cat, v FROM src WHERE cat = 'c1'"}
	}
	return strings.Split(step, "; ")
}

// TestWriteAuditPublishLikePostgres: with magmalake.branch set, INSERT,
// DELETE, UPDATE, MERGE, a transaction block, REPLACE WHERE and OPTIMIZE
// change the branch as PostgreSQL 15 changes a copy of the table, in every
// table mode, while main keeps its snapshot id and rows; the branch reads
// the same through "w@audit", w.branch_audit and iceberg-go; after
// RESET the session reads main again; fast_forward publishes the branch,
// and iceberg-go then reads the branch's rows from main.
func TestWriteAuditPublishLikePostgres(t *testing.T) {
	for _, mode := range auditModes {
		t.Run(mode.name, func(t *testing.T) {
			conn := connectTestPostgres(t)
			s := testSession(t)
			for _, q := range mode.settings {
				mustQuery(t, s, q)
			}
			for _, q := range []string{
				"CREATE TABLE w (id int, cat text, v int)",
				"CREATE TABLE src (id int, cat text, v int)",
				"INSERT INTO w SELECT g, 'c' || (g % 3), g * 10 FROM generate_series(1, 120) g",
				"INSERT INTO src SELECT g, 'c' || (g % 3), g FROM generate_series(100, 140) g",
			} {
				mustPG(t, conn, q)
				if strings.HasPrefix(q, "CREATE TABLE w") {
					q += " " + mode.with
				}
				mustQuery(t, s, q)
			}
			mustQuery(t, s, "ALTER TABLE w CREATE BRANCH audit")
			mustPG(t, conn, "CREATE TABLE wb AS SELECT * FROM w")
			mainID := refID(t, s, "main")
			mustQuery(t, s, "SET magmalake.branch = 'audit'")
			for _, step := range branchSteps {
				for _, q := range pgBranchStep(step) {
					mustPG(t, conn, q)
				}
				for _, q := range strings.Split(step, "; ") {
					mustQuery(t, s, q)
				}
				sameRows(t, step, s, "SELECT * FROM w ORDER BY id", conn, "SELECT * FROM wb ORDER BY id")
				sameRows(t, step, s, `SELECT * FROM "w@main" ORDER BY id`, conn, "SELECT * FROM w ORDER BY id")
				if got := refID(t, s, "main"); got != mainID {
					t.Fatalf("after %q main moved from %s to %s", step, mainID, got)
				}
			}
			mustQuery(t, s, "RESET magmalake.branch")
			sameRows(t, "RESET", s, "SELECT * FROM w ORDER BY id", conn, "SELECT * FROM w ORDER BY id")
			sameRows(t, "RESET", s, `SELECT * FROM "w@audit" ORDER BY id`, conn, "SELECT * FROM wb ORDER BY id")
			sameRows(t, "RESET", s, "SELECT * FROM w.branch_audit ORDER BY id", conn, "SELECT * FROM wb ORDER BY id")
			_, want := fndRows(t, s, `SELECT * FROM "w@audit"`)
			tbl, err := s.engine.wh.LoadTable(t.Context(), lake.Ident("public", "w"))
			if err != nil {
				t.Fatal(err)
			}
			auditID, _ := strconv.ParseInt(refID(t, s, "audit"), 10, 64)
			if got := fndSorted(fndScanTable(t, tbl, &auditID)); fmt.Sprint(got) != fmt.Sprint(fndSorted(want)) {
				t.Fatalf("iceberg-go reads the branch as\n%v\nmagmalake\n%v", got, want)
			}

			mustQuery(t, s, "ALTER TABLE w EXECUTE fast_forward(branch => 'main', to => 'audit')")
			sameRows(t, "fast_forward", s, "SELECT * FROM w ORDER BY id", conn, "SELECT * FROM wb ORDER BY id")
			if got := fndSorted(fndIcebergRows(t, s, "public", "w")); fmt.Sprint(got) != fmt.Sprint(fndSorted(want)) {
				t.Fatalf("iceberg-go reads published main as\n%v\nmagmalake\n%v", got, want)
			}
		})
	}
}

// refID is the snapshot id ref names.
func refID(t *testing.T, s *Session, ref string) string {
	t.Helper()
	rows := mustQuery(t, s, `SELECT snapshot_id FROM "w$refs" WHERE name = '`+ref+`'`).rows
	if len(rows) != 1 {
		t.Fatalf("ref %s: %v", ref, rows)
	}
	return rows[0][0]
}

// sameRows compares a magmalake query with a PostgreSQL one.
func sameRows(t *testing.T, step string, s *Session, q string, conn *pgx.Conn, pq string) {
	t.Helper()
	want := mustPG(t, conn, pq)
	if got := mustQuery(t, s, q); fmt.Sprint(got.rows) != fmt.Sprint(want.rows) {
		t.Fatalf("after %q, %s:\n magmalake  %v\n PostgreSQL %v", step, q, got.rows, want.rows)
	}
}
