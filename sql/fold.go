package sql

import "context"

// fold evaluates an operator whose operands are all constants once, at bind
// time, as PostgreSQL's planner does: WHERE id = 0+0+...+0 then compares
// with one constant per row instead of computing a thousand-term sum (and
// keeping its intermediates) for every batch. Functions are not folded
// (some are volatile: random(), clock_timestamp()), nor are parameters. An
// operator whose folding fails (1/0) is left as it is, to fail, or not, when
// and where the executor evaluates it: CASE WHEN false THEN 1/0 END is 1.
// Casts of text among the operands read it in the style in.
func fold(e Expr, in InputStyle) Expr {
	if !foldable(e) {
		return e
	}
	ev := newEvaluator(WithInputStyle(context.Background(), in), nil, nil)
	vals, err := ev.eval(e, []int{0})
	if err != nil {
		return e
	}
	return &Const{Value: vals[0], T: e.Type()}
}

// foldable: an operator node with only constant operands.
func foldable(e Expr) bool {
	switch x := e.(type) {
	case *UnaryOp:
		return constant(x.X)
	case *BinaryOp:
		return constant(x.L) && constant(x.R)
	case *Compare:
		return constant(x.L) && constant(x.R)
	case *Distinct:
		return constant(x.L) && constant(x.R)
	case *Not:
		return constant(x.X)
	case *IsNull:
		return constant(x.X)
	case *IsBool:
		return constant(x.X)
	case *Logic:
		for _, a := range x.Args {
			if !constant(a) {
				return false
			}
		}
		return true
	}
	return false
}

func constant(e Expr) bool {
	c, ok := e.(*Const)
	return ok && c.T.Kind != KindUnknown
}
