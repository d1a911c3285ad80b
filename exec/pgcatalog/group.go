package pgcatalog

import (
	"sort"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/magmalake/magmalake/sql"
)

// aggNames are the aggregate functions tidb parses as plain calls.
var aggNames = map[string]bool{"string_agg": true, "array_agg": true, "bool_and": true, "bool_or": true, "every": true}

// collector finds aggregate and window calls of one query level (not
// inside its subqueries).
type collector struct {
	aggs    []ast.ExprNode
	windows []*ast.WindowFuncExpr
}

func (v *collector) Enter(n ast.Node) (ast.Node, bool) {
	switch x := n.(type) {
	case *ast.SubqueryExpr:
		return n, true
	case *ast.AggregateFuncExpr:
		v.aggs = append(v.aggs, x)
		return n, true
	case *ast.WindowFuncExpr:
		v.windows = append(v.windows, x)
		return n, true
	case *ast.FuncCallExpr:
		if aggNames[x.FnName.L] {
			v.aggs = append(v.aggs, x)
			return n, true
		}
	}
	return n, false
}

func (v *collector) Leave(n ast.Node) (ast.Node, bool) { return n, true }

func collect(sel *ast.SelectStmt) *collector {
	v := &collector{}
	for _, f := range sel.Fields.Fields {
		if f.Expr != nil {
			f.Expr.Accept(v)
		}
	}
	if sel.Having != nil {
		sel.Having.Expr.Accept(v)
	}
	if sel.OrderBy != nil {
		for _, it := range sel.OrderBy.Items {
			it.Expr.Accept(v)
		}
	}
	return v
}

// aggregate is one aggregate call of a grouped query.
type aggregate struct {
	name     string
	args     []evalFn
	star     bool
	distinct bool
}

// grouping is GROUP BY plus the aggregates computed per group.
type grouping struct {
	keys []evalFn
	aggs []aggregate
}

func (c *compiler) planGrouping(p *selectPlan, sel *ast.SelectStmt, base, inner *scope) error {
	found := collect(sel)
	if len(found.aggs) == 0 && sel.GroupBy == nil {
		c.pendingWindows = found.windows
		return nil
	}
	g := &grouping{}
	if sel.GroupBy != nil {
		for _, it := range sel.GroupBy.Items {
			fn, _, err := c.expr(it.Expr, base)
			if err != nil {
				return err
			}
			g.keys = append(g.keys, fn)
		}
	}
	for _, n := range found.aggs {
		a, t, err := c.aggregate(n, base)
		if err != nil {
			return err
		}
		inner.slots[n] = len(inner.cols)
		inner.cols = append(inner.cols, colInfo{t: t})
		g.aggs = append(g.aggs, a)
	}
	p.group = g
	c.pendingWindows = found.windows
	return nil
}

func (c *compiler) aggregate(n ast.ExprNode, sc *scope) (aggregate, sql.Type, error) {
	var a aggregate
	var args []ast.ExprNode
	switch x := n.(type) {
	case *ast.AggregateFuncExpr:
		a.name, a.distinct, args = strings.ToLower(x.F), x.Distinct, x.Args
	case *ast.FuncCallExpr:
		a.name, args = x.FnName.L, x.Args
	}
	t := sql.Int64
	for i, arg := range args {
		fn, at, err := c.expr(arg, sc)
		if err != nil {
			return a, t, err
		}
		a.args = append(a.args, fn)
		if i == 0 {
			switch a.name {
			case "max", "min":
				t = at
			case "sum", "avg":
				if at.Kind == sql.KindFloat32 || at.Kind == sql.KindFloat64 || a.name == "avg" {
					t = sql.Float64
				}
			}
		}
	}
	switch a.name {
	case "count":
		if len(args) == 1 {
			if _, isConst := args[0].(interface{ GetValue() any }); isConst && !a.distinct {
				a.star = true
			}
		}
	case "string_agg", "array_agg":
		t = sql.Text
	case "bool_and", "bool_or", "every":
		t = sql.Bool
	case "max", "min", "sum", "avg":
	default:
		return a, t, sql.Errorf(sql.CodeFeatureNotSupported, "aggregate %s is not supported in catalog queries", a.name)
	}
	return a, t, nil
}

// apply groups rows (in order of first appearance) and appends each
// group's aggregate values to its first row.
func (g *grouping) apply(ec *execCtx, outer *env, rows [][]any, width int) ([][]any, error) {
	type group struct {
		rep  []any
		rows [][]any
	}
	var order []string
	groups := map[string]*group{}
	for _, r := range rows {
		e := &env{row: r, outer: outer}
		key := make([]any, len(g.keys))
		for i, k := range g.keys {
			v, err := k(ec, e)
			if err != nil {
				return nil, err
			}
			key[i] = v
		}
		ks := rowKey(key)
		gr, ok := groups[ks]
		if !ok {
			gr = &group{rep: r}
			groups[ks] = gr
			order = append(order, ks)
		}
		gr.rows = append(gr.rows, r)
	}
	if len(g.keys) == 0 && len(order) == 0 {
		groups[""] = &group{rep: make([]any, width)}
		order = append(order, "")
	}
	var out [][]any
	for _, ks := range order {
		gr := groups[ks]
		row := append([]any(nil), gr.rep...)
		for _, a := range g.aggs {
			v, err := a.compute(ec, outer, gr.rows)
			if err != nil {
				return nil, err
			}
			row = append(row, v)
		}
		out = append(out, row)
	}
	return out, nil
}

func (a aggregate) compute(ec *execCtx, outer *env, rows [][]any) (any, error) {
	var vals [][]any
	seen := map[string]bool{}
	for _, r := range rows {
		e := &env{row: r, outer: outer}
		args := make([]any, len(a.args))
		for i, fn := range a.args {
			v, err := fn(ec, e)
			if err != nil {
				return nil, err
			}
			args[i] = v
		}
		if !a.star && len(args) > 0 && args[0] == nil {
			continue
		}
		if a.distinct {
			k := rowKey(args[:1])
			if seen[k] {
				continue
			}
			seen[k] = true
		}
		vals = append(vals, args)
	}
	return foldAggregate(a.name, vals)
}

func foldAggregate(name string, vals [][]any) (any, error) {
	if name == "count" {
		return int64(len(vals)), nil
	}
	if len(vals) == 0 {
		return nil, nil
	}
	switch name {
	case "string_agg":
		parts := make([]string, len(vals))
		sep := ""
		for i, v := range vals {
			parts[i] = text(v[0])
			if len(v) > 1 && i > 0 {
				sep = text(v[1])
			}
		}
		return strings.Join(parts, sep), nil
	case "array_agg":
		out := make([]any, len(vals))
		for i, v := range vals {
			out[i] = v[0]
		}
		return out, nil
	case "bool_and", "every", "bool_or":
		and := name != "bool_or"
		for _, v := range vals {
			if b, _ := asBool(v[0]); b != and {
				return !and, nil
			}
		}
		return and, nil
	case "max", "min":
		best := vals[0][0]
		for _, v := range vals[1:] {
			c := compare(v[0], best)
			if (name == "max" && c > 0) || (name == "min" && c < 0) {
				best = v[0]
			}
		}
		return best, nil
	}
	sumI, sumF, isFloat := int64(0), 0.0, name == "avg"
	for _, v := range vals {
		if n, ok := v[0].(int64); ok && !isFloat {
			sumI += n
			continue
		}
		f, _ := asFloat(v[0])
		if !isFloat {
			isFloat, sumF = true, float64(sumI)
		}
		sumF += f
	}
	if name == "avg" {
		return sumF / float64(len(vals)), nil
	}
	if isFloat {
		return sumF, nil
	}
	return sumI, nil
}

// window is one window function call: row_number, rank or dense_rank.
type window struct {
	name      string
	partition []evalFn
	order     []orderKey
}

func (c *compiler) planWindows(p *selectPlan, _ *ast.SelectStmt, inner *scope) error {
	for _, w := range c.pendingWindows {
		switch strings.ToLower(w.Name) {
		case "row_number", "rank", "dense_rank":
		default:
			return sql.Errorf(sql.CodeFeatureNotSupported, "window function %s is not supported in catalog queries", w.Name)
		}
		win := &window{name: strings.ToLower(w.Name)}
		if w.Spec.PartitionBy != nil {
			for _, it := range w.Spec.PartitionBy.Items {
				fn, _, err := c.expr(it.Expr, inner)
				if err != nil {
					return err
				}
				win.partition = append(win.partition, fn)
			}
		}
		if w.Spec.OrderBy != nil {
			for _, it := range w.Spec.OrderBy.Items {
				fn, _, err := c.expr(it.Expr, inner)
				if err != nil {
					return err
				}
				win.order = append(win.order, orderKey{out: -1, fn: fn, desc: it.Desc})
			}
		}
		inner.slots[w] = len(inner.cols)
		inner.cols = append(inner.cols, colInfo{t: sql.Int64})
		p.windows = append(p.windows, win)
	}
	c.pendingWindows = nil
	return nil
}

// apply appends the window value to every row.
func (w *window) apply(ec *execCtx, outer *env, rows [][]any) error {
	parts := make([]string, len(rows))
	keys := make([][]any, len(rows))
	for i, r := range rows {
		e := &env{row: r, outer: outer}
		pk := make([]any, len(w.partition))
		for j, fn := range w.partition {
			v, err := fn(ec, e)
			if err != nil {
				return err
			}
			pk[j] = v
		}
		parts[i] = rowKey(pk)
		for _, o := range w.order {
			v, err := o.fn(ec, e)
			if err != nil {
				return err
			}
			keys[i] = append(keys[i], v)
		}
	}
	idx := make([]int, len(rows))
	for i := range idx {
		idx[i] = i
	}
	cmpKeys := func(a, b int) int {
		for k, o := range w.order {
			c := compareNullsLast(keys[a][k], keys[b][k])
			if o.desc {
				c = -c
			}
			if c != 0 {
				return c
			}
		}
		return 0
	}
	sort.SliceStable(idx, func(a, b int) bool {
		if parts[idx[a]] != parts[idx[b]] {
			return parts[idx[a]] < parts[idx[b]]
		}
		return cmpKeys(idx[a], idx[b]) < 0
	})
	vals := make([]int64, len(rows))
	var n, rank, dense int64
	for i, r := range idx {
		if i == 0 || parts[r] != parts[idx[i-1]] {
			n, rank, dense = 0, 0, 0
		}
		n++
		if i == 0 || parts[r] != parts[idx[i-1]] || cmpKeys(r, idx[i-1]) != 0 {
			rank, dense = n, dense+1
		}
		switch w.name {
		case "row_number":
			vals[r] = n
		case "rank":
			vals[r] = rank
		default:
			vals[r] = dense
		}
	}
	for i := range rows {
		rows[i] = append(append([]any(nil), rows[i]...), vals[i])
	}
	return nil
}

func compareNullsLast(x, y any) int {
	switch {
	case x == nil && y == nil:
		return 0
	case x == nil:
		return 1
	case y == nil:
		return -1
	}
	return compare(x, y)
}
