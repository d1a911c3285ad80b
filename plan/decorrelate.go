package plan

import "github.com/magmalake/magmalake/sql"

// A WHERE conjunct EXISTS (subquery) or NOT EXISTS (subquery) whose
// subquery reads the enclosing row in its WHERE becomes a semi or anti
// join of the query's FROM with the subquery's FROM, on the subquery's
// conditions with the enclosing values put in: one hash join instead of
// one run of the subquery per enclosing row (TPC-H Q21's l2.l_suppkey <>
// l1.l_suppkey beside the key). The keyed form (Keyed) runs once too, but
// probes row by row through the evaluator; as a join, the side estimated
// smaller is hashed and probed column-wise (TPC-H Q4: 2.7x faster).

// decorrelate rewrites q's EXISTS, NOT EXISTS, IN and keyed scalar
// subquery conjuncts into joins.
func (p *Builder) decorrelate(q *Query) {
	if q.Where == nil {
		return
	}
	var kept []sql.Expr
	var first *Join
	sunk := false
	for _, c := range Conjuncts(q.Where) {
		if sinkIn(q.From, c) {
			sunk = true
			continue
		}
		if from, ok := p.scalarJoin(q.From, c); ok {
			q.From, sunk = from, true
			continue
		}
		j, ok := existsJoin(q.From, c)
		if !ok {
			j, ok = inJoin(q.From, c)
		}
		if !ok {
			j, ok = notInJoin(q.From, c)
		}
		if ok {
			q.From = NewPick(j, identity(len(q.From.Scope().Columns)))
			if first == nil {
				first = j
			}
			continue
		}
		kept = append(kept, c)
	}
	if first == nil && !sunk {
		return
	}
	q.Where = nil
	if len(kept) > 0 {
		q.Where = AndOf(kept)
	}
	// What WHERE keeps filters the first join's left side (the query's
	// FROM, over whose columns it is bound) before it probes: a scan
	// there is pruned by it. WHERE still checks it.
	for _, c := range kept {
		if first != nil && !HasSubquery(c) && !HasVolatile(c) {
			first.LFilter = AndAfter(first.LFilter, c)
		}
	}
}

// existsJoin is the semi or anti join conjunct c stands for over from;
// ok is false when c is no EXISTS of that form.
func existsJoin(from Node, c sql.Expr) (*Join, bool) {
	kind := JoinSemi
	if n, ok := c.(*sql.Not); ok {
		kind, c = JoinAnti, n.X
	}
	sub, ok := c.(*sql.Subquery)
	if !ok || sub.Kind != sql.SubExists {
		return nil, false
	}
	sp, ok := sub.Plan.(*Subquery)
	if !ok || !sp.Correlated {
		return nil, false
	}
	return correlatedJoin(from, sub, kind, false)
}

// correlatedJoin joins from with the FROM of sub's query (a plain
// select-project-join query whose WHERE reads the enclosing row) on that
// WHERE's conjuncts that read the enclosing row, the enclosing values put
// in; the others filter the right side. With keysOnly, every conjunct
// that reads the enclosing row must be an equality of an enclosing value
// and an inner one (a hash key), or there is no join.
func correlatedJoin(from Node, sub *sql.Subquery, kind JoinKind, keysOnly bool) (*Join, bool) {
	q := sub.Plan.(*Subquery).Query
	if q.Agg != nil || q.Win != nil || q.Limit != nil || q.Offset != nil || q.Having != nil || q.Where == nil || !refsPlain(sub.Refs) {
		return nil, false
	}
	nl := len(from.Scope().Columns)
	var on, local []sql.Expr
	for _, w := range Conjuncts(q.Where) {
		if HasSubquery(w) || HasVolatile(w) {
			return nil, false
		}
		if !readsOuter(w) {
			local = append(local, w)
			continue
		}
		on = append(on, sql.MapRefs(w, func(x *sql.ColumnRef) sql.Expr {
			r := *x
			r.Index += nl
			return &r
		}, func(o *sql.OuterRef) sql.Expr { return sub.Refs[o.Slot] }))
	}
	if len(on) == 0 {
		return nil, false
	}
	for _, c := range on {
		if _, _, _, ok := equiKey(c, nl); keysOnly && !ok {
			return nil, false
		}
	}
	stripOuter(q.From)
	j := NewJoin(from, q.From, kind)
	j.SetCondition(AndOf(on))
	if len(local) > 0 {
		j.RFilter = AndOf(local)
	}
	return j, true
}

// inJoin is the semi join x IN (SELECT y ...) stands for as a WHERE
// conjunct over from, the subquery not correlated: from's rows that find
// their x among the subquery's rows, the subquery run once as a relation
// (TPC-H Q18's orders IN (lineitem grouped by order), Q20's suppliers). A
// conjunct that is NULL (no match, a NULL among the values) drops the row
// as false does, so the join is exact; NOT IN is not (a NULL value makes
// every row NULL) and stays as it is.
func inJoin(from Node, c sql.Expr) (*Join, bool) {
	sub, ok := c.(*sql.Subquery)
	if !ok || sub.Kind != sql.SubAny || sub.Op != sql.OpEQ {
		return nil, false
	}
	sp, ok := sub.Plan.(*Subquery)
	if !ok || sp.Correlated {
		return nil, false
	}
	tests, domains := sub.Row, sub.RowDomains
	if tests == nil {
		tests, domains = []sql.Expr{sub.Test}, []sql.Type{sub.Domain}
	}
	cols := sp.Query.Columns()
	if len(tests) != len(cols) || len(domains) != len(cols) {
		return nil, false
	}
	nl := len(from.Scope().Columns)
	on := make([]sql.Expr, len(tests))
	for i, t := range tests {
		if HasSubquery(t) || HasVolatile(t) {
			return nil, false
		}
		r := &sql.ColumnRef{Index: nl + i, Name: cols[i].Name, T: cols[i].Type}
		on[i] = &sql.Compare{Op: sql.OpEQ, L: t, R: r, Domain: domains[i]}
	}
	j := NewJoin(from, NewDerived(sp.Query, ""), JoinSemi)
	j.SetCondition(AndOf(on))
	return j, true
}

// sinkIn puts the semi join x IN (SELECT ...) stands for (see inJoin)
// below from's joins, over the lowest inner-join side that holds every
// column x reads, when that side is estimated to have more rows than the
// subquery gives: the few rows that pass then reach the joins above
// (TPC-H Q18: orders IN (a few large orders) before joining lineitem, not
// after). It reports whether it did; from itself is inJoin's place.
func sinkIn(from Node, c sql.Expr) bool {
	sub, ok := c.(*sql.Subquery)
	if !ok || sub.Kind != sql.SubAny {
		return false
	}
	sp, ok := sub.Plan.(*Subquery)
	if !ok || sp.Correlated {
		return false
	}
	cols := map[int]bool{}
	sql.CollectColumns(c, cols)
	var parent *Join
	var onLeft bool
	remap := map[int]int{}
	for i := range cols {
		remap[i] = i
	}
	for n := from; ; {
		switch x := n.(type) {
		case *Pick:
			for i, to := range remap {
				remap[i] = x.Cols[to]
			}
			n = x.Input
			continue
		case *Join:
			if x.Kind != JoinInner {
				break
			}
			nl := len(x.Left.Scope().Columns)
			left, right := false, false
			for _, to := range remap {
				left, right = left || to < nl, right || to >= nl
			}
			if left == right {
				break
			}
			parent, onLeft = x, left
			if right {
				for i, to := range remap {
					remap[i] = to - nl
				}
				n = x.Right
				continue
			}
			n = x.Left
			continue
		}
		if parent == nil || EstimateRows(n) <= estimateQuery(sp.Query) {
			return false
		}
		j, ok := inJoin(n, sql.RemapColumns(c, remap))
		if !ok {
			return false
		}
		sunk := NewPick(j, identity(len(n.Scope().Columns)))
		if onLeft {
			parent.Left = sunk
		} else {
			parent.Right = sunk
		}
		return true
	}
}

// refsPlain: the enclosing values a subquery reads are expressions of the
// enclosing row alone (no subquery, no value from further out).
func refsPlain(refs []sql.Expr) bool {
	for _, r := range refs {
		if readsOuter(r) || HasVolatile(r) {
			return false
		}
	}
	return true
}

func identity(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
