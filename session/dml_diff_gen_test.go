package session

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// The statement generator of TestDMLDiff. Every table has the columns
// (id int, g int, v int, s text): t is the target, s1 a source whose ids
// repeat and are NULL now and then, s2 a source whose ids are unique (NULL
// aside). Small value ranges make joins match often, and every statement it
// writes has one answer in PostgreSQL: UPDATE ... FROM a source that may
// join a target row several times sets only values that do not depend on
// which source row wins, and RETURNING never names such a source.

const dxColumns = "id int, g int, v int, s text"

// dxTexts are the values of s: some equal, some share prefixes, one empty.
var dxTexts = []string{"a", "b", "c", "ab", "ba", "Z", "x y", ""}

// dxStmt is one generated statement and the features it uses (sorted).
type dxStmt struct {
	sql   string
	pg    string // what PostgreSQL 15 runs instead, if not sql
	feats []string
	// merge is the MERGE in parts: when PostgreSQL 15 cannot run it (BY
	// SOURCE or RETURNING), the test builds the expectation from them.
	merge *dxMerge
}

// dxGen writes statements from one random stream.
type dxGen struct {
	r     *rand.Rand
	feats []string // of the statement being built
}

func newDxGen(seed, stream uint64) *dxGen {
	return &dxGen{r: rand.New(rand.NewPCG(seed, stream))}
}

func (g *dxGen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }
func (g *dxGen) chance(pct int) bool      { return g.r.IntN(100) < pct }
func (g *dxGen) num(lo, hi int) string    { return strconv.Itoa(lo + g.r.IntN(hi-lo+1)) }
func (g *dxGen) feat(fs ...string)        { g.feats = append(g.feats, fs...) }

// finish names the statement's features, each once.
func (g *dxGen) finish(sql string, m *dxMerge) dxStmt {
	fs := slices.Clone(g.feats)
	slices.Sort(fs)
	g.feats = nil
	return dxStmt{sql: sql, feats: slices.Compact(fs), merge: m}
}

// Values. NULLs are cast: a VALUES column of NULLs alone would be text.

func (g *dxGen) intOrNull(pct, lo, hi int) string {
	if g.chance(pct) {
		return "NULL::int"
	}
	return g.num(lo, hi)
}

func (g *dxGen) textOrNull(pct int) string {
	if g.chance(pct) {
		return "NULL"
	}
	return dxQuote(g.pick(dxTexts...))
}

func dxQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// row is a (id, g, v, s) tuple with ids from 0 to maxID.
func (g *dxGen) row(maxID int) string {
	return fmt.Sprintf("(%s, %s, %s, %s)", g.intOrNull(8, 0, maxID), g.intOrNull(10, 0, 3),
		g.intOrNull(10, -3, 40), g.textOrNull(10))
}

// targetRows fill t: ids repeat now and then, as they may in a lake table.
func (g *dxGen) targetRows(n int) string {
	rows := make([]string, n)
	for i := range rows {
		rows[i] = g.row(14)
	}
	return "INSERT INTO t VALUES " + strings.Join(rows, ", ")
}

// s1Rows have repeated ids (ids 0..14 for about as many rows) and NULLs.
func (g *dxGen) s1Rows() string {
	rows := make([]string, 6+g.r.IntN(10))
	for i := range rows {
		rows[i] = g.row(14)
	}
	return "INSERT INTO s1 VALUES " + strings.Join(rows, ", ")
}

// s2Rows have unique ids, a random subset of 0..16, and a NULL id or two.
func (g *dxGen) s2Rows() string {
	var rows []string
	for _, id := range g.r.Perm(17)[:5+g.r.IntN(8)] {
		rows = append(rows, fmt.Sprintf("(%d, %s, %s, %s)", id, g.intOrNull(10, 0, 3), g.intOrNull(10, -3, 40), g.textOrNull(10)))
	}
	for range g.r.IntN(3) {
		rows = append(rows, "(NULL, 1, 7, 'n')")
	}
	return "INSERT INTO s2 VALUES " + strings.Join(rows, ", ")
}

// Conditions over one relation named q: comparisons with constants, NULL
// tests, LIKE, and two-column ones, all of (id, g, v, s).

func (g *dxGen) atom(q string) string {
	switch g.r.IntN(10) {
	case 0:
		return fmt.Sprintf("%s.g = %s", q, g.num(0, 3))
	case 1:
		return fmt.Sprintf("%s.v > %s", q, g.num(0, 35))
	case 2:
		return fmt.Sprintf("%s.v <= %s", q, g.num(0, 35))
	case 3:
		return fmt.Sprintf("%s.%s IS %sNULL", q, g.pick("id", "g", "v", "s"), g.pick("", "NOT "))
	case 4:
		return fmt.Sprintf("%s.s = %s", q, dxQuote(g.pick(dxTexts...)))
	case 5:
		return fmt.Sprintf("%s.s %s", q, g.pick("LIKE 'a%'", "< 'b'", "<> 'c'", "IN ('a', 'Z', '')"))
	case 6:
		return fmt.Sprintf("%s.id %s %s", q, g.pick("<", ">=", "<>"), g.num(0, 14))
	case 7:
		return fmt.Sprintf("%s.id BETWEEN %s AND %s", q, g.num(0, 6), g.num(6, 14))
	case 8:
		return fmt.Sprintf("%s.v %% 2 = %s", q, g.num(0, 1))
	}
	return fmt.Sprintf("%s.g <> %s.v", q, q)
}

// cond is a boolean of up to depth levels over one relation.
func (g *dxGen) cond(q string, depth int) string {
	if depth == 0 || g.chance(50) {
		return g.atom(q)
	}
	switch g.r.IntN(4) {
	case 0:
		return "NOT (" + g.cond(q, depth-1) + ")"
	case 1:
		return "(" + g.cond(q, depth-1) + " OR " + g.cond(q, depth-1) + ")"
	}
	return g.cond(q, depth-1) + " AND " + g.cond(q, depth-1)
}

// pair compares a column of relation a with one of relation b.
func (g *dxGen) pair(a, b string) string {
	switch g.r.IntN(6) {
	case 0:
		return fmt.Sprintf("%s.v > %s.v", a, b)
	case 1:
		return fmt.Sprintf("%s.g = %s.g", a, b)
	case 2:
		return fmt.Sprintf("%s.s = %s.s", a, b)
	case 3:
		return fmt.Sprintf("%s.v + %s.v < %s", a, b, g.num(5, 60))
	case 4:
		return fmt.Sprintf("%s.s IS DISTINCT FROM %s.s", a, b)
	}
	return fmt.Sprintf("coalesce(%s.v, 0) <= coalesce(%s.v, 0)", a, b)
}

// both is a condition over a target row a and a source row s.
func (g *dxGen) both(a, s string) string {
	switch g.r.IntN(4) {
	case 0:
		return g.cond(a, 1)
	case 1:
		return g.cond(s, 1)
	case 2:
		return g.pair(a, s)
	}
	return g.pair(a, s) + g.pick(" AND ", " OR ") + g.atom(g.pick(a, s))
}

// stmt is the next statement: MERGE most often, the other shapes of DML
// that read other tables beside it.
func (g *dxGen) stmt() dxStmt {
	switch k := g.r.IntN(100); {
	case k < 45:
		return g.merge()
	case k < 57:
		return g.deleteUsing()
	case k < 69:
		return g.updateFrom()
	case k < 85:
		return g.deleteSub()
	default:
		return g.updateSub()
	}
}

// target is "t" with or without an alias, and the qualifier its columns
// go by.
func (g *dxGen) target() (from, q string) {
	switch g.r.IntN(3) {
	case 0:
		return "t", "t"
	case 1:
		return "t AS a", "a"
	}
	return "t a", "a"
}

// returning is a RETURNING list over the target row q, or "" (half the
// time).
func (g *dxGen) returning(q string) string {
	if g.chance(50) {
		return ""
	}
	g.feat("returning")
	return " RETURNING " + g.pick(
		q+".id, "+q+".v",
		q+".id, "+q+".g, "+q+".v, "+q+".s",
		q+".s || '!', "+q+".v * 2",
		"coalesce("+q+".id, -1)")
}

// assignment is a SET item over the target row q: constants, its own
// columns, never a source's.
func (g *dxGen) assignment(q string) string {
	return g.pick(
		"v = "+q+".v + 1",
		"v = coalesce("+q+".v, 0) * 2",
		"g = "+g.num(0, 3),
		"s = 'u'",
		"s = "+q+".s || 'u'",
		"v = NULL",
		"id = "+q+".id + 20",
		"g = "+q+".v % 4")
}

// assignments is one or two SET items on distinct columns; src names a row
// the values may read too ("" for none).
func (g *dxGen) assignments(q, src string) string {
	first := g.assignmentFrom(q, src)
	if g.chance(50) {
		return first
	}
	for range 5 {
		if second := g.assignmentFrom(q, src); strings.Fields(second)[0] != strings.Fields(first)[0] {
			return first + ", " + second
		}
	}
	return first
}

func (g *dxGen) assignmentFrom(q, src string) string {
	if src == "" || g.chance(35) {
		return g.assignment(q)
	}
	return g.pick(
		"v = "+src+".v",
		"v = "+q+".v + "+src+".v",
		"g = "+src+".g",
		"s = "+src+".s",
		"s = coalesce("+q+".s, "+src+".s)",
		"s = "+q+".s || "+src+".s",
		"id = "+src+".id + 30")
}

// dxMerge is a MERGE in parts, so that it can be written for magmalake (as
// PostgreSQL 17 takes it) and rebuilt for PostgreSQL 15 without BY SOURCE
// clauses and RETURNING.
type dxMerge struct {
	with      string // "WITH q AS (...) " or ""
	target    string // "t" or "t AS a"
	q         string // the target's qualifier
	source    string // the USING item
	on        string
	clauses   []dxClause
	returning []string // merge_action() or expressions over q
}

// dxClause is one WHEN clause.
type dxClause struct {
	when   string // MATCHED, NOT MATCHED [BY TARGET], NOT MATCHED BY SOURCE
	cond   string // "" when unconditional
	action string // UPDATE SET ..., DELETE, DO NOTHING, INSERT ...
}

func (c dxClause) bySource() bool { return c.when == "NOT MATCHED BY SOURCE" }

// sql is the clause as PostgreSQL 17 writes it, or (pg15) without BY
// TARGET, which PostgreSQL 15 does not know but means by NOT MATCHED.
func (c dxClause) sql(pg15 bool) string {
	s := " WHEN " + c.when
	if pg15 {
		s = " WHEN " + dxKind(c)
	}
	if c.cond != "" {
		s += " AND " + c.cond
	}
	return s + " THEN " + c.action
}

// sql is the statement as magmalake (and PostgreSQL 17) takes it; pg15
// spells NOT MATCHED BY TARGET as PostgreSQL 15 does.
func (m *dxMerge) sql(pg15 bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%sMERGE INTO %s USING %s ON %s", m.with, m.target, m.source, m.on)
	for _, c := range m.clauses {
		b.WriteString(c.sql(pg15))
	}
	if len(m.returning) > 0 {
		b.WriteString(" RETURNING " + strings.Join(m.returning, ", "))
	}
	return b.String()
}

// needsModel: PostgreSQL 15 has neither BY SOURCE nor MERGE RETURNING.
func (m *dxMerge) needsModel() bool {
	return len(m.returning) > 0 || slices.ContainsFunc(m.clauses, dxClause.bySource)
}

// dxSource is a USING item: q is the qualifier of the row the clauses read,
// unique whether no two of its rows share an id.
type dxSource struct {
	with, item, q string
	unique        bool
}

func (g *dxGen) mergeSource() dxSource {
	switch k := g.r.IntN(20); {
	case k < 3:
		g.feat("merge_table")
		return dxSource{item: g.pick("s1 AS s", "s1 s"), q: "s"}
	case k < 4:
		g.feat("merge_table")
		return dxSource{item: "s1", q: "s1"}
	case k < 8:
		g.feat("merge_table")
		return dxSource{item: "s2 AS s", q: "s", unique: true}
	case k < 10:
		g.feat("merge_subquery_source")
		return dxSource{item: "(SELECT id, g, v, s FROM s1 WHERE " + g.cond("s1", 1) + ") AS s", q: "s"}
	case k < 12:
		g.feat("merge_subquery_source", "aggregate")
		return dxSource{item: "(SELECT id, min(g) AS g, max(v) AS v, max(s) AS s FROM s1 GROUP BY id) AS s", q: "s", unique: true}
	case k < 15:
		g.feat("merge_values")
		return g.valuesSource()
	case k < 17:
		g.feat("merge_cte", "cte")
		return dxSource{with: "WITH q AS (SELECT id, g, v + 1 AS v, s FROM s1 WHERE " + g.cond("s1", 1) + ") ",
			item: "q AS s", q: "s"}
	case k < 18:
		g.feat("merge_self", "self_ref")
		return dxSource{item: "(SELECT id, g, v, s FROM t WHERE " + g.cond("t", 1) + ") AS s", q: "s"}
	case k < 19:
		g.feat("merge_self", "self_ref")
		return dxSource{item: "t AS s", q: "s"}
	}
	g.feat("merge_join_source")
	return dxSource{item: g.pick("s1 AS s JOIN s2 AS x ON s.id = x.id", "(SELECT s1.id, s1.g, s2.v, s1.s FROM s1 JOIN s2 ON s1.g = s2.g) AS s"), q: "s"}
}

// valuesSource is a few rows with, now and then, a repeated id.
func (g *dxGen) valuesSource() dxSource {
	rows := make([]string, 1+g.r.IntN(5))
	for i := range rows {
		rows[i] = g.row(16)
	}
	return dxSource{item: "(VALUES " + strings.Join(rows, ", ") + ") AS s(id, g, v, s)", q: "s"}
}

// mergeOn joins target a and source s, by key most often.
func (g *dxGen) mergeOn(a, s string) string {
	switch k := g.r.IntN(20); {
	case k < 8:
		return fmt.Sprintf("%s.id = %s.id", a, s)
	case k < 10:
		return fmt.Sprintf("%s.id = %s.id AND %s.g = %s.g", a, s, a, s)
	case k < 12:
		return fmt.Sprintf("%s.id = %s.id AND %s", a, s, g.atom(g.pick(a, s)))
	case k < 13:
		return fmt.Sprintf("%s.g = %s.g AND %s.id = %s.id + 1", a, s, a, s)
	case k < 14:
		g.feat("merge_text_key")
		return fmt.Sprintf("%s.s = %s.s", a, s)
	case k < 15:
		g.feat("merge_nonequi")
		return fmt.Sprintf("%s.id = %s.id OR %s.v = %s.v", a, s, a, s)
	case k < 16:
		g.feat("merge_nonequi")
		return fmt.Sprintf("%s.id < %s.id AND %s.g = %s.g", a, s, a, s)
	case k < 17:
		g.feat("merge_not_distinct")
		return fmt.Sprintf("%s.id IS NOT DISTINCT FROM %s.id", a, s)
	case k < 18:
		g.feat("merge_const_on")
		return g.pick("false", "true", "1 = 0")
	}
	return fmt.Sprintf("%s.id = %s.id + 0", a, s)
}

// merge is a MERGE of one to four WHEN clauses in any order.
func (g *dxGen) merge() dxStmt {
	g.feat("merge")
	m := &dxMerge{}
	m.target, m.q = g.target()
	src := g.mergeSource()
	if src.q == m.q || src.q == "t" && m.target == "t" || src.item == "t AS s" && m.q == "t" {
		// The source cannot take the target's name: make the target a.
		m.target, m.q = "t AS a", "a"
	}
	m.with, m.source = src.with, src.item
	m.on = g.mergeOn(m.q, src.q)
	for range 1 + g.r.IntN(4) {
		m.clauses = append(m.clauses, g.mergeClause(m.q, src.q))
	}
	g.reachable(m.clauses, m.q, src.q)
	if g.chance(3) {
		g.feat("merge_ambiguous")
		m.clauses = append([]dxClause{{when: "MATCHED", cond: "v > 3", action: "DELETE"}}, m.clauses...)
	}
	if g.chance(20) {
		g.feat("merge_returning")
		m.returning = g.mergeReturning(m.q)
	}
	if slices.ContainsFunc(m.clauses, dxClause.bySource) {
		g.feat("merge_by_source")
	}
	st := g.finish(m.sql(false), m)
	if !m.needsModel() {
		st.pg = m.sql(true)
	}
	return st
}

// reachable gives a condition to most unconditional clauses followed by
// one of their kind, and to all BY SOURCE ones: the rest are PostgreSQL's
// 42601, which the model of BY SOURCE does not reproduce.
func (g *dxGen) reachable(cs []dxClause, a, s string) {
	for i := range cs {
		if cs[i].cond != "" {
			continue
		}
		later := slices.ContainsFunc(cs[i+1:], func(c dxClause) bool { return dxKind(c) == dxKind(cs[i]) })
		switch {
		case !later:
		case cs[i].bySource() || g.chance(85):
			cs[i].cond = g.clauseCond(cs[i].when, a, s)
		default:
			g.feat("merge_unreachable")
		}
	}
}

// dxKind is MATCHED, NOT MATCHED (BY TARGET or not) or BY SOURCE.
func dxKind(c dxClause) string { return strings.TrimSuffix(c.when, " BY TARGET") }

// clauseCond is a WHEN condition: over both rows when matched, over the
// source row alone when not matched, over the target row alone for BY
// SOURCE.
func (g *dxGen) clauseCond(when, a, s string) string {
	switch when {
	case "MATCHED":
		return g.both(a, s)
	case "NOT MATCHED BY SOURCE":
		return g.cond(a, 1)
	}
	return g.cond(s, 1)
}

// mergeClause is one WHEN clause, conditional half the time.
func (g *dxGen) mergeClause(a, s string) dxClause {
	var c dxClause
	switch k := g.r.IntN(100); {
	case k < 48:
		c = dxClause{when: "MATCHED", action: g.matchedAction(a, s)}
	case k < 80:
		c = dxClause{when: g.pick("NOT MATCHED", "NOT MATCHED", "NOT MATCHED BY TARGET"), action: g.insertAction(s)}
	default:
		c = dxClause{when: "NOT MATCHED BY SOURCE", action: g.matchedAction(a, "")}
	}
	if g.chance(50) {
		c.cond = g.clauseCond(c.when, a, s)
	}
	return c
}

// matchedAction updates (from source row s, if any), deletes or does
// nothing.
func (g *dxGen) matchedAction(a, s string) string {
	switch k := g.r.IntN(20); {
	case k < 10:
		return "UPDATE SET " + g.assignments(a, s)
	case k < 11:
		g.feat("set_default")
		return "UPDATE SET v = DEFAULT"
	case k < 16:
		return "DELETE"
	}
	return "DO NOTHING"
}

// insertAction inserts a row from source row s, or does nothing.
func (g *dxGen) insertAction(s string) string {
	switch g.r.IntN(10) {
	case 0:
		return "DO NOTHING"
	case 1:
		g.feat("merge_insert_default")
		return "INSERT DEFAULT VALUES"
	case 2, 3:
		return fmt.Sprintf("INSERT (id, v) VALUES (%s.id, %s.v)", s, s)
	case 4:
		return fmt.Sprintf("INSERT (s, id, g) VALUES (%s.s, %s.id + 50, 1)", s, s)
	case 5:
		return fmt.Sprintf("INSERT VALUES (%s.id, NULL, %s.v * 2, 'new')", s, s)
	}
	return fmt.Sprintf("INSERT VALUES (%s.id, %s.g, %s.v, %s.s)", s, s, s, s)
}

// mergeReturning names merge_action() and the target row's columns only:
// the model of RETURNING knows which target rows changed, not which source
// row changed them.
func (g *dxGen) mergeReturning(a string) []string {
	out := []string{"merge_action()"}
	switch g.r.IntN(3) {
	case 0:
		out = append(out, a+".id", a+".v")
	case 1:
		out = append(out, a+".id", a+".g", a+".v", a+".s")
	default:
		out = []string{a + ".s || '!'", "merge_action()", a + ".v * 2"}
	}
	return out
}

// dxFrom is a USING or FROM item of DELETE and UPDATE, with the condition
// joining it to target row a; unique when it joins a target row at most
// once, so UPDATE may set its values.
type dxFrom struct {
	with, item, join string
	unique           bool
}

func (g *dxGen) fromItem(a string) dxFrom {
	switch k := g.r.IntN(20); {
	case k < 5:
		return dxFrom{item: "s1 AS x", join: g.joinCond(a, "x")}
	case k < 9:
		if g.chance(60) {
			return dxFrom{item: "s2 AS x", join: a + ".id = x.id", unique: true}
		}
		return dxFrom{item: "s2 AS x", join: g.joinCond(a, "x")}
	case k < 11:
		g.feat("using_two")
		return dxFrom{item: "s1 AS x, s2 AS y", join: fmt.Sprintf("%s.id = x.id AND x.g = y.g AND %s", a, g.atom("y"))}
	case k < 13:
		g.feat("aggregate")
		return dxFrom{item: "(SELECT id, min(g) AS g, max(v) AS v, max(s) AS s FROM s1 GROUP BY id) AS x", join: a + ".id = x.id", unique: true}
	case k < 15:
		g.feat("cte")
		return dxFrom{with: "WITH x AS (SELECT id, g, v, s FROM s1 WHERE " + g.cond("s1", 1) + ") ", item: "x", join: g.joinCond(a, "x")}
	case k < 17:
		g.feat("self_ref")
		return dxFrom{item: "t AS x", join: fmt.Sprintf("%s.id = x.id AND %s.v < x.v", a, a)}
	case k < 18:
		g.feat("values")
		v := g.valuesSource()
		return dxFrom{item: strings.Replace(v.item, "AS s(", "AS x(", 1), join: g.joinCond(a, "x")}
	}
	g.feat("derived_join")
	return dxFrom{item: "(SELECT s1.id, s2.v FROM s1 JOIN s2 ON s1.g = s2.g) AS x", join: a + ".id = x.id"}
}

// joinCond joins target row a to source row x, by key most often.
func (g *dxGen) joinCond(a, x string) string {
	switch g.r.IntN(6) {
	case 0, 1:
		return fmt.Sprintf("%s.id = %s.id", a, x)
	case 2:
		return fmt.Sprintf("%s.id = %s.id AND %s", a, x, g.pair(a, x))
	case 3:
		return fmt.Sprintf("%s.g = %s.g AND %s.v > %s.v", a, x, a, x)
	case 4:
		return fmt.Sprintf("%s.s = %s.s", a, x)
	}
	g.feat("nonequi_join")
	return fmt.Sprintf("(%s.id = %s.id OR %s.v = %s.v)", a, x, a, x)
}

// filter is "" or " AND cond" over the target row.
func (g *dxGen) filter(a string) string {
	if g.chance(50) {
		return ""
	}
	return " AND " + g.cond(a, 1)
}

// joinFilter is filter, or now and then a column every relation has left
// unqualified: PostgreSQL's 42702.
func (g *dxGen) joinFilter(a string) string {
	if g.chance(4) {
		g.feat("join_ambiguous")
		return " AND v > 3"
	}
	return g.filter(a)
}

func (g *dxGen) deleteUsing() dxStmt {
	g.feat("delete_using")
	from, a := g.target()
	f := g.fromItem(a)
	q := fmt.Sprintf("%sDELETE FROM %s USING %s WHERE %s%s%s", f.with, from, f.item, f.join, g.joinFilter(a), g.returning(a))
	return g.finish(q, nil)
}

func (g *dxGen) updateFrom() dxStmt {
	g.feat("update_from")
	from, a := g.target()
	f := g.fromItem(a)
	src := ""
	if f.unique {
		src = "x"
	}
	set := g.assignments(a, src)
	g.updateFromFeats(set, f.item)
	q := fmt.Sprintf("%sUPDATE %s SET %s FROM %s WHERE %s%s%s", f.with, from, set, f.item, f.join, g.joinFilter(a), g.returning(a))
	return g.finish(q, nil)
}

// updateFromFeats names what an UPDATE ... FROM's SET list does that
// dxSkip may hold back: a NULL, a value without a column from two sources.
func (g *dxGen) updateFromFeats(set, from string) {
	if strings.Contains(set, "= NULL") {
		g.feat("update_from_null")
	}
	for _, a := range strings.Split(set, ", ") {
		if strings.Contains(from, ",") && !strings.Contains(a[strings.Index(a, "=")+1:], ".") {
			g.feat("update_from_multi_const")
		}
	}
}

// subPred is a WHERE condition on target row a with a subquery: IN, NOT
// IN, EXISTS (correlated), scalar comparisons, over the sources, a CTE x
// (with is then set) or the target itself.
func (g *dxGen) subPred(a string) (with, pred string) {
	switch g.r.IntN(13) {
	case 0:
		g.feat("in_subquery")
		src := g.pick("s1", "s2")
		return "", fmt.Sprintf("%s.id IN (SELECT id FROM %s WHERE %s)", a, src, g.cond(src, 1))
	case 1:
		g.feat("in_subquery")
		return "", fmt.Sprintf("%s.id IN (SELECT s1.id FROM s1 WHERE %s)", a, g.cond("s1", 1))
	case 2:
		g.feat("not_in")
		return "", fmt.Sprintf("%s.id NOT IN (SELECT id FROM s2 WHERE %s)", a, g.cond("s2", 1))
	case 3:
		g.feat("exists", "correlated")
		return "", fmt.Sprintf("EXISTS (SELECT 1 FROM s1 AS x WHERE x.id = %s.id AND %s)", a, g.both(a, "x"))
	case 4:
		g.feat("not_exists", "correlated")
		return "", fmt.Sprintf("NOT EXISTS (SELECT 1 FROM s1 AS x WHERE x.g = %s.g AND %s)", a, g.pair(a, "x"))
	case 5:
		g.feat("scalar_subquery")
		return "", fmt.Sprintf("%s.v > (SELECT %s(v) FROM s1)", a, g.pick("avg", "max", "min"))
	case 6:
		g.feat("scalar_subquery", "correlated")
		return "", fmt.Sprintf("%s.v < (SELECT max(x.v) FROM s1 AS x WHERE x.g = %s.g)", a, a)
	case 7:
		g.feat("self_ref", "in_subquery")
		return "", fmt.Sprintf("%s.id IN (SELECT id FROM t WHERE %s)", a, g.cond("t", 1))
	case 8:
		g.feat("self_ref", "exists", "correlated")
		return "", fmt.Sprintf("EXISTS (SELECT 1 FROM t AS b WHERE b.id = %s.id AND b.v > %s.v)", a, a)
	case 9:
		g.feat("self_ref", "scalar_subquery")
		return "", fmt.Sprintf("%s.v = (SELECT %s(v) FROM t)", a, g.pick("max", "min"))
	case 10:
		g.feat("cte", "in_subquery")
		return "WITH x AS (SELECT id, v FROM s1 WHERE " + g.cond("s1", 1) + ") ",
			fmt.Sprintf("%s.id IN (SELECT id FROM x)", a)
	case 11:
		g.feat("any_array")
		return "", fmt.Sprintf("%s.id = ANY(ARRAY(SELECT id FROM s2 WHERE %s))", a, g.cond("s2", 1))
	}
	g.feat("row_in")
	return "", fmt.Sprintf("(%s.id, %s.g) IN (SELECT id, g FROM s1)", a, a)
}

// subWhere is a subquery condition, alone or with a plain one.
func (g *dxGen) subWhere(a string) (with, where string) {
	with, pred := g.subPred(a)
	switch g.r.IntN(4) {
	case 0:
		return with, pred + " AND " + g.atom(a)
	case 1:
		return with, "(" + pred + " OR " + g.atom(a) + ")"
	case 2:
		return with, "NOT (" + pred + ")"
	}
	return with, pred
}

func (g *dxGen) deleteSub() dxStmt {
	g.feat("delete_subquery")
	from, a := g.target()
	with, where := g.subWhere(a)
	return g.finish(fmt.Sprintf("%sDELETE FROM %s WHERE %s%s", with, from, where, g.returning(a)), nil)
}

// updateSub sets from a scalar subquery or filters by one, or both.
func (g *dxGen) updateSub() dxStmt {
	g.feat("update_subquery")
	from, a := g.target()
	set := g.assignments(a, "")
	if g.chance(60) {
		set = g.subAssignment(a)
	}
	with, where := "", g.cond(a, 1)
	if g.chance(60) {
		with, where = g.subWhere(a)
	}
	return g.finish(fmt.Sprintf("%sUPDATE %s SET %s WHERE %s%s", with, from, set, where, g.returning(a)), nil)
}

// subAssignment is SET col = (scalar subquery); the one over s1 without
// an aggregate is PostgreSQL's 21000 when two rows share the id.
func (g *dxGen) subAssignment(a string) string {
	g.feat("scalar_subquery", "correlated")
	switch g.r.IntN(5) {
	case 0:
		return fmt.Sprintf("v = (SELECT max(x.v) FROM s1 AS x WHERE x.id = %s.id)", a)
	case 1:
		return fmt.Sprintf("s = (SELECT x.s FROM s2 AS x WHERE x.id = %s.id)", a)
	case 2:
		g.feat("scalar_many")
		return fmt.Sprintf("v = (SELECT x.v FROM s1 AS x WHERE x.id = %s.id)", a)
	case 3:
		g.feat("self_ref")
		return fmt.Sprintf("v = (SELECT count(*) FROM t AS b WHERE b.g = %s.g)", a)
	}
	return fmt.Sprintf("g = coalesce((SELECT min(x.g) FROM s2 AS x WHERE x.v > %s.v), -1)", a)
}
