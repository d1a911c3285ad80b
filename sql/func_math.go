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

// mathShapes says which forms each function has: 'f' double precision
// only, 'b' both, 'n' numeric only; the arity follows.
var mathShapes = map[string]struct {
	forms byte
	arity int
}{
	"sign": {'b', 1}, "ceil": {'b', 1}, "ceiling": {'b', 1}, "floor": {'b', 1},
	"trunc": {'b', 1}, "sqrt": {'b', 1}, "exp": {'b', 1}, "ln": {'b', 1},
	"log": {'b', 1}, "log10": {'b', 1}, "power": {'b', 2}, "pow": {'b', 2},
	"cbrt": {'f', 1}, "degrees": {'f', 1}, "radians": {'f', 1}, "pi": {'f', 0},
	"random": {'f', 0},
}

// bindMath binds the mathematical functions; ok is false for other names.
func (b *binder) bindMath(name string, args []Expr) (Expr, bool, error) {
	if (name == "trunc" || name == "log") && len(args) == 2 {
		e, err := b.bindNumericOnly(name, args)
		return e, true, err
	}
	shape, ok := mathShapes[name]
	if !ok {
		return nil, false, nil
	}
	if len(args) != shape.arity {
		return nil, true, noFunction(name, args)
	}
	if name == "trunc" && isUnknown(args[0]) {
		// trunc(macaddr) is a third candidate: an untyped argument picks none.
		return nil, true, pgerr.Errorf(pgerr.AmbiguousFunction, "function trunc(unknown) is not unique")
	}
	t := Float64
	if shape.forms == 'b' {
		var err error
		if t, err = floatOrNumeric(name, args); err != nil {
			return nil, true, err
		}
	}
	if err := b.convertArgs(name, args, t); err != nil {
		return nil, true, err
	}
	return &Func{Name: mathName(name), Args: args, T: t}, true, nil
}

// mathName folds PostgreSQL's aliases onto one name.
func mathName(name string) string {
	switch name {
	case "ceiling":
		return "ceil"
	case "pow":
		return "power"
	case "log10":
		return "log"
	}
	return name
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
func (b *binder) convertArgs(name string, args []Expr, t Type) error {
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

// bindNumericOnly binds trunc(numeric, integer) and log(numeric, numeric).
func (b *binder) bindNumericOnly(name string, args []Expr) (Expr, error) {
	if name == "log" {
		if err := b.convertArgs(name, args, Numeric(0, 0)); err != nil {
			return nil, err
		}
		return &Func{Name: "log", Args: args, T: Numeric(0, 0)}, nil
	}
	if err := b.numericIntArgs(name, args); err != nil {
		return nil, err
	}
	return &Func{Name: "trunc", Args: args, T: Numeric(0, 0)}, nil
}

// numericIntArgs converts the arguments of f(numeric, integer) (round,
// trunc), checking both types before converting either.
func (b *binder) numericIntArgs(name string, args []Expr) error {
	t0, t1 := args[0].Type(), args[1].Type()
	if t0.Kind == KindFloat32 || t0.Kind == KindFloat64 || t1.Kind != KindUnknown && t1.Kind != KindInt16 && t1.Kind != KindInt32 {
		return noFunction(name, args)
	}
	if err := b.convertArgs(name, args[:1], Numeric(0, 0)); err != nil {
		return err
	}
	return b.intArg(name, args, 1)
}

// isMath names the functions mathScalar computes.
func isMath(name string) bool {
	_, ok := mathShapes[name]
	return ok
}

// mathScalar computes a mathematical function on non-NULL arguments.
func mathScalar(x *Func, a []any) (any, error) {
	switch x.Name {
	case "pi":
		return math.Pi, nil
	case "random":
		return rand.Float64(), nil
	}
	if x.T.Kind == KindNumeric {
		return numericMath(x.Name, a)
	}
	return floatMath(x.Name, a)
}

func floatMath(name string, a []any) (any, error) {
	f := a[0].(float64)
	switch name {
	case "sign":
		switch {
		case f > 0:
			return 1.0, nil
		case f < 0:
			return -1.0, nil
		}
		return 0.0, nil
	case "ceil":
		return math.Ceil(f), nil
	case "floor":
		return math.Floor(f), nil
	case "trunc":
		return math.Trunc(f), nil
	case "cbrt":
		return glibcCbrt(f), nil
	case "degrees":
		return checkFloat(f/radiansPerDegree, f, false)
	case "radians":
		return checkFloat(f*radiansPerDegree, f, false)
	case "sqrt":
		if f < 0 {
			return nil, pgerr.Errorf(pgerr.InvalidArgumentForPowerFunction, "cannot take square root of a negative number")
		}
		return math.Sqrt(f), nil
	case "exp":
		return floatExp(f)
	case "ln", "log":
		return floatLog(name, f)
	case "power":
		return floatPow(f, a[1].(float64))
	}
	return nil, pgerr.Errorf(pgerr.InternalError, "evaluate %s: unknown function", name)
}

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

func numericMath(name string, a []any) (any, error) {
	d := a[0].(Decimal)
	switch name {
	case "sign":
		return Decimal{Coef: big.NewInt(int64(d.Coef.Sign()))}, nil
	case "ceil":
		return Decimal{Coef: ratCeil(d.Rat())}, nil
	case "floor":
		return Decimal{Coef: ratFloor(d.Rat())}, nil
	case "trunc":
		s := int64(0)
		if len(a) == 2 {
			s = a[1].(int64)
		}
		return truncDecimal(d, s), nil
	case "sqrt":
		return numericSqrt(d)
	case "exp":
		return numericExp(d)
	case "ln":
		return numericLn(d)
	case "log":
		if len(a) == 2 {
			return numericLog(d, a[1].(Decimal))
		}
		return numericLog(DecimalFromInt(10), d)
	case "power":
		return numericPower(d, a[1].(Decimal))
	}
	return nil, pgerr.Errorf(pgerr.InternalError, "evaluate %s: unknown function", name)
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
