package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/magmalake/magmalake/internal/pgtest"
	"github.com/magmalake/magmalake/internal/testenv"
	"github.com/magmalake/magmalake/wire"
)

// twin is the same table on magmalake and on PostgreSQL 15.
type twin struct {
	ml, pg *pgx.Conn
	srv    *server
	cl     *pgtest.Cluster
}

// copyRows hold every character COPY's text and CSV writers treat specially,
// a value equal to the NULL string used below, an empty string and NULLs.
var copyRows = []string{
	`(1, 'plain', 1.50, true)`,
	`(2, 'semi;colon', -2.00, false)`,
	`(3, 'it''s', NULL, NULL)`,
	`(4, 'bang!', 0.01, true)`,
	`(5, 'say "hi"', 3.00, false)`,
	`(6, 'x', 4.25, true)`,
	`(7, '', 5.00, NULL)`,
	`(8, NULL, 6.00, true)`,
	`(9, '\.', 7.00, false)`,
	`(10, E'two\nlines', 8.00, true)`,
	`(11, E'tab\there', 9.00, false)`,
	`(12, E'back\\slash', 10.00, true)`,
	`(13, 'pipe|and,comma', 11.00, false)`,
}

func newTwin(t *testing.T) *twin {
	t.Helper()
	cl := pgtest.Start(t)
	srv := startServer(t, wire.AuthTrust)
	tw := &twin{ml: pgxConnect(t, srv, "", pgx.QueryExecModeSimpleProtocol), pg: cl.Connect(t, "postgres"), srv: srv, cl: cl}
	tw.both(t, "CREATE TABLE c (id int, s text, n numeric(6,2), b boolean)")
	// One INSERT: one data file, so that a plain COPY c reads rows in order.
	tw.both(t, "INSERT INTO c VALUES "+strings.Join(copyRows, ", "))
	return tw
}

func (tw *twin) both(t *testing.T, q string) {
	t.Helper()
	for name, conn := range map[string]*pgx.Conn{"magmalake": tw.ml, "PostgreSQL": tw.pg} {
		if _, err := conn.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %s: %v", name, q, err)
		}
	}
}

func copyTo(t *testing.T, conn *pgx.Conn, q string) (string, string) {
	t.Helper()
	var buf bytes.Buffer
	tag, err := conn.PgConn().CopyTo(context.Background(), &buf, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return buf.String(), tag.String()
}

// TestAgainstPostgres compares, byte for byte, what magmalake and
// PostgreSQL 15 answer for the same statements on the same rows.
func TestAgainstPostgres(t *testing.T) {
	tw := newTwin(t)
	t.Run("copy-to-stdout", tw.testCopyOptions)
	t.Run("psql-copy", tw.testPsqlCopy)
	t.Run("error-positions", tw.testPositions)
	t.Run("column-names", tw.testColumnNames)
	t.Run("row-descriptions", tw.testRowDescriptions)
}

// testRowDescriptions compares each result column's type OID, size and
// modifier, and its value in binary format, for columns of the narrower
// types and expressions over them (issue 48, item 10: a smallint column
// went out as int4, 4 bytes; a name as text). Which table a column comes from (table OID,
// attribute number) is not compared: magmalake leaves it 0.
func (tw *twin) testRowDescriptions(t *testing.T) {
	tw.both(t, "CREATE TABLE rd (s smallint, r real, c char(3), v varchar(5), n numeric(10,2), i int, f float8)")
	tw.both(t, "INSERT INTO rd VALUES (-2, 1.5, 'ab', 'xy', 1.25, 7, 2.5)")
	for _, q := range []string{
		"SELECT * FROM rd",
		"SELECT s, s + s, s * 2::smallint, -s, abs(s), s + 1, s::int, s / 2::smallint, s % 2::smallint FROM rd",
		"SELECT 1::smallint, 1::int2, CAST(3 AS smallint), sum(s), max(s), count(s), avg(s) FROM rd",
		"SELECT coalesce(s, 0::smallint), greatest(s, s), CASE WHEN s > 0 THEN s ELSE 0::smallint END FROM rd",
		"SELECT r, r + r, 1.5::real, r * 2, f, i FROM rd",
		"SELECT c, v, 'a'::char(2), 'a'::varchar(3), 'a'::bpchar, v || 'z' FROM rd",
		"SELECT n, n + n, 1.5::numeric(5,2), sum(n), round(n, 1) FROM rd GROUP BY n",
		"SELECT s FROM rd UNION ALL SELECT 3::smallint",
		"SELECT x.s FROM (SELECT s FROM rd) x",
		"SELECT 'a'::name, 'a'::name || 'b', upper('a'::name), c.relname, n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relname = 'rd'",
		"SELECT current_user, session_user, user, current_role, current_catalog, current_schema, current_database(), current_schema() WHERE false",
	} {
		ml, pg := rowDescription(t, tw.ml, q), rowDescription(t, tw.pg, q)
		if ml != pg {
			t.Errorf("%s:\n magmalake  %s\n PostgreSQL %s", q, ml, pg)
		}
	}
}

// rowDescription is q's result columns (name, type OID, size, modifier)
// and its first row in binary format, through the extended protocol.
func rowDescription(t *testing.T, conn *pgx.Conn, q string) string {
	t.Helper()
	ctx := context.Background()
	sd, err := conn.PgConn().Prepare(ctx, "", q, nil)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	var b strings.Builder
	for _, f := range sd.Fields {
		fmt.Fprintf(&b, "[%s %d/%d/%d]", f.Name, f.DataTypeOID, f.DataTypeSize, f.TypeModifier)
	}
	res := conn.PgConn().ExecPrepared(ctx, "", nil, nil, []int16{1}).Read()
	if res.Err != nil {
		t.Fatalf("%s: %v", q, res.Err)
	}
	if len(res.Rows) > 0 {
		fmt.Fprintf(&b, " %x", res.Rows[0])
	}
	return b.String()
}

// testColumnNames compares the RowDescription names PostgreSQL derives for
// unaliased select-list items.
func (tw *twin) testColumnNames(t *testing.T) {
	for _, q := range []string{
		"SELECT CASE WHEN id > 1 THEN 'a' ELSE s END FROM c",
		"SELECT CASE WHEN id > 1 THEN s ELSE 'b' END FROM c",
		"SELECT CASE WHEN id > 1 THEN s END FROM c",
		"SELECT CASE WHEN id > 1 THEN 1 ELSE (id)::bigint END FROM c",
		"SELECT CASE WHEN id > 1 THEN 'x' ELSE upper(s) END FROM c",
		"SELECT CASE WHEN id > 1 THEN 1 ELSE 2::int END FROM c",
		"SELECT CASE WHEN b THEN false ELSE true END FROM c",
		"SELECT id, s AS label, n + 1, count(*) FROM c GROUP BY id, s, n",
		// A cast is named for its type's last word: an array type for its
		// element, a quoted name as pg_type has it.
		`SELECT '{1}'::int4[], '{1}'::integer[], '{a}'::"varchar"[], 'a'::"bpchar", 'a'::"char", 1::"int8", '{a}'::char(2)[]`,
		"SELECT session_user, user, current_catalog, current_schema",
	} {
		ml, pg := fieldNames(t, tw.ml, q), fieldNames(t, tw.pg, q)
		if ml != pg {
			t.Errorf("%s: magmalake %s, PostgreSQL %s", q, ml, pg)
		}
	}
}

func fieldNames(t *testing.T, conn *pgx.Conn, q string) string {
	t.Helper()
	rows, err := conn.Query(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var names []string
	for _, f := range rows.FieldDescriptions() {
		names = append(names, f.Name)
	}
	return strings.Join(names, ",")
}

func (tw *twin) testCopyOptions(t *testing.T) {
	const ordered = "(SELECT * FROM c ORDER BY id)"
	for _, opts := range []string{
		"",
		"WITH (FORMAT csv)",
		"WITH (FORMAT csv, HEADER)",
		"WITH (FORMAT csv, HEADER, DELIMITER ';', NULL 'x', QUOTE '''', ESCAPE '!')",
		"WITH (FORMAT csv, DELIMITER '|', QUOTE '!')",
		"WITH (FORMAT text, HEADER, DELIMITER '|', NULL '')",
		"WITH (DELIMITER ',', NULL 'NULL')",
		"WITH CSV HEADER",
		"WITH CSV DELIMITER AS ';' NULL AS 'x'",
		"DELIMITER '|'",
	} {
		for _, src := range []string{ordered, "(SELECT s FROM c ORDER BY id)"} {
			q := "COPY " + src + " TO STDOUT " + opts
			ml, mlTag := copyTo(t, tw.ml, q)
			pg, pgTag := copyTo(t, tw.pg, q)
			if ml != pg || mlTag != pgTag {
				t.Errorf("%s\nmagmalake (%s):\n%s\nPostgreSQL (%s):\n%s", q, mlTag, ml, pgTag, pg)
			}
		}
	}
}

// testPsqlCopy runs psql's \copy ... to a file against both servers.
func (tw *twin) testPsqlCopy(t *testing.T) {
	psql := testenv.Program(t, "", "psql", "postgresql-client")
	dir := t.TempDir()
	for i, cmd := range []string{
		`\copy c to '%s' with csv header`,
		`\copy (select * from c order by id) to '%s' with (format csv, header, delimiter ';', null 'x')`,
		`\copy (select id, s from c order by id) to '%s'`,
	} {
		out := map[string]string{}
		for name, dsn := range map[string]string{
			"magmalake":  "host=" + tw.srv.host() + " port=" + tw.srv.port() + " user=" + testUser + " dbname=e2e sslmode=disable",
			"PostgreSQL": tw.cl.DSN("postgres"),
		} {
			file := filepath.Join(dir, name+string(rune('0'+i)))
			runProgram(t, nil, psql, "-X", "-v", "ON_ERROR_STOP=1", "-d", dsn, "-c", sprintfPath(cmd, file))
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			out[name] = string(b)
		}
		if out["magmalake"] != out["PostgreSQL"] || out["magmalake"] == "" {
			t.Errorf("%s\nmagmalake:\n%s\nPostgreSQL:\n%s", cmd, out["magmalake"], out["PostgreSQL"])
		}
	}
}

func sprintfPath(cmd, path string) string {
	return string(bytes.Replace([]byte(cmd), []byte("%s"), []byte(path), 1))
}

// testPositions compares the SQLSTATE and the Position (psql's LINE 1 caret)
// of undefined relations and columns.
func (tw *twin) testPositions(t *testing.T) {
	for _, q := range []string{
		"SELECT * FROM no_such_table",
		"SELECT a FROM public.no_such_table",
		"  SELECT c.id FROM no_such_table c",
		"SELECT no_such_col FROM c",
		"SELECT id, s FROM c WHERE no_such_col = 1",
		"SELECT c.no_such_col FROM c",
		"SELECT id FROM c ORDER BY no_such_col",
		"SELECT id FROM c\nWHERE ünï = 1",
		`SELECT "Id" FROM c`,
		"DELETE FROM no_such_table WHERE id = 1",
		"DELETE FROM c WHERE no_such_col = 1",
		"UPDATE c SET s = 'a' WHERE no_such_col = 2",
		"INSERT INTO no_such_table VALUES (1)",
		"INSERT INTO c (id, no_such_col) VALUES (1, 2)",
		"UPDATE c SET no_such_col = 1",
		"EXPLAIN SELECT * FROM no_such_table",
		"SELECT count(*) FROM c GROUP BY no_such_col",
		"SELECT 1 AS a; SELECT * FROM no_such_table",
		"SELECT 1 ; SELECT 2 ; SELECT x FROM c",
		`SELECT 'ü' AS "ÄÖ", x.id FROM c AS x WHERE "No_Such" = 1`,
		"SELECT 1; SELEC 2",
		"SELECT 'é';\n  SELECT id FROM c WHERE",
		"/* SELECT * FROM c */ SELECT * FROM no_such_table",
		"DROP TABLE no_such_table",
		"TRUNCATE no_such_table",
		"COPY no_such_table TO STDOUT",
	} {
		ml, pg := pgError(tw.ml, q), pgError(tw.pg, q)
		if ml == nil || pg == nil {
			t.Errorf("%s: magmalake %v, PostgreSQL %v: want errors from both", q, ml, pg)
			continue
		}
		if ml.Code != pg.Code || ml.Position != pg.Position {
			t.Errorf("%s: magmalake %s at %d (%s), PostgreSQL %s at %d (%s)", q, ml.Code, ml.Position, ml.Message, pg.Code, pg.Position, pg.Message)
		}
	}
}

func pgError(conn *pgx.Conn, q string) *pgconn.PgError {
	_, err := conn.PgConn().Exec(context.Background(), q).ReadAll()
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe
	}
	return nil
}
