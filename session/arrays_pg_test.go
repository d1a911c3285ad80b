package session

import (
	"strconv"
	"testing"

	"github.com/magmalake/magmalake/pgerr"
)

// TestArraysAndSetReturningMatchPostgres compares json's -> and ->>, arrays (constructors,
// casts, subscripts, the array functions, ANY/ALL, ARRAY(subquery)), the
// select list's set-returning functions and the catalog functions that do
// not depend on the catalog's contents with PostgreSQL 15.
func TestArraysAndSetReturningMatchPostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	setup := []string{
		"CREATE TABLE arr_t (id int, name text, score numeric(6,2))",
		"INSERT INTO arr_t VALUES (1, 'a b', 1.50), (2, NULL, 2.25), (3, 'c\"d', NULL)",
	}
	for _, q := range setup {
		mustPG(t, conn, q)
		mustQuery(t, s, q)
	}
	for i, q := range []string{
		"SELECT ARRAY[1, 2, NULL], ARRAY['a b', 'c\"d', '', 'NULL', 'x,y'], ARRAY[1.5, 2]::numeric[]",
		"SELECT '{1,2,3}'::int[] = '{1, 2 ,3}'::int[], '{3}'::int[] > '{10}'::int[], '{1,2}'::int[] < '{1,2,0}'::int[]",
		"SELECT ('{a,b}'::text[])[2], ('{a,b}'::text[])[5], (ARRAY[10,20])[1] + 1",
		"SELECT array_upper('{4,5}'::int[], 1), array_lower('{}'::int[], 1), array_length('{1}'::int[], 1), cardinality('{1,2}'::int[])",
		"SELECT array_to_string('{1,NULL,3}'::int[], ',', '*'), array_to_string(ARRAY['x', NULL], '-'), array_to_string('{}'::text[], ',')",
		"SELECT ARRAY[1, 2] || 3, 0 || ARRAY[1, 2], ARRAY[1] || ARRAY[2, 3], array_append(NULL::int[], 1), array_position(ARRAY['a', 'b'], 'b')",
		"SELECT ARRAY['2024-01-02'::date, NULL], ARRAY[1.5::float8, 'NaN'], ARRAY[true, false], '{\"a\\\\b\"}'::text[]",
		"SELECT 3 = ANY (ARRAY[1, 2, 3]), 3 <> ALL ('{1,2}'::int[]), NULL::int = ANY ('{1}'::int[]), 2 = ANY ('{1,NULL}'::int[])",
		"SELECT id, ARRAY[id, id * 10] AS pair, ARRAY[name] FROM arr_t ORDER BY id",
		"SELECT id = ANY (ARRAY[1, 3]) FROM arr_t ORDER BY id",
		"SELECT ARRAY(SELECT id * 2 FROM arr_t ORDER BY id DESC), ARRAY(SELECT name FROM arr_t WHERE id > 5)",
		"SELECT a.id, ARRAY(SELECT b.id FROM arr_t b WHERE b.id >= a.id ORDER BY b.id) FROM arr_t a ORDER BY a.id",
		"SELECT generate_series(1, 3) AS g, 'k' ORDER BY g DESC",
		"SELECT id, unnest(ARRAY[id, id + 10]) FROM arr_t ORDER BY 1, 2",
		"SELECT unnest(ARRAY['x', NULL, 'y']) AS u",
		"SELECT id, generate_series(1, id) FROM arr_t WHERE id > 1 ORDER BY 1, 2",
		"SELECT * FROM unnest(ARRAY['b', 'a']) AS u(v) ORDER BY v",
		"SELECT g, u FROM generate_series(1, 3) g, unnest(ARRAY[g, g * 10]) u ORDER BY 1, 2",
		"SELECT x, s FROM (VALUES (2), (3)) v(x) JOIN generate_series(1, x) s ON s > 1 ORDER BY 1, 2",
		"SELECT x, s FROM (VALUES (2)) v(x) LEFT JOIN generate_series(5, x) s ON true",
		"SELECT count(*) FROM (VALUES (1)) v(x) FULL JOIN generate_series(1, 3) g ON g = x",
		"SELECT a.id, u.v FROM arr_t a, unnest(ARRAY[a.name, 'k']) AS u(v) ORDER BY 1, 2",
		"SELECT (ARRAY[5, 6])[2] * 2, array_length(ARRAY(SELECT generate_series(1, 7)), 1)",
		"SELECT json_build_object('a', 1, 'b', NULL, 'c', 'x', 'd', true, 'e', 1.5)",
		"SELECT format_type(23, -1), format_type(1043, 24), format_type(1700, 655366), format_type(25, NULL), format_type(NULL, 1)",
		"SELECT pg_encoding_to_char(6), has_table_privilege('arr_t', 'SELECT'), obj_description(1259, 'pg_class')",
		"SELECT '{1,2}'::int[] = '{1,2}', '{}'::int[] = '{}'",
		"SELECT ARRAY[1, 2][1:2]",
		"SELECT (name).x FROM arr_t",
		"SELECT name[1] FROM arr_t",
		"SELECT '{1,x}'::int[]",
		"SELECT unnest(ARRAY[1]), generate_series(1, 2)",
		"SELECT string_agg(x::text, ',' ORDER BY x DESC) FROM generate_series(1, 3) x",
		`SELECT '{"a":{"b": 1}, "c":[1,"x",null]}'::json -> 'a', '{"a":{"b":1}}'::json -> 'a' ->> 'b', '[1,2,3]'::json -> -1`,
		`SELECT '{"c":[1,"x\\ny",null]}'::json -> 'c' ->> 1, '{"c":null}'::json ->> 'c', '{"c":null}'::json -> 'c', '{"a":1}'::json -> 'zz', '5'::json -> 'a'`,
		`SELECT '{"a":"b"}'::json ->> 'a' || 'z', '{"a":{"b":[10,20]}}'::json -> 'a' -> 'b' ->> -1 = '20', '[1]'::json -> 0 IS NULL, '[1]'::json -> 'x'`,
		`SELECT id, json_build_object('id', id, 'name', name) ->> 'name' FROM arr_t ORDER BY id`,
		"SELECT 'x'::text -> 'a'",
		"SELECT array_agg(x), array_agg(x ORDER BY x DESC NULLS LAST), array_agg(DISTINCT x % 2 ORDER BY x % 2) FROM (VALUES (1), (2), (NULL), (3)) v(x)",
		"SELECT x % 2 AS k, array_agg(x ORDER BY -x), string_agg(x::text, '-' ORDER BY x) FILTER (WHERE x > 1) FROM generate_series(1, 6) x GROUP BY 1 ORDER BY 1",
		"SELECT array_agg(x), string_agg(DISTINCT x::text, ';') FROM generate_series(1, 0) x",
		"SELECT array_agg(DISTINCT x ORDER BY y) FROM (VALUES (1, 2)) v(x, y)",
		"SELECT id % 2, array_agg(name ORDER BY id DESC), array_agg(score ORDER BY score NULLS FIRST) FROM arr_t GROUP BY 1 ORDER BY 1",
	} {
		t.Run(strconv.Itoa(i), func(t *testing.T) { compareStatement(t, s, conn, q) })
	}
	// Arrays are one-dimensional here: PostgreSQL reads this, we refuse it.
	mustFail(t, s, pgerr.FeatureNotSupported, "SELECT '{{1,2},{3,4}}'::int[]")
	mustFail(t, s, pgerr.FeatureNotSupported, "SELECT array_agg(ARRAY[id]) FROM arr_t")
}

// TestCatalogJoinsIcebergTables joins user tables with catalog relations,
// which the retired catalog evaluator could not: the counts follow from
// the tables created (a model), not from the engine.
func TestCatalogJoinsIcebergTables(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE cj (id int, a text, b text)")
	mustQuery(t, s, "INSERT INTO cj VALUES (1, 'x', 'y'), (2, 'z', NULL)")
	// Every row of cj against each of its 3 columns.
	got := mustQuery(t, s, `SELECT count(*) FROM cj, pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
		WHERE c.relname = 'cj' AND a.attnum > 0`).rows[0][0]
	if got != "6" {
		t.Fatalf("cj x its columns: %s rows, want 6", got)
	}
	// A column name joined back to the data it names.
	rows := mustQuery(t, s, `SELECT cj.id, a.column_name FROM cj JOIN information_schema.columns a
		ON a.table_name = 'cj' AND a.ordinal_position = cj.id ORDER BY cj.id`).rows
	if len(rows) != 2 || rows[0][1] != "id" || rows[1][1] != "a" {
		t.Fatalf("columns by position: %v", rows)
	}
	// A subquery over the catalog in a query over the table, and the table's
	// regclass name from its oid.
	got = mustQuery(t, s, `SELECT count(*) FROM cj WHERE id <= (SELECT relnatts FROM pg_class WHERE relname = 'cj')
		AND (SELECT oid FROM pg_class WHERE relname = 'cj')::regclass::text = 'cj'`).rows[0][0]
	if got != "2" {
		t.Fatalf("catalog subquery: %s", got)
	}
	mustFail(t, s, pgerr.InsufficientPrivilege, "DELETE FROM pg_class")
	mustFail(t, s, pgerr.InsufficientPrivilege, "INSERT INTO pg_catalog.pg_namespace VALUES (1, 'x', 1, NULL)")
}
