package session

import (
	"bufio"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/internal/pgtest"
	"github.com/magmalake/magmalake/internal/testenv"
	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/stmt"
)

// logScript runs on both servers at every log_statement level; every
// statement succeeds on both.
var logScript = []string{
	"CREATE SCHEMA lg",
	"CREATE TABLE lg.t (a int, b text)",
	"INSERT INTO lg.t VALUES (1, 'x'), (2, 'y'), (3, 'z')",
	"SELECT count(*) FROM lg.t",
	"UPDATE lg.t SET b = 'w' WHERE a = 2",
	"DELETE FROM lg.t WHERE a = 3",
	"EXPLAIN SELECT * FROM lg.t",
	"EXPLAIN ANALYZE DELETE FROM lg.t WHERE a = 9",
	"PREPARE ins (int, text) AS INSERT INTO lg.t VALUES ($1, $2)",
	"EXECUTE ins (4, 'v')",
	"PREPARE sel AS SELECT a FROM lg.t WHERE a > 1",
	"EXECUTE sel",
	"DEALLOCATE ins",
	"DEALLOCATE sel",
	"MERGE INTO lg.t USING (SELECT 1 AS a, 'm' AS b) AS s ON lg.t.a = s.a WHEN MATCHED THEN UPDATE SET b = s.b",
	"CREATE TABLE lg.c AS SELECT * FROM lg.t",
	"TRUNCATE lg.c",
	"BEGIN",
	"INSERT INTO lg.c VALUES (5, 'u')",
	"COMMIT",
	"SET statement_timeout = '10s'",
	"SHOW statement_timeout",
	"RESET statement_timeout",
	"VACUUM lg.t",
	"DROP TABLE lg.c",
	"DROP TABLE lg.t",
	"DROP SCHEMA lg",
}

// TestStatementLogMatchesPostgres: at each log_statement level magmalake
// logs the statements PostgreSQL 15 logs ("LOG:  statement: ..." in its
// server log), and every line it writes carries the session's identity.
func TestStatementLogMatchesPostgres(t *testing.T) {
	pg := pgtest.Start(t)
	conn := pg.Connect(t, "postgres")
	pgLog := filepath.Join(pg.Dir, "log")
	var buf testenv.LogBuffer
	s := loggedSession(t, &buf, nil)
	for _, level := range []string{"none", "ddl", "mod", "all"} {
		mustPG(t, conn, "SET log_statement = '"+level+"'")
		from := fileSize(t, pgLog)
		for _, q := range logScript {
			mustPG(t, conn, q)
		}
		want := pgLoggedStatements(t, pgLog, from)
		mustQuery(t, s, "SET log_statement = '"+level+"'")
		buf.Reset()
		for _, q := range logScript {
			mustQuery(t, s, q)
		}
		var got []string
		for _, e := range logEntries(t, &buf) {
			if e["msg"] != "statement" {
				t.Fatalf("level %s: unexpected entry %v", level, e)
			}
			if e["user"] != "tester" || e["database"] != "db" || e["application_name"] != "logtest" {
				t.Errorf("level %s: entry without the session's identity: %v", level, e)
			}
			got = append(got, e["statement"].(string))
		}
		if !slices.Equal(got, want) {
			t.Errorf("log_statement = %s:\n magmalake logged %q\nPostgreSQL logged %q", level, got, want)
		}
	}
}

// TestStatementLogCommitsAndDurations: a logged write names the snapshot
// it made (the table's current one, as its metadata table says) and the
// files it added; log_min_duration_statement = 0 logs every statement
// with rows and duration; failures are logged with their SQLSTATE
// whatever the settings.
func TestStatementLogCommitsAndDurations(t *testing.T) {
	var buf testenv.LogBuffer
	s := loggedSession(t, &buf, map[string]string{"log_min_duration_statement": "0"})
	mustQuery(t, s, "CREATE TABLE t (a int, b text)")
	buf.Reset()
	mustQuery(t, s, "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')")
	entries := logEntries(t, &buf)
	head := mustQuery(t, s, `SELECT snapshot_id FROM "t$snapshots" ORDER BY committed_at DESC LIMIT 1`).rows[0][0]
	files := mustQuery(t, s, `SELECT count(*) FROM "t$data_files"`).rows[0][0]
	if len(entries) != 1 {
		t.Fatalf("INSERT: %d entries, want 1: %v", len(entries), entries)
	}
	e := entries[0]
	if e["snapshot_id"] != head || num(e["data_files"]) != files || num(e["rows"]) != "3" || e["tag"] != "INSERT 0 3" {
		t.Errorf("INSERT entry %v; want snapshot_id %s, data_files %s, rows 3", e, head, files)
	}
	if _, ok := e["duration_ms"].(float64); !ok {
		t.Errorf("INSERT entry has no duration: %v", e)
	}

	buf.Reset()
	mustQuery(t, s, "SELECT a FROM t WHERE a >= 2")
	mustFail(t, s, pgerr.UndefinedColumn, "SELECT nope FROM t")
	mustFail(t, s, pgerr.SyntaxError, "SELEC 1")
	entries = logEntries(t, &buf)
	if len(entries) != 3 {
		t.Fatalf("want 3 entries, got %v", entries)
	}
	if entries[0]["msg"] != "statement" || num(entries[0]["rows"]) != "2" {
		t.Errorf("SELECT entry %v; want rows 2", entries[0])
	}
	for i, code := range []pgerr.Code{pgerr.UndefinedColumn, pgerr.SyntaxError} {
		f := entries[i+1]
		if f["msg"] != "statement failed" || f["level"] != "ERROR" || f["sqlstate"] != string(code) {
			t.Errorf("failure entry %v; want level ERROR, sqlstate %s", f, code)
		}
	}

	// RESET returns to the server's value, not PostgreSQL's built-in -1.
	mustQuery(t, s, "SET log_min_duration_statement = -1")
	mustQuery(t, s, "RESET log_min_duration_statement")
	if got := mustQuery(t, s, "SHOW log_min_duration_statement").rows[0][0]; got != "0" {
		t.Errorf("after RESET log_min_duration_statement = %s, want the server's 0", got)
	}
	mustFail(t, s, pgerr.CantChangeRuntimeParam, "SET log_connections = on")
	mustFail(t, s, pgerr.InvalidParameterValue, "SET log_statement = 'some'")
}

// TestServerSettings: serve -c values are checked as SET checks them and
// become every session's defaults.
func TestServerSettings(t *testing.T) {
	for _, c := range []struct{ name, value, want string }{
		{"log_statement", "MOD", "mod"},
		{"log-connections", "yes", "on"},
		{"statement_timeout", "1min", "1min"},
		{"log_min_duration_statement", "-1", "-1"},
	} {
		n, v, err := CheckServerSetting(c.name, c.value)
		if err != nil || v != c.want || strings.Contains(n, "-") {
			t.Errorf("CheckServerSetting(%s, %s) = %s, %s, %v; want %s", c.name, c.value, n, v, err, c.want)
		}
	}
	for _, c := range [][2]string{{"log_statement", "some"}, {"server_version", "1"}, {"no_such", "1"}, {"session_authorization", "x"}} {
		if _, _, err := CheckServerSetting(c[0], c[1]); err == nil {
			t.Errorf("CheckServerSetting(%s, %s) accepted", c[0], c[1])
		}
	}
	var buf testenv.LogBuffer
	s := loggedSession(t, &buf, map[string]string{"log_statement": "ddl", "statement_timeout": "5s"})
	if got := mustQuery(t, s, "SHOW statement_timeout").rows[0][0]; got != "5s" {
		t.Errorf("statement_timeout = %s, want the server's 5s", got)
	}
	mustQuery(t, s, "CREATE TABLE d (a int)")
	mustQuery(t, s, "INSERT INTO d VALUES (1)")
	// Failing while its rows stream, with nothing else selected: logged.
	mustQuery(t, s, "SET log_statement = none")
	mustFail(t, s, pgerr.DivisionByZero, "SELECT 1 / (a - 1) FROM d")
	entries := logEntries(t, &buf)
	if len(entries) != 2 || entries[0]["statement"] != "CREATE TABLE d (a int)" {
		t.Fatalf("log_statement = ddl from the server logged %v", entries)
	}
	if f := entries[1]; f["msg"] != "statement failed" || f["sqlstate"] != string(pgerr.DivisionByZero) {
		t.Errorf("a statement failing as its rows streamed was logged as %v", f)
	}
}

// loggedSession is a session on a fresh warehouse whose engine logs JSON to w.
func loggedSession(t *testing.T, w *testenv.LogBuffer, settings map[string]string) *Session {
	t.Helper()
	ctx := context.Background()
	wh, err := lake.Open(ctx, lake.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { wh.Close() })
	eng, err := NewEngine(ctx, wh, EngineOptions{Logger: slog.New(slog.NewJSONHandler(w, nil)), Settings: settings})
	if err != nil {
		t.Fatal(err)
	}
	s := eng.NewSession(stmt.SessionInfo{User: "tester", Database: "db", ApplicationName: "logtest"})
	t.Cleanup(s.Close)
	return s
}

func logEntries(t *testing.T, b *testenv.LogBuffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if l == "" {
			continue
		}
		var e map[string]any
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("log line %q is not JSON: %v", l, err)
		}
		out = append(out, e)
	}
	return out
}

// num renders a JSON number as its integer text.
func num(v any) string {
	f, ok := v.(float64)
	if !ok {
		return ""
	}
	return strconv.FormatInt(int64(f), 10)
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// pgLoggedStatements reads the statements PostgreSQL logged past offset.
func pgLoggedStatements(t *testing.T, path string, offset int64) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(offset, 0); err != nil {
		t.Fatal(err)
	}
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if _, q, ok := strings.Cut(sc.Text(), "LOG:  statement: "); ok {
			out = append(out, q)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
