package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/apache/iceberg-go"

	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// Explain describes the plan, one node per operator as PostgreSQL lays it
// out, each with its estimated rows; analyze also runs it and gives each
// operator what it did (explain_analyze.go).
func (q *Query) Explain(ctx context.Context, params []any, analyze bool) (*ExplainPlan, error) {
	x := &explainer{ctx: ctx, params: params, nodes: q.nodes}
	var ms float64
	if analyze {
		x.an = newAnalysis()
		start := time.Now()
		rows, err := q.Run(withAnalysis(ctx, x.an), params)
		if err != nil {
			return nil, err
		}
		if _, err := CountRows(withAnalysis(ctx, x.an), rows); err != nil {
			return nil, err
		}
		ms = ElapsedMs(start)
	}
	p := &ExplainPlan{Root: x.query(q.root)}
	if analyze {
		p.Props = append(p.Props, ExplainProp{Key: "Execution Time", Value: ms, Text: fmt.Sprintf("Execution Time: %.3f ms", ms)})
	}
	return p, nil
}

// CountRows drains rows and counts them.
func CountRows(ctx context.Context, rows stmt.Rows) (int64, error) {
	defer rows.Close()
	var n int64
	for {
		b, err := rows.Next(ctx)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return n, nil
			}
			return n, err
		}
		n += b.NumRows()
	}
}

// explainer describes compiled operators: their plan nodes give the
// estimates, an (under ANALYZE) what they did.
type explainer struct {
	ctx    context.Context
	params []any
	nodes  map[source]plan.Node // nil: no estimates
	an     *analysis            // nil: not analysed
	// subs numbers the expression subqueries shown so far ("SubPlan N").
	subs map[*plan.Subquery]int
}

// describeSource describes src alone (MERGE's source), with estimates but
// nothing analysed.
func describeSource(ctx context.Context, src source, params []any, nodes map[source]plan.Node) *ExplainNode {
	x := &explainer{ctx: ctx, params: params, nodes: nodes}
	return x.source(src, src)
}

// node starts a node of the given type; its type is in its text line.
func node(typ, text string) *ExplainNode {
	n := &ExplainNode{Text: text}
	n.Prop("Node Type", typ, "")
	return n
}

// estimate sets n's estimated rows, at least one as PostgreSQL shows them
// (clamp_row_est).
func estimate(n *ExplainNode, rows float64) {
	n.PlanRows, n.Estimated = max(rows, 1), true
}

// actual sets n's counters (nil: it never ran).
func (x *explainer) actual(n *ExplainNode, st *opStats) {
	if x.an == nil {
		return
	}
	n.Actual = &ExplainActual{}
	if st != nil {
		n.Actual.Rows, n.Actual.Loops = st.rows, st.loops
		n.Actual.Startup, n.Actual.Total = st.startup, st.total
	}
}

// query describes a query level: its source with WHERE, under the
// operators the level runs over it (aggregate, window, DISTINCT, sort,
// LIMIT), top down as PostgreSQL prints them.
func (x *explainer) query(q *selectQuery) *ExplainNode {
	var lv *levelStats
	if x.an != nil {
		lv = x.an.levels[q]
	}
	est := plan.EstimateLevel(q.Query)
	n := x.source(q.src, q.src)
	if q.Where != nil {
		var scan *tableSource
		if ts, ok := q.src.(*tableSource); ok {
			scan = ts
		}
		var kept *int64
		if lv != nil {
			kept = &lv.filtered
		}
		x.filter(n, q.Where, q.Input, scan, kept)
		estimate(n, est.Filtered)
	}
	source := n
	if q.Agg != nil {
		n = x.over(x.aggregateNode(q, lv), n, est.Grouped)
	}
	if q.Win != nil {
		w := node("WindowAgg", "WindowAgg")
		if q.WinTop != 0 {
			w.Prop("Window Top Rows", max(q.WinTop, 0),
				fmt.Sprintf("  Window: only the first %d rows of each partition are kept (a heap per partition)", max(q.WinTop, 0)))
		}
		n = x.over(x.stageNode(w, lv, stageWindow), n, est.Grouped)
	}
	if q.Distinct {
		n = x.over(x.stageNode(node("Unique", "Unique"), lv, stageDistinct), n, est.Grouped)
	}
	if len(q.Order) > 0 {
		n = x.over(x.sortNode(q, lv), n, est.Grouped)
	}
	if len(q.DistinctOn) > 0 {
		n = x.over(x.stageNode(node("Unique", "Unique"), lv, stageDistinctOn), n, est.Grouped)
	}
	if q.Limit != nil || q.Offset != nil {
		n = x.over(node("Limit", "Limit"), n, est.Out)
	}
	// The level's top operator is what its consumer read.
	if lv != nil {
		x.actual(n, &lv.out)
	} else {
		x.actual(n, nil)
	}
	x.subPlans(source, q.Where)
	x.subPlans(n, q.Outputs...)
	if q.Agg != nil {
		x.subPlans(n, q.Agg.GroupBy...)
		for _, c := range q.Agg.Calls {
			x.subPlans(n, c)
		}
	}
	x.subPlans(n, q.Having)
	return n
}

// over puts parent above child, with its estimate.
func (x *explainer) over(parent, child *ExplainNode, rows float64) *ExplainNode {
	estimate(parent, rows)
	parent.Child(child)
	return parent
}

// stageNode gives a level's operator its counters and, analysed, the
// memory it held.
func (x *explainer) stageNode(n *ExplainNode, lv *levelStats, s stage) *ExplainNode {
	if lv == nil {
		x.actual(n, nil)
		return n
	}
	st := lv.of(s)
	if st.loops == 0 {
		st = nil
	}
	x.actual(n, st)
	if st != nil {
		memoryProps(n, st)
	}
	return n
}

// aggregateNode is GROUP BY's node: PostgreSQL's HashAggregate (Plain
// without keys, Mixed for grouping sets), its keys, HAVING.
func (x *explainer) aggregateNode(q *selectQuery, lv *levelStats) *ExplainNode {
	typ, strategy := "HashAggregate", "Hashed"
	switch {
	case q.Sets != nil:
		typ, strategy = "MixedAggregate", "Mixed"
	case len(q.Agg.GroupBy) == 0:
		typ, strategy = "Aggregate", "Plain"
	}
	n := node("Aggregate", typ)
	n.Prop("Strategy", strategy, "")
	if len(q.Agg.GroupBy) > 0 {
		keys := exprTexts(q.Agg.GroupBy)
		n.Prop("Group Key", keys, "  Group Key: "+strings.Join(keys, ", "))
	}
	if q.Having != nil {
		n.Prop("Filter", q.Having.String(), "  Filter: "+q.Having.String())
	}
	if c, ok := q.metadataCount(); ok {
		n.Prop("Metadata Count", c, fmt.Sprintf("  Count: %d rows from the snapshot summary (no data file read)", c))
	}
	if lv == nil || lv.agg.loops == 0 {
		x.actual(n, nil)
		return n
	}
	x.actual(n, &lv.agg)
	if strategy == "Hashed" {
		hashProps(n, &lv.agg, "HashAgg Batches")
	} else {
		memoryProps(n, &lv.agg)
	}
	return n
}

// sortNode is ORDER BY's node: its keys and, analysed, how it sorted.
func (x *explainer) sortNode(q *selectQuery, lv *levelStats) *ExplainNode {
	n := node("Sort", "Sort")
	keys := make([]string, len(q.Order))
	for i, k := range q.Order {
		keys[i] = q.Outputs[k.Col].String()
		switch {
		case k.Spec.Desc && !k.Spec.NullsFirst:
			keys[i] += " DESC NULLS LAST"
		case k.Spec.Desc:
			keys[i] += " DESC"
		case k.Spec.NullsFirst:
			keys[i] += " NULLS FIRST"
		}
	}
	n.Prop("Sort Key", keys, "  Sort Key: "+strings.Join(keys, ", "))
	if lv == nil || lv.sort.loops == 0 {
		x.actual(n, nil)
		return n
	}
	st := &lv.sort
	x.actual(n, st)
	method, space, used := "quicksort", "Memory", st.peakMem
	switch {
	case st.disk > 0:
		method, space, used = "external merge", "Disk", st.disk
	case q.Limit != nil && q.Agg == nil && q.Win == nil && !q.Distinct && len(q.DistinctOn) == 0:
		method = "top-N heapsort"
	}
	n.Prop("Sort Method", method, fmt.Sprintf("  Sort Method: %s  %s: %dkB", method, space, kB(used)))
	n.Prop("Sort Space Used", kB(used), "")
	n.Prop("Sort Space Type", space, "")
	return n
}

// kB is bytes in kilobytes, rounded up as PostgreSQL shows memory.
func kB(n int64) int64 { return (n + 1023) / 1024 }

// hashProps are a hash table's batches and memory, as PostgreSQL shows
// them for a Hash or HashAggregate node (batches: its JSON key).
func hashProps(n *ExplainNode, st *opStats, batches string) {
	text := fmt.Sprintf("  Batches: %d  Memory Usage: %dkB", 1+st.batches, kB(st.peakMem))
	if st.disk > 0 {
		text += fmt.Sprintf("  Disk Usage: %dkB", kB(st.disk))
	}
	n.Props = append(n.Props, ExplainProp{Key: batches, Value: 1 + st.batches, Text: text},
		ExplainProp{Key: "Peak Memory Usage", Value: kB(st.peakMem)})
	if st.disk > 0 || batches == "HashAgg Batches" {
		// PostgreSQL's HashAggregate always has it, its Hash node never
		// (it does not say what a hash join spilled).
		n.Props = append(n.Props, ExplainProp{Key: "Disk Usage", Value: kB(st.disk)})
	}
}

// memoryProps are what another operator held and spilled, when anything.
func memoryProps(n *ExplainNode, st *opStats) {
	if st.peakMem > 0 {
		n.Prop("Peak Memory Usage", kB(st.peakMem), fmt.Sprintf("  Memory Usage: %dkB", kB(st.peakMem)))
	}
	if st.disk > 0 {
		n.Prop("Disk Usage", kB(st.disk), fmt.Sprintf("  Disk Usage: %dkB", kB(st.disk)))
	}
}

func exprTexts(es []sql.Expr) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.String()
	}
	return out
}

// filter shows cond on n, the node of a source whose rows it filters:
// PostgreSQL's Filter line and, analysed, the rows it removed (kept: the
// rows it let through; nil when not counted). A table's scan also shows
// the Iceberg filter its files and row groups are pruned by.
func (x *explainer) filter(n *ExplainNode, cond sql.Expr, scope *sql.Scope, scan *tableSource, kept *int64) {
	n.Prop("Filter", cond.String(), "  Filter: "+cond.String())
	if scan != nil {
		n.Props = append(n.Props, FilterProps(x.ctx, cond, scope, scan.rt.Table.Schema(), x.params)...)
	}
	if n.Actual == nil || kept == nil {
		return
	}
	removed := n.Actual.Rows - *kept
	n.Actual.Rows = *kept
	perLoop := removed
	if n.Actual.Loops > 0 {
		perLoop = (removed + n.Actual.Loops/2) / n.Actual.Loops
	}
	n.Prop("Rows Removed by Filter", perLoop, fmt.Sprintf("  Rows Removed by Filter: %d", perLoop))
}

// source describes src, counted under key (the operator its consumer
// opened: a wrapper that changes no row count shows as what it wraps).
func (x *explainer) source(src, key source) *ExplainNode {
	n := x.sourceNode(src, key)
	if pn, ok := x.nodes[key]; ok {
		// The node's own estimate (a Filter's, over what it filters).
		estimate(n, plan.EstimateRows(pn))
	}
	return n
}

func (x *explainer) counters(n *ExplainNode, key source) *ExplainNode {
	x.actual(n, x.an.found(key))
	return n
}

func (x *explainer) sourceNode(src, key source) *ExplainNode {
	switch s := src.(type) {
	case *tableSource:
		n := x.counters(node("Scan", "Scan on "+strings.Join(s.rt.Ident, ".")), key)
		RelationProps(n, s.rt.Ident, plan.QualifierOf(s.sc))
		cols, names := "all", s.cols
		if s.cols != nil {
			cols = strings.Join(s.cols, ", ")
			if cols == "" {
				cols = "none (row count only)"
			}
		} else {
			for _, f := range s.rt.Table.Schema().Fields() {
				names = append(names, f.Name)
			}
		}
		n.Prop("Columns", append([]string{}, names...), "  Columns: "+cols)
		return n
	case *metaSource:
		return x.counters(node("Metadata Table Scan", "Metadata table scan"), key)
	case *joinSource:
		return x.join(s, key)
	case *mergedSource:
		return x.source(s.src, key)
	case *picked:
		return x.source(s.src, key)
	case *rescoped:
		return x.source(s.src, key)
	case *lateralSource:
		return x.lateral(s, key)
	case *filterSource:
		n := x.source(s.src, s.src)
		var kept *int64
		if st := x.an.found(key); st != nil {
			kept = &st.rows
		}
		var scan *tableSource
		if ts, ok := s.src.(*tableSource); ok {
			scan = ts
		}
		x.filter(n, s.cond, s.src.scope(), scan, kept)
		x.subPlans(n, s.cond)
		return n
	case *derivedSource:
		n := x.counters(node("Subquery Scan", "Subquery Scan on "+plan.QualifierOf(s.sc)), key)
		n.Prop("Alias", plan.QualifierOf(s.sc), "")
		n.Child(x.query(s.q))
		return n
	case *setSource:
		n := x.set(s.root)
		x.counters(n, key)
		if st := x.an.found(s); st != nil {
			memoryProps(n, st)
		}
		return n
	case *seriesSource:
		n := x.counters(node("Function Scan", "Function Scan on generate_series"), key)
		n.Prop("Function Name", "generate_series", "")
		return n
	case *srfSource:
		n := x.counters(node("ProjectSet", "ProjectSet"), key)
		n.Child(x.source(s.input, s.input))
		return n
	case *fileSource:
		return x.counters(node("Function Scan", "Function Scan on a file"), key)
	case *recursiveSource:
		n := x.counters(node("Recursive Union", "Recursive Union"), key)
		if st := x.an.found(s); st != nil {
			memoryProps(n, st)
		}
		n.Child(x.query(s.start))
		n.Child(x.query(s.step))
		return n
	case *workSource:
		return x.counters(node("WorkTable Scan", "WorkTable Scan"), key)
	}
	return x.counters(node("Result", "Result"), key)
}

// RelationProps are a scanned or changed table's keys, as PostgreSQL names
// them: "Relation Name", "Schema", "Alias".
func RelationProps(n *ExplainNode, ident []string, alias string) {
	name := ident[len(ident)-1]
	if alias == "" {
		alias = name
	}
	n.Prop("Relation Name", name, "")
	n.Prop("Schema", strings.Join(ident[:len(ident)-1], "."), "")
	n.Prop("Alias", alias, "")
}

// joinName is PostgreSQL's name of a join node: "Hash Join", "Hash Left
// Join", "Nested Loop", "Nested Loop Anti Join" ...
func joinName(method string, kind plan.JoinKind) string {
	switch {
	case kind == plan.JoinInner && method == "Nested Loop":
		return method
	case kind == plan.JoinInner:
		return method + " Join"
	}
	return method + " " + kind.String() + " Join"
}

func (x *explainer) join(j *joinSource, key source) *ExplainNode {
	method := "Nested Loop"
	if len(j.LKeys) > 0 {
		method = "Hash"
	}
	typ := "Nested Loop"
	if method == "Hash" {
		typ = "Hash Join"
	}
	n := x.counters(node(typ, joinName(method, j.Kind)), key)
	n.Prop("Join Type", j.Kind.String(), "")
	if len(j.LKeys) > 0 {
		cond := hashCond(j)
		n.Prop("Hash Cond", cond, "  Hash Cond: "+cond)
	}
	if j.NotIn != nil {
		test := j.NotIn.L.String() + " NOT IN " + j.NotIn.R.String()
		n.Prop("Null-Aware Test", test, "  Null-Aware Test: "+test)
	}
	if j.Residual != nil {
		n.Prop("Join Filter", j.Residual.String(), "  Join Filter: "+j.Residual.String())
	}
	// Its work_mem charges count under the join itself (a wrapper over it
	// may be what was opened).
	if st := x.an.found(j); st != nil {
		if method == "Hash" {
			hashProps(n, st, "Hash Batches")
		} else {
			memoryProps(n, st)
		}
	}
	n.Props = append(n.Props, ExplainProp{Key: "Outer", Plan: x.joinSide(j, true)},
		ExplainProp{Key: "Inner", Plan: x.joinSide(j, false)})
	x.subPlans(n, j.Residual)
	return n
}

// joinSide describes one side of a join with the WHERE conjuncts pushed
// into it: its rows are filtered (and its scan pruned) by them before the
// join.
func (x *explainer) joinSide(j *joinSource, left bool) *ExplainNode {
	src, cond := j.right, j.RFilter
	if left {
		src, cond = j.left, j.LFilter
	}
	n := x.source(src, src)
	if cond == nil {
		return n
	}
	var kept *int64
	if st := x.an.found(sideKey{j, left}); st != nil {
		kept = &st.rows
	}
	var scan *tableSource
	if ts, ok := src.(*tableSource); ok {
		scan = ts
	}
	x.filter(n, cond, src.scope(), scan, kept)
	if n.Estimated {
		estimate(n, n.PlanRows*plan.Selectivity(cond))
	}
	x.subPlans(n, cond)
	return n
}

// hashCond spells a hash join's key pairs as PostgreSQL's Hash Cond:
// "(l = r)", several joined by AND.
func hashCond(j *joinSource) string {
	keys := hashKeyText(j)
	for i := range keys {
		keys[i] = "(" + keys[i] + ")"
	}
	if len(keys) == 1 {
		return keys[0]
	}
	return "(" + strings.Join(keys, " AND ") + ")"
}

// hashKeyText spells a hash join's key pairs, "l = r".
func hashKeyText(j *joinSource) []string {
	var keys []string
	for i := range j.LKeys {
		keys = append(keys, j.LKeys[i].String()+" = "+j.RKeys[i].String())
	}
	return keys
}

func (x *explainer) lateral(l *lateralSource, key source) *ExplainNode {
	n := x.counters(node("Nested Loop", joinName("Nested Loop", l.kind)), key)
	n.Prop("Join Type", l.kind.String(), "")
	n.Prop("Lateral", true, "  Lateral: the inner query runs once per distinct outer value")
	if l.cond != nil {
		n.Prop("Join Filter", l.cond.String(), "  Join Filter: "+l.cond.String())
	}
	if st := x.an.found(l); st != nil {
		memoryProps(n, st)
	}
	n.Props = append(n.Props, ExplainProp{Key: "Outer", Plan: x.source(l.left, l.left)},
		ExplainProp{Key: "Inner", Plan: x.query(l.right)})
	x.subPlans(n, l.cond)
	return n
}

func (x *explainer) set(n *setNode) *ExplainNode {
	if n.leaf != nil {
		return x.query(n.leaf)
	}
	name := map[sql.SetOp]string{sql.SetUnion: "Union", sql.SetUnionAll: "Append", sql.SetIntersect: "Intersect",
		sql.SetIntersectAll: "Intersect All", sql.SetExcept: "Except", sql.SetExceptAll: "Except All"}[n.op]
	out := node(name, name)
	x.actual(out, x.an.found(n))
	l, r := x.set(n.left), x.set(n.right)
	if l.Estimated && r.Estimated {
		// The plan's estimate of a set operation: its sides' rows.
		estimate(out, l.PlanRows+r.PlanRows)
	}
	out.Child(l)
	out.Child(r)
	return out
}

// subPlans puts the subqueries es run under n, the node that evaluates
// them, as PostgreSQL's "SubPlan N" children (each once, where first
// met); a keyed one (run once, its rows looked up per outer row) shows the
// query it runs.
func (x *explainer) subPlans(n *ExplainNode, es ...sql.Expr) {
	for _, s := range subqueriesIn(es) {
		if _, seen := x.subs[s]; seen {
			continue
		}
		if x.subs == nil {
			x.subs = map[*plan.Subquery]int{}
		}
		x.subs[s] = len(x.subs) + 1
		x.subPlan(n, s, x.subs[s])
	}
}

// subqueriesIn lists the subqueries in es, outermost first.
func subqueriesIn(es []sql.Expr) []*plan.Subquery {
	var out []*plan.Subquery
	var walk func(e sql.Expr)
	walk = func(e sql.Expr) {
		if e == nil {
			return
		}
		if s, ok := e.(*sql.Subquery); ok {
			if ps, ok := s.Plan.(*plan.Subquery); ok {
				out = append(out, ps)
			}
		}
		for _, c := range sql.Children(e) {
			walk(c)
		}
	}
	for _, e := range es {
		walk(e)
	}
	return out
}

// subPlan shows subquery s, numbered i, under parent.
func (x *explainer) subPlan(parent *ExplainNode, s *plan.Subquery, i int) {
	var q *selectQuery
	label := fmt.Sprintf("SubPlan %d", i)
	switch e := s.Exec.(type) {
	case *keyedSubPlan:
		q, label = e.build, label+" (keyed: run once, its rows looked up by the outer row's key)"
	case *subPlan:
		q = e.q
	default:
		return
	}
	n := x.query(q)
	// "Subplan Name" right after "Node Type", where PostgreSQL has it.
	n.Props = append(n.Props[:1], append([]ExplainProp{{Key: "Subplan Name", Value: fmt.Sprintf("SubPlan %d", i)}}, n.Props[1:]...)...)
	parent.Props = append(parent.Props, ExplainProp{Key: "SubPlan", Text: "  " + label, Plan: n})
}

// FilterProps describe how a WHERE clause reaches Iceberg: the filter the
// scan plans files with, whether it is exact, what is checked per row.
func FilterProps(ctx context.Context, where sql.Expr, scope *sql.Scope, schema *iceberg.Schema, args []any) []ExplainProp {
	if where == nil {
		return []ExplainProp{{Key: "Iceberg Filter", Value: true, Text: "  Iceberg filter: true (no WHERE)"},
			{Text: "  Residual: none"}}
	}
	tr := sql.Translate(ctx, where, scope, args)
	js, err := sql.FilterJSON(tr.Filter, schema)
	filter, value := string(js), any(json.RawMessage(js))
	if err != nil {
		filter = tr.Filter.String()
		value = filter
	}
	residual := ExplainProp{Text: "  Residual: none"}
	if tr.Residual != nil {
		residual = ExplainProp{Key: "Residual Filter", Value: tr.Residual.String(), Text: "  Residual: " + tr.Residual.String()}
	}
	return []ExplainProp{
		{Key: "Iceberg Filter", Value: value, Text: "  Iceberg filter: " + filter},
		{Key: "Exact", Value: tr.Exact, Text: fmt.Sprintf("  Exact: %t", tr.Exact)},
		residual,
	}
}
