package pgcatalog

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/magmalake/magmalake/sql"
)

// cast is __cast(x, 'type'): the reg* types look names up in the catalog,
// arrays pass through, the rest convert between the evaluator's values.
func (c *compiler) cast(x *ast.FuncCallExpr, sc *scope) (evalFn, sql.Type, error) {
	tn, ok := constString(x.Args[1])
	if !ok {
		return nil, sql.Type{}, sql.Errorf(sql.CodeSyntaxError, "__cast needs a type name")
	}
	tn = strings.TrimPrefix(strings.ToLower(strings.TrimSpace(tn)), "pg_catalog.")
	arg, _, err := c.expr(x.Args[0], sc)
	if err != nil {
		return nil, sql.Type{}, err
	}
	conv, t, err := converter(tn)
	if err != nil {
		return nil, sql.Type{}, err
	}
	return func(ec *execCtx, e *env) (any, error) {
		v, err := arg(ec, e)
		if err != nil || v == nil {
			return nil, err
		}
		return conv(ec, v)
	}, t, nil
}

type convFn func(ec *execCtx, v any) (any, error)

func converter(tn string) (convFn, sql.Type, error) {
	if strings.HasSuffix(tn, "[]") {
		return func(_ *execCtx, v any) (any, error) { return toArray(v), nil }, sql.Text, nil
	}
	switch tn {
	case "regclass":
		return toRegclass, sql.Text, nil
	case "regtype":
		return toRegtype, sql.Text, nil
	case "regnamespace":
		return toRegnamespace, sql.Text, nil
	case "regproc", "regprocedure":
		return func(_ *execCtx, v any) (any, error) {
			return strings.TrimPrefix(text(v), "pg_catalog."), nil
		}, sql.Text, nil
	case "oid", "regrole":
		return func(_ *execCtx, v any) (any, error) { return intOf(v) }, sql.OID, nil
	case "name", "char", `"char"`:
		return func(_ *execCtx, v any) (any, error) { return text(v), nil }, sql.Text, nil
	}
	t, err := sql.ParseTypeName(tn)
	if err != nil {
		return nil, sql.Type{}, err
	}
	return func(_ *execCtx, v any) (any, error) { return convertTo(v, t) }, t, nil
}

func intOf(v any) (any, error) {
	n, ok := asInt(v)
	if !ok {
		return nil, sql.Errorf(sql.CodeInvalidTextRep, "invalid input syntax for type oid: %q", text(v))
	}
	return n, nil
}

// convertTo converts v to a value of t (numbers, booleans, text).
func convertTo(v any, t sql.Type) (any, error) {
	switch t.Kind {
	case sql.KindInt16, sql.KindInt32, sql.KindInt64:
		if f, ok := v.(float64); ok {
			return int64(f + 0.5), nil
		}
		n, ok := asInt(v)
		if !ok {
			return nil, sql.Errorf(sql.CodeInvalidTextRep, "invalid input syntax for type %s: %q", t, text(v))
		}
		return n, nil
	case sql.KindFloat32, sql.KindFloat64, sql.KindNumeric:
		f, ok := asFloat(v)
		if !ok {
			return nil, sql.Errorf(sql.CodeInvalidTextRep, "invalid input syntax for type %s: %q", t, text(v))
		}
		return f, nil
	case sql.KindBool:
		b, ok := asBool(v)
		if !ok {
			return nil, sql.Errorf(sql.CodeInvalidTextRep, "invalid input syntax for type boolean: %q", text(v))
		}
		return b, nil
	}
	return text(v), nil
}

// toRegclass reads an OID or a (qualified) relation name.
func toRegclass(ec *execCtx, v any) (any, error) {
	if n, ok := asInt(v); ok {
		return regValue{oid: n, name: ec.snap.relationName(n)}, nil
	}
	s := text(v)
	schema, name := splitQualified(s)
	if schema == "" || schema == "pg_catalog" || schema == "information_schema" {
		if d := findRelation(schema, name); d != nil {
			return regValue{oid: d.oid, name: name}, nil
		}
	}
	if t := ec.snap.lookupTable(schema, name); t != nil {
		return regValue{oid: t.oid, name: ec.snap.relationName(t.oid)}, nil
	}
	return nil, sql.Errorf(sql.CodeUndefinedTable, "relation %q does not exist", s)
}

func toRegtype(_ *execCtx, v any) (any, error) {
	if n, ok := asInt(v); ok {
		name := ""
		if t := typeByOID(n); t != nil {
			name = t.display
		}
		return regValue{oid: n, name: name}, nil
	}
	t := typeByName(text(v))
	if t == nil {
		return nil, sql.Errorf(sql.CodeUndefinedObject, "type %q does not exist", text(v))
	}
	return regValue{oid: t.oid, name: t.display}, nil
}

func toRegnamespace(ec *execCtx, v any) (any, error) {
	if n, ok := asInt(v); ok {
		name := ""
		if ns := ec.snap.namespaceByOID(n); ns != nil {
			name = ns.name
		}
		return regValue{oid: n, name: name}, nil
	}
	ns := ec.snap.namespace(text(v))
	if ns == nil {
		return nil, sql.Errorf(sql.CodeInvalidSchemaName, "schema %q does not exist", text(v))
	}
	return regValue{oid: ns.oid, name: ns.name}, nil
}

func splitQualified(s string) (string, string) {
	unq := func(p string) string {
		if strings.HasPrefix(p, `"`) && strings.HasSuffix(p, `"`) && len(p) >= 2 {
			return strings.ReplaceAll(p[1:len(p)-1], `""`, `"`)
		}
		return strings.ToLower(p)
	}
	if i := strings.LastIndexByte(s, '.'); i > 0 && !strings.HasSuffix(s, `"`) || i > 0 && strings.Count(s[:i], `"`)%2 == 0 {
		return unq(s[:i]), unq(s[i+1:])
	}
	return "", unq(s)
}

// relationName is regclass output: the name, qualified when the table is
// not visible through the search path.
func (s *snapshot) relationName(oid int64) string {
	if t := s.byOID[oid]; t != nil {
		if s.visible(t) {
			return quoteIdent(t.name)
		}
		return quoteIdent(t.ns.name) + "." + quoteIdent(t.name)
	}
	for _, d := range relations {
		if d.oid == oid && d.oid != 0 {
			return d.name
		}
	}
	return itoa(oid)
}
