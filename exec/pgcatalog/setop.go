package pgcatalog

import (
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/magmalake/magmalake/sql"
)

// setOpr is UNION [ALL] (INTERSECT and EXCEPT are refused): columns are
// named by the first branch and typed by the first typed branch.
func (c *compiler) setOpr(list *ast.SetOprSelectList, orderBy *ast.OrderByClause, limit *ast.Limit, outer *scope) (*query, error) {
	type branch struct {
		q     *query
		union bool // UNION (distinct) with what precedes
	}
	var branches []branch
	for i, n := range list.Selects {
		q, err := c.resultSet(n, outer)
		if err != nil {
			return nil, err
		}
		op := setOprOf(n)
		if i > 0 && op != nil && *op != ast.Union && *op != ast.UnionAll {
			return nil, sql.Errorf(sql.CodeFeatureNotSupported, "INTERSECT and EXCEPT are not supported in catalog queries")
		}
		if i > 0 && len(q.cols) != len(branches[0].q.cols) {
			return nil, sql.Errorf(sql.CodeSyntaxError, "each UNION query must have the same number of columns")
		}
		branches = append(branches, branch{q: q, union: i > 0 && (op == nil || *op == ast.Union)})
	}
	cols := append([]colInfo(nil), branches[0].q.cols...)
	for i := range cols {
		for _, b := range branches {
			if b.q.cols[i].t.Kind != sql.KindUnknown && cols[i].t.Kind == sql.KindUnknown {
				cols[i].t = b.q.cols[i].t
			}
		}
		if cols[i].t.Kind == sql.KindUnknown {
			cols[i].t = sql.Text
		}
	}
	var order []orderKey
	if orderBy != nil {
		var err error
		if order, err = c.orderKeys(orderBy.Items, cols, nil); err != nil {
			return nil, err
		}
	}
	lim, off, err := c.limitFns(limit)
	if err != nil {
		return nil, err
	}
	return &query{cols: cols, run: func(ec *execCtx, oe *env) ([][]any, error) {
		var rows [][]any
		for _, b := range branches {
			r, err := b.q.run(ec, oe)
			if err != nil {
				return nil, err
			}
			rows = append(rows, r...)
			if b.union {
				rows, _ = distinctRows(rows, nil)
			}
		}
		sortRows(rows, nil, order)
		return applyLimit(ec, oe, rows, lim, off)
	}}, nil
}

func setOprOf(n ast.Node) *ast.SetOprType {
	switch x := n.(type) {
	case *ast.SelectStmt:
		return x.AfterSetOperator
	case *ast.SetOprSelectList:
		return x.AfterSetOperator
	}
	return nil
}
