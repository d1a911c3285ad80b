package parse

import (
	"fmt"
	"strings"
)

// Shape renders an expression tree as an S-expression built only from the
// tree's own node fields, so tests write expectations independently of the
// normaliser: calls as name(args), operators as (op a b), columns by
// their original-case names, literals as Go values.
func Shape(e Expr) string {
	switch n := e.(type) {
	case *FuncCall:
		return n.Name + "(" + shapes(n.Args) + ")"
	case *AggregateCall:
		return "agg:" + n.Name + "(" + shapes(n.Args) + ")"
	case *Binary:
		return "(" + n.Op.String() + " " + Shape(n.L) + " " + Shape(n.R) + ")"
	case *Unary:
		return "(" + n.Op.String() + " " + Shape(n.X) + ")"
	case *Paren:
		return "[" + Shape(n.X) + "]"
	case *ColumnRef:
		parts := []string{}
		for _, s := range []string{n.Schema, n.Table, n.Name} {
			if s != "" {
				parts = append(parts, s)
			}
		}
		return "col:" + strings.Join(parts, ".")
	case *IsTruth:
		return fmt.Sprintf("(is-%s not=%v %s)", map[bool]string{true: "true", false: "false"}[n.True], n.Not, Shape(n.X))
	case *IsNull:
		return fmt.Sprintf("(isnull not=%v %s)", n.Not, Shape(n.X))
	case *Like:
		return fmt.Sprintf("(like not=%v %s %s esc=%c)", n.Not, Shape(n.X), Shape(n.Pattern), n.Escape)
	case *In:
		return fmt.Sprintf("(in not=%v %s %s)", n.Not, Shape(n.X), shapes(n.List))
	case *Between:
		return fmt.Sprintf("(between not=%v %s %s %s)", n.Not, Shape(n.X), Shape(n.Lo), Shape(n.Hi))
	case *Position:
		return fmt.Sprintf("pos:%d", n.N)
	case *Const:
		return fmt.Sprintf("%#v", n.Value)
	case nil:
		return "nil"
	}
	return fmt.Sprintf("%T", e)
}

func shapes(es []Expr) string {
	s := make([]string, len(es))
	for i, e := range es {
		s[i] = Shape(e)
	}
	return strings.Join(s, ", ")
}
