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
	switch x := e.(type) {
	case *ColumnRef:
		return f(x)
	case *UnaryOp:
		c := *x
		c.X = MapColumns(x.X, f)
		return &c
	case *BinaryOp:
		c := *x
		c.L, c.R = MapColumns(x.L, f), MapColumns(x.R, f)
		return &c
	case *Compare:
		c := *x
		c.L, c.R = MapColumns(x.L, f), MapColumns(x.R, f)
		return &c
	case *Logic:
		c := *x
		c.Args = mapAll(x.Args, f)
		return &c
	case *Not:
		return &Not{X: MapColumns(x.X, f)}
	case *IsNull:
		c := *x
		c.X = MapColumns(x.X, f)
		return &c
	case *IsBool:
		c := *x
		c.X = MapColumns(x.X, f)
		return &c
	case *Distinct:
		c := *x
		c.L, c.R = MapColumns(x.L, f), MapColumns(x.R, f)
		return &c
	case *InList:
		c := *x
		c.X = MapColumns(x.X, f)
		c.List = mapAll(x.List, f)
		return &c
	case *Like:
		c := *x
		c.X, c.Pattern = MapColumns(x.X, f), MapColumns(x.Pattern, f)
		return &c
	case *Case:
		c := *x
		c.Whens = make([]When, len(x.Whens))
		for i, w := range x.Whens {
			c.Whens[i] = When{Cond: MapColumns(w.Cond, f), Result: MapColumns(w.Result, f)}
		}
		if x.Else != nil {
			c.Else = MapColumns(x.Else, f)
		}
		return &c
	case *Cast:
		c := *x
		c.X = MapColumns(x.X, f)
		return &c
	case *Func:
		c := *x
		c.Args = mapAll(x.Args, f)
		return &c
	case *AggCall:
		c := *x
		if x.Arg != nil {
			c.Arg = MapColumns(x.Arg, f)
		}
		if x.Sep != nil {
			c.Sep = MapColumns(x.Sep, f)
		}
		c.OrderBy = make([]AggOrder, len(x.OrderBy))
		for i, o := range x.OrderBy {
			c.OrderBy[i] = AggOrder{Key: MapColumns(o.Key, f), Desc: o.Desc, NullsFirst: o.NullsFirst}
		}
		return &c
	case *ArrayCompare:
		c := *x
		c.X, c.Arr = MapColumns(x.X, f), MapColumns(x.Arr, f)
		return &c
	case *Subquery:
		c := *x
		c.Refs = mapAll(x.Refs, f)
		if x.Test != nil {
			c.Test = MapColumns(x.Test, f)
		}
		if x.Row != nil {
			c.Row = mapAll(x.Row, f)
		}
		return &c
	}
	return e
}

func mapAll(es []Expr, f func(*ColumnRef) Expr) []Expr {
	out := make([]Expr, len(es))
	for i, e := range es {
		out[i] = MapColumns(e, f)
	}
	return out
}
