package plan

import "github.com/magmalake/magmalake/sql"

// An OR of ANDs often repeats a join key or a filter in every branch
// (TPC-H Q19: p_partkey = l_partkey in each of three branches). Taken out,
// the key joins by hash instead of comparing every pair of rows, and the
// filters reach the scans. Distribution holds in SQL's three-valued
// logic, so (A AND B) OR (A AND C) is A AND (B OR C) for every row.

// factorOr is c as conjuncts: the conjuncts common to every branch of an
// OR, then the OR of what each branch leaves (none when a branch leaves
// nothing: that branch is TRUE whenever the common ones are). c alone
// when it is no such OR.
func factorOr(c sql.Expr) []sql.Expr {
	branches := disjuncts(c)
	if len(branches) < 2 {
		return []sql.Expr{c}
	}
	lists := make([][]sql.Expr, len(branches))
	for i, b := range branches {
		lists[i] = Conjuncts(b)
	}
	var common []sql.Expr
	for _, x := range lists[0] {
		if HasVolatile(x) || HasSubquery(x) {
			continue
		}
		inAll := true
		for _, l := range lists[1:] {
			inAll = inAll && indexOf(l, x) >= 0
		}
		if inAll && indexOf(common, x) < 0 {
			common = append(common, x)
		}
	}
	if len(common) == 0 {
		return []sql.Expr{c}
	}
	rest := make([]sql.Expr, 0, len(branches))
	for _, l := range lists {
		var left []sql.Expr
		for _, x := range l {
			if indexOf(common, x) < 0 {
				left = append(left, x)
			}
		}
		if len(left) == 0 {
			return common
		}
		rest = append(rest, AndOf(left))
	}
	return append(common, &sql.Logic{Args: rest})
}

// factored are cond's conjuncts, each OR among them factored.
func factored(cond sql.Expr) []sql.Expr {
	var out []sql.Expr
	for _, c := range Conjuncts(cond) {
		out = append(out, factorOr(c)...)
	}
	return out
}

// disjuncts are the branches of an OR (nested ORs flattened); c alone
// when it is no OR.
func disjuncts(c sql.Expr) []sql.Expr {
	l, ok := c.(*sql.Logic)
	if !ok || l.And {
		return []sql.Expr{c}
	}
	var out []sql.Expr
	for _, a := range l.Args {
		out = append(out, disjuncts(a)...)
	}
	return out
}

// indexOf finds x among es by its text and type.
func indexOf(es []sql.Expr, x sql.Expr) int {
	s := x.String()
	for i, e := range es {
		if e.String() == s && e.Type() == x.Type() {
			return i
		}
	}
	return -1
}

// orRestriction is what an OR of ANDs implies about the rows of one
// relation: the OR, over the branches, of each branch's conjuncts that
// read only columns within (and read some); nil when a branch has none.
// A join with the OR can filter that relation by it first, as
// PostgreSQL's planner does with such join clauses.
func orRestriction(c sql.Expr, within func(cols map[int]bool) bool) sql.Expr {
	branches := disjuncts(c)
	if len(branches) < 2 {
		return nil
	}
	parts := make([]sql.Expr, 0, len(branches))
	for _, b := range branches {
		var keep []sql.Expr
		for _, x := range Conjuncts(b) {
			cols := map[int]bool{}
			sql.CollectColumns(x, cols)
			if len(cols) > 0 && within(cols) && !HasVolatile(x) && !HasSubquery(x) {
				keep = append(keep, x)
			}
		}
		if len(keep) == 0 {
			return nil
		}
		parts = append(parts, AndOf(keep))
	}
	return &sql.Logic{Args: parts}
}
