package exec

import (
	"context"
	"os"
	"strings"
	"testing"
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
	dir := "/work/shared/design/traces/catalog-queries/"
	for _, f := range []string{"psql-dt.sql", "psql-describe-t.sql", "pgjdbc-getTables.sql", "pgjdbc-getColumns.sql"} {
		b, err := os.ReadFile(dir + f)
		if err != nil {
			t.Skipf("traces not available: %v", err)
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
