package session

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/jackc/pgx/v5"

	"github.com/magmalake/magmalake/lake"
)

// evolutionStep is one statement of an evolution script; v3 steps (column
// defaults) run only on format 3 tables.
type evolutionStep struct {
	q  string
	v3 bool
}

// evolutionScript evolves table t through every kind of schema change
// PostgreSQL and Iceberg share (ADD, RENAME, DROP, re-ADD of a dropped
// name, ALTER TYPE int -> bigint, real -> double precision, numeric
// precision widening, ADD with a DEFAULT on a table with rows), with rows
// written between the steps and DELETE and UPDATE on the evolved table;
// table u loses every column it was created with. big adds enough rows
// for filters to read row groups by page ranges.
func evolutionScript(big bool) []evolutionStep {
	s := []evolutionStep{
		{q: "SET TimeZone = 'UTC'"},
		{q: "CREATE TABLE t (id int, a int, f real, n numeric(6,2), s text) %s"},
		{q: "INSERT INTO t VALUES (1, 10, 1.5, 1.25, 'one'), (2, NULL, 1.1, NULL, 'two'), (3, 30, NULL, 3.75, NULL)"},
	}
	if big {
		s = append(s, evolutionStep{q: "INSERT INTO t SELECT g, g % 7, g / 4.0, g % 1000, 'r' || g FROM generate_series(100, 3099) g"})
	}
	return append(s,
		evolutionStep{q: "ALTER TABLE t ADD COLUMN c int"},
		evolutionStep{q: "INSERT INTO t VALUES (4, 40, 4.5, 4.25, 'four', 400)"},
		evolutionStep{q: "ALTER TABLE t RENAME COLUMN a TO a2"},
		evolutionStep{q: "ALTER TABLE t ALTER COLUMN a2 TYPE bigint"},
		evolutionStep{q: "ALTER TABLE t ALTER COLUMN f TYPE double precision"},
		evolutionStep{q: "ALTER TABLE t ALTER COLUMN n TYPE numeric(10,2)"},
		evolutionStep{q: "INSERT INTO t VALUES (5, 5000000000, 5.25, 12345678.90, 'five', 500)"},
		evolutionStep{q: "ALTER TABLE t ADD COLUMN d int DEFAULT 7, ADD COLUMN dn numeric(5,1) NOT NULL DEFAULT 2.5", v3: true},
		evolutionStep{q: "ALTER TABLE t ADD COLUMN dt date DEFAULT '2024-02-29', ADD COLUMN fd real DEFAULT 1.1", v3: true},
		evolutionStep{q: "ALTER TABLE t DROP COLUMN s"},
		evolutionStep{q: "INSERT INTO t (id, c) VALUES (6, 600)"},
		evolutionStep{q: "ALTER TABLE t ADD COLUMN s text"},
		evolutionStep{q: "INSERT INTO t (id, s) VALUES (7, 'seven')"},
		// Old rows read the float default widened; new ones take it anew.
		evolutionStep{q: "ALTER TABLE t ALTER COLUMN fd TYPE double precision", v3: true},
		evolutionStep{q: "INSERT INTO t (id) VALUES (8)"},
		evolutionStep{q: "ALTER TABLE t RENAME COLUMN c TO c2"},
		evolutionStep{q: "DELETE FROM t WHERE c2 IS NULL AND id = 2"},
		evolutionStep{q: "UPDATE t SET c2 = 1 WHERE c2 IS NULL AND id = 3"},
		evolutionStep{q: "UPDATE t SET s = 'x' WHERE s IS NULL AND id IN (1, 4)"},
		evolutionStep{q: "DELETE FROM t WHERE c2 = 400"},
		evolutionStep{q: "DELETE FROM t WHERE a2 = 30"},
		evolutionStep{q: "DELETE FROM t WHERE d = 7 AND id = 5", v3: true},
		evolutionStep{q: "UPDATE t SET d = DEFAULT, dn = dn + 1 WHERE dt = '2024-02-29' AND id = 6", v3: true},
		evolutionStep{q: "CREATE TABLE u (x int, y text) %s"},
		evolutionStep{q: "INSERT INTO u VALUES (1, 'a'), (2, 'b')"},
		evolutionStep{q: "ALTER TABLE u ADD COLUMN z int"},
		evolutionStep{q: "ALTER TABLE u DROP COLUMN x"},
		evolutionStep{q: "ALTER TABLE u DROP COLUMN y"},
		evolutionStep{q: "INSERT INTO u VALUES (3)"},
		evolutionStep{q: "ALTER TABLE u ADD COLUMN w int DEFAULT 5", v3: true},
		evolutionStep{q: "UPDATE u SET z = 9 WHERE z IS NULL AND w = 5", v3: true},
		evolutionStep{q: "DELETE FROM u WHERE z IS NULL"},
		evolutionStep{q: "INSERT INTO u (z) VALUES (NULL), (4)"},
	)
}

// projectionQueries are the reads compared after each step: each column
// of table tbl alone, next to its neighbour, counted, tested for NULL and
// compared with a constant of its type, and count(*).
func projectionQueries(t *testing.T, conn *pgx.Conn, tbl string) []string {
	t.Helper()
	cols := mustPG(t, conn, "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = '"+tbl+"' ORDER BY ordinal_position").rows
	qs := []string{"SELECT count(*) FROM " + tbl}
	for i, c := range cols {
		name := c[0]
		qs = append(qs,
			fmt.Sprintf("SELECT %s FROM %s ORDER BY 1 NULLS FIRST", name, tbl),
			fmt.Sprintf("SELECT count(%s) FROM %s", name, tbl),
			fmt.Sprintf("SELECT count(*) FROM %s WHERE %s IS NULL", tbl, name),
			fmt.Sprintf("SELECT %s FROM %s WHERE %s IS NOT NULL ORDER BY 1 LIMIT 2", name, tbl, name))
		if k := constantOf(c[1]); k != "" {
			qs = append(qs, fmt.Sprintf("SELECT count(*), count(%s) FROM %s WHERE %s > %s", name, tbl, name, k))
		}
		if i > 0 {
			qs = append(qs, fmt.Sprintf("SELECT %s, %s FROM %s ORDER BY 1 NULLS FIRST, 2 NULLS FIRST", cols[i-1][0], name, tbl))
		}
		if tbl == "t" && name != "id" {
			qs = append(qs, fmt.Sprintf("SELECT id, %s FROM t WHERE id = 2500 OR id = 4 ORDER BY id", name))
		}
	}
	return qs
}

// constantOf is a constant to compare a column of PostgreSQL data type
// with; "" for none.
func constantOf(dataType string) string {
	switch dataType {
	case "integer", "bigint", "smallint", "numeric", "real", "double precision":
		return "2"
	case "text", "character varying":
		return "'m'"
	case "date":
		return "'2023-06-01'"
	}
	return ""
}

// runEvolution runs the script on s and PostgreSQL, comparing every
// projection of t and u after each step.
func runEvolution(t *testing.T, s *Session, conn *pgx.Conn, script []evolutionStep, with string, v3 bool) {
	t.Helper()
	for _, st := range script {
		if st.v3 && !v3 {
			continue
		}
		if strings.Contains(st.q, "%s") {
			mustPG(t, conn, fmt.Sprintf(st.q, ""))
			mustQuery(t, s, fmt.Sprintf(st.q, with))
		} else {
			compareStatement(t, s, conn, st.q)
		}
		for _, tbl := range []string{"t", "u"} {
			if len(mustPG(t, conn, "SELECT 1 FROM pg_class WHERE relname = '"+tbl+"'").rows) == 0 {
				continue
			}
			for _, q := range projectionQueries(t, conn, tbl) {
				compareStatement(t, s, conn, q)
			}
		}
	}
}

// TestSchemaEvolutionProjectionsLikePostgres: after every step of schema
// evolution, every projection of the evolved tables reads as PostgreSQL's
// (a query reading only columns added after old files were written
// failed), on copy-on-write and merge-on-read tables of format 2 and 3
// (the delete engine reads the old files for DELETE and UPDATE), with row
// groups read by page ranges, and on S3.
func TestSchemaEvolutionProjectionsLikePostgres(t *testing.T) {
	mor := "'write.delete.mode' = 'merge-on-read', 'write.update.mode' = 'merge-on-read'"
	for _, c := range []struct {
		name, with string
		v3, big    bool
	}{
		{"v2", "", false, false},
		{"v2-mor", "WITH (" + mor + ")", false, false},
		{"v2-mor-equality", "WITH (" + mor + ")", false, false},
		// No column metrics: the data files' footers say what they hold.
		{"v2-no-metrics", "WITH ('write.metadata.metrics.default' = 'none')", false, false},
		{"v3", "WITH ('format-version' = '3')", true, false},
		{"v3-mor-pages", "WITH ('format-version' = '3', " + mor + ", 'write.parquet.page-row-limit' = '100', 'write.parquet.page-size-bytes' = '1')", true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn := connectTestPostgres(t)
			s := testSession(t)
			script := evolutionScript(c.big)
			if strings.HasSuffix(c.name, "equality") {
				// A custom setting to PostgreSQL; equality deletes here.
				script = append([]evolutionStep{{q: "SET magmalake.equality_deletes = on"}}, script...)
			}
			runEvolution(t, s, conn, script, c.with, c.v3)
			if strings.HasSuffix(c.name, "equality") {
				if got := mustQuery(t, s, `SELECT count(*) FROM "t$delete_files" WHERE content = 2`).text(); got == "0\n" {
					t.Fatal("no equality delete file written")
				}
			}
			if c.big {
				checkPagedRead(t, s)
			}
			// Compaction rewrites the old files in the current schema
			// (defaults filled in): the projections read the same.
			for _, tbl := range []string{"t", "u"} {
				if out := mustQuery(t, s, "ALTER TABLE "+tbl+" EXECUTE optimize(delete_ratio_threshold => 0.01)").rows[0]; out[0] == "0" {
					t.Fatalf("optimize of %s rewrote no file: %v", tbl, out)
				}
				for _, q := range projectionQueries(t, conn, tbl) {
					compareStatement(t, s, conn, q)
				}
			}
		})
	}
}

// TestSchemaEvolutionProjectionsOnS3 runs the evolution on S3 (versitygw):
// the same projections read through the object store's IO.
func TestSchemaEvolutionProjectionsOnS3(t *testing.T) {
	cfg, _ := s3Lake(t, "evolution")
	s := testSessionOn(t, testEngineWith(t, cfg))
	conn := connectTestPostgres(t)
	runEvolution(t, s, conn, evolutionScript(false), "WITH ('format-version' = '3', 'write.delete.mode' = 'merge-on-read', 'write.update.mode' = 'merge-on-read')", true)
}

// checkPagedRead makes sure the big variant's point lookups read a row
// group by page ranges, also of a column its file lacks: the page reader
// was compared too.
func checkPagedRead(t *testing.T, s *Session) {
	t.Helper()
	tbl, err := s.engine.wh.LoadTable(t.Context(), lake.Ident("public", "t"))
	if err != nil {
		t.Fatal(err)
	}
	var st lake.ScanStats
	_, seq, err := lake.Scan(t.Context(), tbl, lake.ScanOptions{Columns: []string{"c2", "a2", "dt"},
		Filter: iceberg.EqualTo(iceberg.Reference("id"), int32(2500)), Stats: &st})
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for b, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		rows += int(b.NumRows())
		b.Release()
	}
	if st.PagedRowGroups == 0 || rows == 0 {
		t.Fatalf("point lookup: %+v, %d rows; want a row group read by page ranges", st, rows)
	}
}
