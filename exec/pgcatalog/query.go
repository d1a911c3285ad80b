package pgcatalog

import (
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/magmalake/magmalake/sql"
)

// query is a compiled query: its output columns and how to produce its
// rows given the enclosing row (for correlated subqueries).
type query struct {
	cols []colInfo
	run  func(ec *execCtx, outer *env) ([][]any, error)
}

// column runs q and returns its first column.
func (q *query) column(ec *execCtx, outer *env) ([]any, error) {
	rows, err := q.run(ec, outer)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(rows))
	for i, r := range rows {
		out[i] = r[0]
	}
	return out, nil
}

func (c *compiler) resultSet(n ast.Node, outer *scope) (*query, error) {
	switch x := n.(type) {
	case *ast.SelectStmt:
		return c.selectStmt(x, outer)
	case *ast.SetOprStmt:
		return c.setOpr(x.SelectList, x.OrderBy, x.Limit, outer)
	case *ast.SetOprSelectList:
		return c.setOpr(x, x.OrderBy, x.Limit, outer)
	case *ast.SubqueryExpr:
		return c.resultSet(x.Query, outer)
	}
	return nil, sql.Errorf(sql.CodeFeatureNotSupported, "this query form is not supported in catalog queries")
}

// from compiles a FROM clause; no FROM is one row with no columns.
func (c *compiler) from(clause *ast.TableRefsClause, outer *scope) (*query, error) {
	if clause == nil || clause.TableRefs == nil {
		return &query{run: func(*execCtx, *env) ([][]any, error) { return [][]any{{}}, nil }}, nil
	}
	return c.tableRef(clause.TableRefs, outer)
}

func (c *compiler) tableRef(n ast.ResultSetNode, outer *scope) (*query, error) {
	switch x := n.(type) {
	case *ast.Join:
		return c.join(x, outer)
	case *ast.TableSource:
		return c.tableSource(x, outer)
	}
	return nil, sql.Errorf(sql.CodeFeatureNotSupported, "this FROM item is not supported in catalog queries")
}

func (c *compiler) tableSource(ts *ast.TableSource, outer *scope) (*query, error) {
	switch src := ts.Source.(type) {
	case *ast.TableName:
		def := findRelation(src.Schema.O, src.Name.O)
		if def == nil {
			return nil, c.undefinedRelation(src)
		}
		qual := ts.AsName.O
		if qual == "" {
			qual = src.Name.O
		}
		cols := make([]colInfo, len(def.cols))
		for i, col := range def.cols {
			col.table = qual
			cols[i] = col
		}
		return &query{cols: cols, run: func(ec *execCtx, _ *env) ([][]any, error) {
			return ec.relationRows(def), nil
		}}, nil
	case *ast.SelectStmt, *ast.SetOprStmt:
		q, err := c.resultSet(src, outer)
		if err != nil {
			return nil, err
		}
		cols := make([]colInfo, len(q.cols))
		for i, col := range q.cols {
			col.table = ts.AsName.O
			cols[i] = col
		}
		return &query{cols: cols, run: q.run}, nil
	}
	return nil, sql.Errorf(sql.CodeFeatureNotSupported, "this FROM item is not supported in catalog queries")
}

func (c *compiler) undefinedRelation(tn *ast.TableName) error {
	name := tn.Name.O
	if tn.Schema.O != "" {
		name = tn.Schema.O + "." + name
	}
	if c.userTable == nil || !c.userTable(tn.Schema.O, tn.Name.O) {
		return sql.Errorf(sql.CodeUndefinedTable, "relation %q does not exist", name)
	}
	return sql.Errorf(sql.CodeFeatureNotSupported, "relation %q cannot be joined with catalog relations (joins, subqueries and set operations over Iceberg tables are not supported yet)", name)
}

// join is a nested-loop join: catalogs are small.
func (c *compiler) join(j *ast.Join, outer *scope) (*query, error) {
	left, err := c.tableRef(j.Left, outer)
	if err != nil || j.Right == nil {
		return left, err
	}
	if j.NaturalJoin {
		return nil, sql.Errorf(sql.CodeFeatureNotSupported, "NATURAL JOIN is not supported in catalog queries")
	}
	right, err := c.tableRef(j.Right, outer)
	if err != nil {
		return nil, err
	}
	cols := append(append([]colInfo(nil), left.cols...), right.cols...)
	nl := len(left.cols)
	sc := &scope{cols: cols, outer: outer}
	var cond evalFn
	switch {
	case j.On != nil:
		if cond, _, err = c.expr(j.On.Expr, sc); err != nil {
			return nil, err
		}
	case len(j.Using) > 0:
		if cond, err = usingCondition(j.Using, cols, nl); err != nil {
			return nil, err
		}
	}
	tp := j.Tp
	return &query{cols: cols, run: func(ec *execCtx, oe *env) ([][]any, error) {
		lrows, err := left.run(ec, oe)
		if err != nil {
			return nil, err
		}
		rrows, err := right.run(ec, oe)
		if err != nil {
			return nil, err
		}
		return joinRows(ec, oe, lrows, rrows, nl, len(right.cols), cond, tp)
	}}, nil
}

func joinRows(ec *execCtx, oe *env, lrows, rrows [][]any, nl, nr int, cond evalFn, tp ast.JoinType) ([][]any, error) {
	var out [][]any
	rightMatched := make([]bool, len(rrows))
	for _, l := range lrows {
		matched := false
		for ri, r := range rrows {
			row := make([]any, 0, nl+nr)
			row = append(append(row, l...), r...)
			if cond != nil {
				v, err := cond(ec, &env{row: row, outer: oe})
				if err != nil {
					return nil, err
				}
				if !truth(v) {
					continue
				}
			}
			matched, rightMatched[ri] = true, true
			out = append(out, row)
		}
		if !matched && tp == ast.LeftJoin {
			out = append(out, append(append([]any(nil), l...), make([]any, nr)...))
		}
	}
	if tp == ast.RightJoin {
		for ri, r := range rrows {
			if !rightMatched[ri] {
				out = append(out, append(make([]any, nl), r...))
			}
		}
	}
	return out, nil
}

// usingCondition equates the USING columns and hides the right-hand copies
// from unqualified names.
func usingCondition(using []*ast.ColumnName, cols []colInfo, nl int) (evalFn, error) {
	type pair struct{ l, r int }
	var pairs []pair
	for _, u := range using {
		l, r := -1, -1
		for i, col := range cols {
			if col.name != u.Name.O {
				continue
			}
			if i < nl {
				l = i
			} else {
				r = i
			}
		}
		if l < 0 || r < 0 {
			return nil, sql.Errorf(sql.CodeUndefinedColumn, "column %q specified in USING clause does not exist in both tables", u.Name.O)
		}
		cols[r].usingHidden = true
		pairs = append(pairs, pair{l, r})
	}
	return func(_ *execCtx, e *env) (any, error) {
		for _, p := range pairs {
			a, b := e.row[p.l], e.row[p.r]
			if a == nil || b == nil || compare(a, b) != 0 {
				return false, nil
			}
		}
		return true, nil
	}, nil
}
