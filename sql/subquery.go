package sql

import (
	"context"
	"fmt"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql/parse"
)

// SubqueryKind is how an expression uses a subquery's rows.
type SubqueryKind uint8

const (
	SubScalar SubqueryKind = iota // (SELECT x ...): its one value, NULL for no row
	SubExists                     // EXISTS (SELECT ...)
	SubAny                        // x op ANY (SELECT ...), x IN (SELECT ...)
	SubAll                        // x op ALL (SELECT ...)
	SubArray                      // ARRAY(SELECT x ...): its values as an array
)

// SubPlan is a subquery planned by the query engine; sql evaluates the
// expressions around it and leaves the relational work to the engine.
type SubPlan interface {
	// Columns are the types of the subquery's output columns.
	Columns() []Type
	// Run returns the subquery's rows (datums of Columns) for one row of
	// the enclosing query: outer holds that row's values of the subquery's
	// outer references (Subquery.Refs, in order).
	Run(ctx context.Context, params []any, outer []any) ([][]any, error)
}

// SubqueryPlanner plans the subqueries an expression holds; the query
// engine provides it through Params.
type SubqueryPlanner interface {
	PlanSubquery(q *Query, outer *Outer) (SubPlan, error)
}

// Outer is what a subquery sees of the query around it: names it does not
// define resolve there, each becoming an OuterRef whose value the enclosing
// query supplies per row.
type Outer struct {
	resolve func(Syntax) (Expr, error)
	// Refs are the enclosing query's expressions the subquery reads, in
	// OuterRef slot order.
	Refs []Expr
}

// ref binds an outer name to its slot, reusing a slot for the same expression.
func (o *Outer) ref(cn *parse.ColumnRef) (Expr, error) {
	ref := *cn // a node of its own, as the outer query binds it
	e, err := o.resolve(syntaxOf(&ref))
	if err != nil {
		return nil, err
	}
	for k, r := range o.Refs {
		if r.String() == e.String() && r.Type() == e.Type() {
			return &OuterRef{Slot: k, T: e.Type(), Name: e.String()}, nil
		}
	}
	o.Refs = append(o.Refs, e)
	return &OuterRef{Slot: len(o.Refs) - 1, T: e.Type(), Name: e.String()}, nil
}

// Subquery is a subquery used as a value, a test or a set.
type Subquery struct {
	Kind   SubqueryKind
	Op     CmpOp // SubAny and SubAll
	Test   Expr  // the left operand of SubAny and SubAll, converted for Domain
	Domain Type  // the type Op compares in
	// Row and RowDomains are a row operand instead, (a, b) IN (SELECT x,
	// y ...): one element and comparison type per subquery column.
	Row        []Expr
	RowDomains []Type
	Plan       SubPlan
	Refs       []Expr // the outer references' values, evaluated in the enclosing query
	T          Type
	Text       string // SQL text, for EXPLAIN and errors
}

func (s *Subquery) Type() Type     { return s.T }
func (s *Subquery) String() string { return s.Text }

// OuterRef reads the value of an enclosing query's expression inside a
// correlated subquery.
type OuterRef struct {
	Slot int
	T    Type
	Name string
}

func (o *OuterRef) Type() Type     { return o.T }
func (o *OuterRef) String() string { return o.Name }

type outerRowKey struct{}

// WithOuterRow gives a subquery's evaluation the values of its outer
// references for the enclosing row it runs for.
func WithOuterRow(ctx context.Context, vals []any) context.Context {
	return context.WithValue(ctx, outerRowKey{}, vals)
}

func (ev *evaluator) outerRef(x *OuterRef) (any, error) {
	vals, _ := ev.ctx.Value(outerRowKey{}).([]any)
	if x.Slot >= len(vals) {
		return nil, fmt.Errorf("evaluate %s: no value of the enclosing query", x.Name)
	}
	return vals[x.Slot], nil
}

// bindSubqueryNode binds the subquery forms of an expression; ok is false
// for other nodes.
func (b compositeBinder) bindSubqueryNode(node parse.Expr) (Expr, bool, error) {
	switch n := node.(type) {
	case *parse.Subquery:
		e, err := b.bindSubquery(SubScalar, n, nil, OpEQ)
		return e, true, err
	case *parse.Exists:
		sq, ok := n.Sel.(*parse.Subquery)
		if !ok {
			return nil, true, pgerr.Errorf(pgerr.SyntaxError, "EXISTS needs a subquery")
		}
		e, err := b.bindSubquery(SubExists, sq, nil, OpEQ)
		if err == nil && n.Not {
			e = &Not{X: e}
		}
		return e, true, err
	case *parse.CompareSubquery:
		sq, ok := n.R.(*parse.Subquery)
		if !ok {
			return nil, true, pgerr.Errorf(pgerr.FeatureNotSupported, "ANY/ALL over an array is not supported here")
		}
		kind := SubAny
		if n.All {
			kind = SubAll
		}
		e, err := b.bindSubquery(kind, sq, n.L, cmpOpOf(n.Op))
		return e, true, err
	case *parse.In:
		if n.Sel == nil {
			return nil, false, nil
		}
		sq, ok := n.Sel.(*parse.Subquery)
		if !ok {
			return nil, true, pgerr.Errorf(pgerr.SyntaxError, "IN needs a subquery or a list")
		}
		e, err := b.bindSubquery(SubAny, sq, n.X, OpEQ)
		if err == nil && n.Not {
			e = &Not{X: e}
		}
		return e, true, err
	}
	return nil, false, nil
}

func (b compositeBinder) bindSubquery(kind SubqueryKind, sq *parse.Subquery, left parse.Expr, op CmpOp) (Expr, error) {
	if b.params.Subqueries == nil {
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "subqueries are not supported here")
	}
	row := rowOf(left)
	outer := &Outer{resolve: func(cn Syntax) (Expr, error) { return b.bind(nodeOf(cn)) }}
	plan, err := b.params.Subqueries.PlanSubquery(&Query{n: sq.Query, exists: kind == SubExists}, outer)
	if err != nil {
		return nil, err
	}
	cols := plan.Columns()
	if row != nil {
		return b.bindRowSubquery(kind, op, row, plan, outer, cols)
	}
	if kind != SubExists && len(cols) != 1 {
		if len(cols) > 1 {
			return nil, pgerr.Errorf(pgerr.SyntaxError, "subquery has too many columns")
		}
		return nil, pgerr.Errorf(pgerr.SyntaxError, "subquery must return only one column")
	}
	s := &Subquery{Kind: kind, Op: op, Plan: plan, Refs: outer.Refs, T: Bool, Text: subqueryText(kind, op)}
	switch kind {
	case SubScalar:
		s.T = cols[0]
	case SubArray:
		if cols[0].IsArray() {
			return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "ARRAY() of an array subquery (a multidimensional array) is not supported")
		}
		s.T = ArrayOf(cols[0])
		s.Text = "ARRAY(subquery)"
	case SubAny, SubAll:
		x, err := b.bind(left)
		if err != nil {
			return nil, err
		}
		c, err := b.ops().bindCompare(op, x, &subqueryValue{T: cols[0]})
		if err != nil {
			return nil, err
		}
		cmp := c.(*Compare)
		s.Test, s.Domain = cmp.L, cmp.Domain
	}
	return s, nil
}

// bindRowSubquery binds (a, b) IN (SELECT x, y ...) and (a, b) op
// ANY|ALL (...): each element is compared with its column as a op x
// would be.
func (b compositeBinder) bindRowSubquery(kind SubqueryKind, op CmpOp, row []parse.Expr, plan SubPlan, outer *Outer, cols []Type) (Expr, error) {
	if len(cols) != len(row) {
		if len(cols) > len(row) {
			return nil, pgerr.Errorf(pgerr.SyntaxError, "subquery has too many columns")
		}
		return nil, pgerr.Errorf(pgerr.SyntaxError, "subquery has too few columns")
	}
	s := &Subquery{Kind: kind, Op: op, Plan: plan, T: Bool, Text: subqueryText(kind, op)}
	for k, n := range row {
		x, err := b.bind(n)
		if err != nil {
			return nil, err
		}
		c, err := b.ops().bindCompare(op, x, &subqueryValue{T: cols[k]})
		if err != nil {
			return nil, err
		}
		cmp := c.(*Compare)
		s.Row, s.RowDomains = append(s.Row, cmp.L), append(s.RowDomains, cmp.Domain)
	}
	s.Refs = outer.Refs
	return s, nil
}

// subqueryValue stands for the subquery's column while its comparison is bound.
type subqueryValue struct{ T Type }

func (v *subqueryValue) Type() Type     { return v.T }
func (v *subqueryValue) String() string { return "(subquery)" }

func subqueryText(kind SubqueryKind, op CmpOp) string {
	switch kind {
	case SubExists:
		return "EXISTS (subquery)"
	case SubAny:
		return fmt.Sprintf("%s ANY (subquery)", op)
	case SubAll:
		return fmt.Sprintf("%s ALL (subquery)", op)
	}
	return "(subquery)"
}

// NewOuter is the view of a query around a LATERAL item: resolve binds a
// name the item does not define there.
func NewOuter(resolve func(Syntax) (Expr, error)) *Outer {
	return &Outer{resolve: resolve}
}
