package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/internal/testenv"
	mexec "github.com/magmalake/magmalake/session"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
	"github.com/magmalake/magmalake/wire"
)

func psqlEnv(s *server, password string) []string {
	return []string{"PGHOST=" + s.host(), "PGPORT=" + s.port(), "PGUSER=" + testUser, "PGDATABASE=e2e",
		"PGPASSWORD=" + password, "PGSSLMODE=disable", "PGCONNECT_TIMEOUT=10", "PSQLRC=/dev/null"}
}

var psqlErrorRe = regexp.MustCompile(`ERROR:\s+([0-9A-Z]{5}):`)

// psqlTranscript maps psql's output of the scenario script to transcript
// lines: command tags become the model's words, errors their SQLSTATE.
func psqlTranscript(out string, sc scenario) string {
	var b strings.Builder
	deletes := append(sc.Deletes, sc.Deletes[0])
	copies := 0
	for _, line := range strings.Split(out, "\n") {
		var n int
		switch {
		case line == "" || line == "CREATE TABLE":
		case strings.HasPrefix(line, "LINE ") || strings.TrimSpace(line) == "^":
			// psql's caret under an error's position, as with PostgreSQL.
		case strings.HasPrefix(line, "INSERT 0 "):
			fmt.Sscanf(line, "INSERT 0 %d", &n)
			fmt.Fprintf(&b, "insert %d\n", n)
		case strings.HasPrefix(line, "DELETE "):
			fmt.Sscanf(line, "DELETE %d", &n)
			id := -1
			if len(deletes) > 0 {
				id, deletes = deletes[0], deletes[1:]
			}
			fmt.Fprintf(&b, "delete %d %d\n", id, n)
		case strings.HasPrefix(line, "COPY "):
			if copies++; copies == 1 {
				fmt.Fprintf(&b, "copy %s\n", strings.TrimPrefix(line, "COPY "))
			}
		case psqlErrorRe.MatchString(line):
			fmt.Fprintf(&b, "error %s\n", psqlErrorRe.FindStringSubmatch(line)[1])
		default:
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

func TestPsql(t *testing.T) {
	psql := testenv.Program(t, "", "psql", "postgresql-client")
	trust := startServer(t, wire.AuthTrust)
	if out := runProgram(t, psqlEnv(trust, ""), psql, "-X", "-A", "-t", "-c", "SELECT 40 + 2"); strings.TrimSpace(out) != "42" {
		t.Fatalf("trust: %q", out)
	}
	scram := startServer(t, wire.AuthSCRAM)
	sc := newScenario("psql_t")
	dir := t.TempDir()
	in, outFile := filepath.Join(dir, "in.tsv"), filepath.Join(dir, "out.tsv")
	os.WriteFile(in, []byte(sc.copyText()), 0o644)
	var script strings.Builder
	fmt.Fprintf(&script, "\\set VERBOSITY verbose\n")
	fmt.Fprintf(&script, "CREATE TABLE %s (id bigint NOT NULL, name text, score double precision);\n", sc.Table)
	for id := 1; id <= sc.Rows; id++ {
		name := "'" + modelName(id) + "'"
		if id%5 == 0 {
			name = "NULL"
		}
		sep := ","
		if id == 1 {
			fmt.Fprintf(&script, "INSERT INTO %s VALUES\n", sc.Table)
		}
		if id == sc.Rows {
			sep = ";"
		}
		fmt.Fprintf(&script, "(%d, %s, %d.5)%s\n", id, name, id, sep)
	}
	// psql 15 has no \bind: the DELETEs are literal here (pgbench runs them
	// parameterised below).
	for _, id := range append(sc.Deletes, sc.Deletes[0]) {
		fmt.Fprintf(&script, "DELETE FROM %s WHERE id = %d;\n", sc.Table, id)
	}
	fmt.Fprintf(&script, "SELECT 'row', id, name FROM %s ORDER BY id;\n", sc.Table)
	fmt.Fprintf(&script, "SELECT * FROM no_such_table;\nSELECT 'after-error', 1;\n")
	fmt.Fprintf(&script, "\\copy %s from '%s'\n", sc.Table, in)
	fmt.Fprintf(&script, "SELECT 'count', count(*) FROM %s;\n", sc.Table)
	fmt.Fprintf(&script, "\\copy (SELECT id, name FROM %s ORDER BY id) to '%s'\n", sc.Table, outFile)
	scriptFile := filepath.Join(dir, "s.sql")
	os.WriteFile(scriptFile, []byte(script.String()), 0o644)
	out := runProgram(t, psqlEnv(scram, testPassword), psql, "-X", "-A", "-t", "-P", "null=NULL", "-P", "fieldsep= ", "-f", scriptFile)
	checkTranscript(t, psqlTranscript(out, sc), sc.transcript(true))

	// \copy to: every live row, in COPY text format (\N for NULL).
	got, err := os.ReadFile(outFile)
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for _, line := range sc.transcript(false) {
		var id int
		var name string
		if _, err := fmt.Sscanf(line, "row %d %s", &id, &name); err == nil {
			fmt.Fprintf(&want, "%d\t%s\n", id, strings.Replace(name, "NULL", `\N`, 1))
		}
	}
	for id := sc.Rows + 1; id <= sc.Rows+sc.CopyRows; id++ {
		fmt.Fprintf(&want, "%d\tc%d\n", id, id)
	}
	if string(got) != want.String() {
		t.Fatalf("\\copy to:\n%s\nwant:\n%s", got, want.String())
	}
	// A wrong password is refused.
	cmdOut, err := runProgramErr(psqlEnv(scram, "wrong"), psql, "-X", "-c", "SELECT 1")
	if err == nil || !strings.Contains(cmdOut, "password authentication failed") {
		t.Fatalf("wrong password: %v %s", err, cmdOut)
	}
}

// TestPsqlDemo is README's quick start: the demo table through psql.
func TestPsqlDemo(t *testing.T) {
	psql := testenv.Program(t, "", "psql", "postgresql-client")
	s := startServer(t, wire.AuthTrust)
	if err := s.eng.LoadDemo(context.Background()); err != nil {
		t.Fatal(err)
	}
	env := psqlEnv(s, "")
	// The model: the (id, name) pairs of the demo script's INSERTs.
	src, err := os.ReadFile(filepath.Join("..", "..", "testdata", "demo.sql"))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, m := range regexp.MustCompile(`(?m)^\s*\((\d+), '((?:[^']|'')*)'`).FindAllStringSubmatch(string(src), -1) {
		want = append(want, m[1]+"|"+strings.ReplaceAll(m[2], "''", "'"))
	}
	if len(want) < 10 {
		t.Fatalf("demo model has %d rows", len(want))
	}
	out := runProgram(t, env, psql, "-X", "-c", "SELECT * FROM xmen.characters")
	if !strings.Contains(out, fmt.Sprintf("(%d rows)", len(want))) || !regexp.MustCompile(`(?m)^ id \| +name +\| +alias`).MatchString(out) {
		t.Fatalf("SELECT * FROM xmen.characters:\n%s", out)
	}
	out = runProgram(t, env, psql, "-X", "-A", "-t", "-c", "SELECT id, name FROM xmen.characters ORDER BY id")
	if strings.TrimSpace(out) != strings.Join(want, "\n") {
		t.Fatalf("demo rows:\n%s\nwant:\n%s", out, strings.Join(want, "\n"))
	}
	if out := runProgram(t, env, psql, "-X", "-c", "DELETE FROM xmen.characters WHERE id = 1"); strings.TrimSpace(out) != "DELETE 1" {
		t.Fatalf("quick start DELETE: %q", out)
	}
	if out := runProgram(t, env, psql, "-X", "-c", "DELETE FROM xmen.characters WHERE id = 1"); strings.TrimSpace(out) != "DELETE 0" {
		t.Fatalf("second DELETE: %q", out)
	}
	// Read back through the engine directly, not through the wire.
	if got := directCount(t, s.eng, "SELECT count(*) FROM xmen.characters"); got != fmt.Sprint(len(want)-1) {
		t.Fatalf("after DELETE: %s rows, want %d", got, len(want)-1)
	}
}

// directCount runs a one-value query on a session of its own.
func directCount(t *testing.T, eng *mexec.Engine, q string) string {
	t.Helper()
	ctx := context.Background()
	sess := eng.NewSession(stmt.SessionInfo{User: "check", Database: "e2e"})
	defer sess.Close()
	p, err := sess.Prepare(ctx, q, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sess.Execute(ctx, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Rows.Close()
	b, err := res.Rows.Next(ctx)
	if err != nil && !errors.Is(err, io.EOF) {
		t.Fatal(err)
	}
	return string(sql.AppendText(nil, res.Columns[0].Type, b.Column(0), 0))
}

func TestPgbench(t *testing.T) {
	pgbench := testenv.Program(t, "MAGMALAKE_PGBENCH", "pgbench", "postgresql-15 (pgbench)")
	s := startServer(t, wire.AuthSCRAM)
	env := psqlEnv(s, testPassword)
	const rows, clients, txs = 40, 2, 8
	script := filepath.Join(t.TempDir(), "s.sql")
	// Each client deletes its own id (once: 1 row, then 0) and looks up
	// another; ids 0..clients-1 per mode block are the only ones removed.
	os.WriteFile(script, []byte("\\set other :client_id + 20\n\\set mine :client_id + :base\n"+
		"SELECT id, name FROM bench WHERE id = :other;\n"+
		"DELETE FROM bench WHERE id = :mine;\n"), 0o644)
	ctx := context.Background()
	sess := s.eng.NewSession(stmt.SessionInfo{User: testUser, Database: "e2e"})
	defer sess.Close()
	for _, q := range []string{"CREATE TABLE bench (id int, name text)",
		"INSERT INTO bench SELECT 1, 'x'", // a first row so the table has a snapshot
	} {
		p, err := sess.Prepare(ctx, q, nil)
		if err == nil {
			_, err = sess.Execute(ctx, p, nil)
		}
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var vals []string
	for id := 2; id < rows; id++ {
		vals = append(vals, fmt.Sprintf("(%d, 'n%d')", id, id))
	}
	p, err := sess.Prepare(ctx, "INSERT INTO bench VALUES "+strings.Join(vals, ","), nil)
	if err == nil {
		_, err = sess.Execute(ctx, p, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	live := rows - 1 // ids 1..rows-1
	for i, mode := range []string{"simple", "extended", "prepared"} {
		base := 2 + i*clients
		out := runProgram(t, env, pgbench, "-n", "-f", script, "-M", mode, "-t", fmt.Sprint(txs), "-c", fmt.Sprint(clients),
			"-D", fmt.Sprintf("base=%d", base), "-h", s.host(), "-p", s.port(), "-U", testUser, "e2e")
		if !strings.Contains(out, fmt.Sprintf("number of transactions actually processed: %d/%d", clients*txs, clients*txs)) {
			t.Fatalf("pgbench -M %s:\n%s", mode, out)
		}
		live -= clients
		if got := directCount(t, s.eng, "SELECT count(*) FROM bench"); got != fmt.Sprint(live) {
			t.Fatalf("after pgbench -M %s: %s rows, want %d", mode, got, live)
		}
	}
}
