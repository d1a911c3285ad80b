package session

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// The query generator of TestQueryDiff. Every query it writes has an answer
// PostgreSQL defines: LIMIT only under an ORDER BY of every output column
// (rows tied on all of them are equal, so any order of ties prints the
// same), windows that number rows ordered by a key that orders them totally,
// float sums over multiples of 1/8 (exact in any order). It keeps answers
// and work small: every scan of f that is not aggregated is restricted to
// an id range, and joins of f with f go through id, so no join multiplies f.

// diffQuery is one generated query, the features it uses and how its rows
// compare.
type diffQuery struct {
	sql     string
	feats   []string // sorted, distinct
	ordered bool     // a total ORDER BY: rows compare in order
	approx  bool     // float averages: numbers compare within a tolerance
}

type dtype int

const (
	dInt dtype = iota
	dNum
	dFloat
	dText
	dTs
)

// dcol is a column (or expression) a query may use.
type dcol struct {
	ref  string // how the query names it
	name string // its name in its relation, for USING and NATURAL
	t    dtype
	max  int  // ints: values mostly in 0..max
	wide bool // too many values to group an unrestricted f by
}

// drel is a FROM item.
type drel struct {
	from     string // the FROM item, alias included
	name     string // qualifier of its columns
	table    string // "f", "d1" or "d2" for a base table
	src      string // the table or CTE it reads: the same twice is a self-join
	cols     []dcol
	restrict string // a predicate bounding its rows, "" if it is small already
	lo       int    // restrict is id BETWEEN lo AND lo+width
	tiny     bool   // a few dozen rows at most: fine to cross join
}

// tight is the restriction of a relation a join multiplies by a whole
// table: a dozen rows.
func (r *drel) tight() string {
	return fmt.Sprintf("%s.id BETWEEN %d AND %d", r.name, r.lo, r.lo+12)
}

// dblock is the scope of a SELECT under construction.
type dblock struct {
	from  string
	cols  []dcol
	where []string // ANDed
	small bool     // few rows in scope: plain projections are fine
	items []dcol   // extra select items (scalar subqueries): projections only
	total []string // refs ordering the scope's rows totally, if known
}

// dout is a finished SELECT.
type dout struct {
	sql     string
	cols    []dcol // outputs (ref empty)
	ordered bool
}

// diffGen writes queries from one seed.
type diffGen struct {
	r      *rand.Rand
	rows   int
	feats  map[string]bool
	approx bool
	fresh  int
	small  bool // joins must restrict every f: correlated subqueries follow
}

func newDiffGen(seed uint64, rows int) *diffGen {
	return &diffGen{r: rand.New(rand.NewPCG(seed, 2)), rows: rows}
}

// query writes the next query.
func (g *diffGen) query() diffQuery {
	g.feats, g.approx, g.fresh, g.small = map[string]bool{"select": true}, false, 0, false
	var o dout
	switch w := g.r.IntN(100); {
	case w < 28:
		o = g.finish(g.single(g.baseRel(g.table(), false)), true)
	case w < 50:
		o = g.joinQuery()
	case w < 65:
		o = g.subqueryQuery()
	case w < 74:
		o = g.fromItemQuery()
	case w < 82:
		o = g.cteQuery()
	case w < 91:
		o = g.setOpQuery()
	default:
		o = g.windowQuery()
	}
	feats := make([]string, 0, len(g.feats))
	for f := range g.feats {
		feats = append(feats, f)
	}
	slices.Sort(feats)
	return diffQuery{sql: o.sql, feats: feats, ordered: o.ordered, approx: g.approx}
}

func (g *diffGen) use(feats ...string) {
	for _, f := range feats {
		g.feats[f] = true
	}
}

func (g *diffGen) pct(p int) bool { return g.r.IntN(100) < p }

func pick[T any](g *diffGen, xs []T) T { return xs[g.r.IntN(len(xs))] }

func (g *diffGen) alias(prefix string) string {
	g.fresh++
	return prefix + strconv.Itoa(g.fresh)
}

// table picks a base table, f most often.
func (g *diffGen) table() string {
	return pick(g, []string{"f", "f", "f", "d1", "d1", "d2"})
}

// baseRel is a base table, aliased when asked (self-joins, subqueries) and
// now and then anyway.
func (g *diffGen) baseRel(table string, aliased bool) *drel {
	rel := &drel{from: table, name: table, table: table, src: table, tiny: table != "f"}
	if aliased || g.pct(30) {
		rel.name = g.alias("t")
		rel.from = table + " " + pick(g, []string{"", "AS "}) + rel.name
	}
	type c struct {
		name string
		t    dtype
		max  int
		wide bool
	}
	var cs []c
	switch table {
	case "f":
		cs = []c{{"id", dInt, g.rows, true}, {"g", dInt, 6, false}, {"k", dInt, 59, false}, {"k2", dInt, 31, false},
			{"v", dNum, 0, true}, {"x", dFloat, 0, true}, {"s", dText, 0, false}, {"ts", dTs, 0, true}}
		rel.lo = 1 + g.r.IntN(max(g.rows, 1))
		rel.restrict = fmt.Sprintf("%s.id BETWEEN %d AND %d", rel.name, rel.lo, rel.lo+20+g.r.IntN(280))
	case "d1":
		cs = []c{{"k", dInt, 44, false}, {"name", dText, 0, false}, {"w", dInt, 9, false}}
	default:
		cs = []c{{"k2", dInt, 35, false}, {"label", dText, 0, false}}
	}
	for _, x := range cs {
		rel.cols = append(rel.cols, dcol{ref: rel.name + "." + x.name, name: x.name, t: x.t, max: x.max, wide: x.wide})
	}
	return rel
}

// totalOrder are refs ordering a base table's rows totally (or up to rows
// equal in every column, which print alike).
func totalOrder(rel *drel) []string {
	if rel.table == "f" {
		return []string{rel.name + ".id"}
	}
	var refs []string
	for _, c := range rel.cols {
		refs = append(refs, c.ref)
	}
	return refs
}

// single is the scope of one relation, restricted to an id range most of
// the time when it is f.
func (g *diffGen) single(rel *drel) *dblock {
	b := &dblock{from: rel.from, cols: rel.cols, small: true}
	if rel.table != "" {
		b.total = totalOrder(rel)
	}
	if rel.restrict != "" {
		if g.pct(70) {
			b.where = append(b.where, rel.restrict)
		} else {
			b.small = false
		}
	}
	return b
}

// finish writes the SELECT over b: a projection (when b is small), an
// aggregate, or a GROUP BY; top-level queries may also SELECT *.
func (g *diffGen) finish(b *dblock, top bool) dout {
	switch w := g.r.IntN(100); {
	case b.small && (len(b.items) > 0 || w < 45):
		return g.project(b, top)
	case w < 60:
		return g.aggregate(b)
	default:
		return g.group(b)
	}
}

// whereSQL adds generated predicates to b's own and writes the clause.
func (g *diffGen) whereSQL(b *dblock) string {
	conds := slices.Clone(b.where)
	if g.pct(60) {
		conds = append(conds, g.pred(b.cols))
	}
	if len(conds) == 0 {
		return ""
	}
	g.use("where")
	return " WHERE " + strings.Join(conds, " AND ")
}

func (g *diffGen) project(b *dblock, top bool) dout {
	where := g.whereSQL(b)
	if top && len(b.items) == 0 && g.pct(8) {
		return dout{sql: "SELECT * FROM " + b.from + where}
	}
	var items []string
	var cols []dcol
	for range 1 + g.r.IntN(4) {
		sqlText, c := g.item(b.cols)
		items, cols = append(items, sqlText), append(cols, c)
	}
	for _, c := range b.items {
		if g.pct(70) {
			items, cols = append(items, c.ref), append(cols, c)
		}
	}
	distinct := ""
	if g.pct(20) {
		distinct = "DISTINCT "
		g.use("distinct")
	}
	q := "SELECT " + distinct + strings.Join(items, ", ") + " FROM " + b.from + where
	tail, ordered := g.orderBy(len(items), items, b.total, distinct == "")
	return dout{sql: q + tail, cols: cols, ordered: ordered}
}

// orderBy writes an ORDER BY (maybe with LIMIT) over n outputs, the
// select items when given. It orders totally, by every output (by position
// or by the item's text) or by the scope's total order (when not
// DISTINCT), or only by the first output and then without LIMIT; the
// answer is ordered only in the first two cases.
func (g *diffGen) orderBy(n int, items, total []string, hidden bool) (string, bool) {
	var keys []string
	switch w := g.r.IntN(100); {
	case w < 40:
		for _, i := range g.r.Perm(n) {
			key := strconv.Itoa(i + 1)
			// A bare name could be an output's name: only qualified
			// references and calls are sure to mean the item.
			if items != nil && strings.ContainsAny(items[i], ".(") && !strings.HasPrefix(items[i], "(SELECT") && g.pct(30) {
				key = items[i]
			}
			keys = append(keys, key+g.direction())
		}
	case w < 50 && hidden && total != nil:
		for _, ref := range total {
			keys = append(keys, ref+g.direction())
		}
	case w < 60:
		g.use("order_by")
		return " ORDER BY 1" + g.direction(), false
	default:
		return "", false
	}
	g.use("order_by")
	tail := " ORDER BY " + strings.Join(keys, ", ")
	if g.pct(50) {
		g.use("limit")
		tail += fmt.Sprintf(" LIMIT %d", g.r.IntN(30))
		if g.pct(25) {
			g.use("offset")
			tail += fmt.Sprintf(" OFFSET %d", g.r.IntN(10))
		}
	}
	return tail, true
}

func (g *diffGen) direction() string {
	return pick(g, []string{"", "", " ASC", " DESC", " NULLS FIRST", " DESC NULLS LAST", " ASC NULLS FIRST"})
}

func (g *diffGen) aggregate(b *dblock) dout {
	g.use("aggregate")
	var items []string
	var cols []dcol
	for range 1 + g.r.IntN(3) {
		a, c := g.agg(b.cols)
		items, cols = append(items, a), append(cols, c)
	}
	q := "SELECT " + strings.Join(items, ", ") + " FROM " + b.from + g.whereSQL(b)
	if g.pct(10) {
		g.use("having")
		q += " HAVING " + g.having(b.cols)
	}
	return dout{sql: q, cols: cols}
}

// group writes a GROUP BY of one or two keys (columns or expressions of
// them; over an unrestricted f only columns with few values).
func (g *diffGen) group(b *dblock) dout {
	g.use("aggregate", "group_by")
	var keys []string
	var items []string
	var cols []dcol
	for range 1 + g.r.IntN(2) {
		c := pick(g, b.cols)
		for !b.small && c.wide {
			c = pick(g, b.cols)
		}
		key, kc := c.ref, c
		if g.pct(20) {
			key, kc = g.expr(c)
		}
		keys = append(keys, key)
		if g.pct(85) {
			items, cols = append(items, key), append(cols, kc)
		}
	}
	for range 1 + g.r.IntN(3) {
		a, c := g.agg(b.cols)
		items, cols = append(items, a), append(cols, c)
	}
	g.r.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i]; cols[i], cols[j] = cols[j], cols[i] })
	q := "SELECT " + strings.Join(items, ", ") + " FROM " + b.from + g.whereSQL(b) + " GROUP BY " + strings.Join(keys, ", ")
	if g.pct(30) {
		g.use("having")
		q += " HAVING " + g.having(b.cols)
	}
	tail, ordered := g.orderBy(len(items), items, nil, false)
	return dout{sql: q + tail, cols: cols, ordered: ordered}
}

// item is a select item over one of cols: the column or an expression.
func (g *diffGen) item(cols []dcol) (string, dcol) {
	c := pick(g, cols)
	if g.pct(25) {
		return g.expr(c)
	}
	return c.ref, c
}

// expr is a simple expression of c; its arithmetic stays exact.
func (g *diffGen) expr(c dcol) (string, dcol) {
	g.use("expr")
	out := dcol{t: c.t, max: c.max}
	if g.pct(20) {
		k := g.constant(c)
		switch g.r.IntN(3) {
		case 0:
			return "nullif(" + c.ref + ", " + k + ")", out
		case 1:
			return "CASE WHEN " + c.ref + " IS NULL THEN " + k + " ELSE " + c.ref + " END", out
		default:
			return "CASE WHEN " + c.ref + " > " + k + " THEN 1 WHEN " + c.ref + " = " + k + " THEN 0 END", dcol{t: dInt, max: 1}
		}
	}
	var f string
	switch c.t {
	case dInt:
		f = pick(g, []string{"%s + 1", "%s * 2", "coalesce(%s, -1)", "-%s", "abs(%s)", "%s %% 5"})
	case dNum:
		f = pick(g, []string{"%s * 2", "-%s", "abs(%s)", "coalesce(%s, 0)", "round(%s)"})
	case dFloat:
		f = pick(g, []string{"%s * 2", "-%s", "abs(%s)", "coalesce(%s, 0)"})
	case dText:
		f = pick(g, []string{"upper(%s)", "length(%s)", "%s || '!'", "coalesce(%s, '-')"})
		if f == "length(%s)" {
			out = dcol{t: dInt, max: 3}
		}
	default:
		f = "coalesce(%s, TIMESTAMP '2000-01-01 00:00:00')"
	}
	return fmt.Sprintf(f, c.ref), out
}

// agg is an aggregate over cols; integer sums stay integers, float sums
// exact, float averages compare within a tolerance.
func (g *diffGen) agg(cols []dcol) (string, dcol) {
	c := pick(g, cols)
	count := dcol{t: dInt, max: 1000}
	switch w := g.r.IntN(100); {
	case w < 15:
		return "count(*)", count
	case w < 25:
		return "count(" + c.ref + ")", count
	case w < 32:
		g.use("count_distinct")
		return "count(DISTINCT " + c.ref + ")", count
	case w < 36:
		// Ties in the key are equal strings: the result is one string
		// whatever order they come in.
		g.use("ordered_agg")
		dir := g.direction()
		return "string_agg(" + c.ref + "::text, ',' ORDER BY " + c.ref + "::text" + dir + ")", dcol{t: dText}
	case w < 39:
		g.use("ordered_agg")
		return "array_length(array_agg(" + c.ref + " ORDER BY " + c.ref + g.direction() + "), 1)", count
	case w < 70 && c.t != dText && c.t != dTs:
		if g.pct(50) {
			return "sum(" + c.ref + ")", dcol{t: c.t, max: 1000}
		}
		t := dNum
		if c.t == dFloat {
			t, g.approx = dFloat, true
		}
		return "avg(" + c.ref + ")", dcol{t: t}
	default:
		return pick(g, []string{"min(", "max("}) + c.ref + ")", dcol{t: c.t, max: c.max}
	}
}

func (g *diffGen) having(cols []dcol) string {
	if g.pct(50) {
		return fmt.Sprintf("count(*) %s %d", pick(g, []string{">", "<", ">=", "="}), g.r.IntN(40))
	}
	a, c := g.agg(cols)
	return a + " " + pick(g, []string{">", "<", "<>"}) + " " + g.constant(c)
}

// constant is a literal of c's type near c's values.
func (g *diffGen) constant(c dcol) string {
	switch c.t {
	case dInt:
		return strconv.Itoa(g.r.IntN(max(c.max, 1)+3) - 1)
	case dNum:
		return fmt.Sprintf("%d.%02d", g.r.IntN(2001)-1000, g.r.IntN(100))
	case dFloat:
		return fmt.Sprintf("%d.5", g.r.IntN(20001)-10000)
	case dText:
		return "'" + pick(g, append(slices.Clip(diffTextPool), "n05", "n30", "l7", "m", "")) + "'"
	default:
		return fmt.Sprintf("%s'2024-01-%02d %02d:00:00'", pick(g, []string{"", "TIMESTAMP "}), 1+g.r.IntN(30), g.r.IntN(24))
	}
}

// pred is a predicate over cols: one or two comparisons.
func (g *diffGen) pred(cols []dcol) string {
	switch w := g.r.IntN(100); {
	case w < 65:
		return g.cmp(cols)
	case w < 85:
		return "(" + g.cmp(cols) + " AND " + g.cmp(cols) + ")"
	case w < 95:
		return "(" + g.cmp(cols) + " OR " + g.cmp(cols) + ")"
	default:
		return "NOT (" + g.cmp(cols) + ")"
	}
}

func (g *diffGen) cmp(cols []dcol) string {
	c := pick(g, cols)
	if g.pct(10) {
		if o := g.sameType(cols, c); o != nil {
			return c.ref + " " + pick(g, []string{"=", "<", "<>"}) + " " + o.ref
		}
	}
	switch w := g.r.IntN(100); {
	case w < 10:
		return c.ref + pick(g, []string{" IS NULL", " IS NOT NULL"})
	case w < 20:
		return c.ref + " BETWEEN " + g.constant(c) + " AND " + g.constant(c)
	case w < 30 && (c.t == dInt || c.t == dText):
		list := []string{g.constant(c), g.constant(c)}
		if g.pct(20) {
			list = append(list, "NULL")
		}
		return c.ref + pick(g, []string{" IN (", " NOT IN ("}) + strings.Join(list, ", ") + ")"
	case w < 40 && c.t == dText:
		return c.ref + pick(g, []string{" LIKE ", " NOT LIKE "}) + pick(g, []string{"'a%'", "'%b'", "'_'", "'n0%'", "'x\\_%'", "'%'"})
	default:
		return c.ref + " " + pick(g, []string{"=", "<>", "<", "<=", ">", ">="}) + " " + g.constant(c)
	}
}

// sameType is another column of c's type, nil if none.
func (g *diffGen) sameType(cols []dcol, c dcol) *dcol {
	var same []dcol
	for _, o := range cols {
		if o.t == c.t && o.ref != c.ref {
			same = append(same, o)
		}
	}
	if len(same) == 0 {
		return nil
	}
	o := pick(g, same)
	return &o
}

// joinQuery joins two or three base tables.
func (g *diffGen) joinQuery() dout {
	n := 2
	if g.pct(25) {
		n = 3
	}
	var rels []*drel
	seen := map[string]bool{}
	for range n {
		t := g.table()
		rels = append(rels, g.baseRel(t, seen[t]))
		seen[t] = true
	}
	return g.finish(g.joinBlock(rels), true)
}

// joinBlock joins rels left to right: all by commas, or each by a JOIN of
// a random kind on a key; USING and NATURAL only in the first join. Every f
// is restricted (in its ON or in WHERE, where "OR id IS NULL" keeps the
// rows an outer join added) unless the query aggregates, and tightly when a
// join multiplies it by a whole table.
func (g *diffGen) joinBlock(rels []*drel) *dblock {
	if len(rels) == 3 {
		g.use("join3")
	}
	g.noteSelfJoin(rels)
	if g.pct(12) {
		return g.commaJoin(rels)
	}
	kinds := g.joinKinds(rels)
	cross := slices.Contains(kinds, "CROSS JOIN")
	b := &dblock{from: rels[0].from, cols: slices.Clone(rels[0].cols), small: true}
	nullable := make([]bool, len(rels))
	inOn := make([]bool, len(rels))
	for i := 1; i < len(rels); i++ {
		r, kind := rels[i], kinds[i-1]
		g.noteKind(kind)
		common := commonCols(rels[0], r)
		switch {
		case kind == "CROSS JOIN":
			b.from += " CROSS JOIN " + r.from
			b.cols = g.addCols(b.cols, r.cols)
		case i == 1 && len(common) > 0 && g.pct(25):
			b.from, b.cols = g.usingJoin(b, rels[0], r, kind, common)
		default:
			on := g.joinCond(rels[:i], r)
			last := i == len(rels)-1
			if r.restrict != "" && last && !cross && (kind == "JOIN" || strings.HasPrefix(kind, "LEFT")) && g.pct(40) {
				on += " AND " + r.restrict
				inOn[i] = true
			}
			b.from += " " + kind + " " + r.from + " ON " + on
			b.cols = g.addCols(b.cols, r.cols)
		}
		markNullable(nullable, i, kind)
	}
	g.restrictAll(b, rels, nullable, inOn, cross)
	return b
}

// joinKinds picks the kind of each join. A cross join only adds a small
// relation, at most once, and then no f is outer-joined from the right or
// fully: PostgreSQL could not restrict it before multiplying it.
func (g *diffGen) joinKinds(rels []*drel) []string {
	kinds := make([]string, len(rels)-1)
	cross := false
	for i := range kinds {
		k := pick(g, []string{"JOIN", "INNER JOIN", "LEFT JOIN", "LEFT OUTER JOIN", "RIGHT JOIN", "FULL JOIN", "FULL OUTER JOIN", "CROSS JOIN"})
		if k == "CROSS JOIN" && (cross || !rels[i+1].tiny) {
			k = "JOIN"
		}
		cross = cross || k == "CROSS JOIN"
		kinds[i] = k
	}
	for i, k := range kinds {
		if cross && (strings.Contains(k, "RIGHT") || strings.Contains(k, "FULL")) {
			kinds[i] = "LEFT JOIN"
		}
	}
	return kinds
}

// commaJoin lists rels in FROM and joins them in WHERE, now and then not
// at all when adding a small relation.
func (g *diffGen) commaJoin(rels []*drel) *dblock {
	g.use("comma_join")
	b := &dblock{from: rels[0].from, cols: slices.Clone(rels[0].cols), small: true}
	cross := false
	for i := 1; i < len(rels); i++ {
		r := rels[i]
		b.from += ", " + r.from
		if cross || !r.tiny || g.pct(75) {
			b.where = append(b.where, g.joinCond(rels[:i], r))
		} else {
			cross = true
		}
		b.cols = g.addCols(b.cols, r.cols)
	}
	g.restrictAll(b, rels, make([]bool, len(rels)), make([]bool, len(rels)), cross)
	return b
}

func (g *diffGen) noteSelfJoin(rels []*drel) {
	for i, a := range rels {
		for _, o := range rels[:i] {
			if a.src != "" && a.src == o.src {
				g.use("self_join")
			}
		}
	}
}

func (g *diffGen) noteKind(kind string) {
	switch {
	case strings.Contains(kind, "LEFT"):
		g.use("left_join")
	case strings.Contains(kind, "RIGHT"):
		g.use("right_join")
	case strings.Contains(kind, "FULL"):
		g.use("full_join")
	case strings.Contains(kind, "CROSS"):
		g.use("cross_join")
	default:
		g.use("inner_join")
	}
}

// markNullable records which relations an outer join may NULL-extend.
func markNullable(nullable []bool, i int, kind string) {
	if strings.Contains(kind, "LEFT") || strings.Contains(kind, "FULL") {
		nullable[i] = true
	}
	if strings.Contains(kind, "RIGHT") || strings.Contains(kind, "FULL") {
		for j := range i {
			nullable[j] = true
		}
	}
}

// restrictAll bounds every f of a join; without a cross join it may leave
// them all unbounded, then the query aggregates.
func (g *diffGen) restrictAll(b *dblock, rels []*drel, nullable, inOn []bool, cross bool) {
	if !cross && !g.small && g.pct(30) {
		for i, r := range rels {
			if r.restrict != "" && !inOn[i] {
				b.small = false
			}
		}
		if !b.small {
			return
		}
	}
	for i, r := range rels {
		if r.restrict == "" || inOn[i] {
			continue
		}
		restrict := r.restrict
		if cross {
			restrict = r.tight()
		}
		if nullable[i] {
			restrict = "(" + restrict + " OR " + r.name + ".id IS NULL)"
		}
		b.where = append(b.where, restrict)
	}
}

// addCols adds a joined relation's columns; a merged USING column whose
// name the new relation also has would be ambiguous, so it goes.
func (g *diffGen) addCols(cols, add []dcol) []dcol {
	out := cols[:0:0]
	for _, c := range cols {
		if !strings.Contains(c.ref, ".") && slices.ContainsFunc(add, func(a dcol) bool { return a.name == c.ref }) {
			continue
		}
		out = append(out, c)
	}
	return append(out, add...)
}

// joinKeys are the equalities two base tables join on: f joins a dimension
// on its key (a row of f meets few rows of it), and a new f only on its id,
// so no row of the left side meets more than one row of it.
var joinKeys = map[[2]string][][2]string{
	{"f", "d1"}:  {{"k", "k"}},
	{"f", "d2"}:  {{"k2", "k2"}, {"k", "k2"}},
	{"d1", "d2"}: {{"w", "k2"}, {"k", "k2"}},
	{"f", "f"}:   {{"id", "id"}, {"k", "id"}, {"k2", "id"}},
	{"d1", "d1"}: {{"k", "k"}, {"w", "w"}, {"k", "w"}},
	{"d2", "d2"}: {{"k2", "k2"}},
	{"d1", "f"}:  {{"k", "k"}},
	{"d2", "f"}:  {{"k2", "k2"}, {"k2", "k"}},
	{"d2", "d1"}: {{"k2", "w"}, {"k2", "k"}},
}

// joinCond is an ON condition between r and one of left (an f when r is f
// and left has one: f meets f only on id) — a key equality, sometimes with
// a second condition on r.
func (g *diffGen) joinCond(left []*drel, r *drel) string {
	l := pick(g, left)
	if r.table == "f" {
		if i := slices.IndexFunc(left, func(x *drel) bool { return x.table == "f" }); i >= 0 {
			l = left[i]
		}
	}
	var cond string
	if keys := joinKeys[[2]string{l.table, r.table}]; len(keys) > 0 {
		k := pick(g, keys)
		cond = l.name + "." + k[0] + " = " + r.name + "." + k[1]
		if l.table == "f" && r.table == "f" && k[0] == "id" && k[1] == "id" && g.pct(50) {
			cond += fmt.Sprintf(" + %d", g.r.IntN(3))
		}
	} else {
		cond = g.anyCond(l, r)
	}
	// Not after TRUE: PostgreSQL runs a FULL JOIN only on an equality.
	if cond != "TRUE" && g.pct(20) {
		cond += " AND " + g.cmp(r.cols)
	}
	return cond
}

// anyCond equates columns of one type of two relations that are not both
// base tables, or is TRUE. Those are small, so any equality will do, but
// f's id: other columns of f have thousands of rows per value.
func (g *diffGen) anyCond(l, r *drel) string {
	for _, f := range []*drel{l, r} {
		other := map[bool]*drel{true: r, false: l}[f == l]
		if i := slices.IndexFunc(other.cols, func(c dcol) bool { return c.t == dInt }); f.table == "f" && i >= 0 {
			return f.name + ".id = " + other.cols[i].ref
		}
	}
	for _, t := range g.r.Perm(int(dTs) + 1) {
		var lc, rc []dcol
		for _, c := range l.cols {
			if c.t == dtype(t) {
				lc = append(lc, c)
			}
		}
		for _, c := range r.cols {
			if c.t == dtype(t) {
				rc = append(rc, c)
			}
		}
		if len(lc) > 0 && len(rc) > 0 {
			return pick(g, lc).ref + " = " + pick(g, rc).ref
		}
	}
	return "TRUE"
}

// commonCols are the columns of l whose names (and types) r has too.
func commonCols(l, r *drel) []dcol {
	var common []dcol
	for _, c := range l.cols {
		if slices.ContainsFunc(r.cols, func(o dcol) bool { return o.name == c.name && o.t == c.t }) {
			common = append(common, c)
		}
	}
	return common
}

// usingJoin joins l and r with NATURAL or USING on common columns (with id
// among them when both are f); it returns the FROM text and the scope,
// where each merged column is also there unqualified.
func (g *diffGen) usingJoin(b *dblock, l, r *drel, kind string, common []dcol) (string, []dcol) {
	kind = strings.Replace(kind, "INNER JOIN", "JOIN", 1)
	var from string
	merged := common
	if g.pct(50) {
		g.use("natural")
		from = b.from + " NATURAL " + kind + " " + r.from
	} else {
		g.use("using")
		merged = g.usingCols(common, l.table == "f" && r.table == "f")
		var names []string
		for _, c := range merged {
			names = append(names, c.name)
		}
		from = b.from + " " + kind + " " + r.from + " USING (" + strings.Join(names, ", ") + ")"
	}
	cols := slices.Clone(b.cols)
	for _, c := range merged {
		c.ref = c.name
		cols = append(cols, c)
	}
	return from, append(cols, r.cols...)
}

func (g *diffGen) usingCols(common []dcol, needID bool) []dcol {
	var out []dcol
	for _, c := range common {
		if needID && c.name == "id" || g.pct(50) {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		out = append(out, pick(g, common))
	}
	return out
}

// subqueryQuery puts one or two subqueries in the WHERE (and maybe the
// select list) of a restricted table or join, or selects scalar subqueries
// without FROM.
func (g *diffGen) subqueryQuery() dout {
	if g.pct(10) {
		return g.scalarsOnly()
	}
	var b *dblock
	if g.pct(70) {
		b = g.single(g.baseRel(g.table(), false))
		if !b.small {
			b.where, b.small = append(b.where, g.restrictionOf(b)), true
		}
	} else {
		g.small = true
		b = g.joinBlock([]*drel{g.baseRel(g.table(), false), g.baseRel(g.table(), true)})
		g.small = false
	}
	if g.pct(25) {
		b.items = append(b.items, g.scalarItem(b))
	}
	return g.finish(g.withSubqueryPreds(b), true)
}

// restrictionOf is the id restriction of a single f scope.
func (g *diffGen) restrictionOf(b *dblock) string {
	name := strings.TrimSuffix(b.cols[0].ref, ".id")
	lo := 1 + g.r.IntN(max(g.rows, 1))
	return fmt.Sprintf("%s.id BETWEEN %d AND %d", name, lo, lo+20+g.r.IntN(280))
}

func (g *diffGen) withSubqueryPreds(b *dblock) *dblock {
	for range 1 + g.r.IntN(2) {
		p := g.subqueryPred(b)
		if g.pct(15) {
			p = "(" + p + " OR " + g.cmp(b.cols) + ")"
		}
		b.where = append(b.where, p)
	}
	return b
}

func (g *diffGen) subqueryPred(b *dblock) string {
	switch w := g.r.IntN(100); {
	case w < 30:
		return g.inPred(b)
	case w < 55:
		return g.existsPred(b)
	case w < 80:
		return g.scalarPred(b)
	default:
		return g.anyAllPred(b)
	}
}

// outerCols are the qualified columns of a scope: what a correlated
// subquery may name (an unqualified merged column could be captured by
// the subquery's own columns).
func outerCols(b *dblock) []dcol {
	var out []dcol
	for _, c := range b.cols {
		if strings.Contains(c.ref, ".") {
			out = append(out, c)
		}
	}
	return out
}

// innerRel is the relation of a subquery: always aliased, and f restricted
// unless the subquery runs once (uncorrelated IN and EXISTS).
func (g *diffGen) innerRel(t string, once bool) (*drel, []string) {
	rel := g.baseRel(t, true)
	var where []string
	if rel.restrict != "" && (!once || g.pct(50)) {
		where = append(where, rel.restrict)
	}
	return rel, where
}

// correlate is an equality between a column of the subquery's relation and
// one of the outer scope, preferring columns of the same name (join keys).
func (g *diffGen) correlate(inner *drel, b *dblock) string {
	outer := outerCols(b)
	var pairs [][2]dcol
	for _, ic := range inner.cols {
		for _, oc := range outer {
			if ic.t == dInt && oc.t == dInt && (ic.name == oc.name || g.pct(15)) {
				pairs = append(pairs, [2]dcol{ic, oc})
			}
		}
	}
	if len(pairs) == 0 {
		return ""
	}
	g.use("correlated")
	p := pick(g, pairs)
	return p[0].ref + " = " + p[1].ref
}

func whereOf(conds []string) string {
	var out []string
	for _, c := range conds {
		if c != "" {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(out, " AND ")
}

// inPred is [NOT] IN (SELECT ...) over a column that may hold NULLs, and
// sometimes not.
func (g *diffGen) inPred(b *dblock) string {
	not := g.pct(50)
	g.use(map[bool]string{false: "in_subquery", true: "not_in_subquery"}[not])
	c := pick(g, b.cols)
	for c.t != dInt && c.t != dText {
		c = pick(g, b.cols)
	}
	corr := g.pct(25)
	rel, where := g.innerRel(g.table(), !corr)
	ic := g.sameTypeIn(rel, c.t)
	if g.pct(30) {
		where = append(where, ic.ref+" IS NOT NULL")
	}
	if g.pct(40) {
		where = append(where, g.cmp(rel.cols))
	}
	if corr {
		where = append(where, g.correlate(rel, b))
	}
	op := map[bool]string{false: " IN ", true: " NOT IN "}[not]
	return c.ref + op + "(SELECT " + ic.ref + " FROM " + rel.from + whereOf(where) + ")"
}

// sameTypeIn is a column of rel of type t (text or int; every table has both).
func (g *diffGen) sameTypeIn(rel *drel, t dtype) dcol {
	var cs []dcol
	for _, c := range rel.cols {
		if c.t == t {
			cs = append(cs, c)
		}
	}
	return pick(g, cs)
}

func (g *diffGen) existsPred(b *dblock) string {
	not := g.pct(40)
	g.use(map[bool]string{false: "exists", true: "not_exists"}[not])
	corr := g.pct(70)
	rel, where := g.innerRel(g.table(), !corr)
	if corr {
		where = append(where, g.correlate(rel, b))
	}
	if g.pct(50) {
		where = append(where, g.cmp(rel.cols))
	}
	sel := pick(g, []string{"1", "*", rel.cols[0].ref})
	q := "EXISTS (SELECT " + sel + " FROM " + rel.from + whereOf(where) + ")"
	if not {
		return "NOT " + q
	}
	return q
}

// scalar is a scalar subquery: an aggregate (correlated or not), or a
// lookup of at most one row (f by id, d1 by its unique name) that may find
// none.
func (g *diffGen) scalar(b *dblock) (string, dcol) {
	g.use("scalar_subquery")
	if g.pct(35) {
		if g.pct(50) {
			id := g.r.IntN(g.rows + g.rows/10 + 2)
			c := pick(g, g.baseRel("f", false).cols)
			return fmt.Sprintf("(SELECT %s FROM f WHERE id = %d)", c.name, id), c
		}
		c := pick(g, g.baseRel("d1", false).cols)
		return fmt.Sprintf("(SELECT %s FROM d1 WHERE name = 'n%02d')", c.name, g.r.IntN(55)), c
	}
	rel, where := g.innerRel(g.table(), false)
	if b != nil && g.pct(60) {
		where = append(where, g.correlate(rel, b))
	}
	if g.pct(30) {
		where = append(where, g.cmp(rel.cols))
	}
	a, c := g.agg(rel.cols)
	return "(SELECT " + a + " FROM " + rel.from + whereOf(where) + ")", c
}

func (g *diffGen) scalarPred(b *dblock) string {
	sub, c := g.scalar(b)
	if g.pct(15) {
		return sub + pick(g, []string{" IS NULL", " IS NOT NULL"})
	}
	if o := g.sameType(b.cols, c); o != nil {
		return o.ref + " " + pick(g, []string{"=", "<", ">=", "<>"}) + " " + sub
	}
	return sub + " " + pick(g, []string{"=", "<", ">"}) + " " + g.constant(c)
}

// scalarItem is a scalar subquery as a select item.
func (g *diffGen) scalarItem(b *dblock) dcol {
	sub, c := g.scalar(b)
	c.ref = sub
	return c
}

// anyAllPred is c op ANY|ALL (SELECT ...) over an int or text column.
func (g *diffGen) anyAllPred(b *dblock) string {
	g.use("any_all")
	c := pick(g, b.cols)
	for c.t != dInt && c.t != dText {
		c = pick(g, b.cols)
	}
	rel, where := g.innerRel(g.table(), false)
	ic := g.sameTypeIn(rel, c.t)
	if g.pct(30) {
		where = append(where, g.correlate(rel, b))
	}
	if g.pct(40) {
		where = append(where, g.cmp(rel.cols))
	}
	op := pick(g, []string{"= ANY", "<> ALL", "< ANY", ">= ALL", "= SOME", "<> ANY", "= ALL"})
	return c.ref + " " + op + " (SELECT " + ic.ref + " FROM " + rel.from + whereOf(where) + ")"
}

// scalarsOnly selects scalar subqueries without FROM; one that finds two
// rows fails with 21000, as PostgreSQL's does.
func (g *diffGen) scalarsOnly() dout {
	var items []string
	for range 1 + g.r.IntN(3) {
		if g.pct(25) {
			items = append(items, fmt.Sprintf("(SELECT w FROM d1 WHERE k = %d)", g.r.IntN(46)))
			g.use("scalar_subquery")
			continue
		}
		s, _ := g.scalar(nil)
		items = append(items, s)
	}
	return dout{sql: "SELECT " + strings.Join(items, ", ")}
}

// fromItemQuery reads a derived table, a VALUES list or generate_series,
// alone or joined with a base table.
func (g *diffGen) fromItemQuery() dout {
	var rel *drel
	switch g.r.IntN(3) {
	case 0:
		rel = g.derivedRel()
	case 1:
		rel = g.valuesRel(1)
	default:
		rel = g.seriesRel()
	}
	if g.pct(50) {
		return g.finish(&dblock{from: rel.from, cols: rel.cols, small: true}, true)
	}
	rels := []*drel{rel, g.baseRel(g.table(), false)}
	if g.pct(50) {
		rels[0], rels[1] = rels[1], rels[0]
	}
	return g.finish(g.joinBlock(rels), true)
}

// innerOut is a small SELECT for a derived table, CTE or set operation arm:
// a projection of restricted rows or a GROUP BY.
func (g *diffGen) innerOut() dout {
	return g.finish(g.single(g.baseRel(g.table(), false)), false)
}

// named gives a query's outputs the names a, b, c... under qualifier q.
func named(q string, outs []dcol) ([]dcol, string) {
	var cols []dcol
	var names []string
	for i, c := range outs {
		n := string(rune('a' + i))
		c.name, c.ref, c.wide = n, q+"."+n, false
		if c.t == dInt && c.max == 0 {
			c.max = 50
		}
		cols = append(cols, c)
		names = append(names, n)
	}
	return cols, strings.Join(names, ", ")
}

func (g *diffGen) derivedRel() *drel {
	g.use("derived_table")
	inner := g.innerOut()
	name := g.alias("s")
	cols, names := named(name, inner.cols)
	return &drel{from: "(" + inner.sql + ") AS " + name + "(" + names + ")", name: name, cols: cols}
}

// valuesRel is a VALUES list of (int[, text[, numeric]]) rows; its first
// row has no NULL, so each column takes the type of its values.
func (g *diffGen) valuesRel(minWidth int) *drel {
	g.use("values")
	width := max(minWidth, 1+g.r.IntN(3))
	var rows []string
	for i := range 2 + g.r.IntN(5) {
		vals := []string{strconv.Itoa(g.r.IntN(12))}
		if width > 1 {
			vals = append(vals, g.constant(dcol{t: dText}))
		}
		if width > 2 {
			vals = append(vals, g.constant(dcol{t: dNum}))
		}
		for j := range vals {
			if i > 0 && g.pct(15) {
				vals[j] = "NULL"
			}
		}
		rows = append(rows, "("+strings.Join(vals, ", ")+")")
	}
	name := g.alias("v")
	cols, names := named(name, []dcol{{t: dInt, max: 11}, {t: dText}, {t: dNum}}[:width])
	return &drel{from: "(VALUES " + strings.Join(rows, ", ") + ") AS " + name + "(" + names + ")", name: name, cols: cols, tiny: true}
}

// seriesRel is generate_series(lo, hi[, step]) AS gsN(n).
func (g *diffGen) seriesRel() *drel {
	g.use("generate_series")
	lo := g.r.IntN(8) - 2
	hi := lo + g.r.IntN(60)
	args := fmt.Sprintf("%d, %d", lo, hi)
	if g.pct(25) {
		args += fmt.Sprintf(", %d", 2+g.r.IntN(4))
	}
	name := g.alias("gs")
	col := dcol{ref: name + ".n", name: "n", t: dInt, max: hi}
	return &drel{from: "generate_series(" + args + ") AS " + name + "(n)", name: name, cols: []dcol{col}, tiny: true}
}

// cteQuery defines one CTE and reads it once (alone or joined) or twice
// (a self-join, or again in an IN subquery).
func (g *diffGen) cteQuery() dout {
	g.use("cte")
	inner := g.innerOut()
	name := g.alias("c")
	cols, names := named(name, inner.cols)
	with := "WITH " + name + "(" + names + ") AS (" + inner.sql + ") "
	rel := func() *drel {
		alias := g.alias("t")
		cs, _ := named(alias, inner.cols)
		return &drel{from: name + " AS " + alias, name: alias, src: name, cols: cs}
	}
	var o dout
	switch w := g.r.IntN(100); {
	case w < 35:
		o = g.finish(&dblock{from: name, cols: cols, small: true}, true)
	case w < 60:
		o = g.finish(g.joinBlock([]*drel{rel(), g.baseRel(g.table(), false)}), true)
	case w < 85:
		g.use("cte_twice")
		o = g.finish(g.joinBlock([]*drel{rel(), rel()}), true)
	default:
		g.use("cte_twice", "in_subquery")
		c := pick(g, cols)
		b := &dblock{from: name, cols: cols, small: true}
		b.where = append(b.where, fmt.Sprintf("%s IN (SELECT %s FROM %s AS %s)", c.ref, c.name, name, g.alias("t")))
		o = g.finish(b, true)
	}
	o.sql = with + o.sql
	return o
}

// setSigs are the column types a set operation's arms share.
var setSigs = [][]dtype{{dInt}, {dText}, {dInt, dText}, {dText, dInt}, {dInt, dInt}}

// setOpQuery combines two or three arms with UNION, INTERSECT or EXCEPT
// (ALL or not), relying on PostgreSQL's precedence (INTERSECT first).
func (g *diffGen) setOpQuery() dout {
	sig := pick(g, setSigs)
	q := g.setArm(sig)
	for range 1 + g.r.IntN(3)/2 {
		op := pick(g, []string{"UNION", "UNION ALL", "INTERSECT", "INTERSECT ALL", "EXCEPT", "EXCEPT ALL"})
		g.use(strings.ToLower(strings.ReplaceAll(op, " ", "_")))
		q += " " + op + " " + g.setArm(sig)
	}
	tail, ordered := g.orderBy(len(sig), nil, nil, false)
	return dout{sql: q + tail, ordered: ordered}
}

// setArm is one arm of sig's types: a projection of a restricted table, a
// count per key, or (parenthesized) a projection under ORDER BY ... LIMIT.
func (g *diffGen) setArm(sig []dtype) string {
	var rel *drel
	switch w := g.r.IntN(100); {
	case w < 10 && sig[0] == dInt:
		rel = g.valuesRel(len(sig))
	default:
		rel = g.baseRel(g.table(), false)
	}
	b := g.single(rel)
	if !b.small {
		b.where, b.small = append(b.where, rel.restrict), true
	}
	if len(sig) == 2 && sig[1] == dInt && g.pct(25) {
		g.use("aggregate", "group_by")
		key := g.sameTypeIn(rel, sig[0]).ref
		return "SELECT " + key + ", count(*) FROM " + b.from + g.whereSQL(b) + " GROUP BY " + key
	}
	var items []string
	for _, t := range sig {
		items = append(items, g.sameTypeIn(rel, t).ref)
	}
	arm := "SELECT " + strings.Join(items, ", ") + " FROM " + b.from + g.whereSQL(b)
	if g.pct(10) {
		g.use("order_by", "limit")
		var keys []string
		for i := range sig {
			keys = append(keys, strconv.Itoa(i+1)+g.direction())
		}
		return fmt.Sprintf("(%s ORDER BY %s LIMIT %d)", arm, strings.Join(keys, ", "), g.r.IntN(20))
	}
	return arm
}

// windowQuery selects window functions over a restricted table, over a
// GROUP BY (windows over groups), or under a derived table that keeps the
// first rows of each partition.
func (g *diffGen) windowQuery() dout {
	rel := g.baseRel(g.table(), false)
	b := g.single(rel)
	if !b.small {
		b.where, b.small = append(b.where, rel.restrict), true
	}
	if g.pct(25) {
		return g.groupedWindows(b)
	}
	var items []string
	var cols []dcol
	for range 1 + g.r.IntN(3) {
		s, c := g.item(b.cols)
		items, cols = append(items, s), append(cols, c)
	}
	// A dimension's total order leaves rows equal in every column tied.
	// One window numbers such rows in some order and prints alike, but two
	// windows may pair their values differently on them (rn 2 with one lead,
	// rn 3 with another): PostgreSQL's answer is then one of several, so
	// only f, ordered by its unique id, gets more than one window.
	unique := rel.table == "f"
	windows := 1
	if unique {
		windows += g.r.IntN(2)
	}
	for range windows {
		s, c := g.window(b.cols, b.total)
		items, cols = append(items, s), append(cols, c)
	}
	from := " FROM " + b.from + g.whereSQL(b)
	if unique && g.pct(20) {
		g.use("derived_table", "window_row_number")
		s, _ := g.windowOver("row_number()", b.cols, b.total, true)
		n := len(items)
		return g.topN("SELECT "+strings.Join(items, ", ")+", "+s+from, n)
	}
	tail, ordered := g.orderBy(len(items), items, nil, false)
	return dout{sql: "SELECT " + strings.Join(items, ", ") + from + tail, cols: cols, ordered: ordered}
}

// topN keeps the rows a derived window query numbered up to 3.
func (g *diffGen) topN(inner string, n int) dout {
	name := g.alias("s")
	var names []string
	for i := range n {
		names = append(names, string(rune('a'+i)))
	}
	q := fmt.Sprintf("SELECT * FROM (%s) AS %s(%s, rn) WHERE rn <= %d", inner, name, strings.Join(names, ", "), 1+g.r.IntN(3))
	tail, ordered := g.orderBy(n+1, nil, nil, false)
	return dout{sql: q + tail, ordered: ordered}
}

// groupedWindows groups by one or two keys and orders windows by them
// (which order the groups totally) or by aggregates.
func (g *diffGen) groupedWindows(b *dblock) dout {
	g.use("aggregate", "group_by")
	var keys []string
	var scope []dcol
	for range 1 + g.r.IntN(2) {
		c := pick(g, b.cols)
		keys, scope = append(keys, c.ref), append(scope, c)
	}
	total := slices.Clone(keys)
	items := slices.Clone(keys)
	for range 1 + g.r.IntN(2) {
		a, c := g.agg(b.cols)
		c.ref = a
		items, scope = append(items, a), append(scope, c)
	}
	for range 1 + g.r.IntN(2) {
		s, _ := g.window(scope, total)
		items = append(items, s)
	}
	q := "SELECT " + strings.Join(items, ", ") + " FROM " + b.from + g.whereSQL(b) + " GROUP BY " + strings.Join(keys, ", ")
	tail, ordered := g.orderBy(len(items), items, nil, false)
	return dout{sql: q + tail, ordered: ordered}
}

// window is a window function over cols; functions that depend on the
// order of rows within a partition are ordered by total.
func (g *diffGen) window(cols []dcol, total []string) (string, dcol) {
	c := pick(g, cols)
	switch w := g.r.IntN(100); {
	case w < 15:
		g.use("window_row_number")
		return g.windowOver("row_number()", cols, total, true)
	case w < 30:
		fn := pick(g, []string{"rank()", "dense_rank()"})
		g.use("window_" + strings.TrimSuffix(fn, "()"))
		return g.windowOver(fn, cols, nil, true)
	case w < 55:
		fn := pick(g, []string{"lag", "lead"})
		g.use("window_" + fn)
		args := c.ref
		switch g.r.IntN(3) {
		case 1:
			args += fmt.Sprintf(", %d", 1+g.r.IntN(3))
		case 2:
			args += fmt.Sprintf(", %d, %s", 1+g.r.IntN(3), g.constant(c))
		}
		s, _ := g.windowOver(fn+"("+args+")", cols, total, true)
		return s, c
	case w < 70:
		g.use("window_first_value")
		s, _ := g.windowOver("first_value("+c.ref+")", cols, total, true)
		return s, c
	default:
		return g.windowAgg(cols, total)
	}
}

// windowAgg is sum, count or avg over a partition, its peers in an order,
// or a ROWS frame of a total order.
func (g *diffGen) windowAgg(cols []dcol, total []string) (string, dcol) {
	g.use("window_sum")
	a, c := g.agg(cols)
	if strings.Contains(a, "DISTINCT") || strings.Contains(a, "ORDER BY") {
		// Neither DISTINCT nor ORDER BY is allowed in a window aggregate.
		a, c = "count(*)", dcol{t: dInt, max: 1000}
	}
	switch g.r.IntN(4) {
	case 0:
		return g.windowOver(a, cols, nil, false)
	case 1:
		return g.windowOver(a, cols, nil, true)
	case 2:
		// A GROUPS frame holds whole peer groups, so an order that is not
		// total still fixes every aggregate's value.
		g.use("window_groups")
		frame := pick(g, []string{"GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW", "GROUPS BETWEEN CURRENT ROW AND 2 FOLLOWING",
			"GROUPS BETWEEN UNBOUNDED PRECEDING AND 1 FOLLOWING", "GROUPS 1 PRECEDING"})
		s, _ := g.windowOver(a, cols, nil, true)
		return strings.TrimSuffix(s, ")") + " " + frame + ")", c
	}
	g.use("window_frame")
	frame := pick(g, []string{"ROWS BETWEEN 2 PRECEDING AND CURRENT ROW", "ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING",
		"ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW", "ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING"})
	s, _ := g.windowOver(a, cols, total, true)
	return strings.TrimSuffix(s, ")") + " " + frame + ")", c
}

// windowOver writes fn OVER (PARTITION BY ... ORDER BY ...): ordered by
// total when given (every ref, each in a random direction), else by a
// random column when ordered.
func (g *diffGen) windowOver(fn string, cols []dcol, total []string, ordered bool) (string, dcol) {
	var spec []string
	if n := g.r.IntN(4); n > 0 {
		var parts []string
		for range min(n, 2) {
			parts = append(parts, pick(g, cols).ref)
		}
		spec = append(spec, "PARTITION BY "+strings.Join(parts, ", "))
	}
	var keys []string
	switch {
	case total != nil:
		for _, ref := range total {
			keys = append(keys, ref+g.direction())
		}
	case ordered:
		keys = append(keys, pick(g, cols).ref+g.direction())
	}
	if len(keys) > 0 {
		spec = append(spec, "ORDER BY "+strings.Join(keys, ", "))
	}
	return fn + " OVER (" + strings.Join(spec, " ") + ")", dcol{t: dInt, max: 300}
}
