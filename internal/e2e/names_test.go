package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/wire"
)

// long is an identifier of 70 bytes, ending in a two-byte character that
// straddles PostgreSQL's 63-byte limit.
var long = strings.Repeat("l", 62) + "é" + "tail12"

// oddNames are schema, table, view and column names PostgreSQL takes that
// a demanding user writes (issue 48: a schema "../../x" was created but
// could hold no table; "a.b" schemas nested; "50%" failed; a name could
// steer a table's files out of the warehouse).
var oddNames = []string{"my table", "a.b", "ünï", "50%", `x"y`, "q?#", `x\y`, "%2E%2E%2Fescaped", "..x", "Mixed Case", long}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// nameScript is what users do with one odd name as schema, table, view and
// column: create, write, read, rename, drop.
func nameScript(name string) []string {
	q := quoteIdent(name)
	script := []string{
		"CREATE SCHEMA " + q,
		"CREATE TABLE " + q + "." + q + " (" + q + " int, v text)",
		"INSERT INTO " + q + "." + q + " VALUES (1, 'one'), (2, 'two')",
		"SELECT " + q + ", v FROM " + q + "." + q + " ORDER BY 1",
		"CREATE TABLE public." + q + " (id int)",
		"INSERT INTO public." + q + " SELECT " + q + " FROM " + q + "." + q,
		"SELECT * FROM " + q + " ORDER BY 1",
		"ALTER TABLE public." + q + " RENAME COLUMN id TO " + quoteIdent(name+"2"),
		"ALTER TABLE public." + q + " RENAME TO " + quoteIdent(name+" r"),
		"SELECT * FROM public." + quoteIdent(name+" r") + " ORDER BY 1",
		"CREATE VIEW " + q + "." + quoteIdent(name+" v") + " AS SELECT v AS " + q + " FROM " + q + "." + q,
		"SELECT * FROM " + q + "." + quoteIdent(name+" v") + " ORDER BY 1",
		"SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema NOT IN ('public', 'pg_catalog', 'information_schema') ORDER BY 2",
		"DROP VIEW " + q + "." + quoteIdent(name+" v"),
		"DROP TABLE " + q + "." + q,
		"DROP TABLE public." + quoteIdent(name+" r"),
		"DROP SCHEMA " + q,
	}
	if strings.Contains(name, "%") {
		// Not views: the SQL catalog derives a view's location from the
		// names as they are, where "%" reads as an escape (see
		// TestViewNamesWithEscapesRefused).
		script = slices.DeleteFunc(script, func(q string) bool { return strings.Contains(q, " v\"") })
	}
	return script
}

// TestOddNamesMatchPostgres runs nameScript for every odd name on
// magmalake and PostgreSQL 15 and compares each statement's outcome and
// NOTICEs (the 63-byte truncation), then checks that magmalake kept every
// file under its warehouse, in directories named as the tables are.
func TestOddNamesMatchPostgres(t *testing.T) {
	ml, pg := diffTargets(t)
	run := func(d diffTarget) string {
		var out strings.Builder
		conn := noticeConn(t, d, &out)
		for _, name := range oddNames {
			for _, q := range nameScript(name) {
				fmt.Fprintf(&out, "%s\n  %s\n", q, outcome(conn, q))
			}
		}
		return out.String()
	}
	want := run(pg)
	compareOutputs(t, run(ml), want)
}

// noticeConn connects to d, writing the NOTICEs it gets to out.
func noticeConn(t *testing.T, d diffTarget, out *strings.Builder) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(fmt.Sprintf("postgres://%s@%s/e2e?sslmode=disable", d.User, d.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		fmt.Fprintf(out, "  %s %s: %s\n", n.Severity, n.Code, n.Message)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("%s: %v", d.Name, err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// outcome is q's command tag and rows, or its error's code and message.
func outcome(conn *pgx.Conn, q string) string {
	res, err := conn.PgConn().Exec(context.Background(), q).ReadAll()
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return fmt.Sprintf("error %s: %s", pe.Code, pe.Message)
	}
	if err != nil {
		return "failed: " + err.Error()
	}
	var b strings.Builder
	for _, r := range res {
		b.WriteString(r.CommandTag.String())
		for _, row := range r.Rows {
			b.WriteString(" |")
			for _, v := range row {
				fmt.Fprintf(&b, " %s", v)
			}
		}
	}
	return b.String()
}

// TestNamesStayInTheWarehouse: tables made with names that are escapes or
// path parts in a location URI ("%2E%2E%2F..." unescapes to "../") get
// directories of those very names under the warehouse; before, the first
// of these wrote its metadata two levels above the warehouse.
func TestNamesStayInTheWarehouse(t *testing.T) {
	s := startServer(t, wire.AuthTrust)
	conn := pgxConnect(t, s, "", pgx.QueryExecModeSimpleProtocol)
	for _, q := range []string{
		`CREATE TABLE "%2E%2E%2F%2E%2E%2Fescaped" (id int)`,
		`INSERT INTO "%2E%2E%2F%2E%2E%2Fescaped" VALUES (1)`,
		`CREATE SCHEMA "%2E%2E%2Fout"`,
		`CREATE TABLE "%2E%2E%2Fout".t (id int)`,
		`INSERT INTO "%2E%2E%2Fout".t VALUES (1)`,
		`CREATE TABLE "50%" (id int)`,
		`INSERT INTO "50%" VALUES (1)`,
	} {
		if _, err := conn.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	wh := filepath.Join(s.dir, "warehouse")
	var outside []string
	filepath.Walk(s.dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && !strings.HasPrefix(p, wh+string(filepath.Separator)) && !strings.HasPrefix(filepath.Base(p), "catalog.db") {
			outside = append(outside, p)
		}
		return nil
	})
	if len(outside) > 0 {
		t.Fatalf("files outside the warehouse %s: %v", wh, outside)
	}
	for _, dir := range []string{"public.db/%2E%2E%2F%2E%2E%2Fescaped/metadata", "%2E%2E%2Fout.db/t/data", "public.db/50%/data"} {
		if st, err := os.Stat(filepath.Join(wh, dir)); err != nil || !st.IsDir() {
			t.Errorf("no directory %s under the warehouse: %v", dir, err)
		}
	}
}

// TestViewNamesWithEscapesRefused: a view whose schema or name holds a
// "%" is refused with 42602 rather than stored where the escape points
// (the SQL catalog takes no location for a view); the connection goes on.
func TestViewNamesWithEscapesRefused(t *testing.T) {
	s := startServer(t, wire.AuthTrust)
	conn := pgxConnect(t, s, "", pgx.QueryExecModeSimpleProtocol)
	if _, err := conn.Exec(context.Background(), `CREATE SCHEMA "%2E%2E%2Fv"`); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]string{
		`CREATE VIEW "%2E%2E%2Fv".v AS SELECT 1`: `error ` + string(pgerr.InvalidName) + `: schema name "%2E%2E%2Fv" cannot hold a view: the catalog makes a view's location of its schema and name, where this "%" would read as an escape`,
		`CREATE VIEW "50%" AS SELECT 1`:          `error ` + string(pgerr.InvalidName) + `: view name "50%" cannot name a view: the catalog makes a view's location of its schema and name, where this "%" would read as an escape`,
		`CREATE VIEW "50%25" AS SELECT 1`:        `error ` + string(pgerr.InvalidName) + `: view name "50%25" cannot name a view: the catalog makes a view's location of its schema and name, where this "%" would read as an escape`,
		`CREATE VIEW "a/b" AS SELECT 1`:          `error ` + string(pgerr.InvalidName) + `: view name "a/b" contains "/", which Iceberg catalogs do not allow`,
		`CREATE VIEW "50 percent" AS SELECT 1`:   "CREATE VIEW",
	} {
		if got := outcome(conn, q); got != want {
			t.Errorf("%s:\n got  %s\n want %s", q, got, want)
		}
	}
}

// TestNamesCatalogsRefuse: PostgreSQL takes any name, Iceberg catalogs
// not "/", "." or "..": such a schema, table or view is refused with 42602
// naming the reason (it was created and then unusable, or refused as a
// table that "does not exist"), and nothing is created.
func TestNamesCatalogsRefuse(t *testing.T) {
	s := startServer(t, wire.AuthTrust)
	conn := pgxConnect(t, s, "", pgx.QueryExecModeSimpleProtocol)
	for _, q := range []string{`CREATE TABLE ok (id int)`, `CREATE SCHEMA s`} {
		if _, err := conn.Exec(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	for q, want := range map[string]string{
		`CREATE SCHEMA "../../x"`:                  `error ` + string(pgerr.InvalidName) + `: schema name "../../x" contains "/", which Iceberg catalogs do not allow`,
		`CREATE TABLE public."../../etc" (id int)`: `error ` + string(pgerr.InvalidName) + `: table name "../../etc" contains "/", which Iceberg catalogs do not allow`,
		`CREATE TABLE "a/b" (id int)`:              `error ` + string(pgerr.InvalidName) + `: table name "a/b" contains "/", which Iceberg catalogs do not allow`,
		`CREATE TABLE ".." (id int)`:               `error ` + string(pgerr.InvalidName) + `: table name ".." is a path component, which Iceberg catalogs do not allow`,
		`CREATE TABLE "." AS SELECT 1 AS x`:        `error ` + string(pgerr.InvalidName) + `: table name "." is a path component, which Iceberg catalogs do not allow`,
		`CREATE TABLE "tab` + "\t" + `x" (id int)`: `error ` + string(pgerr.InvalidName) + `: table name "tab\tx" contains a control character, which Iceberg catalogs do not allow`,
		`ALTER TABLE ok RENAME TO "o/k"`:           `error ` + string(pgerr.InvalidName) + `: table name "o/k" contains "/", which Iceberg catalogs do not allow`,
		`ALTER TABLE ok SET SCHEMA "s/t"`:          `error ` + string(pgerr.InvalidSchemaName) + `: schema "s/t" does not exist`, // as no such schema can be made
		`BEGIN; ALTER TABLE ok RENAME TO "o/k"`:    `error ` + string(pgerr.InvalidName) + `: table name "o/k" contains "/", which Iceberg catalogs do not allow`,
	} {
		if got := outcome(conn, q); got != want {
			t.Errorf("%s:\n got  %s\n want %s", q, got, want)
		}
		outcome(conn, "ROLLBACK")
	}
	got := outcome(conn, `SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2`)
	if got != "SELECT 1 | public ok" {
		t.Fatalf("after the refusals: %s", got)
	}
	if got := outcome(conn, `SELECT nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg%' AND nspname NOT IN ('information_schema', 'public') ORDER BY 1`); got != "SELECT 1 | s" {
		t.Fatalf("schemas after the refusals: %s", got)
	}
}
