package session

import (
	"testing"

	"github.com/magmalake/magmalake/pgerr"
)

// TestViewsLikePostgres: views over tables and over views, with column
// lists, joins, aggregates, CTEs and subqueries; CREATE OR REPLACE adding
// a column and refusing to drop or rename one; a table's later column not
// appearing through a view's SELECT *; the catalog's listing; DROP VIEW
// and DROP TABLE on the wrong kind; DDL in blocks: tags, rows and
// SQLSTATEs as PostgreSQL 15 gives them.
func TestViewsLikePostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	for _, q := range []string{
		"CREATE TABLE vt (id int, g int, s text)",
		"INSERT INTO vt VALUES (1, 1, 'a'), (2, 1, 'b'), (3, 2, NULL), (4, 3, 'd')",
		"CREATE TABLE dim (g int, label text)",
		"INSERT INTO dim VALUES (1, 'one'), (2, 'two')",
		"CREATE VIEW v1 AS SELECT id, upper(s) AS us FROM vt WHERE s IS NOT NULL",
		"SELECT * FROM v1 ORDER BY id",
		"CREATE VIEW v2 (k, label) AS SELECT vt.id, d.label FROM vt JOIN dim d USING (g)",
		"SELECT * FROM v2 ORDER BY k",
		"CREATE VIEW v3 AS WITH c AS (SELECT g, count(*) AS n FROM vt GROUP BY g) SELECT g, n, (SELECT label FROM dim WHERE dim.g = c.g) AS label FROM c",
		"SELECT * FROM v3 ORDER BY g",
		"CREATE VIEW v4 AS SELECT v1.id, v1.us, v2.label FROM v1 LEFT JOIN v2 ON v2.k = v1.id",
		"SELECT * FROM v4 ORDER BY id",
		"SELECT count(*), max(us) FROM v1 WHERE id IN (SELECT k FROM v2)",
		"CREATE VIEW v1 AS SELECT 1",
		"CREATE VIEW vt AS SELECT 1",
		"CREATE VIEW bad AS SELECT nope FROM vt",
		"CREATE VIEW dup (a, a) AS SELECT id, g FROM vt",
		"CREATE VIEW toomany (a, b, c, d, e) AS SELECT id FROM vt",
		"CREATE OR REPLACE VIEW v1 AS SELECT id, upper(s) AS us, g FROM vt WHERE s IS NOT NULL",
		"SELECT * FROM v1 ORDER BY id",
		"CREATE OR REPLACE VIEW v1 AS SELECT id FROM vt",
		"CREATE OR REPLACE VIEW v1 AS SELECT id, s AS other, g FROM vt",
		"CREATE OR REPLACE VIEW vt AS SELECT 1",
		"CREATE VIEW star AS SELECT * FROM vt",
		"ALTER TABLE vt ADD COLUMN extra int",
		"INSERT INTO vt VALUES (5, 1, 'e', 50)",
		"SELECT * FROM star ORDER BY id",
		"SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1",
		"SELECT table_name FROM information_schema.views WHERE table_schema = 'public' ORDER BY 1",
		"SELECT c.relname, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' ORDER BY 1",
		"SELECT viewname FROM pg_views WHERE schemaname = 'public' ORDER BY 1",
		"DROP VIEW vt",
		"DROP TABLE v1",
		"DROP VIEW nope",
		"DROP VIEW IF EXISTS nope",
		"BEGIN",
		"CREATE VIEW inblock AS SELECT 42 AS x",
		"SELECT * FROM inblock",
		"ROLLBACK",
		"SELECT * FROM inblock",
		"BEGIN",
		"DROP VIEW v4",
		"SELECT * FROM v4",
		"ROLLBACK",
		"SELECT count(*) FROM v4",
		"DROP VIEW v4",
		"SELECT * FROM v4",
		"CREATE SCHEMA other",
		"CREATE VIEW other.ov AS SELECT label FROM dim",
		"SELECT * FROM other.ov ORDER BY 1",
	} {
		compareStatement(t, s, conn, q)
	}
	for _, q := range []string{"INSERT INTO v1 VALUES (9, 'z', 1)", "DELETE FROM v1", "UPDATE v1 SET g = 1", "ALTER TABLE v1 ADD COLUMN z int"} {
		mustFail(t, s, pgerr.WrongObjectType, q) // PostgreSQL writes through simple views; here views are read-only
	}
}

// A view's columns are described with the types its query gives them
// (issue 48, item 10): sum(numeric) is numeric, not text; varchar(2),
// char(3), smallint and an unbounded numeric keep their types in
// information_schema.columns, pg_attribute (which psql's \d and pgjdbc's
// getColumns read) and in what a SELECT from the view sends; all as
// PostgreSQL 15 describes them.
func TestViewColumnTypesLikePostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	runScriptLikePostgres(t, s, conn, []string{
		"CREATE TABLE vtt (s smallint, r real, c char(3), v varchar(5), n numeric(10,2), i int, t text, d date, ts timestamp)%s",
		"INSERT INTO vtt VALUES (1, 1.5, 'ab', 'xy', 1.25, 7, 'z', '2024-01-01', '2024-01-01 10:00')",
		"CREATE VIEW vagg AS SELECT sum(n) AS sn, avg(i) AS ai, max(v) AS mv, count(*) AS cnt, sum(s) AS ss, sum(i) AS si FROM vtt",
		"CREATE VIEW vcast AS SELECT 'ab'::varchar(2) AS v2, 'a'::char(3) AS c3, 1.5 AS lit, 'x' AS u, 2::smallint AS sm, 1.5::numeric(5,2) AS n52, interval '1 day' AS iv, now() AS tz",
		"CREATE VIEW vcols AS SELECT s, r, c, v, n, i, t, d, ts, s + s AS s2, v || 'z' AS vz, n * 2 AS n2 FROM vtt",
		"CREATE VIEW vlist (a, b) AS SELECT sum(n), v FROM vtt GROUP BY v",
		"CREATE VIEW vover AS SELECT sn, v2 FROM vagg, vcast",
	}, "")
	for _, v := range []string{"vagg", "vcast", "vcols", "vlist", "vover"} {
		compareStatement(t, s, conn, "SELECT column_name, data_type, character_maximum_length, numeric_precision, numeric_scale, "+
			"udt_name FROM information_schema.columns WHERE table_name = '"+v+"' ORDER BY ordinal_position")
		compareStatement(t, s, conn, "SELECT a.attname, a.atttypid::regtype::text, a.atttypmod, format_type(a.atttypid, a.atttypmod), t.typname "+
			"FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid WHERE a.attrelid = '"+v+"'::regclass AND a.attnum > 0 ORDER BY a.attnum")
		compareResultTypes(t, s, conn, "SELECT * FROM "+v)
	}
}
