package e2e

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/magmalake/magmalake/internal/pgtest"
	"github.com/magmalake/magmalake/wire"
)

// TestExplainJSONLikePostgres reads EXPLAIN (ANALYZE, FORMAT JSON) of the
// same scan from magmalake and PostgreSQL 15 through pgx, which decodes a
// json column (OID 114) into Go values, and compares the key names.
func TestExplainJSONLikePostgres(t *testing.T) {
	cl := pgtest.Start(t)
	srv := startServer(t, wire.AuthTrust)
	conns := map[string]*pgx.Conn{"magmalake": pgxConnect(t, srv, "", pgx.QueryExecModeCacheStatement), "PostgreSQL": cl.Connect(t, "postgres")}
	docs := map[string]map[string]any{}
	ctx := context.Background()
	for name, conn := range conns {
		for _, q := range []string{"CREATE TABLE ej (id int, v text)", "INSERT INTO ej VALUES (1, 'a'), (2, 'b'), (3, 'c')"} {
			if _, err := conn.Exec(ctx, q); err != nil {
				t.Fatalf("%s: %s: %v", name, q, err)
			}
		}
		rows, err := conn.Query(ctx, "EXPLAIN (ANALYZE, FORMAT JSON) SELECT * FROM ej WHERE id > 1")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if oid := rows.FieldDescriptions()[0].DataTypeOID; oid != 114 {
			t.Errorf("%s: QUERY PLAN has type %d, want json (114)", name, oid)
		}
		var doc []map[string]any
		for rows.Next() {
			if err := rows.Scan(&doc); err != nil {
				t.Fatalf("%s: scan: %v", name, err)
			}
		}
		if err := rows.Err(); err != nil || len(doc) != 1 {
			t.Fatalf("%s: %v %v", name, err, doc)
		}
		docs[name] = doc[0]
	}
	ours, theirs := docs["magmalake"], docs["PostgreSQL"]
	// Top level: ours are PostgreSQL's keys (it also has "Triggers").
	for k := range ours {
		if _, ok := theirs[k]; !ok {
			t.Errorf("top-level key %q is not PostgreSQL's (%v)", k, keys(theirs))
		}
	}
	for _, k := range []string{"Plan", "Planning Time", "Execution Time"} {
		if _, ok := ours[k]; !ok {
			t.Errorf("no top-level %q: %v", k, keys(ours))
		}
	}
	// The scan node: the keys both name alike, with the same values.
	op, tp := ours["Plan"].(map[string]any), theirs["Plan"].(map[string]any)
	for _, k := range []string{"Node Type", "Relation Name", "Alias", "Actual Rows"} {
		if _, ok := op[k]; !ok {
			t.Errorf("Plan lacks %q: %v", k, keys(op))
		}
		if _, ok := tp[k]; !ok {
			t.Errorf("PostgreSQL's Plan lacks %q: %v", k, keys(tp))
		}
	}
	for _, k := range []string{"Relation Name", "Alias", "Actual Rows"} {
		if op[k] != tp[k] {
			t.Errorf("%s: magmalake %v, PostgreSQL %v", k, op[k], tp[k])
		}
	}
}

func keys(m map[string]any) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ", ")
}
