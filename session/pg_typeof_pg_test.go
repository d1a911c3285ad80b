package session

import "testing"

// TestPgTypeofLikePostgres: pg_typeof of columns of every declared type, of
// literals, of NULL, of casts and of expressions mixing types names the type
// PostgreSQL 15 names.
func TestPgTypeofLikePostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	create := `CREATE TABLE ty (i int, b bigint, s smallint, n numeric(8,2), f double precision, r real,
		t text, v varchar(5), c char(3), d date, ts timestamp, tz timestamptz, bo boolean, u uuid, bb bytea)`
	mustPG(t, conn, create)
	mustQuery(t, s, create)
	mustPG(t, conn, "INSERT INTO ty (i) VALUES (1)")
	mustQuery(t, s, "INSERT INTO ty (i) VALUES (1)")
	for _, e := range []string{
		"i", "b", "n", "f", "r", "t", "v", "d", "ts", "tz", "bo", "u", "bb",
		"1", "3000000000", "1.5", "'x'", "NULL", "E'x'", "'x'::text", "NULL::int", "2::smallint", "1e3", "true",
		"i + b", "i * 1.5", "f + i", "t || 'x'", "d + 1", "ts - ts", "now()", "count(*)", "sum(i)", "avg(i)",
		"ARRAY[1, 2]", "ARRAY['a'::text]", "i::text", "CAST(i AS numeric)", "length(t)", "coalesce(i, b)",
	} {
		compareStatement(t, s, conn, "SELECT pg_typeof("+e+") FROM ty")
	}
	compareStatement(t, s, conn, "SELECT pg_typeof(i) = 'integer'::regtype, pg_typeof(i)::text FROM ty")
	compareStatement(t, s, conn, "SELECT pg_typeof(1.5), pg_typeof('a'), pg_typeof(NULL::date)")
	compareStatement(t, s, conn, "SELECT pg_typeof()")
	compareStatement(t, s, conn, "SELECT pg_typeof(1 / 0)")
}
