package sql

import (
	"strings"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql/parse"
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
func BindAggregate(s Syntax, input *Scope, agg *AggContext, params *Params) (Expr, error) {
	return bindTop(nodeOf(s), input, params, agg, (*binder).finish)
}

// BindAggregateCondition is BindCondition for HAVING: bound as
// BindAggregate, with an untyped operand read as boolean.
func BindAggregateCondition(s Syntax, input *Scope, agg *AggContext, params *Params, clause string) (Expr, error) {
	return bindTop(nodeOf(s), input, params, agg, func(b *binder, e Expr) (Expr, error) {
		e, err := b.requireBool(e, clause)
		if err != nil {
			return nil, err
		}
		return gated(e, b.params.Input), nil
	})
}

// matchGroup returns a reference to the GROUP BY expression node equals.
func (b aggBinder) matchGroup(node parse.Expr) Expr {
	if len(b.agg.GroupBy) == 0 {
		return nil
	}
	switch node.(type) {
	case *parse.Const:
		return nil
	}
	if isAggregateCall(node) {
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

func (b aggBinder) ungroupedColumn(cn *parse.ColumnRef) error {
	name := cn.Name
	if cn.Table != "" {
		name = cn.Table + "." + name
	}
	return pgerr.Errorf(pgerr.GroupingError, "column %q must appear in the GROUP BY clause or be used in an aggregate function", name)
}

// callAggregate is the aggregate a plain call names, and whether the
// normaliser marked it DISTINCT.
func callAggregate(name string) (agg string, distinct, ok bool) {
	if rest, marked := strings.CutPrefix(name, parse.DistinctPrefix); marked {
		name, distinct = rest, true
	}
	f := functions[name]
	switch {
	case f == nil || f.Kind != AggregateFunc:
		return "", distinct, false
	case f.Alias != "":
		return f.Alias, distinct, true
	}
	return name, distinct, true // the grammar's own ones when a marker argument made them plain calls
}

// isAggregateCall reports whether n is an aggregate function call.
func isAggregateCall(n parse.Node) bool {
	switch x := n.(type) {
	case *parse.AggregateCall:
		return true
	case *parse.FuncCall:
		_, _, ok := callAggregate(x.Name)
		return ok
	}
	return false
}

func (b aggBinder) bindAggregate(n *parse.AggregateCall) (Expr, error) {
	return b.bindAggregateCall(n.Name, n.Args, n.Distinct)
}

func (b aggBinder) bindAggregateCall(name string, argNodes []parse.Expr, distinct bool) (Expr, error) {
	if b.agg == nil {
		return nil, pgerr.Errorf(pgerr.GroupingError, "aggregate functions are not allowed here")
	}
	if b.inAgg {
		return nil, pgerr.Errorf(pgerr.GroupingError, "aggregate function calls cannot be nested")
	}
	inner := aggBinder{&binder{scope: b.scope, params: b.params, agg: b.agg, inAgg: true}}
	call := &AggCall{Name: name, Distinct: distinct}
	argNodes, order, filter := aggMarkers(argNodes)
	if order != nil {
		var err error
		if call.OrderBy, err = inner.bindAggOrder(order.Args); err != nil {
			return nil, err
		}
	}
	if filter != nil {
		var err error
		if call.Filter, err = inner.bindAggFilter(filter.Args); err != nil {
			return nil, err
		}
	}
	rule := aggregateRule(name)
	want := 1
	if rule.delimiter {
		want = 2
	}
	if len(argNodes) != want {
		return nil, pgerr.Errorf(pgerr.UndefinedFunction, "function %s with %d arguments does not exist", name, len(argNodes))
	}
	arg, err := inner.bind(argNodes[0])
	if err != nil {
		return nil, err
	}
	if want == 2 {
		sep, err := inner.bind(argNodes[1])
		if err != nil {
			return nil, err
		}
		args := []Expr{arg, sep}
		if err := inner.calls().textArgs(name, args); err != nil {
			return nil, err
		}
		arg, call.Sep = args[0], args[1]
	}
	if isUnknown(arg) {
		if arg, err = inner.coerceUnknown(arg, rule.unknownAs); err != nil {
			return nil, err
		}
	}
	// count(*) arrives as count(1); any non-null constant counts rows alike.
	if c, ok := arg.(*Const); ok && name == "count" && c.Value != nil && !distinct {
		arg = nil
	}
	call.Arg = arg
	if distinct {
		for _, o := range call.OrderBy {
			if o.Key.String() != arg.String() {
				return nil, pgerr.Errorf(pgerr.InvalidColumnReference, "in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list")
			}
		}
	}
	if call.T, err = rule.result(name, arg); err != nil {
		return nil, err
	}
	return b.aggRef(call), nil
}

// aggRef registers call (once) and returns its post-aggregation column.
func (b aggBinder) aggRef(call *AggCall) Expr {
	s := call.String()
	for i, c := range b.agg.Calls {
		if c.String() == s {
			return &ColumnRef{Index: len(b.agg.GroupBy) + i, Name: s, T: c.T}
		}
	}
	b.agg.Calls = append(b.agg.Calls, call)
	return &ColumnRef{Index: len(b.agg.GroupBy) + len(b.agg.Calls) - 1, Name: s, T: call.T}
}

// aggMarkers splits the normaliser's marker arguments off an aggregate's
// arguments: __agg_order (ORDER BY) and __agg_filter (FILTER), in that
// order at the end when present.
func aggMarkers(args []parse.Expr) (rest []parse.Expr, order, filter *parse.FuncCall) {
	if f, ok := aggMarker(args, "__agg_filter"); ok {
		filter, args = f, args[:len(args)-1]
	}
	if o, ok := aggMarker(args, "__agg_order"); ok {
		order, args = o, args[:len(args)-1]
	}
	return args, order, filter
}

// aggMarker is args' last argument when it is the marker call name.
func aggMarker(args []parse.Expr, name string) (*parse.FuncCall, bool) {
	if len(args) == 0 {
		return nil, false
	}
	c, ok := args[len(args)-1].(*parse.FuncCall)
	return c, ok && c.Name == name
}

// bindAggFilter binds __agg_filter(cond), the normaliser's form of
// FILTER (WHERE cond): a boolean over the input rows.
func (b aggBinder) bindAggFilter(args []parse.Expr) (Expr, error) {
	if len(args) != 1 {
		return nil, pgerr.Errorf(pgerr.SyntaxError, "FILTER takes one condition")
	}
	return b.bindBool(args[0], "FILTER")
}

// bindAggOrder binds __agg_order(key, 'asc'|'desc', 'first'|'last'|”, ...),
// the normaliser's form of ORDER BY inside a call.
func (b aggBinder) bindAggOrder(args []parse.Expr) ([]AggOrder, error) {
	var out []AggOrder
	for i := 0; i+2 < len(args); i += 3 {
		key, err := b.bind(args[i])
		if err != nil {
			return nil, err
		}
		if isUnknown(key) {
			if key, err = b.coerceUnknown(key, Text); err != nil {
				return nil, err
			}
		}
		dir, _ := literalString(args[i+1])
		nulls, _ := literalString(args[i+2])
		o := AggOrder{Key: key, Desc: dir == "desc", NullsFirst: dir == "desc"}
		if nulls != "" {
			o.NullsFirst = nulls == "first"
		}
		out = append(out, o)
	}
	return out, nil
}

// bindGrouping binds GROUPING(a, b, ...): each argument must be one of the
// query's GROUP BY expressions, as PostgreSQL requires.
func (b aggBinder) bindGrouping(args []parse.Expr) (Expr, error) {
	notKey := pgerr.Errorf(pgerr.GroupingError, "arguments to GROUPING must be grouping expressions of the associated query level")
	if b.agg == nil || len(b.agg.GroupBy) == 0 {
		return nil, notKey
	}
	if b.inAgg {
		return nil, pgerr.Errorf(pgerr.GroupingError, "aggregate function calls cannot contain GROUPING")
	}
	if len(args) == 0 || len(args) > 31 {
		return nil, pgerr.Errorf(pgerr.ProgramLimitExceeded, "GROUPING must have fewer than 32 arguments")
	}
	call := &AggCall{Name: "grouping", T: Int32}
	plain := &binder{scope: b.scope, params: b.params}
	for _, a := range args {
		e, err := plain.bind(a)
		if err != nil {
			return nil, err
		}
		k := -1
		for i, g := range b.agg.GroupBy {
			if g.String() == e.String() {
				k = i
				break
			}
		}
		if k < 0 {
			return nil, notKey
		}
		call.Grouping = append(call.Grouping, k)
	}
	return b.aggRef(call), nil
}
