package sql

// Children lists the direct subexpressions of e.
func Children(e Expr) []Expr {
	switch x := e.(type) {
	case *UnaryOp:
		return []Expr{x.X}
	case *BinaryOp:
		return []Expr{x.L, x.R}
	case *Compare:
		return []Expr{x.L, x.R}
	case *Logic:
		return x.Args
	case *Not:
		return []Expr{x.X}
	case *IsNull:
		return []Expr{x.X}
	case *IsBool:
		return []Expr{x.X}
	case *Distinct:
		return []Expr{x.L, x.R}
	case *InList:
		return append([]Expr{x.X}, x.List...)
	case *Like:
		return []Expr{x.X, x.Pattern}
	case *Case:
		var out []Expr
		for _, w := range x.Whens {
			out = append(out, w.Cond, w.Result)
		}
		if x.Else != nil {
			out = append(out, x.Else)
		}
		return out
	case *Cast:
		return []Expr{x.X}
	case *Func:
		return x.Args
	case *AggCall:
		return x.Inputs()
	case *ArrayCompare:
		return []Expr{x.X, x.Arr}
	case *Subquery:
		// The subquery's own tree reads its own input; here only what it
		// takes from this level counts.
		out := append([]Expr(nil), x.Refs...)
		if x.Test != nil {
			out = append(out, x.Test)
		}
		return append(out, x.Row...)
	}
	return nil
}

// CollectColumns marks the input columns e reads.
func CollectColumns(e Expr, seen map[int]bool) {
	if c, ok := e.(*ColumnRef); ok {
		seen[c.Index] = true
		return
	}
	for _, ch := range Children(e) {
		if ch != nil {
			CollectColumns(ch, seen)
		}
	}
}

// RemapColumns returns e with every column reference renumbered through m;
// nodes are copied, never shared with the input tree.
func RemapColumns(e Expr, m map[int]int) Expr {
	return MapColumns(e, func(x *ColumnRef) Expr {
		c := *x
		c.Index = m[x.Index]
		return &c
	})
}

// MapColumns returns e with every column reference replaced by what f
// makes of it; nodes are copied, never shared with the input tree.
func MapColumns(e Expr, f func(*ColumnRef) Expr) Expr {
	return MapRefs(e, f, func(o *OuterRef) Expr { return o })
}

// MapRefs returns e with every column reference replaced by what col makes
// of it and every outer reference by what outer makes of it (a subquery's
// correlation turned into a join condition).
func MapRefs(e Expr, col func(*ColumnRef) Expr, outer func(*OuterRef) Expr) Expr {
	switch x := e.(type) {
	case *OuterRef:
		return outer(x)
	case *ColumnRef:
		return col(x)
	case *UnaryOp:
		c := *x
		c.X = MapRefs(x.X, col, outer)
		return &c
	case *BinaryOp:
		c := *x
		c.L, c.R = MapRefs(x.L, col, outer), MapRefs(x.R, col, outer)
		return &c
	case *Compare:
		c := *x
		c.L, c.R = MapRefs(x.L, col, outer), MapRefs(x.R, col, outer)
		return &c
	case *Logic:
		c := *x
		c.Args = mapAll(x.Args, col, outer)
		return &c
	case *Not:
		return &Not{X: MapRefs(x.X, col, outer)}
	case *IsNull:
		c := *x
		c.X = MapRefs(x.X, col, outer)
		return &c
	case *IsBool:
		c := *x
		c.X = MapRefs(x.X, col, outer)
		return &c
	case *Distinct:
		c := *x
		c.L, c.R = MapRefs(x.L, col, outer), MapRefs(x.R, col, outer)
		return &c
	case *InList:
		c := *x
		c.X = MapRefs(x.X, col, outer)
		c.List = mapAll(x.List, col, outer)
		return &c
	case *Like:
		c := *x
		c.X, c.Pattern = MapRefs(x.X, col, outer), MapRefs(x.Pattern, col, outer)
		return &c
	case *Case:
		c := *x
		c.Whens = make([]When, len(x.Whens))
		for i, w := range x.Whens {
			c.Whens[i] = When{Cond: MapRefs(w.Cond, col, outer), Result: MapRefs(w.Result, col, outer)}
		}
		if x.Else != nil {
			c.Else = MapRefs(x.Else, col, outer)
		}
		return &c
	case *Cast:
		c := *x
		c.X = MapRefs(x.X, col, outer)
		return &c
	case *Func:
		c := *x
		c.Args = mapAll(x.Args, col, outer)
		return &c
	case *AggCall:
		c := *x
		if x.Arg != nil {
			c.Arg = MapRefs(x.Arg, col, outer)
		}
		if x.Sep != nil {
			c.Sep = MapRefs(x.Sep, col, outer)
		}
		c.OrderBy = make([]AggOrder, len(x.OrderBy))
		for i, o := range x.OrderBy {
			c.OrderBy[i] = AggOrder{Key: MapRefs(o.Key, col, outer), Desc: o.Desc, NullsFirst: o.NullsFirst}
		}
		return &c
	case *ArrayCompare:
		c := *x
		c.X, c.Arr = MapRefs(x.X, col, outer), MapRefs(x.Arr, col, outer)
		return &c
	case *Subquery:
		c := *x
		c.Refs = mapAll(x.Refs, col, outer)
		if x.Test != nil {
			c.Test = MapRefs(x.Test, col, outer)
		}
		if x.Row != nil {
			c.Row = mapAll(x.Row, col, outer)
		}
		return &c
	}
	return e
}

func mapAll(es []Expr, col func(*ColumnRef) Expr, outer func(*OuterRef) Expr) []Expr {
	out := make([]Expr, len(es))
	for i, e := range es {
		out[i] = MapRefs(e, col, outer)
	}
	return out
}
