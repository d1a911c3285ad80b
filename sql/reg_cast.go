package sql

import (
	"math"
	"strings"

	"github.com/magmalake/magmalake/pgerr"
)

// The reg* types are oids whose text form is an object's name: casting
// text to regclass looks the name up, casting regclass to text prints the
// name, both through the session's catalog.

func (ev *evaluator) evalRegCast(x *Cast, sel []int) ([]any, error) {
	from := x.X.Type()
	cast := ev.regCastDatum
	if from.Kind == KindArray || x.T.Kind == KindArray {
		cast = ev.regArrayCast
	}
	return ev.evalMap1(x.X, sel, func(v any) (any, error) { return cast(v, from, x.T) })
}

// regCastDatum casts one value to or from a reg* type.
func (ev *evaluator) regCastDatum(v any, from, to Type) (any, error) {
	switch {
	case to.Reg != RegNone && (from.IsString() || from.Kind == KindUnknown):
		return ev.regIn(to.Reg, v.(string))
	case to.Reg != RegNone && from.Reg != RegNone:
		return v, nil
	case to.Reg != RegNone:
		return castOID(v, from, OID) // from an oid or an integer
	case to.IsString() || to.Kind == KindUnknown:
		s, err := ev.regOut(from.Reg, v.(int64))
		if err != nil {
			return nil, err
		}
		// As text's explicit cast: pg_typeof(1)::varchar(3) is int.
		return ev.input.castDatum(s, Text, to)
	}
	return ev.input.castDatum(v, OID, to)
}

// regArrayCast casts an array to or from an array of a reg* type element
// by element; text on either side is the array's text form, whose elements
// are names (regtype[]::text is {integer}, not {23}).
func (ev *evaluator) regArrayCast(v any, from, to Type) (any, error) {
	elems, err := ParseArrayText(v.(string))
	if err == nil {
		err = singleDimension(v.(string))
	}
	if err != nil {
		return nil, err
	}
	fe, te := Text, Text
	if from.Kind == KindArray {
		fe = from.ElemType()
	}
	if to.Kind == KindArray {
		te = to.ElemType()
	}
	out := make([]*string, len(elems))
	for i, e := range elems {
		if e == nil {
			continue
		}
		d, err := ev.input.CoerceText(*e, fe)
		if err == nil {
			d, err = ev.regCastDatum(d, fe, te)
		}
		if err != nil {
			return nil, err
		}
		s := formatDatum(d, te)
		out[i] = &s
	}
	if to.Kind == KindArray {
		return FormatArrayText(out), nil
	}
	return ev.input.castDatum(FormatArrayText(out), Text, to)
}

// regOut is a reg* type's output: the name of what the oid stands for, -
// for no object (oid 0).
func (ev *evaluator) regOut(kind RegKind, oid int64) (string, error) {
	if oid == 0 {
		return "-", nil
	}
	return ev.catalog.RegName(ev.ctx, kind, oid)
}

// regCastable reports PostgreSQL's casts to and from the reg* types: text
// both ways (input and output functions), oid and the integers (to a reg*
// type from smallint too, from one to int and bigint only), and between
// regproc and regprocedure; arrays of them element by element, and from
// and to text.
func regCastable(from, to Type) bool {
	switch {
	case from.Kind == KindArray && to.Kind == KindArray:
		return regCastable(from.ElemType(), to.ElemType())
	case from.Kind == KindArray:
		return to.IsString()
	case to.Kind == KindArray:
		return from.IsString() || from.Kind == KindUnknown
	case from.Reg != RegNone && to.Reg != RegNone:
		return from.Reg == to.Reg || isProcReg(from.Reg) && isProcReg(to.Reg)
	case to.Reg != RegNone:
		return from.IsString() || from.Kind == KindUnknown || from.Kind == KindOID || isInteger(from)
	}
	return to.IsString() || to.Kind == KindOID || to.Kind == KindInt32 || to.Kind == KindInt64
}

func isProcReg(k RegKind) bool { return k == RegProc || k == RegProcedure }

// regIn reads an oid or a name as a reg* value: - is no object (oid 0),
// digits alone are an oid, anything else a name.
func (ev *evaluator) regIn(kind RegKind, s string) (any, error) {
	switch {
	case s == "-":
		return int64(0), nil
	case s != "" && strings.Trim(s, "0123456789") == "":
		return parseInt(s, OID)
	}
	t := strings.TrimSpace(s)
	if kind == RegType {
		if oid, ok, err := regTypeIn(t); ok || err != nil {
			return oid, err
		}
		if pt, err := ParseTypeName(t); err == nil && !standInType(t) {
			t = pt.String()
		}
	}
	if kind == RegProcedure && !strings.Contains(t, "(") {
		return nil, pgerr.Errorf(pgerr.InvalidTextRepresentation, "expected a left parenthesis")
	}
	return ev.catalog.RegOID(ev.ctx, kind, t)
}

// The types this package implements have PostgreSQL's fixed oids, so
// regtype names them, and reads their names, without a catalog: outside a
// session pg_typeof(1)::text is integer too, and int[] is integer[] (the
// session's catalog does not know array types by name).

// regPseudoTypes are the types pg_typeof can name that TypeFromOID does not
// map: unknown, record and the reg* types themselves.
var regPseudoTypes = map[int64]string{705: "unknown", 2249: "record", 24: "regproc", 2202: "regprocedure",
	2205: "regclass", 2206: "regtype", 4089: "regnamespace"}

// builtinTypeName is regtype's output for an oid this package knows.
func builtinTypeName(oid int64) (string, bool) {
	if s, ok := regPseudoTypes[oid]; ok {
		return s, true
	}
	if oid <= 0 || oid > math.MaxUint32 {
		return "", false
	}
	t := TypeFromOID(uint32(oid))
	if t.Kind == KindUnknown || int64(t.OID()) != oid {
		return "", false
	}
	return t.SigName(), true
}

// builtinTypeOID is regtype's input for a type name ParseTypeName read as
// t, when t is a type this package knows by its oid.
func builtinTypeOID(t Type) (int64, bool) {
	oid := t.OID()
	if u := TypeFromOID(oid); u.Kind != t.Kind || u.Elem != t.Elem {
		return 0, false
	}
	return int64(oid), true
}

// regTypeIn reads the type names this package knows (ok); the others are
// the catalog's. A number among blanks, or after a sign, is not a type
// name but a syntax error, as PostgreSQL's type name parser finds.
func regTypeIn(t string) (int64, bool, error) {
	switch {
	case t == "":
		return 0, false, pgerr.Errorf(pgerr.SyntaxError, "invalid type name %q", t)
	case strings.Trim(t, "0123456789") == "":
		return 0, false, pgerr.Errorf(pgerr.SyntaxError, "syntax error at or near %q", t)
	case strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+"):
		return 0, false, pgerr.Errorf(pgerr.SyntaxError, "syntax error at or near %q", t[:1])
	}
	for oid, name := range regPseudoTypes {
		if strings.EqualFold(t, name) {
			return oid, true, nil
		}
	}
	if standInType(t) {
		return 0, false, nil
	}
	pt, err := ParseTypeName(t)
	if err != nil {
		return 0, false, nil
	}
	oid, ok := builtinTypeOID(pt)
	return oid, ok, nil
}

// standInType reports a type name (with modifiers or [] after it) that
// ParseTypeName maps to another type than PostgreSQL's of that name (name
// as text, jsonb as json, ...): regtype leaves it to the catalog as written.
func standInType(name string) bool {
	n := strings.ToLower(strings.TrimSpace(name))
	n = strings.TrimPrefix(n, "pg_catalog.")
	if i := strings.IndexAny(n, "(["); i >= 0 {
		n = strings.TrimSpace(n[:i])
	}
	switch n {
	case "name", "double", "jsonb", "regrole", `"char"`, "aclitem", "pg_node_tree", "xid", "anyarray",
		"int2vector", "oidvector":
		return true
	}
	return false
}
