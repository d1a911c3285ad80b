package sql

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/test_driver"
)

// AggContext describes a grouped query. The executor groups the input by
// GroupBy, computes Calls per group, and evaluates the expressions bound by
// BindAggregate over the post-aggregation batch laid out as Scope(): the
// GroupBy values first, then one column per AggCall.
type AggContext struct {
	GroupBy []Expr // bound over the input scope
	Calls   []*AggCall
}

// Scope is the post-aggregation batch layout.
func (a *AggContext) Scope() *Scope {
	s := &Scope{}
	for _, g := range a.GroupBy {
		s.Columns = append(s.Columns, ScopeColumn{Name: g.String(), T: g.Type()})
	}
	for _, c := range a.Calls {
		s.Columns = append(s.Columns, ScopeColumn{Name: c.String(), T: c.T})
	}
	return s
}

// BindAggregate binds a select-list, HAVING or ORDER BY expression of a grouped
// query: aggregate calls are bound over input, collected into agg.Calls
// (deduplicated) and replaced by ColumnRefs into the post-aggregation batch;
// subexpressions equal to a GROUP BY expression become ColumnRefs to it; any
// other column reference is 42803.
func BindAggregate(node ast.ExprNode, input *Scope, agg *AggContext, params *Params) (Expr, error) {
	if params == nil {
		params = &Params{}
	}
	b := &binder{scope: input, params: params, agg: agg}
	e, err := b.bind(node)
	if err != nil {
		return nil, err
	}
	return b.finish(e)
}

// BindAggregateCondition is BindCondition for HAVING: bound as
// BindAggregate, with an untyped operand read as boolean.
func BindAggregateCondition(node ast.ExprNode, input *Scope, agg *AggContext, params *Params, clause string) (Expr, error) {
	if params == nil {
		params = &Params{}
	}
	b := &binder{scope: input, params: params, agg: agg}
	e, err := b.bind(node)
	if err != nil {
		return nil, err
	}
	return b.requireBool(e, clause)
}

// matchGroup returns a reference to the GROUP BY expression node equals.
func (b *binder) matchGroup(node ast.ExprNode) Expr {
	if len(b.agg.GroupBy) == 0 {
		return nil
	}
	switch node.(type) {
	case *test_driver.ValueExpr, *ast.AggregateFuncExpr:
		return nil
	}
	plain := &binder{scope: b.scope, params: b.params}
	e, err := plain.bind(node)
	if err != nil {
		return nil
	}
	s := e.String()
	for i, g := range b.agg.GroupBy {
		if g.String() == s {
			return &ColumnRef{Index: i, Name: s, T: g.Type()}
		}
	}
	return nil
}

func (b *binder) ungroupedColumn(cn *ast.ColumnName) error {
	name := cn.Name.O
	if cn.Table.O != "" {
		name = cn.Table.O + "." + name
	}
	return Errorf(CodeGroupingError, "column %q must appear in the GROUP BY clause or be used in an aggregate function", name)
}

func (b *binder) bindAggregate(n *ast.AggregateFuncExpr) (Expr, error) {
	if b.agg == nil {
		return nil, Errorf(CodeGroupingError, "aggregate functions are not allowed here")
	}
	if b.inAgg {
		return nil, Errorf(CodeGroupingError, "aggregate function calls cannot be nested")
	}
	inner := &binder{scope: b.scope, params: b.params, agg: b.agg, inAgg: true}
	call := &AggCall{Name: n.F, Distinct: n.Distinct}
	if len(n.Args) != 1 {
		return nil, Errorf(CodeUndefinedFunction, "function %s with %d arguments does not exist", n.F, len(n.Args))
	}
	arg, err := inner.bind(n.Args[0])
	if err != nil {
		return nil, err
	}
	if isUnknown(arg) {
		if arg, err = inner.coerceUnknown(arg, Text); err != nil {
			return nil, err
		}
	}
	// count(*) arrives as count(1); any non-null constant counts rows alike.
	if c, ok := arg.(*Const); ok && n.F == "count" && c.Value != nil && !n.Distinct {
		arg = nil
	}
	call.Arg = arg
	if call.T, err = aggType(n.F, arg); err != nil {
		return nil, err
	}
	return b.aggRef(call), nil
}

// aggRef registers call (once) and returns its post-aggregation column.
func (b *binder) aggRef(call *AggCall) Expr {
	s := call.String()
	for i, c := range b.agg.Calls {
		if c.String() == s {
			return &ColumnRef{Index: len(b.agg.GroupBy) + i, Name: s, T: c.T}
		}
	}
	b.agg.Calls = append(b.agg.Calls, call)
	return &ColumnRef{Index: len(b.agg.GroupBy) + len(b.agg.Calls) - 1, Name: s, T: call.T}
}

// aggType is PostgreSQL's result type of the aggregate over arg.
func aggType(name string, arg Expr) (Type, error) {
	if name == "count" {
		return Int64, nil
	}
	t := arg.Type()
	switch name {
	case "min", "max":
		if t.Kind == KindJSON {
			break
		}
		return t, nil
	case "sum":
		switch t.Kind {
		case KindInt16, KindInt32:
			return Int64, nil
		case KindInt64:
			return Numeric(0, 0), nil
		case KindNumeric:
			return Numeric(0, t.Scale), nil
		case KindFloat32, KindFloat64:
			return t, nil
		}
	case "avg":
		switch t.Kind {
		case KindInt16, KindInt32, KindInt64, KindNumeric:
			return Numeric(0, max(16, t.Scale)), nil
		case KindFloat32, KindFloat64:
			return Float64, nil
		}
	default:
		return Unknown, Errorf(CodeUndefinedFunction, "function %s does not exist", name)
	}
	return Unknown, Errorf(CodeUndefinedFunction, "function %s(%s) does not exist", name, t)
}
