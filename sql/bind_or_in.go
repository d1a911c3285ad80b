package sql

// mergeEqualities turns the OR arguments col = const (and col IN (consts))
// on one column into one col IN (...), which the evaluator answers with a
// hash set: a generated "id = 1 OR id = 2 OR ..." of 40,000 terms then costs
// one lookup per row instead of 40,000 comparisons. The result is the same
// in three-valued logic: TRUE on a match, else NULL if any side was NULL.
// The first such argument's position keeps the merged list.
func mergeEqualities(args []Expr) []Expr {
	type key struct {
		col int
		dom Type
	}
	lists := map[key]int{} // position in out of the column's list
	merged := map[int]bool{}
	out := args[:0:0]
	for _, a := range args {
		col, items, doms, ok := equalityItems(a)
		if !ok {
			out = append(out, a)
			continue
		}
		k := key{col.Index, doms[0]}
		pos, seen := lists[k]
		if !seen {
			lists[k] = len(out)
			out = append(out, a) // kept as written unless another joins it
			continue
		}
		in, ok := out[pos].(*InList)
		if !merged[pos] || !ok {
			_, first, firstDoms, _ := equalityItems(out[pos])
			in = &InList{X: col, List: append([]Expr(nil), first...), Domains: append([]Type(nil), firstDoms...)}
			out[pos], merged[pos] = in, true
		}
		in.List = append(in.List, items...)
		in.Domains = append(in.Domains, doms...)
	}
	return out
}

// equalityItems reads col = const, const = col, or col IN (consts) whose
// items share one comparison domain.
func equalityItems(e Expr) (*ColumnRef, []Expr, []Type, bool) {
	switch x := e.(type) {
	case *Compare:
		if x.Op != OpEQ {
			return nil, nil, nil, false
		}
		if c, ok := x.L.(*ColumnRef); ok && isConst(x.R) {
			return c, []Expr{x.R}, []Type{x.Domain}, true
		}
		if c, ok := x.R.(*ColumnRef); ok && isConst(x.L) {
			return c, []Expr{x.L}, []Type{x.Domain}, true
		}
	case *InList:
		c, ok := x.X.(*ColumnRef)
		if !ok || x.Not || len(x.List) == 0 {
			return nil, nil, nil, false
		}
		for k, it := range x.List {
			if !isConst(it) || x.Domains[k] != x.Domains[0] {
				return nil, nil, nil, false
			}
		}
		return c, x.List, x.Domains, true
	}
	return nil, nil, nil, false
}

func isConst(e Expr) bool {
	switch e.(type) {
	case *Const, *Param:
		return true
	}
	return false
}
