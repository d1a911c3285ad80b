package session

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// explainJSON runs an EXPLAIN (FORMAT JSON ...) and decodes its one value.
func explainJSON(t *testing.T, s *Session, q string) map[string]any {
	t.Helper()
	p, err := s.Prepare(context.Background(), q, nil)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	if len(p.Columns) != 1 || p.Columns[0].Name != "QUERY PLAN" || p.Columns[0].Type.OID() != sql.OIDJSON {
		t.Fatalf("%s: columns %+v, want one json column QUERY PLAN", q, p.Columns)
	}
	r := mustQuery(t, s, q)
	if len(r.rows) != 1 {
		t.Fatalf("%s: %d rows, want 1", q, len(r.rows))
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(r.rows[0][0])))
	dec.UseNumber()
	var doc []map[string]any
	if err := dec.Decode(&doc); err != nil || len(doc) != 1 {
		t.Fatalf("%s: not a one-element JSON array (%v):\n%s", q, err, r.rows[0][0])
	}
	if _, ok := doc[0]["Plan"].(map[string]any); !ok {
		t.Fatalf("%s: no Plan object:\n%s", q, r.rows[0][0])
	}
	return doc[0]
}

// planNodes lists a plan's nodes depth first.
func planNodes(n map[string]any) []map[string]any {
	out := []map[string]any{n}
	if kids, ok := n["Plans"].([]any); ok {
		for _, k := range kids {
			out = append(out, planNodes(k.(map[string]any))...)
		}
	}
	return out
}

func TestExplainJSON(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE a (id int, v text)")
	mustQuery(t, s, "INSERT INTO a VALUES (1, 'x'), (2, 'y'), (3, 'z'), (4, 'x'), (5, NULL)")
	mustQuery(t, s, "CREATE TABLE b (id int, w text)")
	mustQuery(t, s, "INSERT INTO b VALUES (1, 'p'), (3, 'q'), (9, 'r')")

	cases := []struct {
		q         string
		nodes     []string // node types, depth first
		relations []string // Relation Name of the scans, in order
	}{
		{"SELECT * FROM a WHERE id > 2", []string{"Scan"}, []string{"a"}},
		{"SELECT a.v, b.w FROM a JOIN b ON a.id = b.id", []string{"Hash Join", "Scan", "Scan"}, []string{"a", "b"}},
		{"SELECT v, count(*) FROM (SELECT * FROM a WHERE id < 5) s GROUP BY v", []string{"Aggregate", "Subquery Scan", "Scan"}, []string{"a"}},
		{"SELECT id FROM a UNION ALL SELECT id FROM b", []string{"Append", "Scan", "Scan"}, []string{"a", "b"}},
	}
	for _, c := range cases {
		doc := explainJSON(t, s, "EXPLAIN (FORMAT JSON) "+c.q)
		nodes := planNodes(doc["Plan"].(map[string]any))
		var types, rels []string
		for _, n := range nodes {
			types = append(types, n["Node Type"].(string))
			if r, ok := n["Relation Name"].(string); ok {
				rels = append(rels, r)
			}
		}
		if strings.Join(types, ",") != strings.Join(c.nodes, ",") || strings.Join(rels, ",") != strings.Join(c.relations, ",") {
			t.Errorf("%s: nodes %v relations %v, want %v %v", c.q, types, rels, c.nodes, c.relations)
		}
		// The text plan is the same tree: one header line per node.
		text := mustQuery(t, s, "EXPLAIN (FORMAT TEXT) "+c.q).text()
		if text != mustQuery(t, s, "EXPLAIN "+c.q).text() {
			t.Errorf("%s: FORMAT TEXT differs from plain EXPLAIN", c.q)
		}
		for _, typ := range c.nodes {
			if !strings.Contains(text, typ) {
				t.Errorf("%s: text plan lacks %s:\n%s", c.q, typ, text)
			}
		}
		if _, ok := doc["Execution Time"]; ok {
			t.Errorf("%s: Execution Time without ANALYZE", c.q)
		}
	}

	// ANALYZE: the root's Actual Rows are the rows the query returns.
	for _, c := range []struct {
		q    string
		rows string
	}{{"SELECT * FROM a WHERE id > 2", "3"}, {"SELECT a.v FROM a JOIN b ON a.id = b.id", "2"}, {"SELECT count(*) FROM a", "1"}} {
		doc := explainJSON(t, s, "EXPLAIN (ANALYZE, FORMAT JSON) "+c.q)
		if got := doc["Plan"].(map[string]any)["Actual Rows"]; got != json.Number(c.rows) {
			t.Errorf("%s: Actual Rows %v, want %s", c.q, got, c.rows)
		}
		for _, k := range []string{"Planning Time", "Execution Time"} {
			if _, ok := doc[k].(json.Number); !ok {
				t.Errorf("%s: no %s: %v", c.q, k, doc)
			}
		}
	}

	// DML: PostgreSQL's ModifyTable keys, the Iceberg details as extra keys.
	doc := explainJSON(t, s, "EXPLAIN (ANALYZE, FORMAT JSON) DELETE FROM a WHERE id <= 2")
	root := doc["Plan"].(map[string]any)
	files := root["Files"].([]any)
	total := root["Total"].(map[string]any)
	if root["Node Type"] != "ModifyTable" || root["Operation"] != "Delete" || root["Relation Name"] != "a" ||
		root["Actual Rows"] != json.Number("2") || total["Files"] != json.Number(strconv.Itoa(len(files))) ||
		root["Iceberg Filter"] == nil || len(files) == 0 {
		t.Errorf("EXPLAIN (ANALYZE, FORMAT JSON) DELETE: %v", root)
	}
	if got := mustQuery(t, s, "SELECT count(*) FROM a").text(); got != "3\n" {
		t.Errorf("after the ANALYZE'd DELETE: %s rows, want 3", got)
	}
	doc = explainJSON(t, s, "EXPLAIN (FORMAT JSON) UPDATE a SET v = 'u' WHERE id = 3")
	if root := doc["Plan"].(map[string]any); root["Operation"] != "Update" || root["Total"] == nil {
		t.Errorf("EXPLAIN (FORMAT JSON) UPDATE: %v", root)
	}

	mustFail(t, s, pgerr.FeatureNotSupported, "EXPLAIN (FORMAT YAML) SELECT 1")
	mustFail(t, s, pgerr.FeatureNotSupported, "EXPLAIN (FORMAT XML) SELECT 1")
	mustFail(t, s, pgerr.InvalidParameterValue, "EXPLAIN (FORMAT BSON) SELECT 1")
}
