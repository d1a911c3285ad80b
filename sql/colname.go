package sql

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// ColumnName is the name PostgreSQL's FigureColname gives an unaliased
// select-list item, read from the normalised tidb tree: a column's own name,
// a function's name, the inner column (or the type's internal name) for a
// cast, "case" or the ELSE result's name for CASE, "?column?" otherwise.
func ColumnName(s Syntax) string { return columnNameOf(nodeOf(s)) }

func columnNameOf(n ast.ExprNode) string {
	switch x := n.(type) {
	case *ast.ColumnNameExpr:
		return x.Name.Name.O
	case *ast.ParenthesesExpr:
		return columnNameOf(x.Expr)
	case *ast.AggregateFuncExpr:
		return strings.ToLower(x.F)
	case *ast.WindowFuncExpr:
		return strings.ToLower(x.Name)
	case *ast.FuncCallExpr:
		return funcColumnName(x)
	case *ast.CaseExpr:
		return caseColumnName(x)
	case *ast.SubqueryExpr:
		if sel, ok := x.Query.(*ast.SelectStmt); ok && sel.Fields != nil && len(sel.Fields.Fields) > 0 {
			f := sel.Fields.Fields[0]
			if _, marked := distinctOnItem(sel); marked {
				f = sel.Fields.Fields[1]
			}
			if f.AsName.O != "" {
				return f.AsName.O
			}
			if f.Expr != nil {
				return columnNameOf(f.Expr)
			}
		}
	case *ast.ExistsSubqueryExpr:
		return "exists"
	}
	return "?column?"
}

func funcColumnName(x *ast.FuncCallExpr) string {
	switch x.FnName.L {
	case "__cast":
		return castColumnName(x)
	case "__true", "__false":
		return "bool"
	case "__field":
		if s, ok := literalString(x.Args[1]); ok {
			return s
		}
		return "?column?"
	case "__array", "__array_sub":
		return "array"
	case "__concat":
		return "concat"
	case "__extract":
		return "extract"
	case "__subscript":
		return columnNameOf(x.Args[0]) // a[1] is named a, as PostgreSQL names it
	case "__json_get", "__json_get_text":
		return "?column?"
	case "__any", "__all", "__param", "__ilike", "__iregex", "__numeric", "concat":
		// concat is how tidb spells ||, which PostgreSQL leaves unnamed.
		return "?column?"
	}
	return strings.TrimPrefix(x.FnName.L, distinctPrefix)
}

// castColumnName is the inner column's name when the cast wraps one, else
// the internal name of the target type (int4, float8, timestamptz, ...).
func castColumnName(x *ast.FuncCallExpr) string {
	if len(x.Args) != 2 {
		return "?column?"
	}
	// Only a column or function name outranks the type's (PostgreSQL's
	// FigureColname strength 2); a cast, CASE or boolean literal inside
	// names by type too, so the outer type wins.
	if inner := columnNameOf(x.Args[0]); inner != "?column?" && !weakColumnName(x.Args[0]) {
		return inner
	}
	written, ok := literalString(x.Args[1])
	if !ok {
		return "?column?"
	}
	return internalTypeName(written)
}

// internalTypeName is pg_type.typname for a type as written in a cast.
func internalTypeName(written string) string {
	if strings.Contains(written, `"`) && !IsInternalChar(written) {
		plain, err := unquoteTypeName(written)
		if err != nil {
			return "?column?"
		}
		written = plain
	}
	w := strings.TrimPrefix(strings.ToLower(strings.TrimSpace(written)), "pg_catalog.")
	if elem, _, isArray := strings.Cut(w, "["); isArray {
		// int4[] is named for its element type, as PostgreSQL names a
		// cast by the type name's last word.
		return internalTypeName(elem)
	}
	base := strings.Fields(strings.SplitN(w, "(", 2)[0])
	t, err := ParseTypeName(w)
	if err != nil || len(base) == 0 {
		return "?column?"
	}
	switch t.Kind {
	case KindBool:
		return "bool"
	case KindInt16:
		return "int2"
	case KindInt32:
		return "int4"
	case KindInt64:
		return "int8"
	case KindFloat32:
		return "float4"
	case KindFloat64:
		return "float8"
	case KindNumeric:
		return "numeric"
	case KindVarchar:
		if base[0] == "char" || base[0] == "character" && (len(base) == 1 || base[1] != "varying") || base[0] == "bpchar" {
			return "bpchar"
		}
		return "varchar"
	case KindText:
		if base[0] == "name" {
			return "name"
		}
		if IsInternalChar(written) {
			return "char"
		}
		return "text"
	case KindTimestampTZ:
		return "timestamptz"
	case KindTimestamp:
		return "timestamp"
	case KindTime:
		return "time"
	case KindOID, KindJSON:
		return base[0]
	}
	return t.String()
}

// caseColumnName names CASE after its ELSE result when that has a name of
// its own (a column, a function), else "case"; a cast takes the name of
// what it casts.
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
	if n := columnNameOf(e); n != "?column?" && n != "bool" {
		return n
	}
	return "case"
}

// weakColumnName reports a node whose column name is only a default
// (FigureColname strength 1): a cast, CASE, or TRUE/FALSE.
func weakColumnName(n ast.ExprNode) bool {
	switch x := n.(type) {
	case *ast.ParenthesesExpr:
		return weakColumnName(x.Expr)
	case *ast.CaseExpr:
		return true
	case *ast.FuncCallExpr:
		switch x.FnName.L {
		case "__cast", "__true", "__false":
			return true
		}
	}
	return false
}
