package sql

import (
	"strings"

	"github.com/magmalake/magmalake/pgerr"
)

// The functions catalog clients call (psql's \d, pgjdbc's DatabaseMetaData,
// SQLAlchemy's inspector): session facts, visibility, privileges and the
// descriptions of objects magmalake has none of.

// catalogSig is a catalog function's argument classes, one letter per
// argument ('o' oid, 'i' integer, 't' text, 'b' boolean, '*' anything), the
// optional trailing ones after '|', and its result.
type catalogSig struct {
	args   string
	ret    Type
	strict bool
}

var catalogFuncs = map[string]catalogSig{
	"format_type":                     {"oi", Text, false},
	"pg_get_expr":                     {"to|b", Text, true},
	"pg_get_indexdef":                 {"o|ib", Text, true},
	"pg_get_constraintdef":            {"o|b", Text, true},
	"pg_get_statisticsobjdef_columns": {"o", Text, true},
	"pg_get_serial_sequence":          {"tt", Text, true},
	"pg_get_userbyid":                 {"o", Name, true},
	"pg_table_is_visible":             {"o", Bool, true},
	"pg_type_is_visible":              {"o", Bool, true},
	"pg_function_is_visible":          {"o", Bool, true},
	"pg_operator_is_visible":          {"o", Bool, true},
	"pg_conversion_is_visible":        {"o", Bool, true},
	"pg_collation_is_visible":         {"o", Bool, true},
	"pg_opclass_is_visible":           {"o", Bool, true},
	"pg_opfamily_is_visible":          {"o", Bool, true},
	"pg_ts_config_is_visible":         {"o", Bool, true},
	"pg_statistics_obj_is_visible":    {"o", Bool, true},
	"pg_get_function_result":          {"o", Text, true},
	"pg_get_function_arguments":       {"o", Text, true},
	"pg_get_function_sqlbody":         {"o", Text, true},
	"pg_get_functiondef":              {"o", Text, true},
	"pg_table_size":                   {"o", Int64, true},
	"pg_relation_size":                {"o|t", Int64, true},
	"pg_total_relation_size":          {"o", Int64, true},
	"pg_indexes_size":                 {"o", Int64, true},
	"pg_size_pretty":                  {"n", Text, true},
	"pg_relation_is_publishable":      {"o", Bool, true},
	// The privilege functions bind and run apart (func_privilege.go).
	"has_table_privilege":      {"", Bool, true},
	"has_schema_privilege":     {"", Bool, true},
	"has_database_privilege":   {"", Bool, true},
	"has_column_privilege":     {"", Bool, true},
	"has_any_column_privilege": {"", Bool, true},
	"has_sequence_privilege":   {"", Bool, true},
	"has_function_privilege":   {"", Bool, true},
	"has_type_privilege":       {"", Bool, true},
	"has_language_privilege":   {"", Bool, true},
	"has_tablespace_privilege": {"", Bool, true},
	"pg_has_role":              {"", Bool, true},
	"obj_description":          {"o|t", Text, true},
	"col_description":          {"oi", Text, true},
	"shobj_description":        {"ot", Text, true},
	"pg_encoding_to_char":      {"i", Text, true},
	"current_schemas":          {"b", ArrayOf(Text), true},
	"current_schema":           {"", Name, false},
	"current_database":         {"", Name, false},
	"current_catalog":          {"", Name, false},
	"current_user":             {"", Name, false},
	"session_user":             {"", Name, false},
	"user":                     {"", Name, false},
	"current_role":             {"", Name, false},
	"version":                  {"", Text, false},
	"current_setting":          {"t|b", Text, true},
	"pg_backend_pid":           {"", Int32, false},
	"pg_postmaster_start_time": {"", TimestampTZ, false},
	"json_build_object":        {"", JSON, false}, // variadic, checked apart
}

// CatalogFunctionNames lists the catalog functions, for pg_proc.
func CatalogFunctionNames() []string {
	out := make([]string, 0, len(catalogFuncs))
	for n := range catalogFuncs {
		out = append(out, n)
	}
	return out
}

func isCatalogFunc(name string) bool {
	_, ok := catalogFuncs[name]
	return ok
}

// bindCatalog binds a catalog function call; ok is false for other names.
func (b *binder) bindCatalog(name string, args []Expr) (Expr, bool, error) {
	sig, ok := catalogFuncs[name]
	if !ok {
		return nil, false, nil
	}
	if name == "json_build_object" {
		e, err := b.bindJSONBuildObject(args)
		return e, true, err
	}
	if e, ok, err := b.bindPrivilege(name, args); ok {
		return e, true, err
	}
	req, opt, _ := strings.Cut(sig.args, "|")
	if len(args) < len(req) || len(args) > len(req)+len(opt) {
		return nil, true, noFunction(name, args)
	}
	classes := req + opt
	for i := range args {
		if err := b.catalogArg(name, args, i, classes[i]); err != nil {
			return nil, true, err
		}
	}
	return &Func{Name: name, Args: args, T: sig.ret}, true, nil
}

// catalogArg coerces argument i to its class.
func (b *binder) catalogArg(name string, args []Expr, i int, class byte) error {
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

func (b *binder) bindJSONBuildObject(args []Expr) (Expr, error) {
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

func (ev *evaluator) catalogScalar(x *Func, a []any) (any, error) {
	c := ev.catalog
	if _, ok := privilegeFuncs[x.Name]; ok {
		return privilegeCall(ev.ctx, c, x, a)
	}
	switch x.Name {
	case "format_type":
		return formatTypeCall(c, a)
	case "pg_get_userbyid", "current_user", "session_user", "user", "current_role":
		return c.User(), nil
	case "current_database", "current_catalog":
		return c.Database(), nil
	case "version":
		return c.Version(), nil
	case "pg_table_is_visible":
		return c.TableVisible(ev.ctx, a[0].(int64))
	case "pg_type_is_visible":
		return true, nil // every type is in pg_catalog, always on the path
	case "pg_function_is_visible", "pg_operator_is_visible", "pg_conversion_is_visible",
		"pg_collation_is_visible", "pg_opclass_is_visible", "pg_opfamily_is_visible",
		"pg_ts_config_is_visible", "pg_statistics_obj_is_visible":
		return true, nil // every such object is in pg_catalog, always on the path
	case "pg_table_size", "pg_relation_size", "pg_total_relation_size":
		return relationSize(ev.ctx, c, a[0].(int64))
	case "pg_indexes_size":
		return relationIndexesSize(ev.ctx, c, a[0].(int64))
	case "pg_size_pretty":
		return SizePretty(a[0].(int64)), nil
	case "pg_relation_is_publishable":
		return false, nil
	case "pg_encoding_to_char":
		if a[0].(int64) == 6 {
			return "UTF8", nil
		}
		return "", nil
	case "current_schemas":
		s, err := c.CurrentSchemas(ev.ctx, a[0].(bool))
		return textArray(s), err
	case "current_schema":
		s, err := c.CurrentSchemas(ev.ctx, false)
		if err != nil || len(s) == 0 {
			return nil, err
		}
		return s[0], nil
	case "current_setting":
		return currentSetting(c, a)
	case "pg_backend_pid":
		return int64(1), nil
	case "json_build_object":
		return jsonBuildObject(x, a)
	case "pg_get_expr":
		// The only expressions the catalog keeps are column defaults, and
		// pg_attrdef.adbin holds them already deparsed.
		if s, ok := a[0].(string); ok {
			return s, nil
		}
		return nil, nil
	}
	// Descriptions, defaults, index and constraint definitions, function
	// signatures and bodies and start times: magmalake has none of those
	// objects (its functions are built in, without a recorded signature).
	return nil, nil
}

func formatTypeCall(c Catalog, a []any) (any, error) {
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
