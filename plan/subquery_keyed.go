package plan

import "github.com/magmalake/magmalake/sql"

// Keyed is the form of a correlated subquery whose only correlation is
// equalities with the enclosing row (inner.k = outer.x AND ...): it runs
// once per statement, keeping its rows by key, and each enclosing row looks
// its rows up: the hash join a correlated subquery is, instead of one run
// per distinct outer value. An aggregate without GROUP BY is grouped by the
// keys instead (TPC-H Q17's avg per part), and a key no row has gets what
// the aggregate gives over no rows. UPDATE ... FROM's assignments, DML's
// EXISTS and the correlated subqueries of TPC-H Q2, Q4, Q17, Q20 and Q22
// take this form.
type Keyed struct {
	// Build is the subquery without the key equalities, grouped by the
	// keys if it aggregates; its last len(Slots) outputs are the keys.
	Build *Query
	// Empty is what the subquery gives for a key no row has: an
	// aggregate's one row over no rows; nil: no rows.
	Empty *Query
	// Slots are the outer values' slots, one per key; KeyTs the inner
	// keys' types, OuterTs the outer values', Domains the types each pair
	// compares in.
	Slots                   []int
	KeyTs, OuterTs, Domains []sql.Type
	PerKey                  int64 // the subquery's LIMIT, per key; -1: none
}

// keyedForm recognises the form; ok is false for any other subquery. For
// EXISTS only a row's existence matters: the build keeps one key per row
// and one row per key.
func keyedForm(q *Query, exists bool) (*Keyed, bool) {
	if q.Win != nil || q.Distinct || q.DistinctOn != nil || len(q.Order) > 0 || q.Offset != nil ||
		q.Having != nil || q.Sets != nil || q.Where == nil || q.Visible != len(q.Outputs) {
		return nil, false
	}
	agg := q.Agg != nil
	if agg && (len(q.Agg.GroupBy) > 0 || q.Limit != nil) {
		return nil, false
	}
	perKey := int64(-1)
	if q.Limit != nil {
		c, ok := q.Limit.(*sql.Const)
		if !ok || c.Value == nil {
			return nil, false
		}
		if perKey, ok = c.Value.(int64); !ok {
			return nil, false
		}
	}
	var keys []keyEq
	var rest []sql.Expr
	for _, c := range Conjuncts(q.Where) {
		if k, ok := keyEquality(c); ok {
			keys = append(keys, k)
			continue
		}
		rest = append(rest, c)
	}
	if len(keys) == 0 || readsOuter(append(rest, q.Outputs...)...) || agg && readsOuter(aggInputs(q.Agg)...) {
		return nil, false
	}
	k := &Keyed{PerKey: perKey}
	var inner []sql.Expr
	for _, key := range keys {
		k.Slots = append(k.Slots, key.outer.Slot)
		k.KeyTs = append(k.KeyTs, key.inner.Type())
		k.OuterTs = append(k.OuterTs, key.outer.Type())
		k.Domains = append(k.Domains, key.domain)
		inner = append(inner, key.inner)
	}
	build := *q
	build.Where, build.Limit = andAll(rest), nil
	switch {
	case agg:
		build.Agg = &sql.AggContext{GroupBy: inner, Calls: q.Agg.Calls}
		build.Outputs = append(shiftAggRefs(q.Outputs, len(q.Agg.Calls), len(inner)), groupRefs(inner)...)
		empty := *q
		empty.Where, empty.Limit = &sql.Const{Value: false, T: sql.Bool}, nil
		k.Empty = &empty
	case exists:
		build.Outputs = inner
		if perKey != 0 { // LIMIT 0 keeps no row: EXISTS is false for every key
			k.PerKey = 1
		}
	default:
		build.Outputs = append(append([]sql.Expr(nil), q.Outputs...), inner...)
	}
	build.Names = make([]string, len(build.Outputs))
	for i := range build.Names {
		build.Names[i] = "__out"
	}
	build.Visible = len(build.Outputs)
	k.Build = &build
	return k, true
}

// aggInputs are what an aggregate's calls read.
func aggInputs(a *sql.AggContext) []sql.Expr {
	var out []sql.Expr
	for _, c := range a.Calls {
		out = append(out, c.Inputs()...)
	}
	return out
}

// shiftAggRefs renumbers outputs over an aggregate's calls (layout: the
// calls) for the layout with keys group keys ahead of them.
func shiftAggRefs(outputs []sql.Expr, calls, keys int) []sql.Expr {
	m := make(map[int]int, calls)
	for i := 0; i < calls; i++ {
		m[i] = i + keys
	}
	out := make([]sql.Expr, len(outputs))
	for i, e := range outputs {
		out[i] = sql.RemapColumns(e, m)
	}
	return out
}

// groupRefs read the group keys of a grouped layout.
func groupRefs(keys []sql.Expr) []sql.Expr {
	out := make([]sql.Expr, len(keys))
	for i, k := range keys {
		out[i] = &sql.ColumnRef{Index: i, Name: "__key", T: k.Type()}
	}
	return out
}

type keyEq struct {
	inner  sql.Expr // over the subquery's input, reading no outer row
	outer  *sql.OuterRef
	domain sql.Type
}

// keyEquality recognises inner expression = outer reference, either way
// round (era.id + 1 = big.id).
func keyEquality(e sql.Expr) (keyEq, bool) {
	c, ok := e.(*sql.Compare)
	if !ok || c.Op != sql.OpEQ {
		return keyEq{}, false
	}
	if o, ok := c.R.(*sql.OuterRef); ok && !readsOuter(c.L) {
		return keyEq{c.L, o, c.Domain}, true
	}
	if o, ok := c.L.(*sql.OuterRef); ok && !readsOuter(c.R) {
		return keyEq{c.R, o, c.Domain}, true
	}
	return keyEq{}, false
}

// readsOuter reports whether any expression reads the enclosing row, or
// holds a subquery (whose own correlation it cannot see).
func readsOuter(es ...sql.Expr) bool {
	for _, e := range es {
		switch e.(type) {
		case *sql.OuterRef, *sql.Subquery:
			return true
		}
		if readsOuter(sql.Children(e)...) {
			return true
		}
	}
	return false
}

func andAll(es []sql.Expr) sql.Expr {
	switch len(es) {
	case 0:
		return nil
	case 1:
		return es[0]
	}
	return &sql.Logic{And: true, Args: es}
}
