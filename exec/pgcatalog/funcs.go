package pgcatalog

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/magmalake/magmalake/sql"
)

// catalogFunc is a function catalog clients call. Strict functions return
// NULL for any NULL argument without being called.
type catalogFunc struct {
	ret    sql.Type
	strict bool
	fn     func(ec *execCtx, args []any) (any, error)
}

func fixed(v any) func(*execCtx, []any) (any, error) {
	return func(*execCtx, []any) (any, error) { return v, nil }
}

// catalogFuncs are built once and never changed.
var catalogFuncs = map[string]catalogFunc{
	"format_type":                     {sql.Text, false, fnFormatType},
	"pg_get_expr":                     {sql.Text, true, fixed(nil)},
	"pg_get_indexdef":                 {sql.Text, true, fixed(nil)},
	"pg_get_constraintdef":            {sql.Text, true, fixed(nil)},
	"pg_get_statisticsobjdef_columns": {sql.Text, true, fixed(nil)},
	"pg_get_serial_sequence":          {sql.Text, true, fixed(nil)},
	"pg_get_userbyid":                 {sql.Text, true, func(ec *execCtx, _ []any) (any, error) { return ec.env.User, nil }},
	"pg_table_is_visible":             {sql.Bool, true, fnTableVisible},
	"pg_type_is_visible":              {sql.Bool, true, fixed(true)},
	"pg_relation_is_publishable":      {sql.Bool, true, fixed(false)},
	"has_table_privilege":             {sql.Bool, true, fixed(true)},
	"has_schema_privilege":            {sql.Bool, true, fixed(true)},
	"has_database_privilege":          {sql.Bool, true, fixed(true)},
	"has_column_privilege":            {sql.Bool, true, fixed(true)},
	"obj_description":                 {sql.Text, true, fixed(nil)},
	"col_description":                 {sql.Text, true, fixed(nil)},
	"shobj_description":               {sql.Text, true, fixed(nil)},
	"pg_encoding_to_char":             {sql.Text, true, fnEncoding},
	"array_to_string":                 {sql.Text, true, fnArrayToString},
	"array_upper":                     {sql.Int32, true, fnArrayUpper},
	"array_lower":                     {sql.Int32, true, fnArrayLower},
	"array_length":                    {sql.Int32, true, fnArrayUpper},
	"cardinality":                     {sql.Int32, true, func(_ *execCtx, a []any) (any, error) { return int64(len(toArray(a[0]))), nil }},
	"current_schemas":                 {sql.Text, true, fnCurrentSchemas},
	"current_schema":                  {sql.Text, false, fnCurrentSchema},
	"current_database":                {sql.Text, false, func(ec *execCtx, _ []any) (any, error) { return ec.env.Database, nil }},
	"current_catalog":                 {sql.Text, false, func(ec *execCtx, _ []any) (any, error) { return ec.env.Database, nil }},
	"current_user":                    {sql.Text, false, func(ec *execCtx, _ []any) (any, error) { return ec.env.User, nil }},
	"session_user":                    {sql.Text, false, func(ec *execCtx, _ []any) (any, error) { return ec.env.User, nil }},
	"user":                            {sql.Text, false, func(ec *execCtx, _ []any) (any, error) { return ec.env.User, nil }},
	"current_role":                    {sql.Text, false, func(ec *execCtx, _ []any) (any, error) { return ec.env.User, nil }},
	"version":                         {sql.Text, false, func(ec *execCtx, _ []any) (any, error) { return ec.env.Version, nil }},
	"current_setting":                 {sql.Text, true, fnCurrentSetting},
	"pg_backend_pid":                  {sql.Int32, false, fixed(int64(1))},
	"pg_postmaster_start_time":        {sql.TimestampTZ, false, fixed(nil)},
	"quote_ident":                     {sql.Text, true, func(_ *execCtx, a []any) (any, error) { return quoteIdent(text(a[0])), nil }},
	"lower":                           {sql.Text, true, func(_ *execCtx, a []any) (any, error) { return strings.ToLower(text(a[0])), nil }},
	"upper":                           {sql.Text, true, func(_ *execCtx, a []any) (any, error) { return strings.ToUpper(text(a[0])), nil }},
	"length":                          {sql.Int32, true, func(_ *execCtx, a []any) (any, error) { return int64(len([]rune(text(a[0])))), nil }},
	"replace": {sql.Text, true, func(_ *execCtx, a []any) (any, error) {
		return strings.ReplaceAll(text(a[0]), text(a[1]), text(a[2])), nil
	}},
	"__concat":          {sql.Text, false, fnConcat}, // concat(); "concat" is ||
	"concat":            {sql.Text, true, fnConcat},
	"json_build_object": {sql.JSON, false, fnJSONObject},
	"pg_get_keywords":   {sql.Text, false, fixed(nil)},
}

// procNames lists pg_proc's rows: the functions above.
func procNames() []string {
	names := make([]string, 0, len(catalogFuncs))
	for n := range catalogFuncs {
		if !strings.HasPrefix(n, "__") { // internal spellings (__concat)
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

func (c *compiler) call(x *ast.FuncCallExpr, sc *scope) (evalFn, sql.Type, error) {
	name := x.FnName.L
	switch name {
	case "__param":
		return c.param(x)
	case "__true", "__false":
		return constFn(name == "__true"), sql.Bool, nil
	case "__cast":
		return c.cast(x, sc)
	case "__ilike":
		var esc byte
		if len(x.Args) == 3 {
			if s, ok := constString(x.Args[2]); ok && s != "" {
				esc = s[0]
			}
		}
		return c.like(x.Args[0], x.Args[1], esc, true, false, sc)
	case "__array_sub":
		q, err := c.subquery(x.Args[0], sc)
		if err != nil {
			return nil, sql.Type{}, err
		}
		return func(ec *execCtx, e *env) (any, error) { return q.column(ec, e) }, sql.Text, nil
	case "coalesce":
		return c.coalesce(x, sc)
	case "nullif":
		return c.nullif(x, sc)
	case "__any", "__all":
		return nil, sql.Type{}, sql.Errorf(sql.CodeSyntaxError, "ANY/ALL (array) must follow a comparison operator")
	}
	args := make([]evalFn, len(x.Args))
	types := make([]sql.Type, len(x.Args))
	for i, a := range x.Args {
		var err error
		if args[i], types[i], err = c.expr(a, sc); err != nil {
			return nil, sql.Type{}, err
		}
	}
	switch name {
	case "__array":
		return func(ec *execCtx, e *env) (any, error) { return evalArgs(ec, e, args) }, sql.Text, nil
	case "__subscript":
		return subscript(args), elemType(types[0]), nil
	case "__field":
		return field(args), sql.Int32, nil
	}
	f, ok := catalogFuncs[name]
	if !ok || isSetReturning(name) {
		return nil, sql.Type{}, sql.Errorf(sql.CodeUndefinedFunction, "function %s does not exist", name)
	}
	return func(ec *execCtx, e *env) (any, error) {
		vals, err := evalArgs(ec, e, args)
		if err != nil {
			return nil, err
		}
		if f.strict {
			for _, v := range vals {
				if v == nil {
					return nil, nil
				}
			}
		}
		return f.fn(ec, vals)
	}, f.ret, nil
}

func elemType(t sql.Type) sql.Type {
	if t.Kind == sql.KindOID || t.Kind == sql.KindInt16 {
		return t
	}
	return sql.Text
}

func evalArgs(ec *execCtx, e *env, args []evalFn) ([]any, error) {
	out := make([]any, len(args))
	for i, a := range args {
		v, err := a(ec, e)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func constString(n ast.ExprNode) (string, bool) {
	v, ok := n.(interface{ GetValue() any })
	if !ok {
		return "", false
	}
	s, ok := v.GetValue().(string)
	return s, ok
}

func (c *compiler) param(x *ast.FuncCallExpr) (evalFn, sql.Type, error) {
	v, ok := x.Args[0].(interface{ GetValue() any })
	if !ok {
		return nil, sql.Type{}, sql.Errorf(sql.CodeSyntaxError, "bad parameter reference")
	}
	k, _ := asInt(v.GetValue())
	idx := int(k) - 1
	if idx < 0 {
		return nil, sql.Type{}, sql.Errorf(sql.CodeUndefinedParameter, "there is no parameter $%d", k)
	}
	for len(c.params.Types) <= idx {
		c.params.Types = append(c.params.Types, sql.Unknown)
	}
	t := c.params.Types[idx]
	return func(ec *execCtx, _ *env) (any, error) {
		if idx >= len(ec.params) {
			return nil, sql.Errorf(sql.CodeUndefinedParameter, "there is no parameter $%d", idx+1)
		}
		return paramValue(ec.params[idx]), nil
	}, t, nil
}

// paramValue turns an exec.Param form into an evaluator value.
func paramValue(v any) any {
	switch x := v.(type) {
	case int64, bool, string, float64, nil:
		return x
	case int32:
		return int64(x)
	case int:
		return int64(x)
	case []byte:
		return string(x)
	}
	return text(v)
}

func (c *compiler) coalesce(x *ast.FuncCallExpr, sc *scope) (evalFn, sql.Type, error) {
	t := sql.Unknown
	args := make([]evalFn, len(x.Args))
	for i, a := range x.Args {
		var at sql.Type
		var err error
		if args[i], at, err = c.expr(a, sc); err != nil {
			return nil, sql.Type{}, err
		}
		t = unify(t, at)
	}
	return func(ec *execCtx, e *env) (any, error) {
		for _, a := range args {
			v, err := a(ec, e)
			if err != nil || v != nil {
				return v, err
			}
		}
		return nil, nil
	}, t, nil
}

func (c *compiler) nullif(x *ast.FuncCallExpr, sc *scope) (evalFn, sql.Type, error) {
	if len(x.Args) != 2 {
		return nil, sql.Type{}, sql.Errorf(sql.CodeUndefinedFunction, "function nullif takes two arguments")
	}
	a, t, err := c.expr(x.Args[0], sc)
	if err != nil {
		return nil, sql.Type{}, err
	}
	b, _, err := c.expr(x.Args[1], sc)
	if err != nil {
		return nil, sql.Type{}, err
	}
	return func(ec *execCtx, e *env) (any, error) {
		va, vb, err := both(ec, e, a, b)
		if err != nil || va == nil {
			return va, err
		}
		if vb != nil && compare(va, vb) == 0 {
			return nil, nil
		}
		return va, nil
	}, t, nil
}

func subscript(args []evalFn) evalFn {
	return func(ec *execCtx, e *env) (any, error) {
		vals, err := evalArgs(ec, e, args)
		if err != nil || vals[0] == nil || vals[1] == nil {
			return nil, err
		}
		arr := toArray(vals[0])
		i, ok := asInt(vals[1])
		if !ok || i < 1 || int(i) > len(arr) {
			return nil, nil
		}
		return arr[i-1], nil
	}
}

func field(args []evalFn) evalFn {
	return func(ec *execCtx, e *env) (any, error) {
		vals, err := evalArgs(ec, e, args)
		if err != nil || vals[0] == nil {
			return nil, err
		}
		r, ok := vals[0].(record)
		if !ok {
			return nil, sql.Errorf(sql.CodeDatatypeMismatch, "column notation applied to a value that is not a composite")
		}
		return r[text(vals[1])], nil
	}
}

func fnFormatType(_ *execCtx, a []any) (any, error) {
	if a[0] == nil {
		return nil, nil
	}
	oid, _ := asInt(a[0])
	mod := int64(-1)
	if a[1] != nil {
		mod, _ = asInt(a[1])
	}
	return formatType(oid, mod), nil
}

func fnTableVisible(ec *execCtx, a []any) (any, error) {
	oid, _ := asInt(a[0])
	t := ec.snap.byOID[oid]
	return t != nil && ec.snap.visible(t), nil
}

func fnEncoding(_ *execCtx, a []any) (any, error) {
	if n, _ := asInt(a[0]); n == encodingUTF8 {
		return "UTF8", nil
	}
	return "", nil
}

func fnArrayToString(_ *execCtx, a []any) (any, error) {
	var parts []string
	for _, el := range toArray(a[0]) {
		if el == nil {
			if len(a) > 2 {
				parts = append(parts, text(a[2]))
			}
			continue
		}
		parts = append(parts, text(el))
	}
	return strings.Join(parts, text(a[1])), nil
}

func fnArrayUpper(_ *execCtx, a []any) (any, error) {
	n := len(toArray(a[0]))
	if d, _ := asInt(a[1]); d != 1 || n == 0 {
		return nil, nil
	}
	return int64(n), nil
}

func fnArrayLower(_ *execCtx, a []any) (any, error) {
	if d, _ := asInt(a[1]); d != 1 || len(toArray(a[0])) == 0 {
		return nil, nil
	}
	return int64(1), nil
}

func fnCurrentSchemas(ec *execCtx, a []any) (any, error) {
	b, _ := asBool(a[0])
	return ec.snap.currentSchemas(b), nil
}

func fnCurrentSchema(ec *execCtx, _ []any) (any, error) {
	s := ec.snap.currentSchemas(false)
	if len(s) == 0 {
		return nil, nil
	}
	return s[0], nil
}

func fnCurrentSetting(ec *execCtx, a []any) (any, error) {
	name := strings.ToLower(text(a[0]))
	if ec.env.Setting != nil {
		if v, ok := ec.env.Setting(name); ok {
			return v, nil
		}
	}
	if len(a) > 1 {
		if missingOK, _ := asBool(a[1]); missingOK {
			return nil, nil
		}
	}
	return nil, sql.Errorf(sql.CodeUndefinedObject, "unrecognized configuration parameter %q", name)
}

func fnConcat(_ *execCtx, a []any) (any, error) {
	var b strings.Builder
	for _, v := range a {
		if v != nil {
			b.WriteString(text(v))
		}
	}
	return b.String(), nil
}

func fnJSONObject(_ *execCtx, a []any) (any, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i+1 < len(a); i += 2 {
		if i > 0 {
			b.WriteString(", ")
		}
		k, _ := json.Marshal(text(a[i]))
		b.Write(k)
		b.WriteString(" : ")
		switch v := a[i+1].(type) {
		case nil:
			b.WriteString("null")
		case bool, int64, float64:
			b.WriteString(text(v))
		default:
			s, _ := json.Marshal(text(v))
			b.Write(s)
		}
	}
	b.WriteByte('}')
	return b.String(), nil
}

func quoteIdent(s string) string {
	safe := s != ""
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			safe = false
		}
	}
	if safe {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
