package sql

import (
	"math"
	"math/big"
	"math/rand/v2"

	"github.com/magmalake/magmalake/pgerr"
)

// PostgreSQL's mathematical functions. Most have a double precision and a
// numeric form; an integer argument resolves to double precision (the
// preferred numeric type), a numeric one to numeric unless another
// argument is a float (float → numeric is not an implicit cast).

func mathFunctions() []Function {
	both := func(name string, arity int) bindFunc { return mathSig(true, arity, name) }
	float := func(name string, arity int) bindFunc { return mathSig(false, arity, name) }
	return []Function{
		{Name: "sign", Strict: true, Signatures: sigs("numeric | double precision"), bind: both("sign", 1), row: mathRow(floatSign, numericOf(decimalSign))},
		{Name: "ceil", Strict: true, Signatures: sigs("numeric | double precision"), bind: both("ceil", 1), row: mathRow(floatOf(math.Ceil), numericOf(decimalCeil))},
		{Name: "ceiling", Alias: "ceil", Signatures: sigs("numeric | double precision"), bind: both("ceil", 1)},
		{Name: "floor", Strict: true, Signatures: sigs("numeric | double precision"), bind: both("floor", 1), row: mathRow(floatOf(math.Floor), numericOf(decimalFloor))},
		{Name: "trunc", Strict: true, Signatures: sigs("double precision | numeric,integer | numeric"), bind: bindTrunc, row: mathRow(floatOf(math.Trunc), numericTrunc)},
		{Name: "sqrt", Strict: true, Signatures: sigs("double precision | numeric"), bind: both("sqrt", 1), row: mathRow(floatSqrt, numericOf(numericSqrt))},
		{Name: "exp", Strict: true, Signatures: sigs("double precision | numeric"), bind: both("exp", 1),
			row: mathRow(func(a []any) (any, error) { return floatExp(a[0].(float64)) }, numericOf(numericExp))},
		{Name: "ln", Strict: true, Signatures: sigs("double precision | numeric"), bind: both("ln", 1),
			row: mathRow(func(a []any) (any, error) { return floatLog("ln", a[0].(float64)) }, numericOf(numericLn))},
		{Name: "log", Strict: true, Signatures: sigs("double precision | numeric,numeric | numeric"), bind: bindLog,
			row: mathRow(func(a []any) (any, error) { return floatLog("log", a[0].(float64)) }, numericLogRow)},
		{Name: "log10", Alias: "log", Signatures: sigs("double precision | numeric"), bind: both("log", 1)},
		{Name: "power", Strict: true, Signatures: sigs("double precision,double precision | numeric,numeric"), bind: both("power", 2), row: mathRow(floatPower, numericPower2)},
		{Name: "pow", Alias: "power", Signatures: sigs("double precision,double precision | numeric,numeric"), bind: both("power", 2)},
		{Name: "cbrt", Strict: true, Signatures: sigs("double precision"), bind: float("cbrt", 1),
			row: mathRow(func(a []any) (any, error) { return glibcCbrt(a[0].(float64)), nil }, nil)},
		{Name: "degrees", Strict: true, Signatures: sigs("double precision"), bind: float("degrees", 1),
			row: mathRow(func(a []any) (any, error) { f := a[0].(float64); return checkFloat(f/radiansPerDegree, f, false) }, nil)},
		{Name: "radians", Strict: true, Signatures: sigs("double precision"), bind: float("radians", 1),
			row: mathRow(func(a []any) (any, error) { f := a[0].(float64); return checkFloat(f*radiansPerDegree, f, false) }, nil)},
		// The parser reads mod(a, b) as a % b, bound as the operator:
		// no call of mod reaches the registry.
		{Name: "mod", Strict: true, Signatures: sigs("smallint,smallint | integer,integer | bigint,bigint | numeric,numeric")},
		{Name: "pi", Strict: true, Signatures: sigs(""), bind: float("pi", 0), row: valueOf(func([]any) any { return math.Pi })},
		{Name: "random", Strict: true, Volatility: Volatile, Signatures: sigs(""), bind: float("random", 0),
			row: valueOf(func([]any) any { return rand.Float64() })},
	}
}

// mathSig binds a mathematical function of arity arguments to the entry
// target computes: double precision only, or (both) double precision or
// numeric as the arguments say.
func mathSig(both bool, arity int, target string) bindFunc {
	return func(b callBinder, name string, args []Expr) (Expr, error) {
		if len(args) != arity {
			return nil, noFunction(name, args)
		}
		t := Float64
		if both {
			var err error
			if t, err = floatOrNumeric(name, args); err != nil {
				return nil, err
			}
		}
		if err := b.convertArgs(name, args, t); err != nil {
			return nil, err
		}
		return &Func{Name: target, Args: args, T: t}, nil
	}
}

// bindTrunc binds trunc(float8), trunc(numeric) and trunc(numeric, int).
func bindTrunc(b callBinder, name string, args []Expr) (Expr, error) {
	if len(args) == 2 {
		if err := b.numericIntArgs(name, args); err != nil {
			return nil, err
		}
		return &Func{Name: "trunc", Args: args, T: Numeric(0, 0)}, nil
	}
	if len(args) == 1 && isUnknown(args[0]) {
		// trunc(macaddr) is a third candidate: an untyped argument picks none.
		return nil, pgerr.Errorf(pgerr.AmbiguousFunction, "function trunc(unknown) is not unique")
	}
	return mathSig(true, 1, "trunc")(b, name, args)
}

// bindLog binds log(float8), log(numeric) and log(numeric, numeric).
func bindLog(b callBinder, name string, args []Expr) (Expr, error) {
	if len(args) == 2 {
		if err := b.convertArgs(name, args, Numeric(0, 0)); err != nil {
			return nil, err
		}
		return &Func{Name: "log", Args: args, T: Numeric(0, 0)}, nil
	}
	return mathSig(true, 1, "log")(b, name, args)
}

// floatOrNumeric picks the form of a function that has both: numeric when
// an argument is numeric and none is a float, else double precision.
func floatOrNumeric(name string, args []Expr) (Type, error) {
	numeric, float := false, false
	for _, a := range args {
		switch t := a.Type(); {
		case t.Kind == KindUnknown:
		case !t.IsNumeric():
			return Unknown, noFunction(name, args)
		case t.Kind == KindNumeric:
			numeric = true
		case t.Kind == KindFloat32 || t.Kind == KindFloat64:
			float = true
		}
	}
	if numeric && !float {
		return Numeric(0, 0), nil
	}
	return Float64, nil
}

// convertArgs casts every argument to t, reading untyped ones as t; a
// numeric target rejects floats (no implicit cast). The types are checked
// before any argument changes, so that a 42883 names them as written.
func (b callBinder) convertArgs(name string, args []Expr, t Type) error {
	for _, a := range args {
		at := a.Type()
		if at.Kind != KindUnknown && (!at.IsNumeric() || t.Kind == KindNumeric && (at.Kind == KindFloat32 || at.Kind == KindFloat64)) {
			return noFunction(name, args)
		}
	}
	for i, a := range args {
		switch {
		case isUnknown(a):
			c, err := b.coerceUnknown(a, t)
			if err != nil {
				return err
			}
			args[i] = c
		case a.Type().Kind != t.Kind:
			args[i] = &Cast{X: a, T: t}
		}
	}
	return nil
}

// numericIntArgs converts the arguments of f(numeric, integer) (round,
// trunc), checking both types before converting either.
func (b callBinder) numericIntArgs(name string, args []Expr) error {
	t0, t1 := args[0].Type(), args[1].Type()
	if t0.Kind == KindFloat32 || t0.Kind == KindFloat64 || t1.Kind != KindUnknown && t1.Kind != KindInt16 && t1.Kind != KindInt32 {
		return noFunction(name, args)
	}
	if err := b.convertArgs(name, args[:1], Numeric(0, 0)); err != nil {
		return err
	}
	return b.intArg(name, args, 1)
}

// mathRow computes a function's double precision or numeric form, as x
// was bound.
func mathRow(float, numeric rowFunc) func(*evaluator, *Func) rowFunc {
	return func(_ *evaluator, x *Func) rowFunc {
		if x.T.Kind == KindNumeric {
			return numeric
		}
		return float
	}
}

func floatOf(fn func(float64) float64) rowFunc {
	return func(a []any) (any, error) { return fn(a[0].(float64)), nil }
}

func numericOf[T any](fn func(Decimal) (T, error)) rowFunc {
	return func(a []any) (any, error) { return fn(a[0].(Decimal)) }
}

func floatSign(a []any) (any, error) {
	switch f := a[0].(float64); {
	case f > 0:
		return 1.0, nil
	case f < 0:
		return -1.0, nil
	}
	return 0.0, nil
}

func floatSqrt(a []any) (any, error) {
	f := a[0].(float64)
	if f < 0 {
		return nil, pgerr.Errorf(pgerr.InvalidArgumentForPowerFunction, "cannot take square root of a negative number")
	}
	return math.Sqrt(f), nil
}

func floatPower(a []any) (any, error) { return floatPow(a[0].(float64), a[1].(float64)) }

func decimalSign(d Decimal) (Decimal, error) {
	return Decimal{Coef: big.NewInt(int64(d.Coef.Sign()))}, nil
}

func decimalCeil(d Decimal) (Decimal, error)  { return Decimal{Coef: ratCeil(d.Rat())}, nil }
func decimalFloor(d Decimal) (Decimal, error) { return Decimal{Coef: ratFloor(d.Rat())}, nil }

func numericTrunc(a []any) (any, error) {
	s := int64(0)
	if len(a) == 2 {
		s = a[1].(int64)
	}
	return truncDecimal(a[0].(Decimal), s), nil
}

// numericLogRow is log(numeric) (base 10) and log(b numeric, x numeric).
func numericLogRow(a []any) (any, error) {
	if len(a) == 2 {
		return numericLog(a[0].(Decimal), a[1].(Decimal))
	}
	return numericLog(DecimalFromInt(10), a[0].(Decimal))
}

func numericPower2(a []any) (any, error) { return numericPower(a[0].(Decimal), a[1].(Decimal)) }

// radiansPerDegree is PostgreSQL's RADIANS_PER_DEGREE.
const radiansPerDegree = 0.0174532925199432957692

// checkFloat is PostgreSQL's float overflow/underflow check of a result r
// computed from the input in (a product or quotient with a constant).
func checkFloat(r, in float64, zeroOK bool) (any, error) {
	if math.IsInf(r, 0) && !math.IsInf(in, 0) {
		return nil, pgerr.Errorf(pgerr.NumericValueOutOfRange, "value out of range: overflow")
	}
	if r == 0 && in != 0 && !zeroOK {
		return nil, pgerr.Errorf(pgerr.NumericValueOutOfRange, "value out of range: underflow")
	}
	return r, nil
}

func floatExp(f float64) (any, error) {
	switch {
	case math.IsNaN(f):
		return f, nil
	case math.IsInf(f, 1):
		return f, nil
	case math.IsInf(f, -1):
		return 0.0, nil
	}
	r := crExp(f)
	if math.IsInf(r, 0) {
		return nil, pgerr.Errorf(pgerr.NumericValueOutOfRange, "value out of range: overflow")
	}
	if r == 0 {
		return nil, pgerr.Errorf(pgerr.NumericValueOutOfRange, "value out of range: underflow")
	}
	return r, nil
}

func floatLog(name string, f float64) (any, error) {
	switch {
	case f == 0:
		return nil, pgerr.Errorf(pgerr.InvalidArgumentForLogarithm, "cannot take logarithm of zero")
	case f < 0:
		return nil, pgerr.Errorf(pgerr.InvalidArgumentForLogarithm, "cannot take logarithm of a negative number")
	}
	switch {
	case math.IsNaN(f) || math.IsInf(f, 1):
		return f, nil
	case name == "log":
		return crLog10(f), nil
	}
	return crLn(f), nil
}

// floatPow is PostgreSQL's dpow: NaN and infinity cases decided explicitly
// (POSIX rules), domain errors as 2201F, overflow and underflow as 22003.
func floatPow(x, y float64) (any, error) {
	switch {
	case math.IsNaN(x):
		if math.IsNaN(y) || y != 0 {
			return math.NaN(), nil
		}
		return 1.0, nil
	case math.IsNaN(y):
		if x != 1 {
			return math.NaN(), nil
		}
		return 1.0, nil
	case x == 0 && y < 0:
		return nil, pgerr.Errorf(pgerr.InvalidArgumentForPowerFunction, "zero raised to a negative power is undefined")
	case x < 0 && math.Floor(y) != y:
		return nil, pgerr.Errorf(pgerr.InvalidArgumentForPowerFunction, "a negative number raised to a non-integer power yields a complex result")
	case math.IsInf(y, 0) || math.IsInf(x, 0):
		return math.Pow(x, y), nil
	}
	r := crPow(x, y)
	if math.IsInf(r, 0) {
		return nil, pgerr.Errorf(pgerr.NumericValueOutOfRange, "value out of range: overflow")
	}
	if r == 0 && x != 0 {
		return nil, pgerr.Errorf(pgerr.NumericValueOutOfRange, "value out of range: underflow")
	}
	return r, nil
}

// truncDecimal is trunc(numeric, s): toward zero at scale s (left of the
// point when negative), displayed at scale max(s, 0).
func truncDecimal(d Decimal, s int64) Decimal {
	s = max(min(s, 2000), -2000)
	if int(s) >= d.Scale {
		return d.Rescale(int(s))
	}
	q := new(big.Int).Quo(d.Coef, pow10(d.Scale-int(s)))
	if s >= 0 {
		return Decimal{Coef: q, Scale: int(s)}
	}
	return Decimal{Coef: q.Mul(q, pow10(int(-s)))}
}
