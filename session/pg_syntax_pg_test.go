package session

import (
	"testing"

	"github.com/magmalake/magmalake/pgerr"
)

// Valid PostgreSQL that magmalake refused (issue 48, item 12), statement by
// statement against PostgreSQL 15: CASE wherever an expression may stand in
// MERGE, UPDATE, INSERT and DELETE (its WHEN and THEN are no clause's);
// quoted type names in every cast form and in column types ("int4" is a
// type, "integer" is not, "char" is the one-byte internal type); and
// pg_catalog-qualified aggregates, window and scalar functions.

func TestCaseInDMLLikePostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	runScriptLikePostgres(t, s, conn, []string{
		"CREATE TABLE ct (k int, g text)%s",
		"CREATE TABLE cs (k int, w text)%s",
		"INSERT INTO ct VALUES (1, 'a'), (-1, 'b'), (3, 'c')",
		"INSERT INTO cs VALUES (1, 'p'), (-1, 'q'), (2, 'r'), (7, 's')",
		"MERGE INTO ct t USING cs s ON t.k = s.k WHEN MATCHED THEN UPDATE SET g = CASE WHEN t.k > 0 THEN 'x' ELSE 'y' END",
		"SELECT * FROM ct ORDER BY k",
		"MERGE INTO ct t USING cs s ON t.k = CASE WHEN s.k > 5 THEN 3 ELSE s.k END " +
			"WHEN MATCHED AND CASE WHEN t.k > 2 THEN true ELSE false END THEN UPDATE SET g = CASE t.k WHEN 3 THEN 'three' END, k = k " +
			"WHEN MATCHED AND CASE WHEN s.w = 'q' THEN true END THEN DELETE " +
			"WHEN NOT MATCHED AND CASE WHEN s.k > 1 THEN true END THEN INSERT VALUES (s.k, CASE WHEN s.k > 1 THEN 'big' END)",
		"SELECT * FROM ct ORDER BY k",
		"UPDATE ct SET g = CASE WHEN k > 1 THEN 'p' ELSE 'n' END, k = CASE k WHEN 2 THEN 20 ELSE k END WHERE CASE WHEN k > 0 THEN true END",
		"SELECT * FROM ct ORDER BY k",
		"UPDATE ct SET g = 'r' WHERE k = 20 RETURNING CASE WHEN k > 10 THEN 'ten+' END, g",
		"INSERT INTO ct VALUES (CASE WHEN 1 > 0 THEN 5 END, CASE 'a' WHEN 'a' THEN 'five' END) RETURNING CASE WHEN k = 5 THEN 'ok' END",
		"DELETE FROM ct WHERE CASE WHEN g = 'five' THEN true ELSE false END RETURNING k",
		"SELECT * FROM ct ORDER BY k",
		// A join's ON in INSERT ... SELECT is no ON CONFLICT.
		"INSERT INTO ct SELECT a.k + 100, CASE WHEN b.w > 'p' THEN b.w END FROM ct a JOIN cs b ON a.k = b.k",
		"SELECT * FROM ct ORDER BY k",
	}, "")
}

func TestQuotedTypeNamesLikePostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	for _, q := range []string{
		`SELECT 1::"numeric", 1::"int4", '7'::"int8", 2::"int2", 1.5::"float4", 1.5::"float8", true::"bool"`,
		`SELECT CAST(1 AS "varchar"), CAST('abc' AS "varchar"(2)), CAST('a' AS "bpchar"), 'ab'::"text", 'n'::"name"`,
		`SELECT '2024-01-01'::"timestamp", '2024-01-01'::"date", '10:00'::"time", '1 day'::"interval"`,
		`SELECT 1.256::"numeric"(5,2), '{1,2}'::"int4"[], 'a'::pg_catalog."varchar", 1::"pg_catalog"."int4"`,
		`SELECT "timestamp" '2024-01-01 10:00', "int4" '5', "numeric" '1.50'`,
		`SELECT pg_typeof(1::"int8"), pg_typeof('x'::"varchar"(3))`,
		`SELECT 'ab'::"char", CAST('xy' AS "char"), ''::"char", 'q'::pg_catalog."char"`,
		`SELECT 'a'::"char"(3)`,
		`SELECT 1::"integer"`,
		`SELECT '1'::"Numeric"`,
		`SELECT 1::"double precision"`,
		`SELECT "integer" '5'`,
		`SELECT 1::"nosuch"`,
		// A quoted name ending in "]" that is no array type: an error, not a crash.
		`SELECT 1::"]"`,
		`SELECT '1'::"int]"`,
		`SELECT 1 in "]"`,
		`CREATE TABLE qtt (a "int4", b "varchar"(3), c "numeric"(5,2), d "timestamp", e "bool", f "int2", g "bpchar"(2))`,
		`SELECT column_name, data_type, character_maximum_length, numeric_precision FROM information_schema.columns WHERE table_name = 'qtt' ORDER BY ordinal_position`,
		`CREATE TABLE qtt2 (a "integer")`,
	} {
		compareStatement(t, s, conn, q)
	}
	// "char" is a type PostgreSQL stores in one byte; an Iceberg column
	// cannot be one: refused, not made char(1) or text.
	mustPG(t, conn, `CREATE TABLE qtt3 (a "char")`)
	mustFail(t, s, pgerr.FeatureNotSupported, `CREATE TABLE qtt3 (a "char")`)
}

func TestCatalogQualifiedFunctionsLikePostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	runScriptLikePostgres(t, s, conn, []string{
		"CREATE TABLE qf (k int, g text)%s",
		"INSERT INTO qf VALUES (1, 'a'), (-1, 'b'), (2, NULL), (2, 'c')",
		"SELECT pg_catalog.max(k), pg_catalog.min(g), pg_catalog.count(*), pg_catalog.count(k), pg_catalog.sum(k), pg_catalog.avg(k) FROM qf",
		"SELECT pg_catalog.count(DISTINCT k), pg_catalog.max(k) FILTER (WHERE k < 2), pg_catalog.sum(k ORDER BY k), pg_catalog.count(*) FILTER (WHERE g IS NULL) FROM qf",
		"SELECT pg_catalog.array_agg(k ORDER BY k), pg_catalog.string_agg(g, ',' ORDER BY g), pg_catalog.stddev(k), pg_catalog.bool_and(k > 0), pg_catalog.every(k > -5) FROM qf",
		"SELECT g, pg_catalog.count(*) FROM qf GROUP BY g HAVING pg_catalog.count(*) > 0 ORDER BY pg_catalog.max(k), g",
		"SELECT k, pg_catalog.row_number() OVER (ORDER BY k, g), pg_catalog.rank() OVER (ORDER BY k), pg_catalog.sum(k) OVER (), pg_catalog.count(*) OVER (PARTITION BY k) FROM qf ORDER BY k, g",
		"SELECT pg_catalog.abs(-1), pg_catalog.upper('a'), pg_catalog.length('abc'), pg_catalog.now() IS NOT NULL",
		"SELECT pg_catalog.coalesce(NULL, 1)",
		"SELECT pg_catalog.greatest(1, 2)",
		"SELECT public.abs(1)",
		"SELECT pg_catalog.nosuch(1)",
	}, "")
}

// SQL's parameterless function keywords and the name type they return:
// session_user, user, current_catalog and current_schema stand without
// parentheses (they were taken for columns, 42703), and AS user still
// names a column.
func TestKeywordFunctionsLikePostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	for _, q := range []string{
		"SELECT session_user = current_user, user = current_user, current_role = current_user, current_catalog = current_database(), current_schema = current_schema()",
		"SELECT 1 AS user, 2 AS session_user",
		"SELECT pg_typeof(current_user)::text, pg_typeof(session_user)::text, pg_typeof('a'::name)::text, pg_typeof('a'::name || 'b')::text",
		"SELECT 'abc'::name = 'abc', upper('a'::name), length('ab'::name)",
	} {
		compareStatement(t, s, conn, q)
	}
}
