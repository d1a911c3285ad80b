package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/magmalake/magmalake/internal/testenv"
	"github.com/magmalake/magmalake/wire"
)

// cursorRows is how many rows the cursor tests load, in cursorBatches
// INSERTs (one data file each), named as modelName names them.
const (
	cursorRows    = 23
	cursorBatches = 3
)

// cursorModel is the expected output: "id name" per row in id order.
func cursorModel() string {
	var b strings.Builder
	for id := 1; id <= cursorRows; id++ {
		fmt.Fprintf(&b, "%d %s\n", id, modelName(id))
	}
	return b.String()
}

// cursorInserts are the statements loading the model into table tbl.
func cursorInserts(tbl string) []string {
	stmts := []string{fmt.Sprintf("CREATE TABLE %s (id bigint NOT NULL, name text)", tbl)}
	per := (cursorRows + cursorBatches - 1) / cursorBatches
	for lo := 1; lo <= cursorRows; lo += per {
		var vals []string
		for id := lo; id < lo+per && id <= cursorRows; id++ {
			name := "'" + modelName(id) + "'"
			if id%5 == 0 {
				name = "NULL"
			}
			vals = append(vals, fmt.Sprintf("(%d, %s)", id, name))
		}
		stmts = append(stmts, fmt.Sprintf("INSERT INTO %s VALUES %s", tbl, strings.Join(vals, ", ")))
	}
	return stmts
}

const psycopg2Cursor = `
import os, sys, psycopg2
conn = psycopg2.connect(host=os.environ["E2E_HOST"], port=os.environ["E2E_PORT"],
    user=os.environ["E2E_USER"], password=os.environ.get("E2E_PASSWORD") or None, dbname="e2e")
conn.autocommit = True
cur = conn.cursor()
for stmt in sys.stdin.read().split(";\n"):
    if stmt.strip():
        cur.execute(stmt)
conn.autocommit = False
named = conn.cursor(name="c")
named.itersize = 3
named.execute("SELECT id, name FROM " + os.environ["E2E_TABLE"] + " ORDER BY id")
for id, name in named:
    print(id, "NULL" if name is None else name)
named.close()
conn.commit()
held = conn.cursor(name="h", withhold=True)
held.execute("SELECT id FROM " + os.environ["E2E_TABLE"] + " WHERE id > 20 ORDER BY id")
conn.commit()
print("held", [r[0] for r in held.fetchmany(2)], [r[0] for r in held.fetchall()])
held.close()
conn.close()
`

func TestPsycopg2NamedCursor(t *testing.T) {
	py := testenv.Python(t, "psycopg2", "python3-psycopg2")
	forEachAuth(t, func(t *testing.T, s *server, password string) {
		sc := newScenario("cur_py")
		cmd, cancel := command(sc.env(s, password), py, "-c", psycopg2Cursor)
		defer cancel()
		cmd.Stdin = strings.NewReader(strings.Join(cursorInserts(sc.Table), ";\n") + ";\n")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("psycopg2: %v\n%s", err, out)
		}
		want := cursorModel() + "held [21, 22] [23]\n"
		if string(out) != want {
			t.Fatalf("psycopg2 named cursor:\n%s\nwant:\n%s", out, want)
		}
	})
}

func TestPsqlFetchCount(t *testing.T) {
	psql := testenv.Program(t, "", "psql", "postgresql-client")
	s := startServer(t, wire.AuthTrust)
	var script strings.Builder
	for _, st := range cursorInserts("cur_psql") {
		script.WriteString(st + ";\n")
	}
	// With FETCH_COUNT psql reads a SELECT through DECLARE/FETCH FORWARD 4.
	script.WriteString("\\set FETCH_COUNT 4\nSELECT id, name FROM cur_psql ORDER BY id;\n")
	file := filepath.Join(t.TempDir(), "s.sql")
	if err := os.WriteFile(file, []byte(script.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := runProgram(t, psqlEnv(s, ""), psql, "-X", "-A", "-t", "-q", "-v", "ON_ERROR_STOP=1",
		"-P", "null=NULL", "-P", "fieldsep= ", "-f", file)
	var rows strings.Builder
	for _, line := range strings.Split(out, "\n") {
		if line != "" {
			rows.WriteString(line + "\n")
		}
	}
	if rows.String() != cursorModel() {
		t.Fatalf("psql FETCH_COUNT output:\n%s\nwant:\n%s", out, cursorModel())
	}
}

// TestCursorsAgainstPostgres compares tags, rows and errors of a cursor
// session with PostgreSQL 15's answers to the same statements.
func TestCursorsAgainstPostgres(t *testing.T) {
	tw := newTwin(t)
	script := []string{
		"DECLARE x CURSOR FOR SELECT 1",
		"BEGIN",
		"DECLARE c CURSOR FOR SELECT id, s FROM c ORDER BY id",
		"FETCH 3 FROM c",
		"MOVE 2 IN c",
		"FETCH NEXT FROM c",
		"FETCH FORWARD 2 c",
		"FETCH ALL FROM c",
		"FETCH c",
		"MOVE ALL IN c",
		"DECLARE c CURSOR FOR SELECT 1",
		"FETCH c",
		"ROLLBACK",
		"FETCH c",
		"MOVE c",
		"CLOSE nosuch",
		"CLOSE ALL",
		"DECLARE h CURSOR WITH HOLD FOR SELECT id, s FROM c WHERE id > 4 ORDER BY id",
		"FETCH 2 FROM h",
		"BEGIN",
		"DECLARE p CURSOR WITHOUT HOLD FOR SELECT id FROM c ORDER BY id",
		"FETCH p",
		"COMMIT",
		"FETCH p",
		"FETCH ALL FROM h",
		"CLOSE h",
		"CLOSE h",
	}
	for _, q := range script {
		ml, pg := pgAnswer(tw.ml, q), pgAnswer(tw.pg, q)
		if ml != pg {
			t.Errorf("%s:\nmagmalake:  %s\nPostgreSQL: %s", q, ml, pg)
		}
	}
}

// pgAnswer renders one simple-protocol statement's outcome: its rows and
// tag, or its error's SQLSTATE and message.
func pgAnswer(conn *pgx.Conn, q string) string {
	rs, err := conn.PgConn().Exec(context.Background(), q).ReadAll()
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			return "ERROR " + pe.Code + " " + pe.Message
		}
		return "ERROR " + err.Error()
	}
	var b strings.Builder
	for _, r := range rs {
		for _, row := range r.Rows {
			for _, cell := range row {
				if cell == nil {
					b.WriteString("NULL|")
				} else {
					b.WriteString(string(cell) + "|")
				}
			}
			b.WriteString(" ")
		}
		b.WriteString(r.CommandTag.String())
	}
	return b.String()
}

// TestPgxExtendedFetch reads a cursor through the extended protocol, where
// FETCH is described before it runs.
func TestPgxExtendedFetch(t *testing.T) {
	s := startServer(t, wire.AuthTrust)
	conn := pgxConnect(t, s, "", pgx.QueryExecModeCacheDescribe)
	ctx := context.Background()
	for _, st := range cursorInserts("cur_pgx") {
		if _, err := conn.Exec(ctx, st); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "DECLARE c CURSOR FOR SELECT id, name FROM cur_pgx ORDER BY id"); err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	for {
		rows, err := tx.Query(ctx, "FETCH FORWARD 5 FROM c")
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for rows.Next() {
			var id int64
			var name *string
			if err := rows.Scan(&id, &name); err != nil {
				t.Fatal(err)
			}
			n++
			if name == nil {
				fmt.Fprintf(&got, "%d NULL\n", id)
			} else {
				fmt.Fprintf(&got, "%d %s\n", id, *name)
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if tag := rows.CommandTag().String(); tag != fmt.Sprintf("FETCH %d", n) {
			t.Fatalf("tag %q after %d rows", tag, n)
		}
		if n < 5 {
			break
		}
	}
	if got.String() != cursorModel() {
		t.Fatalf("extended FETCH:\n%s\nwant:\n%s", got.String(), cursorModel())
	}
}
