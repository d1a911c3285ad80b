package session

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/pgerr"
)

// metadataKinds are the metadata tables SQL offers ("t$kind"), written
// out here so that the registry cannot lose or gain one unnoticed.
var metadataKinds = []string{
	"changes", "data_files", "delete_debt", "delete_debt_summary", "delete_files", "entries",
	"files", "history", "manifests", "partitions", "properties", "refs", "snapshots",
}

// TestMetadataTablesSelectable: every registered metadata table of a
// partitioned table with a delete file can be selected from, has rows,
// and DESCRIBE lists the columns SELECT * returns.
func TestMetadataTablesSelectable(t *testing.T) {
	if got := MetadataTableKinds(); !slices.Equal(got, metadataKinds) {
		t.Fatalf("metadata tables %v, want %v", got, metadataKinds)
	}
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE mt (id int, g int) PARTITIONED BY (g) WITH ('format-version' = '2', 'write.delete.mode' = 'merge-on-read')")
	mustQuery(t, s, "INSERT INTO mt SELECT i, i % 2 FROM generate_series(1, 10) i")
	mustQuery(t, s, "DELETE FROM mt WHERE id = 3")
	for _, kind := range MetadataTableKinds() {
		name := `"mt$` + kind + `"`
		var described []string
		for _, r := range mustQuery(t, s, "DESCRIBE "+name).rows {
			described = append(described, r[0]+" "+r[1])
		}
		selected, rows := selectAll(t, s, name)
		if rows == 0 {
			t.Errorf("%s has no rows", name)
		}
		if !slices.Equal(described, selected) || len(selected) < 2 {
			t.Errorf("DESCRIBE %s lists %v; SELECT * has %v", name, described, selected)
		}
		t.Logf("%s: %d rows; %s", kind, rows, strings.Join(selected, ", "))
	}
}

// selectAll runs SELECT * FROM name: its columns ("name type") and rows.
func selectAll(t *testing.T, s *Session, name string) ([]string, int) {
	t.Helper()
	ctx := context.Background()
	p, err := s.Prepare(ctx, "SELECT * FROM "+name, nil)
	if err != nil {
		t.Fatalf("SELECT * FROM %s: %v", name, err)
	}
	res, err := s.Execute(ctx, p, nil)
	if err != nil {
		t.Fatalf("SELECT * FROM %s: %v", name, err)
	}
	var cols []string
	for _, c := range res.Columns {
		cols = append(cols, c.Name+" "+c.Type.String())
	}
	out, err := resultOf(ctx, res)
	if err != nil {
		t.Fatalf("SELECT * FROM %s: %v", name, err)
	}
	return cols, len(out.rows)
}

// TestUnknownMetadataTable: a kind no metadata table has is 42P01 naming
// the kinds there are, whatever the statement (name resolution asks the
// registry); a missing base table is the relation that does not exist.
func TestUnknownMetadataTable(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE um (id int)")
	for _, q := range []string{`SELECT * FROM "um$nope"`, `DESCRIBE "um$nope"`, `SELECT count(*) FROM public."um$nope"`} {
		_, err := s.query(context.Background(), q)
		var se *pgerr.Error
		if !errors.As(err, &se) || se.Code != pgerr.UndefinedTable {
			t.Fatalf("%s: want 42P01, got %v", q, err)
		}
		want := fmt.Sprintf("read public.um$nope: unknown metadata table (known: [%s])", strings.Join(metadataKinds, " "))
		if se.Message != want {
			t.Errorf("%s: message %q, want %q", q, se.Message, want)
		}
	}
	mustFail(t, s, pgerr.UndefinedTable, `SELECT * FROM "nosuch$files"`)
	mustFail(t, s, pgerr.WrongObjectType, `INSERT INTO "um$files" VALUES (1)`)
	// Writes name no relation either; DROP must not reach the base table.
	for _, q := range []string{`INSERT INTO "um$nope" VALUES (1)`, `DELETE FROM "um$nope"`, `DROP TABLE "um$nope"`} {
		mustFail(t, s, pgerr.UndefinedTable, q)
	}
	if r := mustQuery(t, s, `DROP TABLE IF EXISTS "um$nope"`); r.tag != "DROP TABLE" {
		t.Fatalf("DROP TABLE IF EXISTS: %+v", r)
	}
	mustQuery(t, s, "SELECT * FROM um")
}

// TestDDLRefusesMetadataTablesAndRefs: DROP TABLE and ALTER TABLE SET/RESET
// of "t$files", "t@b" or t.branch_b name no table of their own; they are
// 42809 and leave t and its properties alone, in a block or not.
func TestDDLRefusesMetadataTablesAndRefs(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE dr (id int) WITH ('k' = 'v')")
	mustQuery(t, s, "INSERT INTO dr VALUES (1)")
	mustQuery(t, s, "ALTER TABLE dr CREATE BRANCH b")
	for _, name := range []string{`"dr$files"`, `"dr$snapshots"`, `"dr@b"`, `dr.branch_b`} {
		for _, block := range []bool{false, true} {
			if block {
				mustQuery(t, s, "BEGIN")
			}
			for _, q := range []string{"DROP TABLE " + name, "DROP TABLE IF EXISTS " + name,
				"ALTER TABLE " + name + " SET ('k' = 'changed')", "ALTER TABLE " + name + " RESET ('k')"} {
				_, err := s.query(context.Background(), q)
				var se *pgerr.Error
				if !errors.As(err, &se) || se.Code != pgerr.WrongObjectType {
					t.Fatalf("%s (block %v): want 42809, got %v", q, block, err)
				}
				if block {
					mustQuery(t, s, "ROLLBACK")
					mustQuery(t, s, "BEGIN")
				}
			}
			if block {
				mustQuery(t, s, "ROLLBACK")
			}
			if got := mustQuery(t, s, `SELECT value FROM "dr$properties" WHERE key = 'k'`).text(); got != "v\n" {
				t.Fatalf("after statements on %s (block %v): property k is %q", name, block, got)
			}
			mustQuery(t, s, "SELECT * FROM dr")
		}
	}
}

// TestCopyMetadataTableColumns: COPY "t$kind" (cols) TO STDOUT names the
// metadata table's columns, not the base table's, and copies what SELECT
// of those columns returns.
func TestCopyMetadataTableColumns(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE cm (id int)")
	mustQuery(t, s, "INSERT INTO cm VALUES (1)")
	mustQuery(t, s, "INSERT INTO cm VALUES (2)")
	want := mustQuery(t, s, `SELECT operation, snapshot_id FROM "cm$snapshots"`).text()
	if _, got := copyOut(t, s, `COPY "cm$snapshots" (operation, snapshot_id) TO STDOUT`); got != want || strings.Count(got, "\n") != 2 {
		t.Fatalf("COPY copied %q, SELECT returns %q", got, want)
	}
	mustFail(t, s, pgerr.UndefinedColumn, `COPY "cm$files" (id) TO STDOUT`)
}
