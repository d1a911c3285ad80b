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

// TestExplainAnalyzeKeysLikePostgres runs EXPLAIN (ANALYZE, FORMAT JSON)
// of joins, a grouped top-N and a correlated subquery on magmalake and on
// PostgreSQL 15 (told to pick the same operators) and checks that every
// key magmalake takes from PostgreSQL is one PostgreSQL writes, that each
// node has the estimate and actual keys, and that the first node of each
// type both plans have gives the same rows and loops.
func TestExplainAnalyzeKeysLikePostgres(t *testing.T) {
	cl := pgtest.Start(t)
	srv := startServer(t, wire.AuthTrust)
	ours, theirs := pgxConnect(t, srv, "", pgx.QueryExecModeCacheStatement), cl.Connect(t, "postgres")
	ctx := context.Background()
	setup := []string{"CREATE TABLE ej (id int, v text)", "CREATE TABLE ek (id int, w int)",
		"INSERT INTO ej SELECT i, 'v' || (i % 4) FROM generate_series(1, 300) i",
		"INSERT INTO ek SELECT i, i % 7 FROM generate_series(1, 300, 2) i"}
	for _, q := range setup {
		mustExec(t, ours, q)
		mustExec(t, theirs, q)
	}
	// PostgreSQL: hash joins and hash aggregation, as magmalake runs them.
	for _, q := range []string{"SET enable_mergejoin = off", "SET enable_nestloop = off", "SET enable_sort = off", "ANALYZE ej", "ANALYZE ek"} {
		mustExec(t, theirs, q)
	}
	theirKeys := map[string]bool{}
	ourKeys := map[string]string{} // key: the query that showed it
	for _, q := range []string{
		"SELECT ej.v, ek.w FROM ej JOIN ek ON ej.id = ek.id WHERE ej.id > 10 AND ek.w < 5",
		"SELECT v, count(*) FROM ej WHERE id > 20 GROUP BY v ORDER BY v LIMIT 2",
		"SELECT id, (SELECT max(w) FROM ek WHERE ek.w < ej.id) FROM ej WHERE id < 9",
		"SELECT ej.v FROM ej LEFT JOIN ek ON ej.id = ek.id AND ek.w <> ej.id WHERE ej.id < 50",
		"SELECT ej.v, ek.w FROM ej LEFT JOIN ek ON ej.id = ek.id WHERE ek.w IS NULL",
	} {
		our, their := explainPlan(t, ctx, ours, q), explainPlan(t, ctx, theirs, q)
		first := map[string]map[string]any{}
		for _, n := range jsonNodes(their) {
			if typ := n["Node Type"].(string); first[typ] == nil {
				first[typ] = n
			}
			for k := range n {
				theirKeys[k] = true
			}
		}
		compared := map[string]bool{}
		for _, n := range jsonNodes(our) {
			typ := n["Node Type"].(string)
			for k := range n {
				if sharedExplainKeys[k] {
					ourKeys[k] = q
				}
			}
			for _, k := range []string{"Plan Rows", "Actual Startup Time", "Actual Total Time", "Actual Rows", "Actual Loops"} {
				if _, ok := n[k]; !ok {
					t.Errorf("%s: %s lacks %q", q, typ, k)
				}
			}
			if tn := first[typ]; tn != nil && !compared[typ] {
				compared[typ] = true
				for _, k := range []string{"Actual Rows", "Actual Loops"} {
					if n[k] != tn[k] {
						t.Errorf("%s: %s %s magmalake %v, PostgreSQL %v", q, typ, k, n[k], tn[k])
					}
				}
			}
		}
		if len(compared) == 0 {
			t.Errorf("%s: no node type shared with PostgreSQL's plan", q)
		}
	}
	for k, q := range ourKeys {
		if !theirKeys[k] {
			t.Errorf("%s: key %q is not one PostgreSQL writes", q, k)
		}
	}
	for k := range sharedExplainKeys {
		if _, ok := ourKeys[k]; !ok {
			t.Errorf("no plan showed %q", k)
		}
	}
}

// sharedExplainKeys are the node keys magmalake takes from PostgreSQL.
var sharedExplainKeys = map[string]bool{
	"Node Type": true, "Parent Relationship": true, "Subplan Name": true, "Strategy": true, "Join Type": true,
	"Relation Name": true, "Alias": true, "Plan Rows": true, "Actual Startup Time": true, "Actual Total Time": true,
	"Actual Rows": true, "Actual Loops": true, "Hash Cond": true, "Join Filter": true, "Filter": true,
	"Rows Removed by Filter": true, "Sort Key": true, "Sort Method": true, "Sort Space Used": true,
	"Sort Space Type": true, "Group Key": true, "HashAgg Batches": true, "Peak Memory Usage": true,
	"Disk Usage": true, "Hash Batches": true,
}

// explainPlan is EXPLAIN (ANALYZE, FORMAT JSON) q's plan.
func explainPlan(t *testing.T, ctx context.Context, conn *pgx.Conn, q string) map[string]any {
	t.Helper()
	var doc []map[string]any
	if err := conn.QueryRow(ctx, "EXPLAIN (ANALYZE, FORMAT JSON) "+q).Scan(&doc); err != nil || len(doc) != 1 {
		t.Fatalf("%s: %v %v", q, err, doc)
	}
	return doc[0]["Plan"].(map[string]any)
}

// jsonNodes lists a plan's nodes depth first.
func jsonNodes(n map[string]any) []map[string]any {
	out := []map[string]any{n}
	if kids, ok := n["Plans"].([]any); ok {
		for _, k := range kids {
			out = append(out, jsonNodes(k.(map[string]any))...)
		}
	}
	return out
}
