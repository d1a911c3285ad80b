package sql

import (
	"strings"

	"github.com/magmalake/magmalake/pgerr"
)

// The functions catalog clients call (psql's \d, pgjdbc's DatabaseMetaData,
// SQLAlchemy's inspector): session facts, visibility, privileges and the
// descriptions of objects magmalake has none of.

// The catalog functions are stable: they read the session's catalog and
// settings (pg_size_pretty, immutable to PostgreSQL, is kept with them,
// unfolded). Those that describe objects magmalake has none of
// (descriptions, defaults, index and constraint definitions, function
// signatures and bodies, start times) answer NULL.
func catalogFunctions() []Function {
	none := catalogRow(func(*evaluator, []any) (any, error) { return nil, nil })
	visible := catalogRow(func(*evaluator, []any) (any, error) { return true, nil })
	user := catalogRow(func(ev *evaluator, _ []any) (any, error) { return ev.catalog.User(), nil })
	database := catalogRow(func(ev *evaluator, _ []any) (any, error) { return ev.catalog.Database(), nil })
	size := catalogRow(func(ev *evaluator, a []any) (any, error) { return relationSize(ev.ctx, ev.catalog, a[0].(int64)) })
	return []Function{
		catalogFunc("format_type", "oi", Text, "oid,integer", catalogRow(formatTypeCall)).lax(),
		// The only expressions the catalog keeps are column defaults, and
		// pg_attrdef.adbin holds them already deparsed.
		catalogFunc("pg_get_expr", "to|b", Text, "pg_node_tree,oid | pg_node_tree,oid,boolean", valueOf(func(a []any) any {
			if s, ok := a[0].(string); ok {
				return s
			}
			return nil
		})),
		catalogFunc("pg_get_indexdef", "o|ib", Text, "oid | oid,integer,boolean", none),
		catalogFunc("pg_get_constraintdef", "o|b", Text, "oid | oid,boolean", none),
		catalogFunc("pg_get_statisticsobjdef_columns", "o", Text, "oid", none),
		catalogFunc("pg_get_serial_sequence", "tt", Text, "text,text", none),
		catalogFunc("pg_get_userbyid", "o", Name, "oid", user),
		catalogFunc("pg_table_is_visible", "o", Bool, "oid",
			catalogRow(func(ev *evaluator, a []any) (any, error) { return ev.catalog.TableVisible(ev.ctx, a[0].(int64)) })),
		// Every type, function, operator, ... is in pg_catalog, always on
		// the path.
		catalogFunc("pg_type_is_visible", "o", Bool, "oid", visible),
		catalogFunc("pg_function_is_visible", "o", Bool, "oid", visible),
		catalogFunc("pg_operator_is_visible", "o", Bool, "oid", visible),
		catalogFunc("pg_conversion_is_visible", "o", Bool, "oid", visible),
		catalogFunc("pg_collation_is_visible", "o", Bool, "oid", visible),
		catalogFunc("pg_opclass_is_visible", "o", Bool, "oid", visible),
		catalogFunc("pg_opfamily_is_visible", "o", Bool, "oid", visible),
		catalogFunc("pg_ts_config_is_visible", "o", Bool, "oid", visible),
		catalogFunc("pg_statistics_obj_is_visible", "o", Bool, "oid", visible),
		catalogFunc("pg_get_function_result", "o", Text, "oid", none),
		catalogFunc("pg_get_function_arguments", "o", Text, "oid", none),
		catalogFunc("pg_get_function_sqlbody", "o", Text, "oid", none),
		catalogFunc("pg_get_functiondef", "o", Text, "oid", none),
		catalogFunc("pg_table_size", "o", Int64, "regclass", size),
		catalogFunc("pg_relation_size", "o|t", Int64, "regclass | regclass,text", size),
		catalogFunc("pg_total_relation_size", "o", Int64, "regclass", size),
		catalogFunc("pg_indexes_size", "o", Int64, "regclass",
			catalogRow(func(ev *evaluator, a []any) (any, error) {
				return relationIndexesSize(ev.ctx, ev.catalog, a[0].(int64))
			})),
		catalogFunc("pg_size_pretty", "n", Text, "bigint | numeric", valueOf(func(a []any) any { return SizePretty(a[0].(int64)) })),
		catalogFunc("pg_relation_is_publishable", "o", Bool, "regclass", valueOf(func([]any) any { return false })),
		catalogFunc("obj_description", "o|t", Text, "oid,name | oid", none),
		catalogFunc("col_description", "oi", Text, "oid,integer", none),
		catalogFunc("shobj_description", "ot", Text, "oid,name", none),
		catalogFunc("pg_encoding_to_char", "i", Text, "integer", valueOf(encodingName)),
		catalogFunc("current_schemas", "b", ArrayOf(Text), "boolean", catalogRow(func(ev *evaluator, a []any) (any, error) {
			s, err := ev.catalog.CurrentSchemas(ev.ctx, a[0].(bool))
			return textArray(s), err
		})),
		catalogFunc("current_schema", "", Name, "", catalogRow(currentSchema)).lax(),
		catalogFunc("current_database", "", Name, "", database).lax(),
		catalogFunc("current_user", "", Name, "", user).lax(),
		catalogFunc("session_user", "", Name, "", user).lax(),
		// current_catalog, user and current_role are SQL syntax in
		// PostgreSQL, no functions.
		catalogFunc("current_catalog", "", Name, "-", database).lax(),
		catalogFunc("user", "", Name, "-", user).lax(),
		catalogFunc("current_role", "", Name, "-", user).lax(),
		catalogFunc("version", "", Text, "", catalogRow(func(ev *evaluator, _ []any) (any, error) { return ev.catalog.Version(), nil })).lax(),
		catalogFunc("current_setting", "t|b", Text, "text | text,boolean",
			catalogRow(func(ev *evaluator, a []any) (any, error) { return currentSetting(ev.catalog, a) })),
		catalogFunc("pg_backend_pid", "", Int32, "", valueOf(func([]any) any { return int64(1) })).lax(),
		catalogFunc("pg_postmaster_start_time", "", TimestampTZ, "", none).lax(),
		{Name: "json_build_object", Volatility: Stable, Signatures: sigs(`"any" | `), bind: callBinder.bindJSONBuildObject, row: perRow(jsonBuildObject)},
	}
}

// catalogFunc is a strict catalog function whose argument classes are
// args, one letter per argument ('o' oid, 'i' integer, 'n' bigint or
// numeric, 't' text, 'b' boolean), the optional trailing ones after '|';
// its PostgreSQL signatures are signatures ("-": none).
func catalogFunc(name, args string, ret Type, signatures string, row func(*evaluator, *Func) rowFunc) Function {
	f := Function{Name: name, Volatility: Stable, Strict: true, bind: catalogSig(args, ret), row: row}
	if signatures != "-" {
		f.Signatures = sigs(signatures)
	}
	return f
}

// lax is f, not strict.
func (f Function) lax() Function {
	f.Strict = false
	return f
}

// catalogRow is a row computation that reads the session's catalog.
func catalogRow(fn func(ev *evaluator, a []any) (any, error)) func(*evaluator, *Func) rowFunc {
	return func(ev *evaluator, _ *Func) rowFunc {
		return func(a []any) (any, error) { return fn(ev, a) }
	}
}

// catalogSig binds a catalog function by its argument classes.
func catalogSig(classes string, ret Type) bindFunc {
	req, opt, _ := strings.Cut(classes, "|")
	return func(b callBinder, name string, args []Expr) (Expr, error) {
		if len(args) < len(req) || len(args) > len(req)+len(opt) {
			return nil, noFunction(name, args)
		}
		for i := range args {
			if err := b.catalogArg(name, args, i, (req + opt)[i]); err != nil {
				return nil, err
			}
		}
		return &Func{Name: name, Args: args, T: ret}, nil
	}
}

// catalogArg coerces argument i to its class.
func (b callBinder) catalogArg(name string, args []Expr, i int, class byte) error {
	want := map[byte]Type{'o': OID, 'i': Int32, 'n': Int64, 't': Text, 'b': Bool}[class]
	if class == '*' {
		want = Text
	}
	if isUnknown(args[i]) {
		c, err := b.coerceUnknown(args[i], want)
		if err != nil {
			return err
		}
		args[i] = c
		return nil
	}
	t := args[i].Type()
	switch class {
	case '*':
		return nil
	case 'o', 'i':
		if t.Kind == KindOID || t.Kind == KindInt16 || t.Kind == KindInt32 || t.Kind == KindInt64 {
			return nil
		}
	case 'n': // bigint or numeric (pg_size_pretty's two forms; a numeric past bigint fails the cast)
		if t.Kind == KindInt16 || t.Kind == KindInt32 || t.Kind == KindInt64 {
			return nil
		}
		if t.Kind == KindNumeric {
			args[i] = &Cast{X: args[i], T: Int64}
			return nil
		}
	case 't':
		if t.IsString() {
			return nil
		}
	case 'b':
		if t.Kind == KindBool {
			return nil
		}
	}
	return noFunction(name, args)
}

func (b callBinder) bindJSONBuildObject(_ string, args []Expr) (Expr, error) {
	if len(args)%2 != 0 {
		err := pgerr.Errorf(pgerr.InvalidParameterValue, "argument list must have even number of elements")
		err.Hint = "The arguments of json_build_object() must consist of alternating keys and values."
		return nil, err
	}
	for i := range args {
		if isUnknown(args[i]) {
			c, err := b.coerceUnknown(args[i], Text)
			if err != nil {
				return nil, err
			}
			args[i] = c
		}
	}
	regsAsText(args)
	return &Func{Name: "json_build_object", Args: args, T: JSON}, nil
}

func encodingName(a []any) any {
	if a[0].(int64) == 6 {
		return "UTF8"
	}
	return ""
}

func currentSchema(ev *evaluator, _ []any) (any, error) {
	s, err := ev.catalog.CurrentSchemas(ev.ctx, false)
	if err != nil || len(s) == 0 {
		return nil, err
	}
	return s[0], nil
}

func formatTypeCall(ev *evaluator, a []any) (any, error) {
	c := ev.catalog
	if a[0] == nil {
		return nil, nil
	}
	mod := int64(-1)
	if a[1] != nil {
		mod = a[1].(int64)
	}
	if s, ok := c.FormatType(a[0].(int64), mod); ok {
		return s, nil
	}
	return "???", nil // PostgreSQL's answer for an oid that is no type
}

func currentSetting(c Catalog, a []any) (any, error) {
	name := strings.ToLower(a[0].(string))
	if v, ok := c.Setting(name); ok {
		return v, nil
	}
	if len(a) > 1 && a[1].(bool) {
		return nil, nil
	}
	return nil, pgerr.Errorf(pgerr.UndefinedObject, "unrecognized configuration parameter %q", name)
}

func textArray(s []string) string {
	elems := make([]*string, len(s))
	for i := range s {
		elems[i] = &s[i]
	}
	return FormatArrayText(elems)
}
