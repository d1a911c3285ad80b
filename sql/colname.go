package sql

import (
	"strings"

	"github.com/magmalake/magmalake/sql/parse"
)

// ColumnName is the name PostgreSQL's FigureColname gives an unaliased
// select-list item, read from the parsed tree: a column's own name,
// a function's name, the inner column (or the type's internal name) for a
// cast, "case" or the ELSE result's name for CASE, "?column?" otherwise.
func ColumnName(s Syntax) string { return columnNameOf(nodeOf(s)) }

func columnNameOf(n parse.Expr) string {
	switch x := n.(type) {
	case *parse.ColumnRef:
		return x.Name
	case *parse.Paren:
		return columnNameOf(x.X)
	case *parse.AggregateCall:
		return strings.ToLower(x.Name)
	case *parse.WindowCall:
		return strings.ToLower(x.Name)
	case *parse.FuncCall:
		return funcColumnName(x)
	case *parse.Case:
		return caseColumnName(x)
	case *parse.Subquery:
		if sel, ok := x.Query.(*parse.Select); ok && len(sel.Fields) > 0 {
			f := sel.Fields[0]
			if f.Alias != "" {
				return f.Alias
			}
			if f.Expr != nil {
				return columnNameOf(f.Expr)
			}
		}
	case *parse.Exists:
		return "exists"
	}
	return "?column?"
}

func funcColumnName(x *parse.FuncCall) string {
	switch x.Name {
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
		// concat is how the parser spells ||, which PostgreSQL leaves unnamed.
		return "?column?"
	}
	return strings.TrimPrefix(x.Name, parse.DistinctPrefix)
}

// castColumnName is the inner column's name when the cast wraps one, else
// the internal name of the target type (int4, float8, timestamptz, ...).
func castColumnName(x *parse.FuncCall) string {
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
func caseColumnName(x *parse.Case) string {
	e := x.Else
	for e != nil {
		switch y := e.(type) {
		case *parse.Paren:
			e = y.X
			continue
		case *parse.FuncCall:
			if y.Name == "__cast" && len(y.Args) == 2 {
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
func weakColumnName(n parse.Expr) bool {
	switch x := n.(type) {
	case *parse.Paren:
		return weakColumnName(x.X)
	case *parse.Case:
		return true
	case *parse.FuncCall:
		switch x.Name {
		case "__cast", "__true", "__false":
			return true
		}
	}
	return false
}
