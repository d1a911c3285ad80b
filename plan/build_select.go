package plan

import (
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// bindQuery binds a query level over its source: first over every column
// of the source, then again over only the columns it reads, so the scan
// projects them.
func (p *Builder) bindQuery(st *sql.Select, src Node, outer *sql.Outer, untyped bool) (*Query, error) {
	full := *withOuter(src.Scope(), outer)
	full.Named = map[int]bool{}
	q, err := bindSelect(st, &full, p.params, untyped)
	if err != nil {
		return nil, err
	}
	placed := PushDown(src, q.Where)
	src = ReorderJoins(src, p.columnCounts)
	used := q.inputColumns(full.Named)
	if len(used) == len(full.Columns) {
		q.From = src
		q.Where = withoutPlaced(q.Where, placed)
		p.decorrelate(q)
		limitWindow(q)
		return q, nil
	}
	reduced := &sql.Scope{Aliased: full.Aliased, Outer: outer, Computed: full.Computed}
	for _, i := range used {
		reduced.Columns = append(reduced.Columns, full.Columns[i])
	}
	q, err = bindSelect(st, reduced, p.params, untyped)
	if err != nil {
		return nil, err
	}
	q.From = src.Project(used)
	q.Where = withoutPlaced(q.Where, placed)
	p.decorrelate(q)
	limitWindow(q)
	return q, nil
}

// withOuter is sc seen from inside a subquery of the query around it.
func withOuter(sc *sql.Scope, outer *sql.Outer) *sql.Scope {
	if outer == nil {
		return sc
	}
	c := *sc
	c.Outer = outer
	return &c
}

// bindSelect binds every clause of st over the input scope.
// Untyped leaves untyped literal outputs for a set operation to resolve.
func bindSelect(st *sql.Select, input *sql.Scope, params *sql.Params, untyped bool) (*Query, error) {
	q := &Query{Input: input, Distinct: st.Distinct}
	items, names, err := ExpandItems(st.Items, input)
	if err != nil {
		return nil, err
	}
	if st.Where != nil {
		if sql.HasAggregate(st.Where) {
			return nil, pgerr.Errorf(pgerr.GroupingError, "aggregate functions are not allowed in WHERE")
		}
		if q.Where, err = sql.BindCondition(st.Where, input, params, "WHERE"); err != nil {
			return nil, err
		}
	}
	grouped := len(st.GroupBy) > 0 || st.GroupingSets != nil || st.Having != nil || sql.HasAggregate(items...)
	bindOut := func(n sql.Syntax) (sql.Expr, error) { return sql.Bind(n, input, params) }
	if untyped {
		bindOut = func(n sql.Syntax) (sql.Expr, error) { return sql.BindUntyped(n, input, params) }
	}
	if grouped {
		if q.Agg, err = bindGroupBy(st.GroupBy, items, names, input, params); err != nil {
			return nil, err
		}
		q.Sets = st.GroupingSets
		bindOut = func(n sql.Syntax) (sql.Expr, error) { return sql.BindAggregate(n, input, q.Agg, params) }
	}
	if hasWindow(items, st.OrderBy) {
		q.Win = sql.NewWindowContext(windowBase, st.Windows)
		bindOut = func(n sql.Syntax) (sql.Expr, error) { return sql.BindWindowed(n, input, q.Agg, q.Win, params) }
	}
	for _, it := range items {
		e, err := bindOut(it)
		if err != nil {
			return nil, err
		}
		q.Outputs = append(q.Outputs, e)
	}
	q.Names, q.Visible = names, len(items)
	if st.Having != nil {
		// HAVING makes the query grouped, so q.agg is set.
		if q.Having, err = sql.BindAggregateCondition(st.Having, input, q.Agg, params, "HAVING"); err != nil {
			return nil, err
		}
	}
	if err := q.bindOrder(st.OrderBy, bindOut); err != nil {
		return nil, err
	}
	if err := q.bindDistinctOn(st.DistinctOn, bindOut); err != nil {
		return nil, err
	}
	q.placeWindows()
	if q.Limit, err = bindCount(st.Limit, "LIMIT", params); err != nil {
		return nil, err
	}
	if q.Offset, err = bindCount(st.Offset, "OFFSET", params); err != nil {
		return nil, err
	}
	return q, nil
}

// windowBase numbers window columns while binding: the post-aggregation
// layout they follow is known only once every aggregate is bound.
const windowBase = 1 << 24

// hasWindow reports whether the select list or ORDER BY calls a window
// function (outside subqueries).
func hasWindow(items []sql.Syntax, order []sql.OrderItem) bool {
	all := append([]sql.Syntax(nil), items...)
	for _, o := range order {
		all = append(all, o.Expr)
	}
	return sql.HasWindow(all...)
}

// ExpandItems turns * and t.* into column references and names each output.
func ExpandItems(items []sql.SelectItem, input *sql.Scope) ([]sql.Syntax, []string, error) {
	var nodes []sql.Syntax
	var names []string
	for _, it := range items {
		if !it.Star {
			nodes = append(nodes, it.Expr)
			name := it.Alias
			if name == "" {
				name = sql.ColumnName(it.Expr)
			}
			names = append(names, name)
			continue
		}
		found := false
		seen := map[[2]string]int{}
		for _, c := range input.Columns {
			seen[[2]string{c.Table, c.Name}]++
		}
		for i, c := range input.Columns {
			if c.System || it.StarQualifier != "" && c.Table != it.StarQualifier || it.StarQualifier == "" && c.Hidden {
				continue
			}
			found = true
			// A name that does not tell the column apart (a USING merge has
			// no qualifier; a derived table may repeat a name) binds by position.
			if seen[[2]string{c.Table, c.Name}] > 1 || c.Table == "" {
				nodes = append(nodes, sql.ColumnIndexNode(i))
			} else {
				nodes = append(nodes, ColumnRefNode(c))
			}
			names = append(names, c.Name)
		}
		if it.StarQualifier != "" && !found {
			return nil, nil, pgerr.Errorf(pgerr.UndefinedTable, "missing FROM-clause entry for table %q", it.StarQualifier)
		}
		if it.StarQualifier == "" && len(input.Columns) == 0 && !found {
			return nil, nil, pgerr.Errorf(pgerr.SyntaxError, "SELECT * with no tables specified is not valid")
		}
	}
	return nodes, names, nil
}

// ColumnRefNode names a scope column in a query.
func ColumnRefNode(c sql.ScopeColumn) sql.Syntax { return sql.ColumnRefSyntax(c.Table, c.Name) }

// bindGroupBy binds GROUP BY keys; ordinals and output names refer to the
// select list, as PostgreSQL allows.
func bindGroupBy(keys []sql.Syntax, items []sql.Syntax, names []string, input *sql.Scope, params *sql.Params) (*sql.AggContext, error) {
	agg := &sql.AggContext{}
	for _, k := range keys {
		node := k
		if idx, ok, err := outputRef(k, names, input, nil); err != nil {
			return nil, err
		} else if ok {
			node = items[idx]
		}
		if sql.HasAggregate(node) {
			return nil, pgerr.Errorf(pgerr.GroupingError, "aggregate functions are not allowed in GROUP BY")
		}
		e, err := sql.Bind(node, input, params)
		if err != nil {
			return nil, err
		}
		agg.GroupBy = append(agg.GroupBy, e)
	}
	return agg, nil
}

// outputRef resolves an ORDER BY / GROUP BY key that names an output column:
// an integer ordinal, or a bare name equal to an output name (for GROUP BY
// only when no input column has that name, as in PostgreSQL). A name shared
// by several outputs is ambiguous unless same says they are one expression.
func outputRef(n sql.Syntax, names []string, input *sql.Scope, same func(i, j int) bool) (int, bool, error) {
	if k, ok := sql.OutputPosition(n); ok {
		return checkPosition(k, len(names))
	}
	bare, ok := sql.BareColumnName(n)
	if !ok {
		return 0, false, nil
	}
	if input != nil {
		for _, col := range input.Columns {
			if col.Name == bare {
				return 0, false, nil
			}
		}
	}
	match := -1
	for i, name := range names {
		if name == bare {
			if match >= 0 && (same == nil || !same(match, i)) {
				return 0, false, pgerr.Errorf(pgerr.AmbiguousColumn, "ORDER BY %q is ambiguous", name)
			}
			if match >= 0 {
				continue
			}
			match = i
		}
	}
	return match, match >= 0, nil
}

func (q *Query) bindOrder(items []sql.OrderItem, bindOut func(sql.Syntax) (sql.Expr, error)) error {
	for _, it := range items {
		spec := SortSpec{Desc: it.Desc, NullsFirst: it.Desc}
		if it.NullsFirst != nil {
			spec.NullsFirst = *it.NullsFirst
		}
		// ORDER BY prefers output names over input columns.
		same := func(i, j int) bool {
			return q.Outputs[i].String() == q.Outputs[j].String() && q.Outputs[i].Type() == q.Outputs[j].Type()
		}
		idx, ok, err := outputRef(it.Expr, q.Names, nil, same)
		if err != nil {
			return err
		}
		if ok {
			q.Order = append(q.Order, OrderKey{Col: idx, Spec: spec})
			continue
		}
		e, err := bindOut(it.Expr)
		if err != nil {
			return err
		}
		col := q.findOutput(e)
		if col < 0 {
			if q.Distinct {
				return pgerr.Errorf(pgerr.InvalidColumnReference, "for SELECT DISTINCT, ORDER BY expressions must appear in select list")
			}
			q.Outputs = append(q.Outputs, e)
			col = len(q.Outputs) - 1
		}
		q.Order = append(q.Order, OrderKey{Col: col, Spec: spec})
	}
	return nil
}

// bindCount binds a LIMIT/OFFSET expression (a constant or parameter).
func bindCount(n sql.Syntax, what string, params *sql.Params) (sql.Expr, error) {
	if n == nil {
		return nil, nil
	}
	e, err := sql.Bind(n, &sql.Scope{}, params)
	if err != nil {
		return nil, err
	}
	if p, ok := e.(*sql.Param); ok && p.T.Kind == sql.KindText {
		params.Types[p.Index] = sql.Int64
		return &sql.Param{Index: p.Index, T: sql.Int64}, nil
	}
	switch e.Type().Kind {
	case sql.KindInt16, sql.KindInt32, sql.KindInt64, sql.KindNumeric, sql.KindFloat64, sql.KindFloat32:
		return e, nil
	}
	return nil, pgerr.Errorf(pgerr.DatatypeMismatch, "argument of %s must be type bigint, not type %s", what, e.Type())
}

func checkPosition(k int64, n int) (int, bool, error) {
	if k < 1 || k > int64(n) {
		return 0, false, pgerr.Errorf(pgerr.InvalidColumnReference, "position %d is not in select list", k)
	}
	return int(k) - 1, true, nil
}

// bindDistinctOn binds DISTINCT ON's keys (output names and ordinals as in
// ORDER BY), which must match the leftmost ORDER BY keys, as PostgreSQL
// requires.
func (q *Query) bindDistinctOn(keys []sql.Syntax, bindOut func(sql.Syntax) (sql.Expr, error)) error {
	for _, k := range keys {
		same := func(i, j int) bool {
			return q.Outputs[i].String() == q.Outputs[j].String() && q.Outputs[i].Type() == q.Outputs[j].Type()
		}
		idx, ok, err := outputRef(k, q.Names, nil, same)
		if err != nil {
			return err
		}
		if !ok {
			e, err := bindOut(k)
			if err != nil {
				return err
			}
			if idx = q.findOutput(e); idx < 0 {
				q.Outputs = append(q.Outputs, e)
				idx = len(q.Outputs) - 1
			}
		}
		q.DistinctOn = append(q.DistinctOn, idx)
	}
	in := map[int]bool{}
	for _, c := range q.DistinctOn {
		in[c] = true
	}
	for i := 0; i < len(q.Order) && i < len(q.DistinctOn); i++ {
		if !in[q.Order[i].Col] {
			return pgerr.Errorf(pgerr.InvalidColumnReference, "SELECT DISTINCT ON expressions must match initial ORDER BY expressions")
		}
	}
	return nil
}
