package exec

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/magmalake/magmalake/sql"
)

// aggFinder reports whether an expression tree holds an aggregate call.
type aggFinder struct{ found bool }

func (f *aggFinder) Enter(n ast.Node) (ast.Node, bool) {
	if _, ok := n.(*ast.AggregateFuncExpr); ok {
		f.found = true
		return n, true
	}
	return n, false
}

func (f *aggFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

func hasAggregate(nodes ...ast.ExprNode) bool {
	f := &aggFinder{}
	for _, n := range nodes {
		if n != nil {
			n.Accept(f)
		}
	}
	return f.found
}

// columnName is the output column name PostgreSQL derives for an expression
// without an alias.
func columnName(n ast.ExprNode) string {
	switch x := n.(type) {
	case *ast.ColumnNameExpr:
		return x.Name.Name.O
	case *ast.ParenthesesExpr:
		return columnName(x.Expr)
	case *ast.AggregateFuncExpr:
		return strings.ToLower(x.F)
	case *ast.FuncCallExpr:
		switch x.FnName.L {
		case "__cast":
			return castColumnName(x)
		case "__true", "__false":
			return "bool"
		case "__param", "__ilike":
			return "?column?"
		case "concat":
			return "?column?"
		}
		return x.FnName.L
	case *ast.CaseExpr:
		return caseColumnName(x)
	case *ast.FuncCastExpr:
		return "?column?"
	}
	return "?column?"
}

// castColumnName is the internal type name PostgreSQL labels a cast with,
// or the inner column's name when the cast wraps a column.
func castColumnName(x *ast.FuncCallExpr) string {
	if len(x.Args) != 2 {
		return "?column?"
	}
	if inner := columnName(x.Args[0]); inner != "?column?" {
		return inner
	}
	v, ok := x.Args[1].(*test_driver.ValueExpr)
	if !ok {
		return "?column?"
	}
	name, _ := v.GetValue().(string)
	t, err := sql.ParseTypeName(name)
	if err != nil {
		return "?column?"
	}
	return internalTypeName(t, name)
}

func internalTypeName(t sql.Type, written string) string {
	switch t.Kind {
	case sql.KindBool:
		return "bool"
	case sql.KindInt16:
		return "int2"
	case sql.KindInt32:
		return "int4"
	case sql.KindInt64:
		return "int8"
	case sql.KindFloat32:
		return "float4"
	case sql.KindFloat64:
		return "float8"
	case sql.KindNumeric:
		return "numeric"
	case sql.KindVarchar:
		if strings.HasPrefix(written, "char") || strings.HasPrefix(written, "bpchar") {
			return "bpchar"
		}
		return "varchar"
	case sql.KindTimestampTZ:
		return "timestamptz"
	case sql.KindTimestamp:
		return "timestamp"
	case sql.KindTime:
		return "time"
	case sql.KindOID:
		return strings.Fields(written)[0]
	}
	return t.String()
}

// caseColumnName names CASE as PostgreSQL's FigureColname does: after its
// ELSE result when that has a name of its own (a column, a function), else
// "case". A cast takes the name of what it casts.
func caseColumnName(x *ast.CaseExpr) string {
	e := x.ElseClause
	for e != nil {
		switch y := e.(type) {
		case *ast.ParenthesesExpr:
			e = y.Expr
			continue
		case *ast.FuncCallExpr:
			if y.FnName.L == "__cast" && len(y.Args) == 2 {
				e = y.Args[0]
				continue
			}
		}
		break
	}
	if e == nil {
		return "case"
	}
	if n := columnName(e); n != "?column?" && n != "bool" {
		return n
	}
	return "case"
}
