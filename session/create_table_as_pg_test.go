package session

import (
	"strconv"
	"testing"

	"github.com/magmalake/magmalake/pgerr"
)

// TestCreateTableAsMatchesPostgres compares CREATE TABLE ... AS with
// PostgreSQL 15: the tag (SELECT n), the rows and names the new table holds,
// column name lists, WITH NO DATA, IF NOT EXISTS, and the errors (a failed
// fill leaves no table behind).
func TestCreateTableAsMatchesPostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	for _, q := range []string{
		"CREATE TABLE src (id int, name text, score numeric(6,2), ts timestamp)",
		"INSERT INTO src VALUES (1, 'a', 1.5, '2024-01-01'), (2, 'b', NULL, '2024-02-01'), (3, NULL, 3.25, NULL)",
	} {
		mustPG(t, conn, q)
		mustQuery(t, s, q)
	}
	for i, q := range []string{
		"CREATE TABLE c1 AS SELECT id, name, score * 2 AS s2, ts + interval '1 day' AS t2, 0 n, 'x' AS lit, avg(id) OVER () a FROM src",
		"SELECT * FROM c1 ORDER BY id",
		"SELECT column_name FROM information_schema.columns WHERE table_name = 'c1' ORDER BY ordinal_position",
		"CREATE TABLE c2 (x, y) AS SELECT id, name FROM src WHERE id > 1",
		"SELECT * FROM c2 ORDER BY x",
		"CREATE TABLE c3 AS SELECT * FROM src WITH NO DATA",
		"SELECT count(*) FROM c3",
		"CREATE TABLE c6 AS (SELECT g, g * g AS sq FROM generate_series(1, 5) g)",
		"SELECT sum(g), sum(sq) FROM c6",
		"CREATE TABLE c7 AS SELECT s.id, c.sq FROM src s JOIN c6 c ON c.g = s.id WITH DATA",
		"SELECT * FROM c7 ORDER BY id",
		"CREATE TABLE c5 AS SELECT 1 / (id - 2) AS z FROM src",
		"SELECT count(*) FROM c5",
		"CREATE TABLE c1 AS SELECT 1",
		"CREATE TABLE c8 AS SELECT 1 a, 2 a",
		"CREATE TABLE c9 (p, q, r) AS SELECT 1, 2",
	} {
		t.Run(strconv.Itoa(i), func(t *testing.T) { compareStatement(t, s, conn, q) })
	}
	// Partitioned and with table properties: the table is an Iceberg table.
	mustQuery(t, s, "CREATE TABLE cp PARTITIONED BY (bucket(2, id)) WITH ('format-version' = '3') AS SELECT id, name FROM src")
	if got := mustQuery(t, s, "SELECT count(*) FROM cp").rows[0][0]; got != "3" {
		t.Fatalf("partitioned CTAS holds %s rows, want 3", got)
	}
	mustFail(t, s, pgerr.FeatureNotSupported, "CREATE TABLE ci AS SELECT interval '1 day' AS i")
	mustFail(t, s, pgerr.UndefinedTable, "SELECT * FROM ci")
}

// TestCreateTableLikeMatchesPostgres compares CREATE TABLE (LIKE s) with
// PostgreSQL 15 through information_schema: names, declared types, NOT NULL
// and order, LIKE among other columns, and the errors.
func TestCreateTableLikeMatchesPostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	q := "CREATE TABLE la (id bigint NOT NULL, v varchar(5), sm smallint, n numeric(10,2), ts timestamptz)"
	mustPG(t, conn, q)
	mustQuery(t, s, q)
	for i, q := range []string{
		"CREATE TABLE lb (LIKE la INCLUDING ALL, extra text)",
		"CREATE TABLE lc (x int, LIKE la EXCLUDING DEFAULTS, y text)",
		`SELECT table_name, column_name, ordinal_position, data_type, character_maximum_length, numeric_precision, is_nullable
			FROM information_schema.columns WHERE table_name IN ('lb', 'lc') ORDER BY table_name, ordinal_position`,
		"CREATE TABLE ld (id int, LIKE la)",
		"CREATE TABLE le (LIKE nosuch)",
		"INSERT INTO lb VALUES (1, 'abc', 2, 1.5, '2024-01-01 00:00+00', 'x')",
		"SELECT * FROM lb",
	} {
		t.Run(strconv.Itoa(i), func(t *testing.T) { compareStatement(t, s, conn, q) })
	}
}
