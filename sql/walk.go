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
	switch x := e.(type) {
	case *ColumnRef:
		c := *x
		c.Index = m[x.Index]
		return &c
	case *UnaryOp:
		c := *x
		c.X = RemapColumns(x.X, m)
		return &c
	case *BinaryOp:
		c := *x
		c.L, c.R = RemapColumns(x.L, m), RemapColumns(x.R, m)
		return &c
	case *Compare:
		c := *x
		c.L, c.R = RemapColumns(x.L, m), RemapColumns(x.R, m)
		return &c
	case *Logic:
		c := *x
		c.Args = remapAll(x.Args, m)
		return &c
	case *Not:
		return &Not{X: RemapColumns(x.X, m)}
	case *IsNull:
		c := *x
		c.X = RemapColumns(x.X, m)
		return &c
	case *IsBool:
		c := *x
		c.X = RemapColumns(x.X, m)
		return &c
	case *Distinct:
		c := *x
		c.L, c.R = RemapColumns(x.L, m), RemapColumns(x.R, m)
		return &c
	case *InList:
		c := *x
		c.X = RemapColumns(x.X, m)
		c.List = remapAll(x.List, m)
		return &c
	case *Like:
		c := *x
		c.X, c.Pattern = RemapColumns(x.X, m), RemapColumns(x.Pattern, m)
		return &c
	case *Case:
		c := *x
		c.Whens = make([]When, len(x.Whens))
		for i, w := range x.Whens {
			c.Whens[i] = When{Cond: RemapColumns(w.Cond, m), Result: RemapColumns(w.Result, m)}
		}
		if x.Else != nil {
			c.Else = RemapColumns(x.Else, m)
		}
		return &c
	case *Cast:
		c := *x
		c.X = RemapColumns(x.X, m)
		return &c
	case *Func:
		c := *x
		c.Args = remapAll(x.Args, m)
		return &c
	case *AggCall:
		c := *x
		if x.Arg != nil {
			c.Arg = RemapColumns(x.Arg, m)
		}
		if x.Sep != nil {
			c.Sep = RemapColumns(x.Sep, m)
		}
		c.OrderBy = make([]AggOrder, len(x.OrderBy))
		for i, o := range x.OrderBy {
			c.OrderBy[i] = AggOrder{Key: RemapColumns(o.Key, m), Desc: o.Desc, NullsFirst: o.NullsFirst}
		}
		return &c
	case *ArrayCompare:
		c := *x
		c.X, c.Arr = RemapColumns(x.X, m), RemapColumns(x.Arr, m)
		return &c
	case *Subquery:
		c := *x
		c.Refs = remapAll(x.Refs, m)
		if x.Test != nil {
			c.Test = RemapColumns(x.Test, m)
		}
		if x.Row != nil {
			c.Row = remapAll(x.Row, m)
		}
		return &c
	}
	return e
}

func remapAll(es []Expr, m map[int]int) []Expr {
	out := make([]Expr, len(es))
	for i, e := range es {
		out[i] = RemapColumns(e, m)
	}
	return out
}
