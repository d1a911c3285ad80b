package pgcatalog

import (
	"sort"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/magmalake/magmalake/sql"
)

// output is one select-list item.
type output struct {
	fn  evalFn
	srf bool // a set-returning call: its value is a []any of rows
}

// orderKey sorts by an output column (out >= 0) or an input expression.
type orderKey struct {
	out  int
	fn   evalFn
	desc bool
}

// selectPlan is a compiled SELECT.
type selectPlan struct {
	from     *query
	where    evalFn
	group    *grouping
	windows  []*window
	having   evalFn
	outputs  []output
	order    []orderKey
	distinct bool
	limit    evalFn
	offset   evalFn
	inner    *scope // scope the outputs are evaluated in
}

func (c *compiler) selectStmt(sel *ast.SelectStmt, outer *scope) (*query, error) {
	if sel.Kind != ast.SelectStmtKindSelect || sel.With != nil {
		return nil, sql.Errorf(sql.CodeFeatureNotSupported, "VALUES, TABLE and WITH are not supported in catalog queries")
	}
	p, cols, err := c.planSelect(sel, outer)
	if err != nil {
		return nil, err
	}
	return &query{cols: cols, run: p.run}, nil
}

func (c *compiler) planSelect(sel *ast.SelectStmt, outer *scope) (*selectPlan, []colInfo, error) {
	from, err := c.from(sel.From, outer)
	if err != nil {
		return nil, nil, err
	}
	p := &selectPlan{from: from, distinct: sel.Distinct}
	base := &scope{cols: from.cols, outer: outer}
	if sel.Where != nil {
		if p.where, _, err = c.expr(sel.Where, base); err != nil {
			return nil, nil, err
		}
	}
	inner := &scope{cols: append([]colInfo(nil), from.cols...), outer: outer, slots: map[ast.Node]int{}}
	if err := c.planGrouping(p, sel, base, inner); err != nil {
		return nil, nil, err
	}
	if err := c.planWindows(p, sel, inner); err != nil {
		return nil, nil, err
	}
	if sel.Having != nil {
		if p.having, _, err = c.expr(sel.Having.Expr, inner); err != nil {
			return nil, nil, err
		}
	}
	cols, err := c.planOutputs(p, sel.Fields, inner)
	if err != nil {
		return nil, nil, err
	}
	if sel.OrderBy != nil {
		if p.order, err = c.orderKeys(sel.OrderBy.Items, cols, inner); err != nil {
			return nil, nil, err
		}
	}
	if p.limit, p.offset, err = c.limitFns(sel.Limit); err != nil {
		return nil, nil, err
	}
	p.inner = inner
	return p, cols, nil
}

func (c *compiler) limitFns(l *ast.Limit) (evalFn, evalFn, error) {
	if l == nil {
		return nil, nil, nil
	}
	var lim, off evalFn
	var err error
	if l.Count != nil {
		if lim, _, err = c.expr(l.Count, nil); err != nil {
			return nil, nil, err
		}
	}
	if l.Offset != nil {
		if off, _, err = c.expr(l.Offset, nil); err != nil {
			return nil, nil, err
		}
	}
	return lim, off, nil
}

// planOutputs compiles the select list, expanding * and t.*.
func (c *compiler) planOutputs(p *selectPlan, fields *ast.FieldList, inner *scope) ([]colInfo, error) {
	var cols []colInfo
	for _, f := range fields.Fields {
		if f.WildCard != nil {
			n := 0
			for i, col := range p.from.cols {
				if (f.WildCard.Table.O != "" && col.table != f.WildCard.Table.O) || (f.WildCard.Table.O == "" && col.usingHidden) {
					continue
				}
				k := i
				p.outputs = append(p.outputs, output{fn: func(_ *execCtx, e *env) (any, error) { return e.row[k], nil }})
				cols = append(cols, colInfo{name: col.name, t: col.t})
				n++
			}
			if n == 0 && f.WildCard.Table.O != "" {
				return nil, sql.Errorf(sql.CodeUndefinedTable, "missing FROM-clause entry for table %q", f.WildCard.Table.O)
			}
			continue
		}
		out, t, err := c.outputExpr(f.Expr, inner)
		if err != nil {
			return nil, err
		}
		if t.Kind == sql.KindUnknown {
			t = sql.Text
		}
		name := f.AsName.O
		if name == "" {
			name = sql.ColumnName(f.Expr)
		}
		p.outputs = append(p.outputs, out)
		cols = append(cols, colInfo{name: name, t: t})
	}
	return cols, nil
}

// outputExpr compiles a select-list item; set-returning calls at the top
// of an item produce one output row per element.
func (c *compiler) outputExpr(n ast.ExprNode, sc *scope) (output, sql.Type, error) {
	if fc, ok := n.(*ast.FuncCallExpr); ok && isSetReturning(fc.FnName.L) {
		fn, t, err := c.setReturning(fc, sc)
		return output{fn: fn, srf: true}, t, err
	}
	// (srf(...)).f: select the field from every row the function returns.
	if fc, ok := n.(*ast.FuncCallExpr); ok && fc.FnName.L == "__field" {
		inner := fc.Args[0]
		if p, ok := inner.(*ast.ParenthesesExpr); ok {
			inner = p.Expr
		}
		name, _ := constString(fc.Args[1])
		if srf, ok := inner.(*ast.FuncCallExpr); ok && isSetReturning(srf.FnName.L) {
			fn, _, err := c.setReturning(srf, sc)
			return output{srf: true, fn: func(ec *execCtx, e *env) (any, error) {
				v, err := fn(ec, e)
				if err != nil {
					return nil, err
				}
				var out []any
				for _, el := range toArray(v) {
					r, _ := el.(record)
					out = append(out, r[name])
				}
				return out, nil
			}}, sql.Int32, err
		}
	}
	fn, t, err := c.expr(n, sc)
	return output{fn: fn}, t, err
}

// orderKeys resolves ORDER BY items: ordinals and output names first, as
// PostgreSQL does, else expressions over the input.
func (c *compiler) orderKeys(items []*ast.ByItem, cols []colInfo, inner *scope) ([]orderKey, error) {
	var keys []orderKey
	for _, it := range items {
		k := orderKey{out: -1, desc: it.Desc}
		if idx, ok, err := outputRef(it.Expr, cols); err != nil {
			return nil, err
		} else if ok {
			k.out = idx
		} else {
			if inner == nil {
				return nil, sql.Errorf(sql.CodeFeatureNotSupported, "ORDER BY on a set operation must name an output column")
			}
			fn, _, err := c.expr(it.Expr, inner)
			if err != nil {
				return nil, err
			}
			k.fn = fn
		}
		keys = append(keys, k)
	}
	return keys, nil
}

func outputRef(n ast.ExprNode, cols []colInfo) (int, bool, error) {
	switch x := n.(type) {
	case *ast.PositionExpr:
		if x.P != nil {
			return 0, false, nil
		}
		if x.N < 1 || x.N > len(cols) {
			return 0, false, sql.Errorf("42P10", "ORDER BY position %d is not in select list", x.N)
		}
		return x.N - 1, true, nil
	case *ast.ColumnNameExpr:
		if x.Name.Table.O != "" {
			return 0, false, nil
		}
		for i, col := range cols {
			if col.name == x.Name.Name.O {
				return i, true, nil
			}
		}
	}
	return 0, false, nil
}

// run executes the plan for one enclosing row.
func (p *selectPlan) run(ec *execCtx, outer *env) ([][]any, error) {
	rows, err := p.from.run(ec, outer)
	if err != nil {
		return nil, err
	}
	if rows, err = filter(ec, outer, rows, p.where); err != nil {
		return nil, err
	}
	if p.group != nil {
		if rows, err = p.group.apply(ec, outer, rows, len(p.from.cols)); err != nil {
			return nil, err
		}
	}
	for _, w := range p.windows {
		if err := w.apply(ec, outer, rows); err != nil {
			return nil, err
		}
	}
	if rows, err = filter(ec, outer, rows, p.having); err != nil {
		return nil, err
	}
	out, keys, err := p.project(ec, outer, rows)
	if err != nil {
		return nil, err
	}
	if p.distinct {
		out, keys = distinctRows(out, keys)
	}
	sortRows(out, keys, p.order)
	return applyLimit(ec, outer, out, p.limit, p.offset)
}

func filter(ec *execCtx, outer *env, rows [][]any, cond evalFn) ([][]any, error) {
	if cond == nil {
		return rows, nil
	}
	var out [][]any
	for _, r := range rows {
		v, err := cond(ec, &env{row: r, outer: outer})
		if err != nil {
			return nil, err
		}
		if truth(v) {
			out = append(out, r)
		}
	}
	return out, nil
}

// project computes the outputs and the input-side sort keys of each row.
func (p *selectPlan) project(ec *execCtx, outer *env, rows [][]any) ([][]any, [][]any, error) {
	var out, keys [][]any
	for _, r := range rows {
		e := &env{row: r, outer: outer}
		vals := make([]any, len(p.outputs))
		var srfs []int
		for i, o := range p.outputs {
			v, err := o.fn(ec, e)
			if err != nil {
				return nil, nil, err
			}
			vals[i] = v
			if o.srf {
				srfs = append(srfs, i)
			}
		}
		var k []any
		for _, ok := range p.order {
			if ok.fn == nil {
				continue
			}
			v, err := ok.fn(ec, e)
			if err != nil {
				return nil, nil, err
			}
			k = append(k, v)
		}
		if len(srfs) == 0 {
			out, keys = append(out, vals), append(keys, k)
			continue
		}
		// Several set-returning items run in lockstep, the shorter padded
		// with NULLs, as in PostgreSQL 10 and later.
		n := 0
		for _, i := range srfs {
			n = max(n, len(toArray(vals[i])))
		}
		for j := 0; j < n; j++ {
			row := append([]any(nil), vals...)
			for _, i := range srfs {
				elems := toArray(vals[i])
				row[i] = nil
				if j < len(elems) {
					row[i] = elems[j]
				}
			}
			out, keys = append(out, row), append(keys, k)
		}
	}
	return out, keys, nil
}

func distinctRows(rows, keys [][]any) ([][]any, [][]any) {
	seen := map[string]bool{}
	var out, outKeys [][]any
	for i, r := range rows {
		k := rowKey(r)
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, r)
		if keys != nil {
			outKeys = append(outKeys, keys[i])
		}
	}
	return out, outKeys
}

// rowKey identifies a row's values for DISTINCT, UNION and GROUP BY.
func rowKey(r []any) string {
	b := make([]byte, 0, 64)
	for _, v := range r {
		if v == nil {
			b = append(b, 0)
			continue
		}
		b = append(b, 1)
		b = append(b, text(v)...)
		b = append(b, 0xff)
	}
	return string(b)
}

// sortRows orders rows by keys; NULLs sort last ascending and first
// descending, as in PostgreSQL.
func sortRows(rows, keys [][]any, order []orderKey) {
	if len(order) == 0 {
		return
	}
	idx := make([]int, len(rows))
	for i := range idx {
		idx[i] = i
	}
	key := func(r int, k int) any {
		if order[k].out >= 0 {
			return rows[r][order[k].out]
		}
		n := 0
		for j := 0; j < k; j++ {
			if order[j].out < 0 {
				n++
			}
		}
		return keys[r][n]
	}
	sort.SliceStable(idx, func(a, b int) bool {
		for k, o := range order {
			x, y := key(idx[a], k), key(idx[b], k)
			c := 0
			switch {
			case x == nil && y == nil:
			case x == nil:
				c = 1
			case y == nil:
				c = -1
			default:
				c = compare(x, y)
			}
			if o.desc {
				c = -c
			}
			if c != 0 {
				return c < 0
			}
		}
		return false
	})
	sorted := make([][]any, len(rows))
	for i, j := range idx {
		sorted[i] = rows[j]
	}
	copy(rows, sorted)
}

func applyLimit(ec *execCtx, outer *env, rows [][]any, limit, offset evalFn) ([][]any, error) {
	e := &env{outer: outer}
	if offset != nil {
		v, err := offset(ec, e)
		if err != nil {
			return nil, err
		}
		if n, ok := asInt(v); ok && n > 0 {
			rows = rows[min(int(n), len(rows)):]
		}
	}
	if limit != nil {
		v, err := limit(ec, e)
		if err != nil {
			return nil, err
		}
		if n, ok := asInt(v); ok && v != nil && n >= 0 && int(n) < len(rows) {
			rows = rows[:n]
		}
	}
	return rows, nil
}
