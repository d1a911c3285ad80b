package plan

import "github.com/magmalake/magmalake/sql"

// limitWindow marks the derived table q reads when q's WHERE keeps only
// rows whose row_number() (the derived table's only window call) is at
// most a constant.
func limitWindow(q *Query) {
	if q.Where == nil {
		return
	}
	conj := []sql.Expr{q.Where}
	if l, ok := q.Where.(*sql.Logic); ok && l.And {
		conj = l.Args
	}
	for _, c := range conj {
		col, n, ok := rowLimit(c)
		if !ok {
			continue
		}
		d, dcol, ok := derivedColumn(q.From, col)
		if !ok || !windowTopApplies(d.Query, dcol) {
			continue
		}
		if d.Query.WinTop == 0 || n < d.Query.WinTop {
			d.Query.WinTop = max(n, 0)
			if n <= 0 {
				d.Query.WinTop = -1 // no row can pass
			}
		}
	}
}

// rowLimit reads "col <= n", "col < n", "col = n" (either way round) with
// an integer constant n: rows passing have col at most n.
func rowLimit(e sql.Expr) (col int, n int64, ok bool) {
	c, isCmp := e.(*sql.Compare)
	if !isCmp {
		return 0, 0, false
	}
	op, l, r := c.Op, c.L, c.R
	if _, isRef := r.(*sql.ColumnRef); isRef {
		l, r = r, l
		switch op {
		case sql.OpGE:
			op = sql.OpLE
		case sql.OpGT:
			op = sql.OpLT
		}
	}
	ref, isRef := l.(*sql.ColumnRef)
	k, isConst := r.(*sql.Const)
	if !isRef || !isConst {
		return 0, 0, false
	}
	v, isInt := k.Value.(int64)
	if !isInt {
		return 0, 0, false
	}
	switch op {
	case sql.OpLE, sql.OpEQ:
		return ref.Index, v, true
	case sql.OpLT:
		return ref.Index, v - 1, true
	}
	return 0, 0, false
}

// derivedColumn finds the derived table under src's column wrappers and
// the derived table's column that src's column col is.
func derivedColumn(src Node, col int) (*Derived, int, bool) {
	for {
		switch s := src.(type) {
		case *Pick:
			col, src = s.Cols[col], s.Input
		case *Rename:
			src = s.Input
		case *Derived:
			return s, col, true
		default:
			return nil, 0, false
		}
	}
}

// windowTopApplies: column col of q is its only window call, row_number(),
// and nothing after the window (grouping, DISTINCT, LIMIT) would see the
// rows the heap leaves out.
func windowTopApplies(q *Query, col int) bool {
	if q.Win == nil || len(q.Win.Calls) != 1 || q.Agg != nil || q.Distinct || len(q.DistinctOn) > 0 ||
		q.Limit != nil || q.Offset != nil || col >= q.Visible {
		return false
	}
	call := q.Win.Calls[0]
	ref, ok := q.Outputs[col].(*sql.ColumnRef)
	if !ok || ref.Index != q.Win.Base || call.Name != "row_number" {
		return false
	}
	for _, e := range append(append([]sql.Expr(nil), call.Partition...), OrderExprs(call.Order)...) {
		if HasVolatile(e) || HasSubquery(e) {
			return false
		}
	}
	return true
}

// OrderExprs are the expressions of a window ORDER BY.
func OrderExprs(o []sql.WindowOrder) []sql.Expr {
	out := make([]sql.Expr, len(o))
	for i, w := range o {
		out[i] = w.Expr
	}
	return out
}
