package session

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
)

// defaultScript gives a table defaults as PostgreSQL 15 has them: columns
// added with a DEFAULT to a table with rows (which read it), rows written
// without the column or with DEFAULT (INSERT, INSERT ... SELECT, UPDATE SET
// c = DEFAULT, MERGE's INSERT), the default changed and dropped, rows
// rewritten after the change (DELETE, UPDATE), filters on defaulted
// columns. %s is the table's WITH clause.
var defaultScript = []string{
	"SET TimeZone = 'UTC'",
	"CREATE TABLE d (id int, name text) %s",
	"INSERT INTO d VALUES (1, 'a'), (2, 'b'), (3, 'c')",
	"ALTER TABLE d ADD COLUMN n int DEFAULT 5",
	"ALTER TABLE d ADD COLUMN s varchar(10) NOT NULL DEFAULT 'x', ADD COLUMN dt date DEFAULT DATE '2024-02-29'",
	"ALTER TABLE d ADD COLUMN ts timestamptz DEFAULT '2024-01-01 10:00:00+00', ADD COLUMN amt numeric(10,2) DEFAULT 1.5",
	"ALTER TABLE d ADD COLUMN flag boolean DEFAULT true, ADD COLUMN neg bigint DEFAULT -7, ADD COLUMN plain int",
	"SELECT * FROM d ORDER BY id",
	"SELECT id FROM d WHERE n = 5 AND s = 'x' AND dt = DATE '2024-02-29' AND flag ORDER BY id",
	"INSERT INTO d (id, name) VALUES (4, 'd')",
	"INSERT INTO d VALUES (5, 'e', DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT)",
	"INSERT INTO d (id) SELECT 6",
	"UPDATE d SET n = 50 WHERE id = 1",
	"UPDATE d SET n = DEFAULT, plain = 1 WHERE id = 1",
	"ALTER TABLE d ALTER COLUMN n SET DEFAULT 9",
	"INSERT INTO d (id) VALUES (7)",
	"ALTER TABLE d ALTER COLUMN n DROP DEFAULT",
	"INSERT INTO d (id) VALUES (8)",
	"DELETE FROM d WHERE id = 2",
	"UPDATE d SET name = 'u' WHERE id = 3",
	"MERGE INTO d USING (SELECT g AS id FROM generate_series(8, 9) g) v ON d.id = v.id WHEN MATCHED THEN UPDATE SET name = 'm' WHEN NOT MATCHED THEN INSERT (id) VALUES (v.id)",
	"SELECT * FROM d ORDER BY id",
	"SELECT id FROM d WHERE n = 5 ORDER BY id",
	"SELECT count(*) FROM d WHERE s = 'x'",
	"INSERT INTO d (id, s) VALUES (10, NULL)",
	"ALTER TABLE d ADD COLUMN nn int NOT NULL DEFAULT NULL",
	"SELECT column_name, column_default FROM information_schema.columns WHERE table_name = 'd' AND column_name <> 'amt' ORDER BY ordinal_position",
	// What psql's \d and pgjdbc's getColumns read.
	"SELECT a.attname, a.atthasdef, pg_get_expr(d.adbin, d.adrelid) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid " +
		"LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum WHERE c.relname = 'd' AND a.attnum > 0 AND a.attname <> 'amt' ORDER BY a.attnum",
}

// TestColumnDefaultsLikePostgres: the script on v3 tables (copy-on-write
// and merge-on-read) and on PostgreSQL 15: the same rows, tags and
// SQLSTATEs; iceberg-go, which reads the old files through the columns'
// initial-defaults, then reads what magmalake reads; COPY without a column
// gives it its default.
func TestColumnDefaultsLikePostgres(t *testing.T) {
	for _, with := range []string{
		"WITH ('format-version' = '3')",
		"WITH ('format-version' = '3', 'write.delete.mode' = 'merge-on-read', 'write.update.mode' = 'merge-on-read', 'write.merge.mode' = 'merge-on-read')",
	} {
		t.Run(fmt.Sprint(strings.Count(with, "merge-on-read")), func(t *testing.T) {
			conn := connectTestPostgres(t)
			s := testSession(t)
			runScriptLikePostgres(t, s, conn, defaultScript, with)
			checkIcebergGoReads(t, s, "public", "d")
			mustCopyIn(t, s, "COPY d (id) FROM STDIN", "11\n", 1)
			mustPG(t, conn, "INSERT INTO d (id) VALUES (11)")
			compareStatement(t, s, conn, "SELECT * FROM d WHERE id = 11")
		})
	}
}

// TestColumnDefaultRefusals: a default Iceberg cannot store is refused
// with 0A000 and changes nothing.
func TestColumnDefaultRefusals(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE v2 (id int)")
	mustQuery(t, s, "CREATE TABLE v3 (id int) WITH ('format-version' = '3')")
	for q, code := range map[string]pgerr.Code{
		"CREATE TABLE x (a int DEFAULT 1)":                                  pgerr.FeatureNotSupported,
		"ALTER TABLE v2 ADD COLUMN a int DEFAULT 1":                         pgerr.FeatureNotSupported,
		"ALTER TABLE v3 ADD COLUMN a timestamp DEFAULT now()":               pgerr.FeatureNotSupported,
		"ALTER TABLE v3 ADD COLUMN a int DEFAULT random()::int":             pgerr.FeatureNotSupported,
		"ALTER TABLE v3 ADD COLUMN a varchar(2) DEFAULT 'toolong'":          pgerr.StringDataRightTruncation,
		"ALTER TABLE v3 ADD COLUMN a int DEFAULT 'x'":                       pgerr.InvalidTextRepresentation,
		"CREATE TABLE y (a int DEFAULT 1) WITH ('format-version' = '3', x)": pgerr.SyntaxError,
		// Evaluated per row in PostgreSQL: not a value a schema can hold.
		"CREATE TABLE x (a timestamptz DEFAULT now()) WITH ('format-version' = '3')":             pgerr.FeatureNotSupported,
		"CREATE TABLE x (a date DEFAULT current_date) WITH ('format-version' = '3')":             pgerr.FeatureNotSupported,
		"CREATE TABLE x (a timestamptz DEFAULT CURRENT_TIMESTAMP) WITH ('format-version' = '3')": pgerr.FeatureNotSupported,
		"ALTER TABLE v3 ALTER COLUMN id SET DEFAULT now()::date - DATE '2000-01-01'":             pgerr.FeatureNotSupported,
		// Sequences: no syntax error for valid PostgreSQL.
		"CREATE TABLE x (a bigint DEFAULT nextval('s')) WITH ('format-version' = '3')":           pgerr.FeatureNotSupported,
		"CREATE TABLE x (a bigint DEFAULT nextval('s'::regclass)) WITH ('format-version' = '3')": pgerr.FeatureNotSupported,
		"CREATE TABLE x (a serial, b int) WITH ('format-version' = '3')":                         pgerr.FeatureNotSupported,
		"ALTER TABLE v3 ADD COLUMN a bigserial":                                                  pgerr.FeatureNotSupported,
		"SELECT nextval('s')":                                                                    pgerr.FeatureNotSupported,
	} {
		mustFail(t, s, code, q)
	}
	if got := mustQuery(t, s, "SELECT count(*) FROM information_schema.columns WHERE table_name IN ('v2', 'v3', 'x')").text(); got != "2\n" {
		t.Fatalf("columns after refusals: %s", got)
	}
	mustQuery(t, s, "CREATE TABLE z (a int DEFAULT 1 + 2, b text DEFAULT 'q' NOT NULL) WITH ('format-version' = '3')")
	mustQuery(t, s, "INSERT INTO z (b) VALUES ('r')")
	mustQuery(t, s, "INSERT INTO z DEFAULT VALUES")
	if got := mustQuery(t, s, "SELECT a, b FROM z ORDER BY b").text(); got != "3|q\n3|r\n" {
		t.Fatalf("z: %q", got)
	}
}

// TestUnreadableDefaultRepairedByAlter: a table whose metadata holds a
// default that cannot be read (the decimal an earlier version wrote, an
// object without its value) fails INSERTs that would take it with 42P16
// instead of writing NULL, and ALTER TABLE, which panicked in iceberg-go
// comparing the object, commits without it, with a warning, so SET
// DEFAULT repairs the column.
func TestUnreadableDefaultRepairedByAlter(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE ok (id int)")
	legacy := map[string]any{"Scale": 2.0, "Val": map[string]any{}}
	sc := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int32},
		iceberg.NestedField{ID: 2, Name: "a", Type: iceberg.DecimalTypeOf(12, 2), InitialDefault: legacy, WriteDefault: legacy},
		iceberg.NestedField{ID: 3, Name: "e", Type: iceberg.PrimitiveTypes.Int64, InitialDefault: 7.0, WriteDefault: 7.0})
	if _, err := s.engine.wh.Catalog().CreateTable(t.Context(), lake.Ident("public", "legacy"), sc,
		catalog.WithProperties(iceberg.Properties{"format-version": "3"})); err != nil {
		t.Fatal(err)
	}
	mustFail(t, s, pgerr.InvalidTableDefinition, "INSERT INTO legacy (id) VALUES (1)")
	mustQuery(t, s, "INSERT INTO legacy (id, a) VALUES (1, 2.5)")
	p, err := s.Prepare(t.Context(), "ALTER TABLE legacy ADD COLUMN k int DEFAULT 3", nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Execute(t.Context(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Notices) != 1 || res.Notices[0].Severity != "WARNING" || !strings.Contains(res.Notices[0].Message, `column "a" cannot be read`) {
		t.Fatalf("ALTER TABLE notices: %+v", res.Notices)
	}
	mustQuery(t, s, "INSERT INTO legacy (id) VALUES (2)")
	mustQuery(t, s, "ALTER TABLE legacy ALTER COLUMN a SET DEFAULT 1.5")
	mustQuery(t, s, "INSERT INTO legacy (id) VALUES (3)")
	if got := mustQuery(t, s, "SELECT * FROM legacy ORDER BY id").text(); got != "1|2.50|7|3\n2|NULL|7|3\n3|1.50|7|3\n" {
		t.Fatalf("rows: %q", got)
	}
}
