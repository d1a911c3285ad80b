package pgcatalog

import (
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/magmalake/magmalake/sql"
)

// Set-returning functions: allowed at the top of a select-list item (and so
// in FROM, which the front end rewrites to a one-item derived table).

func isSetReturning(name string) bool {
	switch name {
	case "generate_series", "_pg_expandarray", "unnest", "pg_get_keywords":
		return true
	}
	return false
}

// setReturning compiles a set-returning call to a function returning the
// rows' values as a []any.
func (c *compiler) setReturning(x *ast.FuncCallExpr, sc *scope) (evalFn, sql.Type, error) {
	args := make([]evalFn, len(x.Args))
	for i, a := range x.Args {
		var err error
		if args[i], _, err = c.expr(a, sc); err != nil {
			return nil, sql.Type{}, err
		}
	}
	name := x.FnName.L
	t := sql.Text
	switch name {
	case "generate_series":
		t = sql.Int32
		if len(args) < 2 || len(args) > 3 {
			return nil, sql.Type{}, sql.Errorf(sql.CodeUndefinedFunction, "function generate_series takes 2 or 3 arguments")
		}
	case "_pg_expandarray":
		t = sql.Text
	}
	return func(ec *execCtx, e *env) (any, error) {
		vals, err := evalArgs(ec, e, args)
		if err != nil {
			return nil, err
		}
		for _, v := range vals {
			if v == nil {
				return []any{}, nil
			}
		}
		switch name {
		case "generate_series":
			return series(vals), nil
		case "_pg_expandarray":
			var out []any
			for i, el := range toArray(vals[0]) {
				out = append(out, record{"x": el, "n": int64(i + 1)})
			}
			return out, nil
		case "unnest":
			return toArray(vals[0]), nil
		}
		return keywords(), nil
	}, t, nil
}

func series(vals []any) []any {
	lo, _ := asInt(vals[0])
	hi, _ := asInt(vals[1])
	step := int64(1)
	if len(vals) == 3 {
		step, _ = asInt(vals[2])
	}
	var out []any
	if step == 0 {
		return out
	}
	for v := lo; (step > 0 && v <= hi) || (step < 0 && v >= hi); v += step {
		out = append(out, v)
		if len(out) > 1_000_000 {
			break
		}
	}
	return out
}

// keywords is pg_get_keywords()'s word column for the words magmalake's
// dialect reserves.
func keywords() []any {
	var out []any
	for _, w := range []string{"all", "and", "any", "array", "as", "asc", "between", "by", "case", "cast",
		"create", "delete", "desc", "distinct", "drop", "else", "end", "false", "from", "group", "having",
		"in", "insert", "into", "is", "join", "left", "like", "limit", "not", "null", "offset", "on", "or",
		"order", "select", "table", "then", "true", "union", "update", "using", "when", "where", "with"} {
		out = append(out, w)
	}
	return out
}
