package session

import (
	"cmp"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/magmalake/magmalake/internal/pgtest"
)

// TestDMLDiff holds magmalake's DML that reads other tables (MERGE INTO,
// DELETE ... USING, UPDATE ... FROM, DELETE and UPDATE with subqueries,
// CTEs and self-references) to PostgreSQL 15 over generated tables and
// statements, in the four table modes (format v2 and v3, copy-on-write and
// merge-on-read) and four partitionings of the target (issue 13). After
// each statement the command tag, the RETURNING rows (as a multiset), the
// SQLSTATE when either side fails, and the whole target table, read both
// by magmalake and by iceberg-go's own scan, must be PostgreSQL's.
//
// PostgreSQL 15 has neither WHEN NOT MATCHED BY SOURCE nor MERGE ...
// RETURNING (both PostgreSQL 17): for those the expectation is built on
// PostgreSQL 15 from the statement's parts (dxModel below).
//
// Knobs: MAGMALAKE_DMLDIFF_SEED, MAGMALAKE_DMLDIFF_STATEMENTS (default
// dxDefaultStatements, over all sixteen tables), MAGMALAKE_DMLDIFF_BUDGET
// (seconds spent running statements, default dxDefaultBudget; 0: no limit),
// MAGMALAKE_DMLDIFF_REPORT (mismatches shown, default 20),
// MAGMALAKE_DMLDIFF_ALL=1 (also run the statements dxSkip holds back).

// dxSkip are features whose statements are generated but not run: known
// magmalake bugs, each with its repro, until they are fixed. A feature
// leaves the list when MAGMALAKE_DMLDIFF_ALL=1 shows no mismatch for it.
var dxSkip = map[string]string{
	// Empty: SET col = DEFAULT, unreachable WHEN clauses (42601) and
	// (a, b) IN (SELECT ...) were held back here until they were fixed.
}

const (
	dxDefaultSeed       = 1
	dxDefaultStatements = 1400
	dxDefaultBudget     = 40
	dxDefaultReport     = 20
	// dxChunk statements run on one table before the next table's turn:
	// a budget cut leaves every mode and partitioning tried.
	dxChunk = 8
	// Tables are refilled outside these bounds, so statements keep
	// finding rows without the tables growing without end.
	dxMinRows, dxMaxRows = 6, 60
	// dxRefresh: the sources get new rows every so many statements.
	dxRefresh = 12
	// dxModelCheck: one statement in so many, when a MERGE PostgreSQL 15
	// runs itself, also checks the model against it.
	dxModelCheck = 3
)

// dxModes are the four table modes; merge-on-read sets all three modes.
var dxModes = []struct{ name, props string }{
	{"v2-cow", "'format-version' = '2'"},
	{"v2-mor", "'format-version' = '2', 'write.delete.mode' = 'merge-on-read', 'write.update.mode' = 'merge-on-read', 'write.merge.mode' = 'merge-on-read'"},
	{"v3-cow", "'format-version' = '3'"},
	{"v3-mor", "'format-version' = '3', 'write.delete.mode' = 'merge-on-read', 'write.update.mode' = 'merge-on-read', 'write.merge.mode' = 'merge-on-read'"},
}

// dxPartitions of the target: none, identity, bucket, both.
var dxPartitions = []string{"", "PARTITIONED BY (g)", "PARTITIONED BY (bucket(4, id))", "PARTITIONED BY (g, bucket(2, id))"}

func TestDMLDiff(t *testing.T) {
	seed := diffEnvUint(t, "MAGMALAKE_DMLDIFF_SEED", dxDefaultSeed)
	n := int(diffEnvUint(t, "MAGMALAKE_DMLDIFF_STATEMENTS", dxDefaultStatements))
	budget := time.Duration(diffEnvUint(t, "MAGMALAKE_DMLDIFF_BUDGET", dxDefaultBudget)) * time.Second
	run := &dxRun{t: t, seed: seed, all: os.Getenv("MAGMALAKE_DMLDIFF_ALL") == "1",
		show:  int(diffEnvUint(t, "MAGMALAKE_DMLDIFF_REPORT", dxDefaultReport)),
		stats: map[string]*dxStat{}, codes: map[string]int{}, example: map[string]string{}}
	t.Logf("seed %d (MAGMALAKE_DMLDIFF_SEED), %d statements, budget %v, all=%v", seed, n, budget, run.all)
	cluster := pgtest.Start(t)
	var cases []*dxCase
	for _, mode := range dxModes {
		for _, part := range dxPartitions {
			cases = append(cases, newDxCase(t, cluster, seed, len(cases), mode.name, mode.props, part))
		}
	}
	start := time.Now()
	per := (n + len(cases) - 1) / len(cases)
	run.rounds(cases, per, budget)
	t.Logf("%d statements run in %v", run.ran, time.Since(start).Round(time.Millisecond))
	run.report()
}

// rounds gives each table dxChunk statements in turn until each has had
// per or the budget is spent.
func (d *dxRun) rounds(cases []*dxCase, per int, budget time.Duration) {
	start := time.Now()
	for done := 0; done < per; done += dxChunk {
		for _, c := range cases {
			if budget > 0 && time.Since(start) > budget {
				d.t.Logf("budget of %v spent after %d statements (MAGMALAKE_DMLDIFF_BUDGET=0 runs all %d per table)", budget, d.ran, per)
				return
			}
			for range min(dxChunk, per-done) {
				d.step(c)
			}
		}
	}
}

// dxCase is one target table (a mode and a partitioning) with its sources,
// in a magmalake warehouse of its own and a PostgreSQL schema of its own.
type dxCase struct {
	name   string
	schema string // in PostgreSQL
	s      *Session
	pg     *pgx.Conn
	gen    *dxGen
	rows   int // rows of t after the last statement
	steps  int
}

func newDxCase(t *testing.T, cluster *pgtest.Cluster, seed uint64, i int, mode, props, part string) *dxCase {
	c := &dxCase{name: fmt.Sprintf("%s %s", mode, cmp.Or(part, "unpartitioned")),
		s: testSession(t), pg: cluster.Connect(t, "postgres"), gen: newDxGen(seed, uint64(i))}
	c.schema = fmt.Sprintf("c%d", i)
	mustPG(t, c.pg, "CREATE SCHEMA "+c.schema)
	mustPG(t, c.pg, "SET search_path = "+c.schema)
	mustPG(t, c.pg, "SET statement_timeout = '5s'")
	for _, tb := range []string{"t", "s1", "s2"} {
		mustPG(t, c.pg, "CREATE TABLE "+tb+" ("+dxColumns+")")
		p := ""
		if tb == "t" {
			p = part + " "
		}
		mustQuery(t, c.s, "CREATE TABLE "+tb+" ("+dxColumns+") "+p+"WITH ("+props+")")
	}
	c.both(t, c.gen.targetRows(12+c.gen.r.IntN(14)))
	c.refreshSources(t)
	c.rows = len(mustPG(t, c.pg, "SELECT 1 FROM t").rows)
	return c
}

// both runs a statement that must succeed on both systems.
func (c *dxCase) both(t *testing.T, q string) {
	t.Helper()
	mustPG(t, c.pg, q)
	mustQuery(t, c.s, q)
}

func (c *dxCase) refreshSources(t *testing.T) {
	c.both(t, "TRUNCATE s1")
	c.both(t, "TRUNCATE s2")
	c.both(t, c.gen.s1Rows())
	c.both(t, c.gen.s2Rows())
}

// dxStat counts one feature's statements.
type dxStat struct{ ran, skipped, pgErrors, mismatches int }

// dxRun runs statements and keeps what the report needs.
type dxRun struct {
	t          *testing.T
	seed       uint64
	all        bool
	show       int
	ran        int
	stats      map[string]*dxStat
	codes      map[string]int    // PostgreSQL's SQLSTATEs, by count
	example    map[string]string // a statement failing with each
	models     int               // statements whose expectation is dxModel's
	checked    int               // MERGEs whose model was checked against PostgreSQL
	mismatches []dxMismatch
}

type dxMismatch struct {
	c     string // the table
	st    dxStmt
	diffs string
}

func (d *dxRun) stat(f string) *dxStat {
	if d.stats[f] == nil {
		d.stats[f] = &dxStat{}
	}
	return d.stats[f]
}

// step keeps the tables in bounds, then generates and compares one
// statement (or counts it, when a feature it uses is held back).
func (d *dxRun) step(c *dxCase) {
	t := d.t
	if c.steps++; c.steps%dxRefresh == 0 {
		c.refreshSources(t)
	}
	if c.rows > dxMaxRows {
		c.both(t, "TRUNCATE t")
		c.rows = 0
	}
	if c.rows < dxMinRows {
		c.both(t, c.gen.targetRows(10+c.gen.r.IntN(10)))
	}
	st := c.gen.stmt()
	if !d.all && slices.ContainsFunc(st.feats, func(f string) bool { return dxSkip[f] != "" }) {
		for _, f := range st.feats {
			d.stat(f).skipped++
		}
		return
	}
	d.compare(c, st)
}

// compare runs st on both systems and then compares the tables; on a
// mismatch magmalake's target is reset to PostgreSQL's, so the statements
// after it still test something.
func (d *dxRun) compare(c *dxCase, st dxStmt) {
	t := d.t
	d.ran++
	want := d.expect(c, st)
	got, code, err := diffMagma(c.s, st.sql, magmaTimeout)
	var diffs []string
	if diff := dxOutcome(want, got, code, err); diff != "" {
		diffs = append(diffs, diff)
	}
	pgRows := diffSorted(mustPG(t, c.pg, "SELECT id, g, v, s FROM t").rows)
	c.rows = len(pgRows)
	diffs = append(diffs, dxTables(t, c.s, pgRows)...)
	d.count(st, want, len(diffs) > 0)
	if len(diffs) > 0 {
		d.mismatches = append(d.mismatches, dxMismatch{c: c.name, st: st, diffs: strings.Join(diffs, "\n  ")})
		c.resync(t, pgRows)
	}
}

// expect runs st on PostgreSQL 15, or its model when PostgreSQL 15 cannot.
func (d *dxRun) expect(c *dxCase, st dxStmt) pgOutcome {
	switch {
	case st.merge != nil && st.merge.needsModel():
		d.models++
		return dxModel(d.t, c.pg, c.schema, st.merge, true).pgOutcome
	case st.merge != nil && d.ran%dxModelCheck == 0:
		return d.checkModel(c, st)
	}
	return pgExec(d.t, c.pg, cmp.Or(st.pg, st.sql))
}

// count adds a statement that ran to the report's tallies.
func (d *dxRun) count(st dxStmt, want pgOutcome, mismatch bool) {
	if want.code != "" {
		d.codes[want.code]++
		d.example[want.code] = cmp.Or(d.example[want.code], st.sql)
	}
	for _, f := range st.feats {
		d.stat(f).ran++
		if want.code != "" {
			d.stat(f).pgErrors++
		}
		if mismatch {
			d.stat(f).mismatches++
		}
	}
}

// checkModel runs the model of a MERGE PostgreSQL 15 can run itself,
// rolled back, then the MERGE: the model must agree with it, or the
// expectations built from the model could not be trusted.
func (d *dxRun) checkModel(c *dxCase, st dxStmt) pgOutcome {
	d.checked++
	model := dxModel(d.t, c.pg, c.schema, st.merge, false)
	want := pgExec(d.t, c.pg, st.pg)
	var table [][]string
	if want.code == "" {
		table = diffSorted(mustPG(d.t, c.pg, "SELECT id, g, v, s FROM t").rows)
	}
	if model.code != want.code || model.tag != want.tag || !slices.EqualFunc(model.table, table, slices.Equal) {
		d.t.Errorf("the model of MERGE disagrees with PostgreSQL 15 on %s\n  model: %s %s %s\n  PostgreSQL: %s %s %s",
			st.pg, model.code, model.tag, diffShow(model.table), want.code, want.tag, diffShow(table))
	}
	return want
}

// dxOutcome is how magmalake's outcome differs from PostgreSQL's, "" if
// it does not: the same SQLSTATE, or the same tag and RETURNING rows.
func dxOutcome(want pgOutcome, got *result, code string, err error) string {
	switch {
	case want.code != "" && code == want.code:
		return ""
	case want.code != "":
		return fmt.Sprintf("PostgreSQL: SQLSTATE %s\n  magmalake:  %s", want.code, diffErr(got, err))
	case err != nil:
		return fmt.Sprintf("PostgreSQL: %s %s\n  magmalake:  %v", want.tag, diffShow(want.rows), err)
	}
	w, g := diffSorted(want.rows), diffSorted(got.rows)
	if got.tag != want.tag || !slices.EqualFunc(w, g, slices.Equal) {
		return fmt.Sprintf("PostgreSQL: %s %s\n  magmalake:  %s %s", want.tag, diffShow(w), got.tag, diffShow(g))
	}
	return ""
}

// dxTables compares PostgreSQL's target (sorted rows) with magmalake's,
// read by magmalake and by iceberg-go's scan.
func dxTables(t *testing.T, s *Session, pgRows [][]string) []string {
	var diffs []string
	got, code, err := diffMagma(s, "SELECT id, g, v, s FROM t", magmaTimeout)
	if err != nil {
		diffs = append(diffs, fmt.Sprintf("magmalake cannot read t: %s %v", code, err))
	} else if g := diffSorted(got.rows); !slices.EqualFunc(g, pgRows, slices.Equal) {
		diffs = append(diffs, "table t: "+dxRowDiff(pgRows, g))
	}
	want := dxCanonical(pgRows)
	if ice := fndSorted(fndIcebergRows(t, s, "public", "t")); !slices.EqualFunc(ice, want, slices.Equal) {
		diffs = append(diffs, "table t read by iceberg-go: "+dxRowDiff(want, ice))
	}
	return diffs
}

// dxRowDiff names the rows only one side has.
func dxRowDiff(want, got [][]string) string {
	join := func(rows [][]string) []string {
		out := make([]string, len(rows))
		for i, r := range rows {
			out[i] = "(" + strings.Join(r, ", ") + ")"
		}
		slices.Sort(out)
		return out
	}
	w, g := join(want), join(got)
	return fmt.Sprintf("%d rows, PostgreSQL %d; only in PostgreSQL: %v; only in magmalake: %v",
		len(got), len(want), deleteDiffMinus(w, g), deleteDiffMinus(g, w))
}

// dxCanonical is PostgreSQL's (id, g, v, s) text in fndCell's terms, as
// iceberg-go's rows are read.
func dxCanonical(rows [][]string) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = make([]string, len(r))
		for j, v := range r {
			switch {
			case v == "NULL":
				out[i][j] = fndNull
			case j == 3:
				out[i][j] = "s:" + v
			default:
				out[i][j] = "i:" + v
			}
		}
	}
	return fndSorted(out)
}

// resync makes magmalake's target PostgreSQL's rows.
func (c *dxCase) resync(t *testing.T, rows [][]string) {
	mustQuery(t, c.s, "TRUNCATE t")
	if len(rows) > 0 {
		mustQuery(t, c.s, "INSERT INTO t VALUES "+dxValues(rows))
	}
}

// dxValues writes PostgreSQL's (id, g, v, s) text rows as VALUES rows.
func dxValues(rows [][]string) string {
	out := make([]string, len(rows))
	for i, r := range rows {
		vals := slices.Clone(r)
		if vals[3] != "NULL" {
			vals[3] = dxQuote(vals[3])
		}
		out[i] = "(" + strings.Join(vals, ", ") + ")"
	}
	return strings.Join(out, ", ")
}

// The model of PostgreSQL 17's MERGE on PostgreSQL 15. In one transaction
// a temporary t, shadowing the real one, copies its rows with two hidden
// columns, _r (the row's number) and _u (set to 1 by every update), and
//
//  1. bysrc keeps, by ctid, the target rows no source row joins, each with
//     the first BY SOURCE clause whose condition holds (CASE's order is
//     the clauses' order), decided before anything changes;
//  2. PostgreSQL 15 runs the MERGE without its BY SOURCE clauses (it never
//     touches those rows, so their ctids stay) and without RETURNING;
//  3. each BY SOURCE clause's UPDATE or DELETE runs on its rows in bysrc;
//  4. RETURNING's rows are the inserted rows (_r NULL), the updated ones
//     (_u = 1) and the deleted ones (the copy taken first, _r gone), each
//     with merge_action() written as its action;
//  5. the real t gets the temporary t's rows and the transaction commits.
//
// The tag counts what steps 2 and 3 did. A failing step (21000 in step 2)
// rolls everything back.

// dxModelOut is the model's outcome and, when not applied, the table it
// left.
type dxModelOut struct {
	pgOutcome
	table [][]string
}

// dxStep is one statement of the model: whether its tag counts toward
// MERGE n, whether its rows are RETURNING's.
type dxStep struct {
	sql            string
	counts, result bool
}

// dxModel runs the model of m; apply false leaves PostgreSQL's t as it was
// and returns the table the MERGE would leave.
func dxModel(t *testing.T, conn *pgx.Conn, schema string, m *dxMerge, apply bool) dxModelOut {
	t.Helper()
	mustPG(t, conn, "BEGIN")
	var out dxModelOut
	n := 0
	for _, st := range dxModelSteps(m, schema) {
		res := pgExec(t, conn, st.sql)
		if res.code != "" {
			mustPG(t, conn, "ROLLBACK")
			return dxModelOut{pgOutcome: pgOutcome{code: res.code}}
		}
		if st.counts {
			n += dxTagCount(t, res.tag)
		}
		if st.result {
			out.rows = res.rows
		}
	}
	out.tag = fmt.Sprintf("MERGE %d", n)
	if !apply {
		out.table = diffSorted(mustPG(t, conn, "SELECT id, g, v, s FROM t").rows)
		mustPG(t, conn, "ROLLBACK")
		return out
	}
	mustPG(t, conn, "DELETE FROM "+schema+".t")
	mustPG(t, conn, "INSERT INTO "+schema+".t SELECT id, g, v, s FROM t")
	mustPG(t, conn, "COMMIT")
	return out
}

func dxTagCount(t *testing.T, tag string) int {
	f := strings.Fields(tag)
	n, err := strconv.Atoi(f[len(f)-1])
	if err != nil {
		t.Fatalf("tag %q: %v", tag, err)
	}
	return n
}

// dxModelSteps are the model's statements for m (steps 1 to 4).
func dxModelSteps(m *dxMerge, schema string) []dxStep {
	steps := []dxStep{{sql: "CREATE TEMP TABLE t ON COMMIT DROP AS SELECT id, g, v, s, row_number() OVER () AS _r, 0 AS _u FROM " + schema + ".t"}}
	if len(m.returning) > 0 {
		steps = append(steps, dxStep{sql: "CREATE TEMP TABLE pre ON COMMIT DROP AS SELECT * FROM t"})
	}
	var rest, bySource []dxClause
	for _, c := range m.clauses {
		if c.bySource() {
			bySource = append(bySource, c)
		} else {
			rest = append(rest, dxMarkUpdate(c))
		}
	}
	if len(bySource) > 0 {
		steps = append(steps, dxStep{sql: dxBySourceRows(m, bySource)})
	}
	if len(rest) > 0 {
		pg15 := *m
		pg15.clauses, pg15.returning = rest, nil
		steps = append(steps, dxStep{sql: pg15.sql(true), counts: true})
	}
	for i, c := range bySource {
		rows := fmt.Sprintf(" WHERE %s.ctid IN (SELECT tid FROM bysrc WHERE k = %d)", m.q, i+1)
		switch {
		case strings.HasPrefix(c.action, "UPDATE"):
			steps = append(steps, dxStep{sql: "UPDATE " + m.target + " " + dxMarkUpdate(c).action[len("UPDATE "):] + rows, counts: true})
		case c.action == "DELETE":
			steps = append(steps, dxStep{sql: "DELETE FROM " + m.target + rows, counts: true})
		}
	}
	if len(m.returning) > 0 {
		steps = append(steps, dxStep{sql: dxReturningRows(m), result: true})
	}
	return steps
}

// dxMarkUpdate makes an UPDATE action set _u too.
func dxMarkUpdate(c dxClause) dxClause {
	if strings.HasPrefix(c.action, "UPDATE SET ") {
		c.action += ", _u = 1"
	}
	return c
}

// dxBySourceRows is step 1: the target rows no source row joins by ON,
// and which BY SOURCE clause (1, 2, ...; 0 for none) acts on each.
func dxBySourceRows(m *dxMerge, cs []dxClause) string {
	var k strings.Builder
	k.WriteString("CASE")
	for i, c := range cs {
		fmt.Fprintf(&k, " WHEN %s THEN %d", cmp.Or(c.cond, "true"), i+1)
	}
	k.WriteString(" ELSE 0 END")
	return fmt.Sprintf("CREATE TEMP TABLE bysrc ON COMMIT DROP AS %sSELECT %s.ctid AS tid, %s AS k FROM %s WHERE NOT EXISTS (SELECT 1 FROM %s WHERE %s)",
		m.with, m.q, k.String(), m.target, m.source, m.on)
}

// dxReturningRows is step 4.
func dxReturningRows(m *dxMerge) string {
	items := func(action string) string {
		out := slices.Clone(m.returning)
		for i, e := range out {
			if e == "merge_action()" {
				out[i] = "'" + action + "'::text"
			}
		}
		return strings.Join(out, ", ")
	}
	return fmt.Sprintf("SELECT %s FROM %s WHERE %s._r IS NULL UNION ALL SELECT %s FROM %s WHERE %s._u = 1 "+
		"UNION ALL SELECT %s FROM pre AS %s WHERE %s._r NOT IN (SELECT _r FROM t WHERE _r IS NOT NULL)",
		items("INSERT"), m.target, m.q, items("UPDATE"), m.target, m.q, items("DELETE"), m.q, m.q)
}

// report logs what ran, per feature, and the first mismatches; any
// mismatch fails the test.
func (d *dxRun) report() {
	d.t.Log(d.summary())
	for i, m := range d.mismatches {
		if i == d.show {
			d.t.Logf("... and %d more (MAGMALAKE_DMLDIFF_REPORT shows more)", len(d.mismatches)-i)
			break
		}
		d.t.Logf("mismatch %d (%s; seed %d):\n%s\n  features: %v\n  %s", i+1, m.c, d.seed, m.st.sql, m.st.feats, m.diffs)
	}
	if len(d.mismatches) > 0 {
		d.t.Errorf("%d statements differ from PostgreSQL 15 (MAGMALAKE_DMLDIFF_SEED=%d reproduces)", len(d.mismatches), d.seed)
	}
}

// summary is the table of features and PostgreSQL's errors by SQLSTATE.
func (d *dxRun) summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d statements run (%d against the model of BY SOURCE and RETURNING, which %d other MERGEs checked), %d mismatches\n",
		d.ran, d.models, d.checked, len(d.mismatches))
	fmt.Fprintf(&b, "PostgreSQL's errors by SQLSTATE: %v\n", d.codes)
	for _, code := range slices.Sorted(maps.Keys(d.example)) {
		fmt.Fprintf(&b, "  %s: %.300s\n", code, d.example[code])
	}
	for _, f := range slices.Sorted(maps.Keys(dxSkip)) {
		fmt.Fprintf(&b, "held back (dxSkip): %s: %s\n", f, dxSkip[f])
	}
	fmt.Fprintf(&b, "%-22s %8s %8s %8s %8s\n", "feature", "ran", "pg error", "mismatch", "skipped")
	for _, f := range slices.Sorted(maps.Keys(d.stats)) {
		st := d.stats[f]
		fmt.Fprintf(&b, "%-22s %8d %8d %8d %8d\n", f, st.ran, st.pgErrors, st.mismatches, st.skipped)
	}
	return b.String()
}
