package sql

import "github.com/pingcap/tidb/pkg/parser/ast"

// constructName names an expression construct in SQL words, as a singular
// noun phrase for "... is not supported" errors: clients must never see a Go
// type name.
func constructName(n ast.Node) string {
	switch x := n.(type) {
	case *ast.WindowFuncExpr:
		return "the window function " + x.Name + "() OVER (...)"
	case *ast.SubqueryExpr:
		return "a scalar subquery"
	case *ast.ExistsSubqueryExpr:
		return "EXISTS (subquery)"
	case *ast.CompareSubqueryExpr:
		return "a comparison with a subquery (ANY, ALL)"
	case *ast.PatternInExpr:
		if x.Sel != nil {
			return "IN (subquery)"
		}
		return "this IN form"
	case *ast.RowExpr:
		return "a row constructor here"
	case *ast.VariableExpr:
		return "a variable"
	case *ast.DefaultExpr:
		return "DEFAULT here"
	case *ast.ValuesExpr:
		return "VALUES() here"
	case *ast.PositionExpr:
		return "a positional reference here"
	case *ast.MatchAgainst:
		return "MATCH ... AGAINST"
	case *ast.SetCollationExpr:
		return "COLLATE"
	}
	if t := n.Text(); t != "" {
		return "the expression " + t
	}
	return "this expression"
}
