package plan

import "github.com/magmalake/magmalake/sql"

// A WHERE conjunct x NOT IN (SELECT y ...) (or x <> ALL (...)) becomes an
// anti join that knows NOT IN's NULLs (Join.NotIn): a hash join that
// spills, where the subquery held every row in memory and failed past
// work_mem. NOT IN is true only when no subquery row equals x and no
// comparison is NULL: a NULL y, or a NULL x against any row, makes it NULL,
// which WHERE drops as false; over no rows it is true whatever x is. A
// correlated subquery whose WHERE ties it to the enclosing row by
// equalities alone (s.k = o.k) is that test within each enclosing row's
// group of subquery rows. The forms this leaves alone (a row operand, other
// correlations, aggregates) stay subquery tests.

// NotInTest is the comparison of an anti join's NOT IN: L (over the left
// side's scope) against R (over the right side's), in Domain.
type NotInTest struct {
	L, R   sql.Expr
	Domain sql.Type
}

// notInJoin is the anti join conjunct c stands for over from when c is a
// NOT IN of a form it takes (see above).
func notInJoin(from Node, c sql.Expr) (*Join, bool) {
	sub, ok := notInSubquery(c)
	if !ok || sub.Row != nil || sub.Test == nil || readsOuter(sub.Test) || HasVolatile(sub.Test) {
		return nil, false
	}
	sp, ok := sub.Plan.(*Subquery)
	if !ok || len(sp.Query.Columns()) != 1 {
		return nil, false
	}
	if !sp.Correlated {
		cols := sp.Query.Columns()
		j := NewJoin(from, NewDerived(sp.Query, ""), JoinAnti)
		j.NotIn = &NotInTest{L: sub.Test, R: &sql.ColumnRef{Index: 0, Name: cols[0].Name, T: cols[0].Type}, Domain: sub.Domain}
		return j, true
	}
	q := sp.Query
	if q.Visible != 1 || len(q.Outputs) != 1 || q.DistinctOn != nil || q.Sets != nil {
		return nil, false
	}
	y := q.Outputs[0]
	if readsOuter(y) || HasVolatile(y) || HasSubquery(y) {
		return nil, false
	}
	j, ok := correlatedJoin(from, sub, JoinAnti, true)
	if !ok {
		return nil, false
	}
	j.NotIn = &NotInTest{L: sub.Test, R: y, Domain: sub.Domain}
	return j, true
}

// notInSubquery is c's subquery when c is NOT (x = ANY (subquery)) or
// x <> ALL (subquery).
func notInSubquery(c sql.Expr) (*sql.Subquery, bool) {
	if n, ok := c.(*sql.Not); ok {
		sub, ok := n.X.(*sql.Subquery)
		return sub, ok && sub.Kind == sql.SubAny && sub.Op == sql.OpEQ
	}
	sub, ok := c.(*sql.Subquery)
	return sub, ok && sub.Kind == sql.SubAll && sub.Op == sql.OpNE
}
