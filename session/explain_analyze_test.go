package session

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// analyzed is EXPLAIN (ANALYZE, FORMAT JSON) of q: its plan's root.
func analyzed(t *testing.T, s *Session, q string) map[string]any {
	t.Helper()
	return explainJSON(t, s, "EXPLAIN (ANALYZE, FORMAT JSON) "+q)["Plan"].(map[string]any)
}

// nodeOf is the first node, depth first, of the given type (and relation,
// when not empty).
func nodeOf(t *testing.T, root map[string]any, typ, relation string) map[string]any {
	t.Helper()
	for _, n := range planNodes(root) {
		if n["Node Type"] == typ && (relation == "" || n["Relation Name"] == relation) {
			return n
		}
	}
	js, _ := json.MarshalIndent(root, "", "  ")
	t.Fatalf("no %s node %s in\n%s", typ, relation, js)
	return nil
}

// planNum is a node's number under key; -1 when it has none.
func planNum(n map[string]any, key string) int64 {
	v, ok := n[key].(json.Number)
	if !ok {
		return -1
	}
	i, err := v.Int64()
	if err != nil {
		f, _ := v.Float64()
		return int64(f)
	}
	return i
}

// countOf is the one number q returns.
func countOf(t *testing.T, s *Session, q string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(mustQuery(t, s, q).rows[0][0], 10, 64)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// wantActual checks a node's rows and loops.
func wantActual(t *testing.T, what string, n map[string]any, rows, loops int64) {
	t.Helper()
	if got := planNum(n, "Actual Rows"); got != rows {
		t.Errorf("%s: Actual Rows %d, want %d", what, got, rows)
	}
	if got := planNum(n, "Actual Loops"); got != loops {
		t.Errorf("%s: Actual Loops %d, want %d", what, got, loops)
	}
}

func explainAnalyzeTables(t *testing.T) *Session {
	s := testSession(t)
	for _, q := range []string{
		"CREATE TABLE ea (id int, g int, v text)",
		"INSERT INTO ea SELECT i, i % 37, 'v' || (i % 5) FROM generate_series(1, 20000) i",
		"CREATE TABLE eb (id int, w int)",
		"INSERT INTO eb SELECT i, i % 10 FROM generate_series(1, 20000, 3) i",
	} {
		mustQuery(t, s, q)
	}
	return s
}

// TestExplainAnalyzePerOperator: each operator's actual rows and loops are
// what count(*) queries of the same shapes give; scans show the rows their
// filter removed, joins and aggregates the memory they held (issue 52:
// EXPLAIN ANALYZE reported only the total rows and time).
func TestExplainAnalyzePerOperator(t *testing.T) {
	s := explainAnalyzeTables(t)

	scan := analyzed(t, s, "SELECT * FROM ea WHERE g < 10")
	kept := countOf(t, s, "SELECT count(*) FROM ea WHERE g < 10")
	wantActual(t, "filtered scan", scan, kept, 1)
	if got := planNum(scan, "Rows Removed by Filter"); got != 20000-kept {
		t.Errorf("Rows Removed by Filter %d, want %d", got, 20000-kept)
	}

	join := analyzed(t, s, "SELECT ea.v, eb.w FROM ea JOIN eb ON ea.id = eb.id WHERE ea.g < 20 AND eb.w > 3")
	hj := nodeOf(t, join, "Hash Join", "")
	wantActual(t, "hash join", hj, countOf(t, s, "SELECT count(*) FROM ea JOIN eb ON ea.id = eb.id WHERE ea.g < 20 AND eb.w > 3"), 1)
	// ea probes the hash of eb's rows: it reads only their ids (their
	// list, up to 4,096 of a build side of up to 65,536 rows; else their
	// range).
	probe := "SELECT count(*) FROM ea WHERE g < 20 AND id IN (SELECT id FROM eb WHERE w > 3)"
	if countOf(t, s, "SELECT count(DISTINCT id) FROM eb WHERE w > 3") > 4096 || countOf(t, s, "SELECT count(*) FROM eb WHERE w > 3") > 65536 {
		probe = "SELECT count(*) FROM ea WHERE g < 20 AND id BETWEEN (SELECT min(id) FROM eb WHERE w > 3) AND (SELECT max(id) FROM eb WHERE w > 3)"
	}
	wantActual(t, "join's ea side", nodeOf(t, hj, "Scan", "ea"), countOf(t, s, probe), 1)
	wantActual(t, "join's eb side", nodeOf(t, hj, "Scan", "eb"), countOf(t, s, "SELECT count(*) FROM eb WHERE w > 3"), 1)
	if planNum(hj, "Peak Memory Usage") <= 0 || hj["Disk Usage"] != nil || planNum(hj, "Hash Batches") != 1 {
		t.Errorf("hash join memory: %v", hj)
	}
	if hj["Hash Cond"] != "(ea.id = eb.id)" || hj["Join Type"] != "Inner" {
		t.Errorf("hash join condition: %v %v", hj["Hash Cond"], hj["Join Type"])
	}

	top := analyzed(t, s, "SELECT g, count(*) FROM ea WHERE id > 100 GROUP BY g ORDER BY g DESC LIMIT 5")
	wantActual(t, "limit", top, 5, 1)
	wantActual(t, "sort", nodeOf(t, top, "Sort", ""), 5, 1)
	agg := nodeOf(t, top, "Aggregate", "")
	wantActual(t, "aggregate", agg, countOf(t, s, "SELECT count(DISTINCT g) FROM ea WHERE id > 100"), 1)
	if agg["Strategy"] != "Hashed" || planNum(agg, "Peak Memory Usage") <= 0 || planNum(agg, "HashAgg Batches") != 1 {
		t.Errorf("aggregate: %v", agg)
	}
	wantActual(t, "aggregated scan", nodeOf(t, top, "Scan", "ea"), countOf(t, s, "SELECT count(*) FROM ea WHERE id > 100"), 1)

	// A correlated subquery runs once per distinct outer value it reads
	// (the statement keeps its answers); an uncorrelated one once.
	corr := analyzed(t, s, "SELECT id, (SELECT max(w) FROM eb WHERE eb.w < ea.g) FROM ea WHERE id <= 40")
	sub := nodeOf(t, corr, "Aggregate", "")
	if sub["Parent Relationship"] != "SubPlan" || sub["Subplan Name"] != "SubPlan 1" {
		t.Errorf("the subquery is not SubPlan 1: %v", sub)
	}
	wantActual(t, "correlated subquery", sub, 1, countOf(t, s, "SELECT count(DISTINCT g) FROM ea WHERE id <= 40"))
	in := analyzed(t, s, "SELECT count(*) FROM ea WHERE id IN (SELECT id FROM eb WHERE w = 1)")
	wantActual(t, "uncorrelated subquery", nodeOf(t, in, "Scan", "eb"), countOf(t, s, "SELECT count(*) FROM eb WHERE w = 1"), 1)

	// The text form: every node's line carries its estimate and what it did.
	lines := flatRows(mustQuery(t, s, "EXPLAIN ANALYZE SELECT g, count(*) FROM ea JOIN eb ON ea.id = eb.id GROUP BY g ORDER BY 2 DESC LIMIT 3"))
	head := regexp.MustCompile(`^(\s*->  )?[A-Z][A-Za-z ]+.*  \(rows=\d+\) \(actual time=\d+\.\d{3}\.\.\d+\.\d{3} rows=\d+ loops=\d+\)$`)
	var nodes int
	for _, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "->") || nodes == 0 {
			nodes++
			if !head.MatchString(l) {
				t.Errorf("node line %q is not PostgreSQL's layout", l)
			}
		}
	}
	if nodes != 6 || !strings.HasPrefix(lines[len(lines)-2], "Planning Time: ") || !strings.HasPrefix(lines[len(lines)-1], "Execution Time: ") {
		t.Errorf("%d nodes (want Limit, Sort, HashAggregate, Hash Join and two scans):\n%s", nodes, strings.Join(lines, "\n"))
	}
}

// TestExplainAnalyzeSpills: under a work_mem too small for them, a sort,
// an aggregate, an aggregate's DISTINCT, a hash join, DISTINCT, a set operation and windows by
// partition report the bytes they spilled and still the rows they
// produced; with room, nothing spilled and the memory held.
func TestExplainAnalyzeSpills(t *testing.T) {
	s := explainAnalyzeTables(t)
	groups := countOf(t, s, "SELECT count(DISTINCT id) FROM ea")
	joined := countOf(t, s, "SELECT count(*) FROM ea JOIN eb ON ea.id = eb.id")
	excepted := countOf(t, s, "SELECT count(*) FROM (SELECT id, v FROM ea EXCEPT SELECT id, 'v' || w FROM eb) AS x")
	for _, small := range []bool{false, true} {
		mustQuery(t, s, "RESET work_mem")
		if small {
			mustQuery(t, s, "SET work_mem = '64kB'")
		}
		what := fmt.Sprintf("work_mem 64kB %v", small)

		sort := nodeOf(t, analyzed(t, s, "SELECT * FROM ea ORDER BY v, id"), "Sort", "")
		wantActual(t, what+": sort", sort, 20000, 1)
		wantSpace, wantMethod := "Memory", "quicksort"
		if small {
			wantSpace, wantMethod = "Disk", "external merge"
		}
		if sort["Sort Space Type"] != wantSpace || sort["Sort Method"] != wantMethod || planNum(sort, "Sort Space Used") <= 0 {
			t.Errorf("%s: sort %v %v %v", what, sort["Sort Method"], sort["Sort Space Type"], sort["Sort Space Used"])
		}

		agg := nodeOf(t, analyzed(t, s, "SELECT id, count(*) FROM ea GROUP BY id"), "Aggregate", "")
		wantActual(t, what+": aggregate", agg, groups, 1)
		if spilled := planNum(agg, "Disk Usage") > 0; spilled != small || (planNum(agg, "HashAgg Batches") > 1) != small || planNum(agg, "Peak Memory Usage") <= 0 {
			t.Errorf("%s: aggregate batches %d memory %d disk %d", what, planNum(agg, "HashAgg Batches"), planNum(agg, "Peak Memory Usage"), planNum(agg, "Disk Usage"))
		}

		plain := nodeOf(t, analyzed(t, s, "SELECT count(DISTINCT id) FROM ea"), "Aggregate", "")
		wantActual(t, what+": count(DISTINCT)", plain, 1, 1)
		if spilled := planNum(plain, "Disk Usage") > 0; spilled != small || planNum(plain, "Peak Memory Usage") <= 0 {
			t.Errorf("%s: count(DISTINCT) memory %d disk %d", what, planNum(plain, "Peak Memory Usage"), planNum(plain, "Disk Usage"))
		}

		hj := nodeOf(t, analyzed(t, s, "SELECT ea.v, eb.w FROM ea JOIN eb ON ea.id = eb.id"), "Hash Join", "")
		wantActual(t, what+": hash join", hj, joined, 1)
		if spilled := planNum(hj, "Disk Usage") > 0; spilled != small || (planNum(hj, "Hash Batches") > 1) != small || planNum(hj, "Peak Memory Usage") <= 0 {
			t.Errorf("%s: hash join batches %d memory %d disk %d", what, planNum(hj, "Hash Batches"), planNum(hj, "Peak Memory Usage"), planNum(hj, "Disk Usage"))
		}

		// DISTINCT into ORDER BY: each holds and spills its own.
		root := analyzed(t, s, "SELECT DISTINCT id, v FROM ea ORDER BY v, id")
		uniq, sorted := nodeOf(t, root, "Unique", ""), nodeOf(t, root, "Sort", "")
		wantActual(t, what+": unique", uniq, 20000, 1)
		wantActual(t, what+": sort over unique", sorted, 20000, 1)
		if spilled := planNum(uniq, "Disk Usage") > 0; spilled != small || planNum(uniq, "Peak Memory Usage") <= 0 || small && planNum(uniq, "Peak Memory Usage") > 64 {
			t.Errorf("%s: unique memory %d disk %d", what, planNum(uniq, "Peak Memory Usage"), planNum(uniq, "Disk Usage"))
		}
		if spilled := sorted["Sort Space Type"] == "Disk"; spilled != small {
			t.Errorf("%s: sort over unique %v %v", what, sorted["Sort Space Type"], sorted["Sort Space Used"])
		}

		win := nodeOf(t, analyzed(t, s, "SELECT id, row_number() OVER (PARTITION BY g ORDER BY id) FROM ea"), "WindowAgg", "")
		wantActual(t, what+": window", win, 20000, 1)
		if spilled := planNum(win, "Disk Usage") > 0; spilled != small || planNum(win, "Peak Memory Usage") <= 0 {
			t.Errorf("%s: window memory %d disk %d", what, planNum(win, "Peak Memory Usage"), planNum(win, "Disk Usage"))
		}

		except := nodeOf(t, analyzed(t, s, "SELECT id, v FROM ea EXCEPT SELECT id, 'v' || w FROM eb"), "Except", "")
		wantActual(t, what+": except", except, excepted, 1)
		if spilled := planNum(except, "Disk Usage") > 0; spilled != small || planNum(except, "Peak Memory Usage") <= 0 {
			t.Errorf("%s: except memory %d disk %d", what, planNum(except, "Peak Memory Usage"), planNum(except, "Disk Usage"))
		}
	}
	text := mustQuery(t, s, "EXPLAIN ANALYZE SELECT * FROM ea ORDER BY v, id").text()
	if !regexp.MustCompile(`\n\s+Sort Method: external merge  Disk: [1-9]\d*kB\n`).MatchString(text) {
		t.Errorf("no external merge line:\n%s", text)
	}
}

// TestExplainEstimates: without ANALYZE every node shows its estimated
// rows and nothing it did; a table scan's estimate is the table's rows.
func TestExplainEstimates(t *testing.T) {
	s := explainAnalyzeTables(t)
	root := explainJSON(t, s, "EXPLAIN (FORMAT JSON) SELECT g, count(*) FROM ea JOIN eb ON ea.id = eb.id GROUP BY g ORDER BY 2 LIMIT 3")["Plan"].(map[string]any)
	for _, n := range planNodes(root) {
		if planNum(n, "Plan Rows") < 1 || n["Actual Rows"] != nil {
			t.Errorf("%s: Plan Rows %v, Actual Rows %v", n["Node Type"], n["Plan Rows"], n["Actual Rows"])
		}
	}
	if got := planNum(nodeOf(t, root, "Scan", "eb"), "Plan Rows"); got != countOf(t, s, "SELECT count(*) FROM eb") {
		t.Errorf("eb's scan estimate %d", got)
	}
	if got := planNum(root, "Plan Rows"); got != 3 {
		t.Errorf("LIMIT 3 estimated at %d rows", got)
	}
	text := mustQuery(t, s, "EXPLAIN SELECT * FROM ea WHERE g = 3").text()
	if !strings.HasPrefix(text, "Scan on public.ea  (rows=100)\n") || strings.Contains(text, "actual") {
		t.Errorf("EXPLAIN:\n%s", text)
	}
}
