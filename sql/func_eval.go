package sql

import (
	"math"
	"strings"

	"github.com/magmalake/magmalake/pgerr"
)

func (ev *evaluator) evalFunc(x *Func, sel []int, out []any) ([]any, error) {
	return ev.evalRegistered(x, sel, out)
}

// evalNow is the statement's time: now(), current_timestamp, ...
func (ev *evaluator) evalNow(_ *Func, sel []int, out []any) ([]any, error) {
	for _, i := range sel {
		out[i] = ev.now
	}
	return out, nil
}

func (ev *evaluator) evalCurrentDate(_ *Func, sel []int, out []any) ([]any, error) {
	for _, i := range sel {
		out[i] = floorDiv(ev.now, usPerDay)
	}
	return out, nil
}

// evalTypeof is pg_typeof, never NULL: the type of a NULL argument is
// still its type.
func (ev *evaluator) evalTypeof(x *Func, sel []int, out []any) ([]any, error) {
	if _, err := ev.eval(x.Args[0], sel); err != nil {
		return nil, err
	}
	oid := int64(x.Args[0].Type().OID())
	if x.Args[0].Type().Kind == KindUnknown {
		oid = int64(OIDUnknown) // OID() gives text, what clients see of such a value
	}
	for _, i := range sel {
		out[i] = oid
	}
	return out, nil
}

// evalRows evaluates x's arguments and computes fn row by row; a strict
// function is NULL, uncalled, where an argument is NULL.
func (ev *evaluator) evalRows(x *Func, sel []int, out []any, strict bool, fn func([]any) (any, error)) ([]any, error) {
	args := make([][]any, len(x.Args))
	for k, a := range x.Args {
		var err error
		if args[k], err = ev.eval(a, sel); err != nil {
			return nil, err
		}
	}
	row := make([]any, len(x.Args))
	for _, i := range sel {
		null := false
		for k := range args {
			row[k] = args[k][i]
			null = null || row[k] == nil
		}
		if null && strict {
			continue
		}
		v, err := fn(row)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// evalCoalesce evaluates each argument only for rows still NULL.
func (ev *evaluator) evalCoalesce(x *Func, sel []int, out []any) ([]any, error) {
	rest := sel
	for _, a := range x.Args {
		if len(rest) == 0 {
			break
		}
		vals, err := ev.eval(a, rest)
		if err != nil {
			return nil, err
		}
		var next []int
		for _, i := range rest {
			if vals[i] == nil {
				next = append(next, i)
			} else {
				out[i] = vals[i]
			}
		}
		rest = next
	}
	return out, nil
}

// trimText is btrim, ltrim and rtrim: the characters of the second
// argument (a space without one) off either end.
func trimText(x *Func, a []any) (any, error) {
	chars := " "
	if len(a) == 2 {
		chars = a[1].(string)
	}
	s := a[0].(string)
	if x.Name != "rtrim" {
		s = strings.TrimLeft(s, chars)
	}
	if x.Name != "ltrim" {
		s = strings.TrimRight(s, chars)
	}
	return s, nil
}

// asciiMap shifts letters in [lo, hi]: lower/upper under the C collation.
func asciiMap(s string, lo, hi byte, delta int) string {
	b := []byte(s)
	for i, c := range b {
		if c >= lo && c <= hi {
			b[i] = byte(int(c) + delta)
		}
	}
	return string(b)
}

// substring follows PostgreSQL: positions are 1-based characters, a start
// before 1 eats into the length, and a negative length is 22011.
func substring(a []any) (any, error) {
	rs := []rune(a[0].(string))
	start := a[1].(int64)
	end := int64(math.MaxInt64)
	if len(a) == 3 {
		n := a[2].(int64)
		if n < 0 {
			return nil, pgerr.Errorf(pgerr.SubstringError, "negative substring length not allowed")
		}
		end = start + n
		if end < start {
			end = math.MaxInt64
		}
	}
	lo := max(start, 1) - 1
	hi := min(end-1, int64(len(rs)))
	if hi <= lo {
		return "", nil
	}
	return string(rs[lo:hi]), nil
}

func absValue(v any, t Type) (any, error) {
	switch x := v.(type) {
	case int64:
		if x < 0 {
			return negate(x, t)
		}
		return x, nil
	case float64:
		return math.Abs(x), nil
	case Decimal:
		if x.Coef.Sign() < 0 {
			return x.neg(), nil
		}
		return x, nil
	}
	return v, nil
}

// roundValue: round(float8) rounds half to even (rint); round(numeric[, s])
// rounds half away from zero; a negative s rounds left of the point.
func roundValue(a []any, t Type) (any, error) {
	if f, ok := a[0].(float64); ok {
		return math.RoundToEven(f), nil
	}
	d := toDomain(a[0], t, Numeric(0, 0)).(Decimal)
	s := int64(0)
	if len(a) == 2 {
		s = a[1].(int64)
	}
	if s >= 0 {
		return d.Rescale(int(min(s, 1000))), nil
	}
	shift := int(min(-s, 1000))
	r := Decimal{Coef: d.Coef, Scale: d.Scale + shift}.Rescale(0)
	return Decimal{Coef: r.Coef.Mul(r.Coef, pow10(shift))}, nil
}
