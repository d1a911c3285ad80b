package session

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/pgcatalog"
)

// TestPgStatsMatchesPostgres: after ANALYZE of the same rows, pg_stats
// has PostgreSQL 15's columns and types, and for each column its
// null_frac and n_distinct (PostgreSQL's convention: a count, or minus a
// fraction of the rows past a tenth of them) are PostgreSQL's, which
// counts exactly when it samples the whole table and every value repeats
// or none does. pg_class.reltuples is the live row count (deleted rows
// left out) where PostgreSQL's is the same after its ANALYZE.
func TestPgStatsMatchesPostgres(t *testing.T) {
	s := testSession(t)
	conn := connectTestPostgres(t)
	setup := []string{
		"CREATE TABLE ps (id int, a int, b bigint, c text, u int, z int)",
		`INSERT INTO ps SELECT i, i % 37, i / 2, CASE WHEN i % 10 = 0 THEN NULL ELSE 'c' || (i % 7) END,
			CASE WHEN i % 4 = 0 THEN NULL ELSE i END, NULL::int FROM generate_series(0, 999) i`,
		"CREATE TABLE pn (x int)",
		"ANALYZE ps",
	}
	for _, q := range setup {
		mustQuery(t, s, q)
		mustPG(t, conn, q)
	}
	q := "SELECT attname, null_frac, n_distinct, inherited FROM pg_stats WHERE tablename = 'ps' ORDER BY attname"
	got, want := mustQuery(t, s, q).rows, mustPG(t, conn, q).rows
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("pg_stats\n got  %v\n want %v", got, want)
	}
	q = "SELECT relname, reltuples FROM pg_class WHERE relname IN ('ps') ORDER BY relname"
	if got, want := mustQuery(t, s, q).rows, mustPG(t, conn, q).rows; !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("pg_class.reltuples\n got  %v\n want %v", got, want)
	}
	if got := mustQuery(t, s, "SELECT count(*) FROM pg_stats WHERE tablename = 'pn'").rows[0][0]; got != "0" {
		t.Errorf("a table never analyzed has %s pg_stats rows", got)
	}

	sd, err := conn.Prepare(context.Background(), "", "SELECT * FROM pg_stats LIMIT 0")
	if err != nil {
		t.Fatal(err)
	}
	cols, err := pgcatalog.RelationColumns("pg_catalog", "pg_stats")
	if err != nil {
		t.Fatal(err)
	}
	if len(cols) != len(sd.Fields) {
		t.Fatalf("%d columns, PostgreSQL has %d", len(cols), len(sd.Fields))
	}
	for i, f := range sd.Fields {
		c := cols[i]
		if c.Name != f.Name {
			t.Errorf("column %d is %s, PostgreSQL's is %s", i, c.Name, f.Name)
		}
		const anyarray = 2277 // no such type here: carried as text
		if f.DataTypeOID == anyarray && c.Type.OID() == 25 {
			continue
		}
		if c.Type.OID() != f.DataTypeOID {
			t.Errorf("%s is of type %d, PostgreSQL's of %d", c.Name, c.Type.OID(), f.DataTypeOID)
		}
	}
}

// TestRelTuplesCountsLiveRows: pg_class.reltuples is the current
// snapshot's rows less its deleted ones, analyzed or not, and 0 for a
// table without a snapshot (Iceberg always knows the count).
func TestRelTuplesCountsLiveRows(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE rt (a int) WITH ('write.delete.mode' = 'merge-on-read')")
	mustQuery(t, s, "CREATE TABLE re (a int)")
	mustQuery(t, s, "INSERT INTO rt SELECT i FROM generate_series(1, 100) i")
	mustQuery(t, s, "DELETE FROM rt WHERE a <= 30")
	got := mustQuery(t, s, "SELECT relname, reltuples FROM pg_class WHERE relname IN ('rt', 're') ORDER BY relname").rows
	if strings.Join(got[0], " ") != "re 0" || strings.Join(got[1], " ") != "rt 70" {
		t.Fatalf("reltuples %v, want re 0, rt 70", got)
	}
}
