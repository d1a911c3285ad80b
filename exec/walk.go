package exec

import "github.com/magmalake/magmalake/sql"

// children lists the direct subexpressions of e.
func children(e sql.Expr) []sql.Expr {
	switch x := e.(type) {
	case *sql.UnaryOp:
		return []sql.Expr{x.X}
	case *sql.BinaryOp:
		return []sql.Expr{x.L, x.R}
	case *sql.Compare:
		return []sql.Expr{x.L, x.R}
	case *sql.Logic:
		return x.Args
	case *sql.Not:
		return []sql.Expr{x.X}
	case *sql.IsNull:
		return []sql.Expr{x.X}
	case *sql.IsBool:
		return []sql.Expr{x.X}
	case *sql.Distinct:
		return []sql.Expr{x.L, x.R}
	case *sql.InList:
		return append([]sql.Expr{x.X}, x.List...)
	case *sql.Like:
		return []sql.Expr{x.X, x.Pattern}
	case *sql.Case:
		var out []sql.Expr
		for _, w := range x.Whens {
			out = append(out, w.Cond, w.Result)
		}
		if x.Else != nil {
			out = append(out, x.Else)
		}
		return out
	case *sql.Cast:
		return []sql.Expr{x.X}
	case *sql.Func:
		return x.Args
	case *sql.AggCall:
		if x.Arg != nil {
			return []sql.Expr{x.Arg}
		}
	}
	return nil
}

// collectColumns marks the input columns e reads.
func collectColumns(e sql.Expr, seen map[int]bool) {
	if c, ok := e.(*sql.ColumnRef); ok {
		seen[c.Index] = true
		return
	}
	for _, ch := range children(e) {
		if ch != nil {
			collectColumns(ch, seen)
		}
	}
}

// remapColumns returns e with every column reference renumbered through m;
// nodes are copied, never shared with the input tree.
func remapColumns(e sql.Expr, m map[int]int) sql.Expr {
	switch x := e.(type) {
	case *sql.ColumnRef:
		c := *x
		c.Index = m[x.Index]
		return &c
	case *sql.UnaryOp:
		c := *x
		c.X = remapColumns(x.X, m)
		return &c
	case *sql.BinaryOp:
		c := *x
		c.L, c.R = remapColumns(x.L, m), remapColumns(x.R, m)
		return &c
	case *sql.Compare:
		c := *x
		c.L, c.R = remapColumns(x.L, m), remapColumns(x.R, m)
		return &c
	case *sql.Logic:
		c := *x
		c.Args = remapAll(x.Args, m)
		return &c
	case *sql.Not:
		return &sql.Not{X: remapColumns(x.X, m)}
	case *sql.IsNull:
		c := *x
		c.X = remapColumns(x.X, m)
		return &c
	case *sql.IsBool:
		c := *x
		c.X = remapColumns(x.X, m)
		return &c
	case *sql.Distinct:
		c := *x
		c.L, c.R = remapColumns(x.L, m), remapColumns(x.R, m)
		return &c
	case *sql.InList:
		c := *x
		c.X = remapColumns(x.X, m)
		c.List = remapAll(x.List, m)
		return &c
	case *sql.Like:
		c := *x
		c.X, c.Pattern = remapColumns(x.X, m), remapColumns(x.Pattern, m)
		return &c
	case *sql.Case:
		c := *x
		c.Whens = make([]sql.When, len(x.Whens))
		for i, w := range x.Whens {
			c.Whens[i] = sql.When{Cond: remapColumns(w.Cond, m), Result: remapColumns(w.Result, m)}
		}
		if x.Else != nil {
			c.Else = remapColumns(x.Else, m)
		}
		return &c
	case *sql.Cast:
		c := *x
		c.X = remapColumns(x.X, m)
		return &c
	case *sql.Func:
		c := *x
		c.Args = remapAll(x.Args, m)
		return &c
	case *sql.AggCall:
		c := *x
		if x.Arg != nil {
			c.Arg = remapColumns(x.Arg, m)
		}
		return &c
	}
	return e
}

func remapAll(es []sql.Expr, m map[int]int) []sql.Expr {
	out := make([]sql.Expr, len(es))
	for i, e := range es {
		out[i] = remapColumns(e, m)
	}
	return out
}
