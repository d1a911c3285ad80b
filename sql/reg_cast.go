package sql

import (
	"strconv"
	"strings"
)

// The reg* types are oids whose text form is an object's name: casting
// text to regclass looks the name up, casting regclass to text prints the
// name, both through the session's catalog.

func (ev *evaluator) evalRegCast(x *Cast, sel []int) ([]any, error) {
	from := x.X.Type()
	return ev.evalMap1(x.X, sel, func(v any) (any, error) {
		switch {
		case x.T.Reg != RegNone && (from.IsString() || from.Kind == KindUnknown):
			return ev.regIn(x.T.Reg, v.(string))
		case x.T.Reg != RegNone:
			return v, nil // from an oid or integer, or another reg* type
		case from.Reg != RegNone && (x.T.IsString() || x.T.Kind == KindUnknown):
			s, err := ev.catalog.RegName(ev.ctx, from.Reg, v.(int64))
			if err != nil {
				return nil, err
			}
			return castTextDatum(s, x.T)
		}
		return ev.input.castDatum(v, Type{Kind: KindOID}, x.T)
	})
}

// regIn reads an oid or a name as a reg* value.
func (ev *evaluator) regIn(kind RegKind, s string) (any, error) {
	t := strings.TrimSpace(s)
	if n, err := strconv.ParseInt(t, 10, 64); err == nil && n >= 0 {
		return n, nil
	}
	if kind == RegType {
		if pt, err := ParseTypeName(t); err == nil {
			t = pt.String()
		}
	}
	if kind == RegProcedure && !strings.Contains(t, "(") {
		return nil, Errorf(CodeInvalidTextRep, "expected a left parenthesis")
	}
	return ev.catalog.RegOID(ev.ctx, kind, t)
}
