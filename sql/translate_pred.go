package sql

import (
	"math"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/iceberg-go"
	"github.com/google/uuid"
)

// litResult says how a constant relates to a column's Iceberg values.
type litResult uint8

const (
	litExact litResult = iota // the literal is exactly the constant
	litNever                  // no column value can equal the constant
	litNaN                    // the constant is a float NaN
	litNone                   // not expressible
)

// integral column kinds are compared as integers in their own units
// (int, long, decimal unscaled, days, microseconds).
func integralKind(t Type) bool {
	switch t.Kind {
	case KindInt16, KindInt32, KindInt64, KindNumeric, KindDate, KindTime, KindTimestamp, KindTimestampTZ:
		return true
	}
	return false
}

// unitsRat is constant k in the column's integer units, exactly. For a float
// constant the special values come back as a float with ok false.
func unitsRat(t Type, k *Const) (*big.Rat, float64, bool) {
	var r *big.Rat
	switch v := k.Value.(type) {
	case int64:
		r = new(big.Rat).SetInt64(v)
	case Decimal:
		r = v.Rat()
	case float64:
		// PostgreSQL compares float8(column) with the float; that is the
		// exact comparison as long as the column's values convert exactly
		// (int) or monotonically around the constant (|c| < 2^53 for long).
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, v, false
		}
		if t.Kind == KindNumeric || t.Kind == KindInt64 && math.Abs(v) >= 1<<53 {
			return nil, 0, false
		}
		r = new(big.Rat).SetFloat64(v)
	default:
		return nil, 0, false
	}
	switch {
	case t.Kind == KindNumeric:
		r.Mul(r, new(big.Rat).SetInt(pow10(t.Scale)))
	case t.Kind == KindDate && (k.T.Kind == KindTimestamp || k.T.Kind == KindTimestampTZ):
		r.Quo(r, new(big.Rat).SetInt64(usPerDay))
	case (t.Kind == KindTimestamp || t.Kind == KindTimestampTZ) && k.T.Kind == KindDate:
		r.Mul(r, new(big.Rat).SetInt64(usPerDay))
	}
	return r, 0, true
}

// unitRange is the range of the column's Iceberg values in its units.
func unitRange(t Type) (*big.Int, *big.Int) {
	switch t.Kind {
	case KindInt16, KindInt32, KindDate:
		return big.NewInt(math.MinInt32), big.NewInt(math.MaxInt32)
	case KindNumeric:
		hi := new(big.Int).Sub(pow10(t.Precision), big.NewInt(1))
		return new(big.Int).Neg(hi), hi
	}
	return big.NewInt(math.MinInt64), big.NewInt(math.MaxInt64)
}

// unitLiteral is the Iceberg literal of integer k in the column's units.
func unitLiteral(t Type, k *big.Int) iceberg.Literal {
	switch t.Kind {
	case KindInt16, KindInt32:
		return iceberg.NewLiteral(int32(k.Int64()))
	case KindNumeric:
		return iceberg.NewLiteral(iceberg.Decimal{Val: decimal128.FromBigInt(k), Scale: t.Scale})
	case KindDate:
		return iceberg.NewLiteral(iceberg.Date(k.Int64()))
	case KindTime:
		return iceberg.NewLiteral(iceberg.Time(k.Int64()))
	case KindTimestamp, KindTimestampTZ:
		return iceberg.NewLiteral(iceberg.Timestamp(k.Int64()))
	}
	return iceberg.NewLiteral(k.Int64())
}

// literalFor is the column literal equal to k, for = and IN.
func literalFor(col *ColumnRef, k *Const) (iceberg.Literal, litResult) {
	t := col.T
	switch {
	case integralKind(t):
		r, f, ok := unitsRat(t, k)
		if !ok {
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, litNever
			}
			return nil, litNone
		}
		lo, hi := unitRange(t)
		if !r.IsInt() || r.Num().Cmp(lo) < 0 || r.Num().Cmp(hi) > 0 {
			return nil, litNever
		}
		return unitLiteral(t, r.Num()), litExact
	case t.Kind == KindFloat32 || t.Kind == KindFloat64:
		c := toDomain(k.Value, k.T, Float64).(float64)
		if math.IsNaN(c) {
			return nil, litNaN
		}
		if t.Kind == KindFloat64 {
			return iceberg.NewLiteral(c), litExact
		}
		if f := float32(c); float64(f) == c {
			return iceberg.NewLiteral(f), litExact
		}
		return nil, litNever
	}
	switch v := k.Value.(type) {
	case string:
		if t.IsString() {
			return iceberg.NewLiteral(v), litExact
		}
	case []byte:
		if t.Kind == KindBytea {
			return iceberg.NewLiteral(v), litExact
		}
	case [16]byte:
		if t.Kind == KindUUID {
			return iceberg.NewLiteral(uuid.UUID(v)), litExact
		}
	case bool:
		if t.Kind == KindBool {
			return iceberg.NewLiteral(v), litExact
		}
	}
	return nil, litNone
}

// comparePredicate is an Iceberg filter true exactly for the non-null column
// values for which "column op k" is TRUE in PostgreSQL (k non-null).
// Iceberg's row evaluator orders null below every value, so < and <= are
// guarded with not_null to stay exact.
func comparePredicate(col *ColumnRef, op CmpOp, k *Const) (iceberg.BooleanExpression, bool) {
	f, exact := rawComparePredicate(col, op, k)
	if op != OpLT && op != OpLE {
		return f, exact
	}
	switch f.(type) {
	case iceberg.AlwaysFalse, iceberg.AlwaysTrue:
		return f, exact
	}
	if up, ok := f.(iceberg.UnboundPredicate); ok && up.Op() == iceberg.OpNotNull {
		return f, exact
	}
	return iceberg.NewAnd(f, iceberg.NotNull(iceberg.Reference(col.Name))), exact
}

func rawComparePredicate(col *ColumnRef, op CmpOp, k *Const) (iceberg.BooleanExpression, bool) {
	ref := iceberg.Reference(col.Name)
	if op == OpEQ || op == OpNE {
		lit, res := literalFor(col, k)
		var eq iceberg.BooleanExpression
		switch res {
		case litNone:
			return untranslatable()
		case litNever:
			eq = iceberg.AlwaysFalse{}
		case litNaN:
			eq = iceberg.IsNaN(ref)
		default:
			eq = iceberg.LiteralPredicate(iceberg.OpEQ, ref, lit)
		}
		if op == OpEQ {
			return eq, true
		}
		return iceberg.NewAnd(eq.Negate(), iceberg.NotNull(ref)), true
	}
	t := col.T
	switch {
	case integralKind(t):
		return integralRange(col, op, k)
	case t.Kind == KindFloat32 || t.Kind == KindFloat64:
		return floatRange(col, op, toDomain(k.Value, k.T, Float64).(float64))
	case t.Kind == KindBool:
		return boolRange(ref, op, k.Value.(bool)), true
	case t.IsString() || t.Kind == KindBytea:
		lit, res := literalFor(col, k)
		if res != litExact {
			return untranslatable()
		}
		return iceberg.LiteralPredicate(iceOp(op), ref, lit), true
	}
	return untranslatable()
}

func iceOp(op CmpOp) iceberg.Operation {
	return [...]iceberg.Operation{iceberg.OpEQ, iceberg.OpNEQ, iceberg.OpLT, iceberg.OpLTEQ, iceberg.OpGT, iceberg.OpGTEQ}[op]
}

func integralRange(col *ColumnRef, op CmpOp, k *Const) (iceberg.BooleanExpression, bool) {
	ref := iceberg.Reference(col.Name)
	r, f, ok := unitsRat(col.T, k)
	if !ok {
		switch {
		case math.IsNaN(f), math.IsInf(f, 1):
			// NaN and +Infinity are above every integer value.
			if op == OpLT || op == OpLE {
				return iceberg.NotNull(ref), true
			}
			return iceberg.AlwaysFalse{}, true
		case math.IsInf(f, -1):
			if op == OpGT || op == OpGE {
				return iceberg.NotNull(ref), true
			}
			return iceberg.AlwaysFalse{}, true
		}
		return untranslatable()
	}
	lo, hi := unitRange(col.T)
	one := big.NewInt(1)
	var bound *big.Int
	upper := op == OpLT || op == OpLE // column <= bound, else column >= bound
	switch op {
	case OpLT:
		bound = ratCeil(r)
		bound.Sub(bound, one)
	case OpLE:
		bound = ratFloor(r)
	case OpGT:
		bound = ratFloor(r)
		bound.Add(bound, one)
	default:
		bound = ratCeil(r)
	}
	if upper {
		switch {
		case bound.Cmp(hi) >= 0:
			return iceberg.NotNull(ref), true
		case bound.Cmp(lo) < 0:
			return iceberg.AlwaysFalse{}, true
		}
		if op == OpLT && r.IsInt() {
			return iceberg.LiteralPredicate(iceberg.OpLT, ref, unitLiteral(col.T, r.Num())), true
		}
		return iceberg.LiteralPredicate(iceberg.OpLTEQ, ref, unitLiteral(col.T, bound)), true
	}
	switch {
	case bound.Cmp(lo) <= 0:
		return iceberg.NotNull(ref), true
	case bound.Cmp(hi) > 0:
		return iceberg.AlwaysFalse{}, true
	}
	if op == OpGT && r.IsInt() {
		return iceberg.LiteralPredicate(iceberg.OpGT, ref, unitLiteral(col.T, r.Num())), true
	}
	return iceberg.LiteralPredicate(iceberg.OpGTEQ, ref, unitLiteral(col.T, bound)), true
}

// floatRange guards Iceberg's float ordering with NaN tests so that both
// IEEE comparison and Iceberg's evaluator (which sorts NaN first) agree with
// PostgreSQL, where NaN is above every number.
func floatRange(col *ColumnRef, op CmpOp, c float64) (iceberg.BooleanExpression, bool) {
	ref := iceberg.Reference(col.Name)
	if math.IsNaN(c) {
		switch op {
		case OpLT:
			return iceberg.NotNaN(ref), true
		case OpLE:
			return iceberg.NotNull(ref), true
		case OpGT:
			return iceberg.AlwaysFalse{}, true
		}
		return iceberg.IsNaN(ref), true
	}
	var lit iceberg.Literal = iceberg.NewLiteral(c)
	iop := iceOp(op)
	if col.T.Kind == KindFloat32 {
		f := float32(c)
		switch {
		case float64(f) == c:
			lit = iceberg.NewLiteral(f)
		case op == OpLT || op == OpLE:
			if float64(f) > c {
				f = math.Nextafter32(f, float32(math.Inf(-1)))
			}
			lit, iop = iceberg.NewLiteral(f), iceberg.OpLTEQ
		default:
			if float64(f) < c {
				f = math.Nextafter32(f, float32(math.Inf(1)))
			}
			lit, iop = iceberg.NewLiteral(f), iceberg.OpGTEQ
		}
	}
	p := iceberg.LiteralPredicate(iop, ref, lit)
	if op == OpLT || op == OpLE {
		return iceberg.NewAnd(p, iceberg.NotNaN(ref)), true
	}
	return iceberg.NewOr(p, iceberg.IsNaN(ref)), true
}

// boolRange orders false < true as PostgreSQL does.
func boolRange(ref iceberg.UnboundTerm, op CmpOp, v bool) iceberg.BooleanExpression {
	switch {
	case op == OpLT && v, op == OpLE && !v:
		return iceberg.EqualTo(ref, false)
	case op == OpGT && !v, op == OpGE && v:
		return iceberg.EqualTo(ref, true)
	case op == OpLE && v, op == OpGE && !v:
		return iceberg.NotNull(ref)
	}
	return iceberg.AlwaysFalse{}
}
