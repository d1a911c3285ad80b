package session

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/stmt"
)

// catalogFixture creates the tables the catalog tests browse.
func catalogFixture(t *testing.T) *Session {
	t.Helper()
	s := testSession(t)
	for _, q := range []string{
		"CREATE TABLE t (id bigint NOT NULL, name text, grp int)",
		"CREATE SCHEMA s2",
		"CREATE TABLE s2.u (a int NOT NULL, c numeric(10,2), d date, ts timestamptz) PARTITIONED BY (day(ts))",
	} {
		mustQuery(t, s, q)
	}
	return s
}

// TestTracedCatalogQueries runs every catalog query the traced clients
// sent, verbatim, with t's OID in place of the trace's 16385.
func TestTracedCatalogQueries(t *testing.T) {
	s := catalogFixture(t)
	oid := mustQuery(t, s, "SELECT c.oid FROM pg_catalog.pg_class c WHERE c.relname = 't'").rows[0][0]
	// Copies of ../shared/design/traces/catalog-queries, kept in the
	// checkout so the test never depends on the machine's layout.
	dir := "testdata/catalog-queries/"
	for _, f := range []string{"psql-dt.sql", "psql-describe-t.sql", "pgjdbc-getTables.sql", "pgjdbc-getColumns.sql"} {
		b, err := os.ReadFile(dir + f)
		if err != nil {
			t.Fatal(err)
		}
		stmts, err := s.Split(strings.ReplaceAll(string(b), "16385", oid))
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range stmts {
			r, err := s.query(context.Background(), q)
			if err != nil {
				t.Errorf("%s: %v\n%s", f, err, q)
				continue
			}
			t.Logf("%s: %v\n%s", f, r.cols, r.text())
		}
	}
}

// TestCapturedClientQueries runs the catalog queries psql (\dt, \dn, \l,
// \d), pgjdbc (getSchemas, getTables, getColumns, getPrimaryKeys,
// getTypeInfo) and SQLAlchemy's inspector sent to PostgreSQL 15, verbatim.
func TestCapturedClientQueries(t *testing.T) {
	s := catalogFixture(t)
	b, err := os.ReadFile("../pgcatalog/testdata/client-queries.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range strings.Split(string(b), "\n;;;;\n") {
		q = strings.ReplaceAll(q, "$1", "23")
		if _, err := s.query(context.Background(), q); err != nil {
			t.Errorf("%v\n%s", err, q)
		}
	}
}

// TestCatalogOIDsStable checks a table keeps its OID across writes and
// sessions, and that pg_attribute and regclass agree with pg_class.
func TestCatalogOIDsStable(t *testing.T) {
	s := catalogFixture(t)
	q := "SELECT c.oid, c.oid::regclass::text, c.relnatts FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 's2' AND c.relname = 'u'"
	before := mustQuery(t, s, q).rows
	mustQuery(t, s, "INSERT INTO s2.u (a) VALUES (1)")
	s2 := s.engine.NewSession(stmt.SessionInfo{User: "other", Database: "db"})
	defer s2.Close()
	after := mustQuery(t, s2, q).rows
	if len(before) != 1 || before[0][0] != after[0][0] {
		t.Fatalf("oid changed: %v -> %v", before, after)
	}
	if before[0][1] != "s2.u" || before[0][2] != "4" {
		t.Fatalf("regclass/relnatts: %v", before[0])
	}
	n := mustQuery(t, s, "SELECT count(*) FROM pg_attribute WHERE attrelid = '"+before[0][0]+"' AND attnum > 0").rows[0][0]
	if n != "4" {
		t.Fatalf("pg_attribute has %s columns of s2.u, want 4", n)
	}
	mustQuery(t, s, "SET search_path = s2, public")
	if got := mustQuery(t, s, "SELECT '"+before[0][0]+"'::regclass::text, pg_table_is_visible("+before[0][0]+")").rows[0]; got[0] != "u" || got[1] != "t" {
		t.Fatalf("visible through search_path: %v", got)
	}
	mustFail(t, s, pgerr.UndefinedTable, "SELECT * FROM pg_catalog.pg_nosuch")
	// A user table joins with a table of another schema.
	nt := mustQuery(t, s, "SELECT count(*) FROM t").rows[0][0]
	nu := mustQuery(t, s, "SELECT count(*) FROM s2.u").rows[0][0]
	a, _ := strconv.Atoi(nt)
	b, _ := strconv.Atoi(nu)
	want := strconv.Itoa(a * b)
	if got := mustQuery(t, s, "SELECT count(*) FROM t JOIN s2.u ON true").rows[0][0]; got != want {
		t.Fatalf("cross join count %s, want %s (%s × %s)", got, want, nt, nu)
	}
}
