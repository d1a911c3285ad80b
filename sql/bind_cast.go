package sql

import (
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql/parse"
)

// Casts and parameters: the normaliser writes x::t as __cast(x, 't') and $n
// as __param(n); opBinder binds both.

// bindParam binds __param(n), the normaliser's form of $n.
func (b opBinder) bindParam(n *parse.FuncCall) (Expr, error) {
	if len(n.Args) != 1 {
		return nil, pgerr.Errorf(pgerr.SyntaxError, "__param takes one argument")
	}
	k, ok := literalInt(n.Args[0])
	if !ok || k < 1 || k > 65535 {
		// PostgreSQL says undefined_parameter (42P02) here; the code stays
		// the 42704 this server's clients already get.
		return nil, pgerr.Errorf(pgerr.UndefinedObject, "there is no parameter $%d", k)
	}
	idx := int(k - 1)
	return &Param{Index: idx, T: b.params.typeOf(idx)}, nil
}

// bindCast binds __cast(x, 't'), the normaliser's form of x::t.
func (b opBinder) bindCast(n *parse.FuncCall) (Expr, error) {
	if len(n.Args) != 2 {
		return nil, pgerr.Errorf(pgerr.SyntaxError, "__cast takes two arguments")
	}
	tn, ok := literalString(n.Args[1])
	if !ok {
		return nil, pgerr.Errorf(pgerr.SyntaxError, "__cast needs a type name")
	}
	t, err := ParseTypeName(tn)
	if err != nil {
		return nil, err
	}
	x, err := b.bind(n.Args[0])
	if err != nil {
		return nil, err
	}
	if round := DateTimeRound(tn); round > 0 && (t.Kind == KindTime || t.Kind == KindTimestamp || t.Kind == KindTimestampTZ) {
		return b.bindRoundingCast(x, t, round)
	}
	if IsInternalChar(tn) {
		return b.internalCharCast(x)
	}
	return b.bindPlainCast(x, t)
}

// internalCharCast is x::"char": the one-byte internal type keeps the
// first character of the text (PostgreSQL's first byte, the same for
// ASCII), carried as text.
func (b opBinder) internalCharCast(x Expr) (Expr, error) {
	s, err := b.bindPlainCast(x, Text)
	if err != nil {
		return nil, err
	}
	return b.calls().bindScalar("left", []Expr{s, &Const{Value: int64(1), T: Int32}})
}

// bindPlainCast is CAST(x AS t) for a bound x.
func (b opBinder) bindPlainCast(x Expr, t Type) (Expr, error) {
	var err error
	if t.Kind == KindNumeric && t.Precision == 0 {
		// Unconstrained numeric keeps the values' scale; the Arrow column
		// needs one, so take the source's (floats: 16 places).
		switch xt := x.Type(); {
		case xt.Kind == KindNumeric:
			t.Scale = xt.Scale
		case xt.Kind == KindFloat32 || xt.Kind == KindFloat64:
			t.Scale = 16
		}
	}
	if t.Reg != RegNone || x.Type().Reg != RegNone {
		if !regCastable(x.Type(), t) {
			return nil, pgerr.Errorf(pgerr.CannotCoerce, "cannot cast type %s to %s", x.Type().SigName(), t.SigName())
		}
		// Names are looked up when the statement runs, in its catalog.
		if isUnknown(x) {
			if x, err = b.coerceUnknown(x, Text); err != nil {
				return nil, err
			}
		}
		return &Cast{X: x, T: t}, nil
	}
	switch v := x.(type) {
	case *Const:
		// PostgreSQL reads a typed literal directly as t and folds constant
		// casts at plan time, raising their errors then; a cast that does
		// not exist fails as it would for a column (true::bigint was 0).
		if !castable(v.T, t) {
			return nil, pgerr.Errorf(pgerr.CannotCoerce, "cannot cast type %s to %s", v.T.SigName(), t.SigName())
		}
		d, err := b.params.Input.castDatum(v.Value, v.T, t)
		if s, ok := v.Value.(string); err != nil && ok && v.T.Kind == KindUnknown {
			return nil, LiteralInput(err, s)
		}
		if err != nil {
			return nil, err
		}
		if dd, ok := d.(Decimal); ok && t.Kind == KindNumeric && t.Precision == 0 {
			// Unconstrained numeric keeps the literal's own scale:
			// '2.25'::numeric is 2.25, not 2.
			t.Scale = dd.Scale
		}
		return &Const{Value: d, T: t}, nil
	case *Param:
		if v.T.Kind == KindUnknown {
			b.params.Types[v.Index] = t
			return &Param{Index: v.Index, T: t}, nil
		}
	}
	if !castable(x.Type(), t) {
		return nil, pgerr.Errorf(pgerr.CannotCoerce, "cannot cast type %s to %s", x.Type().SigName(), t.SigName())
	}
	if x.Type() == t {
		return x, nil
	}
	return &Cast{X: x, T: t}, nil
}

// bindRoundingCast is a cast to time(p), timestamp(p) or timestamptz(p):
// the plain cast, then the rounding, which is never a no-op (a timestamp
// cast to timestamp(0) still loses its fraction). A literal is folded.
func (b opBinder) bindRoundingCast(x Expr, t Type, round int64) (Expr, error) {
	plain, err := b.bindPlainCast(x, t)
	if err != nil {
		return nil, err
	}
	if c, ok := plain.(*Const); ok {
		return &Const{Value: roundDateTime(c.Value, t, round), T: c.T}, nil
	}
	if c, ok := plain.(*Cast); ok && c.Round == 0 {
		return &Cast{X: c.X, T: c.T, Round: round}, nil
	}
	return &Cast{X: plain, T: t, Round: round}, nil
}

// castable reports whether PostgreSQL has a cast from one type to the other.
func castable(from, to Type) bool {
	switch {
	case from.Kind == KindArray && to.Kind == KindArray:
		return castable(from.ElemType(), to.ElemType())
	case from.Kind == KindRecord || to.Kind == KindRecord:
		return from.Kind == to.Kind || to.IsString()
	case from.Kind == to.Kind, from.IsString(), to.IsString(), from.Kind == KindUnknown:
		return true
	case from.Kind == KindOID && (to.Kind == KindInt32 || to.Kind == KindInt64), isInteger(from) && to.Kind == KindOID:
		return true
	case from.IsNumeric() && to.IsNumeric():
		return true
	case isDateTime(from) && isDateTime(to):
		return true
	case (from.Kind == KindTimestamp || from.Kind == KindTimestampTZ || from.Kind == KindInterval) && to.Kind == KindTime:
		return true
	case from.Kind == KindTime && to.Kind == KindInterval:
		return true
	case from.Kind == KindInt32 && to.Kind == KindBool, from.Kind == KindBool && to.Kind == KindInt32:
		return true
	}
	return false
}
