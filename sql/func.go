package sql

import (
	"strings"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql/parse"
)

// bindFuncCall binds the front end's internal forms (__param, __cast, __true,
// __false, __ilike, ...), SQL syntax that looks like a call (trim, GROUPING)
// and calls of the registry's functions (func_registry.go).
func (b callBinder) bindFuncCall(n *parse.FuncCall) (Expr, error) {
	name := n.Name
	if n.Schema != "" {
		return b.qualifiedCall(n)
	}
	switch name {
	case "__param":
		return b.ops().bindParam(n)
	case "__colidx":
		return b.bindColumnIndex(n)
	case "__cast":
		return b.ops().bindCast(n)
	case "__true", "__false":
		return &Const{Value: name == "__true", T: Bool}, nil
	case "__numeric":
		return bindLongNumber(n)
	case "__ilike":
		if len(n.Args) < 2 || len(n.Args) > 3 {
			return nil, pgerr.Errorf(pgerr.SyntaxError, "__ilike takes 2 or 3 arguments")
		}
		esc := `\`
		if len(n.Args) == 3 {
			s, ok := literalString(n.Args[2])
			if !ok {
				return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "ESCAPE must be a string literal")
			}
			esc = s
		}
		return b.ops().bindLike(n.Args[0], n.Args[1], esc, true, false)
	case "trim":
		return b.bindTrim(n)
	case "regexp_match", "regexp_matches", "regexp_split_to_array", "regexp_split_to_table":
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "%s() returns an array or a set, which is not supported; (regexp_match(...))[n] is", name)
	case "__any", "__all":
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "%s (array) is not supported", strings.ToUpper(name[2:]))
	case "__array", "__array_sub", "__subscript":
		e, _, err := b.composites().bindArrayNode(n)
		return e, err
	case "__field":
		return b.bindField(n)
	}
	if name == "grouping" {
		return b.aggs().bindGrouping(n.Args)
	}
	if agg, distinct, ok := callAggregate(name); ok {
		return b.aggs().bindAggregateCall(agg, n.Args, distinct)
	}
	if err := notAggregate(name, n.Args); err != nil {
		return nil, err
	}
	if f := functions[name]; f != nil && f.bindCall != nil {
		if e, ok, err := f.bindCall(b, n); ok {
			return e, err
		}
	}
	args := make([]Expr, len(n.Args))
	for i, a := range n.Args {
		var err error
		if args[i], err = b.bind(a); err != nil {
			return nil, err
		}
	}
	return b.bindScalar(name, args)
}

// qualifiedCall binds schema.f(args): every function is pg_catalog's, so
// pg_catalog.f is f (the normaliser passes most such calls on unqualified)
// and f in any other schema does not exist. pg_catalog.coalesce and its
// kind are syntax, no functions, in PostgreSQL.
func (b callBinder) qualifiedCall(n *parse.FuncCall) (Expr, error) {
	name := n.Name
	switch name {
	case "coalesce", "nullif", "greatest", "least":
	default:
		if n.Schema == "pg_catalog" {
			plain := *n
			plain.Schema, plain.WrittenSchema = "", ""
			return b.bindFuncCall(&plain)
		}
	}
	args := make([]Expr, len(n.Args))
	for i, a := range n.Args {
		var err error
		if args[i], err = b.bind(a); err != nil {
			return nil, err
		}
	}
	return nil, noFunction(n.WrittenSchema+"."+n.WrittenName, args)
}

// notAggregate is 42809 for ORDER BY or FILTER (the normaliser's marker
// arguments) given to a function that is no aggregate.
func notAggregate(name string, args []parse.Expr) error {
	_, order, filter := aggMarkers(args)
	switch {
	case order != nil:
		return pgerr.Errorf(pgerr.WrongObjectType, "ORDER BY specified, but %s is not an aggregate function", name)
	case filter != nil:
		return pgerr.Errorf(pgerr.WrongObjectType, "FILTER specified, but %s is not an aggregate function", name)
	}
	return nil
}

// untypedLiteral reports a quoted string or NULL literal.
func untypedLiteral(n parse.Expr) bool {
	v, ok := n.(*parse.Const)
	if !ok {
		return false
	}
	switch v.Value.(type) {
	case nil, string:
		return true
	}
	return false
}

func literalString(n parse.Expr) (string, bool) {
	v, ok := n.(*parse.Const)
	if !ok {
		return "", false
	}
	s, ok := v.Value.(string)
	return s, ok
}

func literalInt(n parse.Expr) (int64, bool) {
	v, ok := n.(*parse.Const)
	if !ok {
		return 0, false
	}
	switch x := v.Value.(type) {
	case int64:
		return x, true
	case uint64:
		return int64(x), true
	}
	return 0, false
}

// nullifOperand is NULLIF's first argument as the = operator takes it,
// which is NULLIF's type: varchar is compared (and returned) as text, the
// reg* types as oid (nullif(pg_typeof(1), 0) is the oid 23), and so is an
// integer compared with an oid.
func nullifOperand(l, r Expr) Expr {
	switch t := l.Type(); {
	case t.Reg != RegNone && !t.IsArray(), isInteger(t) && r.Type().Kind == KindOID:
		return &Cast{X: l, T: OID}
	case t.Kind == KindVarchar && !t.Bpchar:
		return castTo(l, Text)
	}
	return l
}

// bindTrim handles the parser's trim(x), trim(x, chars) and trim(x, chars, direction).
func (b callBinder) bindTrim(n *parse.FuncCall) (Expr, error) {
	name := "btrim"
	args := make([]Expr, 0, 2)
	for i, a := range n.Args {
		if d, ok := a.(*parse.TrimDirection); ok {
			switch d.Dir {
			case parse.TrimLeading:
				name = "ltrim"
			case parse.TrimTrailing:
				name = "rtrim"
			}
			continue
		}
		e, err := b.bind(a)
		if err != nil {
			return nil, err
		}
		_ = i
		args = append(args, e)
	}
	e, err := b.bindScalar(name, args)
	if err != nil {
		return nil, qualified(err)
	}
	return e, nil
}

func (b callBinder) textArgs(name string, args []Expr) error {
	for i, a := range args {
		if isUnknown(a) {
			c, err := b.coerceUnknown(a, Text)
			if err != nil {
				return err
			}
			args[i] = c
		} else if !a.Type().IsString() {
			return noFunction(name, args)
		}
	}
	return nil
}

// intArg coerces an untyped argument to integer and requires an integer type.
func (b callBinder) intArg(name string, args []Expr, i int) error {
	if isUnknown(args[i]) {
		c, err := b.coerceUnknown(args[i], Int32)
		if err != nil {
			return err
		}
		args[i] = c
	}
	switch args[i].Type().Kind {
	case KindInt16, KindInt32:
		return nil
	}
	return noFunction(name, args)
}

// bindScalar binds a call of a scalar function. Binding may give an
// untyped argument a candidate's type before finding that no candidate
// fits; the error then names the types the call wrote, as PostgreSQL's.
func (b callBinder) bindScalar(name string, args []Expr) (Expr, error) {
	written := exprTypes(args)
	e, err := b.bindRegistered(name, args)
	if err != nil {
		return nil, asWritten(err, written)
	}
	return e, nil
}

func castTo(e Expr, t Type) Expr {
	if e.Type() == t {
		return e
	}
	return &Cast{X: e, T: t}
}

func isIntegerKind(t Type) bool {
	switch t.Kind {
	case KindInt16, KindInt32, KindInt64:
		return true
	}
	return false
}

// bindLongNumber binds a numeric literal the normaliser kept away from TiDB.
func bindLongNumber(n *parse.FuncCall) (Expr, error) {
	s, ok := "", len(n.Args) == 1
	if ok {
		s, ok = literalString(n.Args[0])
	}
	if !ok {
		return nil, pgerr.Errorf(pgerr.SyntaxError, "__numeric takes one string")
	}
	d, err := readNumeric(s)
	if err != nil {
		return nil, err
	}
	// Numeric even when integral: PostgreSQL reads 1e8 as numeric, so 1e8 / 3
	// is not an integer division.
	return &Const{Value: d, T: Numeric(0, d.Scale)}, nil
}

func isInteger(t Type) bool {
	return t.Kind == KindInt16 || t.Kind == KindInt32 || t.Kind == KindInt64
}
