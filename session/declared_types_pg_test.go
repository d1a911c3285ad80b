package session

import (
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/magmalake/magmalake/pgerr"
)

// varchar(n) and smallint keep their declared length and range though
// Iceberg stores string and int (issue 11, a silent wrong result before:
// 'abcd' and 40000 were stored). INSERT, INSERT ... SELECT, UPDATE and COPY
// against PostgreSQL 15, in a copy-on-write and a merge-on-read table.
func TestDeclaredTypesMatchPostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	const cols = "id int, a varchar(3), s smallint, t text"
	script := []string{
		"INSERT INTO d VALUES (1, 'ab', 1, 'x')",
		"INSERT INTO d VALUES (2, 'abcd', 2, 'x')",
		"INSERT INTO d VALUES (3, 'abc   ', 3, 'x')",
		"INSERT INTO d VALUES (4, 'ab ', 4, 'x')",
		"INSERT INTO d VALUES (5, 'é☃x', 32767, 'x')",
		"INSERT INTO d VALUES (6, 'é☃xy', 6, 'x')",
		"INSERT INTO d VALUES (7, 'a', 40000, 'x')",
		"INSERT INTO d VALUES (8, 'a', -32769, 'x')",
		"INSERT INTO d VALUES (9, NULL, NULL, 'x')",
		"INSERT INTO d SELECT id + 100, t || 'abc', s, t FROM d WHERE id = 1",
		"INSERT INTO d SELECT id + 200, a, s * 1000, t FROM d WHERE id = 5",
		"UPDATE d SET a = 'toolong' WHERE id = 1",
		"UPDATE d SET a = 'zz    ' WHERE id = 1",
		"UPDATE d SET s = s + 1 WHERE id = 5",
		"UPDATE d SET t = 'long text is fine' WHERE id < 5",
		"SELECT id, a, length(a), s, t FROM d ORDER BY id",
	}
	for _, mode := range []string{fnTableModes[0], fnTableModes[2]} {
		t.Run(mode, func(t *testing.T) {
			mustPG(t, conn, "DROP TABLE IF EXISTS d")
			mustPG(t, conn, "CREATE TABLE d ("+cols+")")
			s, _ := copySession(t)
			mustQuery(t, s, "CREATE TABLE d ("+cols+") "+mode)
			for _, q := range script {
				compareStatement(t, s, conn, q)
			}
			// COPY: a too-long value fails the whole COPY; spaces are cut.
			for _, data := range []string{"20\tabcd\t1\tx\n", "21\tab\t99999\tx\n", "22\txy     \t2\tx\n"} {
				_, err := copyIn(s, "COPY d FROM STDIN", data)
				_, pgErr := conn.PgConn().CopyFrom(t.Context(), strings.NewReader(data), "COPY d FROM STDIN")
				var se *pgerr.Error
				switch {
				case pgErr != nil:
					if !errors.As(err, &se) || string(se.Code) != pgCode(pgErr) {
						t.Fatalf("COPY %q: PostgreSQL %v, magmalake %v", data, pgErr, err)
					}
				case err != nil:
					t.Fatalf("COPY %q: %v", data, err)
				}
			}
			compareStatement(t, s, conn, "SELECT id, a, length(a), s FROM d ORDER BY id")
			compareStatement(t, s, conn, "SELECT column_name, data_type, character_maximum_length FROM information_schema.columns WHERE table_name = 'd' ORDER BY ordinal_position")
			compareStatement(t, s, conn, "SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'd'::regclass AND attnum > 0 ORDER BY attnum")
			if got := mustQuery(t, s, "DESCRIBE TABLE d").text(); !strings.Contains(got, "a|character varying(3)|") || !strings.Contains(got, "s|smallint|") {
				t.Fatalf("DESCRIBE shows:\n%s", got)
			}
			if got := mustQuery(t, s, "SELECT count(*) FROM d").text(); got == "0\n" {
				t.Fatalf("no rows in %s", mode)
			}
		})
	}
}

func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}
