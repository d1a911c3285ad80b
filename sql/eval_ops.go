package sql

import (
	"bytes"
	"math"
	"strings"

	"github.com/magmalake/magmalake/pgerr"
)

// toDomain converts a non-null datum of type from to the comparison domain.
func toDomain(d any, from, dom Type) any {
	switch dom.Kind {
	case KindNumeric:
		if v, ok := d.(int64); ok {
			return DecimalFromInt(v)
		}
	case KindFloat64:
		switch v := d.(type) {
		case int64:
			return float64(v)
		case Decimal:
			return v.Float64()
		}
	case KindTimestamp, KindTimestampTZ:
		if from.Kind == KindDate {
			return dateToTimestamp(d.(int64)) // infinity stays infinity
		}
	case KindInterval:
		if from.Kind == KindTime {
			return Interval{Micros: d.(int64)}
		}
	}
	return d
}

// compareDatums orders two non-null datums of the domain type. Floats follow
// PostgreSQL: NaN equals NaN and sorts above every number, -0 equals 0.
func compareDatums(dom Type, a, b any) int {
	switch dom.Kind {
	case KindArray:
		return compareArrays(dom, a.(string), b.(string))
	case KindInterval:
		return compareIntervals(a.(Interval), b.(Interval))
	}
	switch x := a.(type) {
	case int64:
		y := b.(int64)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	case float64:
		return floatCmp(x, b.(float64))
	case Decimal:
		return x.Cmp(b.(Decimal))
	case string:
		return strings.Compare(x, b.(string))
	case bool:
		y := b.(bool)
		switch {
		case x == y:
			return 0
		case y:
			return -1
		}
		return 1
	case []byte:
		return bytes.Compare(x, b.([]byte))
	case [16]byte:
		y := b.([16]byte)
		return bytes.Compare(x[:], y[:])
	}
	return 0
}

func floatCmp(x, y float64) int {
	xn, yn := math.IsNaN(x), math.IsNaN(y)
	switch {
	case xn && yn:
		return 0
	case xn:
		return 1
	case yn:
		return -1
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

func intOutOfRange(t Type) *pgerr.Error {
	switch t.Kind {
	case KindInt16:
		return pgerr.Errorf(pgerr.NumericValueOutOfRange, "smallint out of range")
	case KindInt32:
		return pgerr.Errorf(pgerr.NumericValueOutOfRange, "integer out of range")
	}
	return pgerr.Errorf(pgerr.NumericValueOutOfRange, "bigint out of range")
}

func negate(v any, t Type) (any, error) {
	switch x := v.(type) {
	case Interval:
		if x.Months == math.MinInt32 || x.Days == math.MinInt32 || x.Micros == math.MinInt64 {
			return nil, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "interval out of range")
		}
		return negateInterval(x), nil
	case int64:
		lo, _ := intRange(t)
		if x == lo {
			return nil, intOutOfRange(t)
		}
		return -x, nil
	case float64:
		return -x, nil
	case Decimal:
		return x.neg(), nil
	}
	return v, nil
}

// PostgreSQL's date range in days since 1970-01-01: 4714-11-24 BC up to,
// not including, 5874898-01-01.
const (
	minDateDays = -2440588
	endDateDays = 2147483494 - 2440588
)

func divByZero() *pgerr.Error { return pgerr.Errorf(pgerr.DivisionByZero, "division by zero") }

// arith computes l op r for non-null operands into result type t.
func arith(op string, t Type, l, r any, lt, rt Type) (any, error) {
	if lt.Kind == KindInterval || rt.Kind == KindInterval || t.Kind == KindInterval || lt.Kind == KindTime || rt.Kind == KindTime {
		return datetimeArith(op, t, l, r, lt, rt)
	}
	if lt.Kind == KindDate || rt.Kind == KindDate {
		return dateArith(op, t, l.(int64), r.(int64), lt, rt)
	}
	switch t.Kind {
	case KindInt16, KindInt32, KindInt64:
		return intArith(op, t, l.(int64), r.(int64))
	case KindFloat32, KindFloat64:
		return floatArith(op, t, toDomain(l, lt, Float64).(float64), toDomain(r, rt, Float64).(float64))
	case KindNumeric:
		return numericArith(op, toDomain(l, lt, t).(Decimal), toDomain(r, rt, t).(Decimal))
	case KindText:
		return l.(string) + r.(string), nil
	case KindBytea:
		// A new slice: the operands' may be shared with their arrays.
		a, b := l.([]byte), r.([]byte)
		return append(append(make([]byte, 0, len(a)+len(b)), a...), b...), nil
	}
	return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "operator %s for %s is not supported", op, t)
}

// dateArith is date ± integer and date - date. An infinite date plus or
// minus days stays infinite; two dates with an infinite one have no
// difference, as in PostgreSQL's date_pli, date_mii and date_mi.
func dateArith(op string, t Type, a, b int64, lt, rt Type) (any, error) {
	infinite := func(d int64) bool { return d == math.MaxInt32 || d == math.MinInt32 }
	switch {
	case t.Kind != KindDate:
		if infinite(a) || infinite(b) {
			return nil, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "cannot subtract infinite dates")
		}
		return a - b, nil
	case lt.Kind == KindDate && infinite(a):
		return a, nil
	case rt.Kind == KindDate && infinite(b):
		return b, nil
	}
	if op == "-" {
		b = -b
	}
	if d := a + b; d >= minDateDays && d < endDateDays {
		return d, nil
	}
	return nil, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "date out of range")
}

func intArith(op string, t Type, a, b int64) (any, error) {
	var r int64
	switch op {
	case "+":
		r = a + b
		if (r > a) != (b > 0) {
			return nil, intOutOfRange(t)
		}
	case "-":
		r = a - b
		if (r < a) != (b > 0) {
			return nil, intOutOfRange(t)
		}
	case "*":
		r = a * b
		if a != 0 && (r/a != b || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64)) {
			return nil, intOutOfRange(t)
		}
	case "/":
		if b == 0 {
			return nil, divByZero()
		}
		if b == -1 {
			return intArith("-", t, 0, a)
		}
		r = a / b
	case "%":
		if b == 0 {
			return nil, divByZero()
		}
		if b == -1 {
			return int64(0), nil
		}
		r = a % b
	}
	if lo, hi := intRange(t); r < lo || r > hi {
		return nil, intOutOfRange(t)
	}
	return r, nil
}

func floatArith(op string, t Type, a, b float64) (any, error) {
	var r float64
	switch op {
	case "+":
		r = a + b
	case "-":
		r = a - b
	case "*":
		r = a * b
	case "/":
		// PostgreSQL lets NaN / 0 through as NaN.
		if b == 0 && !math.IsNaN(a) {
			return nil, divByZero()
		}
		r = a / b
	}
	if t.Kind == KindFloat32 {
		r = float64(float32(r))
	}
	if math.IsInf(r, 0) && !math.IsInf(a, 0) && !math.IsInf(b, 0) {
		return nil, pgerr.Errorf(pgerr.NumericValueOutOfRange, "value out of range: overflow")
	}
	underflow := r == 0 && a != 0 && (op == "*" && b != 0 || op == "/" && !math.IsInf(b, 0))
	if underflow {
		return nil, pgerr.Errorf(pgerr.NumericValueOutOfRange, "value out of range: underflow")
	}
	return r, nil
}

func numericArith(op string, a, b Decimal) (any, error) {
	switch op {
	case "+":
		return a.add(b), nil
	case "-":
		return a.add(b.neg()), nil
	case "*":
		return a.mul(b), nil
	case "/":
		if b.Coef.Sign() == 0 {
			return nil, divByZero()
		}
		return a.Div(b), nil
	}
	if b.Coef.Sign() == 0 {
		return nil, divByZero()
	}
	return a.mod(b), nil
}
