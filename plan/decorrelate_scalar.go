package plan

import "github.com/magmalake/magmalake/sql"

// A WHERE conjunct x op (SELECT agg(...) FROM ... WHERE inner.k = outer.k
// ...) whose subquery has the keyed form (Keyed) runs the subquery once,
// grouped by its keys, and keeps every key's value in memory: TPC-H Q20's
// 900,000 (part, supplier) sums at SF 1 fail with 53200 under work_mem
// 64MB. As a LEFT JOIN of the query's FROM with that grouped query, the
// aggregate and the join spill past work_mem like any other, and the
// comparison reads the joined value; where no group has the key, it reads
// what the subquery gives over no rows (Keyed.Empty, run once: NULL for
// sum, 0 for count), as the subquery would.

// scalarJoin is from with c enforced that way, or false when c is no such
// comparison.
func (p *Builder) scalarJoin(from Node, c sql.Expr) (Node, bool) {
	cmp, ok := c.(*sql.Compare)
	if !ok {
		return nil, false
	}
	x, sub, flipped := cmp.L, asKeyedScalar(cmp.R), false
	if sub == nil {
		x, sub, flipped = cmp.R, asKeyedScalar(cmp.L), true
	}
	if sub == nil || HasSubquery(x) || HasVolatile(x) {
		return nil, false
	}
	k := sub.Plan.(*Subquery).Keyed
	nl := len(from.Scope().Columns)
	values := len(k.Build.Outputs) - len(k.Slots)
	on := make([]sql.Expr, len(k.Slots))
	for i, slot := range k.Slots {
		key := &sql.ColumnRef{Index: nl + values + i, Name: "__key", T: k.KeyTs[i]}
		on[i] = &sql.Compare{Op: sql.OpEQ, L: sub.Refs[slot], R: key, Domain: k.Domains[i]}
	}
	j := NewJoin(from, NewDerived(k.Build, ""), JoinLeft)
	j.SetCondition(AndOf(on))
	empty := &Subquery{Query: k.Empty}
	p.subs = append(p.subs, empty)
	matched := &sql.IsNull{X: &sql.ColumnRef{Index: nl + values, Name: "__key", T: k.KeyTs[0]}, Not: true}
	value := &sql.Case{
		Whens: []sql.When{{Cond: matched, Result: &sql.ColumnRef{Index: nl, Name: "__value", T: sub.T}}},
		Else:  &sql.Subquery{Kind: sql.SubScalar, Plan: empty, T: sub.T, Text: sub.Text},
		T:     sub.T,
	}
	test := &sql.Compare{Op: cmp.Op, L: x, R: value, Domain: cmp.Domain}
	if flipped {
		test = &sql.Compare{Op: cmp.Op, L: value, R: x, Domain: cmp.Domain}
	}
	return NewPick(withFilter(j, test), identity(nl)), true
}

// asKeyedScalar is e when it is a scalar subquery in the keyed form that
// aggregates (one value per key, never an error for more rows), else nil.
func asKeyedScalar(e sql.Expr) *sql.Subquery {
	sub, ok := e.(*sql.Subquery)
	if !ok || sub.Kind != sql.SubScalar || !refsPlain(sub.Refs) {
		return nil
	}
	sp, ok := sub.Plan.(*Subquery)
	if !ok || sp.Keyed == nil || sp.Keyed.Empty == nil || len(sp.Keyed.Slots) == 0 {
		return nil
	}
	if len(sp.Keyed.Build.Outputs)-len(sp.Keyed.Slots) != 1 {
		return nil
	}
	return sub
}
