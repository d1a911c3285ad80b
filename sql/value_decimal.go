package sql

import (
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/magmalake/magmalake/pgerr"
)

// Decimal is an exact numeric value Coef × 10^-Scale, the evaluator's
// representation of PostgreSQL numeric. Scale is the display scale (dscale):
// 1.50 and 1.5 compare equal but print differently, as in PostgreSQL.
type Decimal struct {
	Coef  *big.Int
	Scale int
}

var bigTen = big.NewInt(10)

func pow10(n int) *big.Int {
	return new(big.Int).Exp(bigTen, big.NewInt(int64(n)), nil)
}

// DecimalFromInt is v with scale 0.
func DecimalFromInt(v int64) Decimal { return Decimal{Coef: big.NewInt(v)} }

// ParseDecimal reads PostgreSQL numeric input: [sign]digits[.digits][e[sign]digits].
func ParseDecimal(s string) (Decimal, bool) {
	d, err := readNumeric(s)
	return d, err == nil
}

// numericMaxScale is PostgreSQL's largest display scale (NUMERIC_DSCALE_MAX).
const numericMaxScale = 16383

// readNumeric reads numeric input: 22P02 for what is not a number, 22003
// for a number past numeric's range (131072 digits before the point, 16383
// after), as PostgreSQL's set_var_from_str.
func readNumeric(s string) (Decimal, error) {
	s = strings.TrimSpace(s)
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, ok := parseSmallInt(s[i+1:])
		if !ok {
			return Decimal{}, invalidInput(Numeric(0, 0), s)
		}
		mant, exp = s[:i], e
	}
	neg := false
	if mant != "" && (mant[0] == '+' || mant[0] == '-') {
		neg, mant = mant[0] == '-', mant[1:]
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return Decimal{}, invalidInput(Numeric(0, 0), s)
	}
	// An exponent moves the point; PostgreSQL keeps scale max(0, frac-exp).
	// Check the range before building a coefficient of that many digits.
	scale := len(frac) - exp
	intLen := len(strings.TrimLeft(intPart, "0")) + exp
	if strings.Trim(digits, "0") == "" {
		intLen = 0
	}
	if intLen > numericMaxDigits || scale > numericMaxScale || exp > numericMaxDigits+numericMaxScale {
		return Decimal{}, pgerr.Errorf(pgerr.NumericValueOutOfRange, "value overflows numeric format")
	}
	c, _ := new(big.Int).SetString(digits, 10)
	if neg {
		c.Neg(c)
	}
	if scale < 0 {
		c.Mul(c, pow10(-scale))
		scale = 0
	}
	return Decimal{Coef: c, Scale: scale}, nil
}

func parseSmallInt(s string) (int, bool) {
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg, s = s[0] == '-', s[1:]
	}
	if s == "" || len(s) > 18 || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// DecimalFromFloat converts a finite float to the shortest decimal that reads back as it.
func DecimalFromFloat(f float64, bits int) (Decimal, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return Decimal{}, false
	}
	s := big.NewFloat(f).Text('e', -1)
	if bits == 32 {
		s = new(big.Float).SetFloat64(f).SetPrec(24).Text('e', -1)
	}
	return ParseDecimal(s)
}

// Rescale rounds (half away from zero, as PostgreSQL) or extends to scale s.
func (d Decimal) Rescale(s int) Decimal {
	if s == d.Scale {
		return d
	}
	if s > d.Scale {
		return Decimal{Coef: new(big.Int).Mul(d.Coef, pow10(s-d.Scale)), Scale: s}
	}
	div := pow10(d.Scale - s)
	q, r := new(big.Int).QuoRem(d.Coef, div, new(big.Int))
	r.Abs(r).Lsh(r, 1)
	if r.Cmp(div) >= 0 {
		if d.Coef.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return Decimal{Coef: q, Scale: s}
}

// Cmp compares exactly, whatever the scales.
func (d Decimal) Cmp(o Decimal) int {
	s := max(d.Scale, o.Scale)
	return d.Rescale(s).Coef.Cmp(o.Rescale(s).Coef)
}

// Rat is the exact rational value.
func (d Decimal) Rat() *big.Rat {
	return new(big.Rat).SetFrac(d.Coef, pow10(d.Scale))
}

// Float64 is the nearest float64 (PostgreSQL's numeric→float8 cast).
func (d Decimal) Float64() float64 {
	f, _ := d.Rat().Float64()
	return f
}

// Digits is the number of significant digits left of the point.
func (d Decimal) intDigits() int {
	a := new(big.Int).Abs(d.Coef)
	n := len(a.String()) - d.Scale
	if n < 0 || a.Sign() == 0 {
		return 0
	}
	return n
}

// String is PostgreSQL's numeric output: the digits at display scale.
func (d Decimal) String() string {
	a := new(big.Int).Abs(d.Coef).String()
	neg := d.Coef.Sign() < 0
	if d.Scale > 0 {
		if len(a) <= d.Scale {
			a = strings.Repeat("0", d.Scale-len(a)+1) + a
		}
		a = a[:len(a)-d.Scale] + "." + a[len(a)-d.Scale:]
	}
	if neg {
		return "-" + a
	}
	return a
}

// Num128 is the decimal128 coefficient at scale s, or false when it needs
// more than prec digits.
func (d Decimal) Num128(prec, s int) (decimal128.Num, bool) {
	r := d.Rescale(s)
	if r.intDigits() > prec-s || len(new(big.Int).Abs(r.Coef).String()) > 38 {
		return decimal128.Num{}, false
	}
	return decimal128.FromBigInt(r.Coef), true
}

// DecimalFromNum128 reads an Arrow decimal128 value.
func DecimalFromNum128(n decimal128.Num, scale int) Decimal {
	return Decimal{Coef: n.BigInt(), Scale: scale}
}

func (d Decimal) add(o Decimal) Decimal {
	s := max(d.Scale, o.Scale)
	return Decimal{Coef: new(big.Int).Add(d.Rescale(s).Coef, o.Rescale(s).Coef), Scale: s}
}

func (d Decimal) neg() Decimal { return Decimal{Coef: new(big.Int).Neg(d.Coef), Scale: d.Scale} }

func (d Decimal) mul(o Decimal) Decimal {
	return Decimal{Coef: new(big.Int).Mul(d.Coef, o.Coef), Scale: d.Scale + o.Scale}
}

// Div follows PostgreSQL's select_div_scale: at least 16 significant digits,
// and no less than either input's display scale. o must not be zero.
func (d Decimal) Div(o Decimal) Decimal {
	q := new(big.Rat).Quo(d.Rat(), o.Rat())
	scale := max(d.Scale, o.Scale, 16-4*divWeight(d, o))
	scale = min(max(scale, 0), 1000)
	return ratToDecimal(q, scale)
}

// DivByCount is v·10^-scale divided by the count n (> 0) as Div would
// give it (avg's final step), on machine integers: the quotient at its
// scale; false when a step would pass 64 bits (Div then serves).
func DivByCount(v int64, scale int, n int64) (q int64, qscale int, ok bool) {
	if n <= 0 {
		return 0, 0, false
	}
	u := uint64(v)
	if v < 0 {
		u = -u
	}
	wa, fa := 0, 0 // nbaseWeight of zero
	if u != 0 {
		wa, fa = digitsWeight(strconv.FormatUint(u, 10), scale)
	}
	wb, fb := digitsWeight(strconv.FormatInt(n, 10), 0)
	w := wa - wb
	if fa <= fb {
		w--
	}
	qscale = min(max(scale, 16-4*w, 0), 1000)
	k := qscale - scale
	if k < 0 || k > 19 {
		return 0, 0, false
	}
	hi, lo := bits.Mul64(u, pow10Uint64(k))
	if hi >= uint64(n) {
		return 0, 0, false
	}
	quo, rem := bits.Div64(hi, lo, uint64(n))
	if 2*rem >= uint64(n) { // half away from zero
		quo++
	}
	if quo > math.MaxInt64 {
		return 0, 0, false
	}
	if v < 0 {
		return -int64(quo), qscale, true
	}
	return int64(quo), qscale, true
}

// pow10Uint64 is 10^k for k in [0, 19].
func pow10Uint64(k int) uint64 {
	p := uint64(1)
	for range k {
		p *= 10
	}
	return p
}

// divWeight estimates the base-10000 weight of the quotient as PostgreSQL does.
func divWeight(a, b Decimal) int {
	wa, fa := nbaseWeight(a)
	wb, fb := nbaseWeight(b)
	w := wa - wb
	if fa <= fb {
		w--
	}
	return w
}

// nbaseWeight is the weight and first base-10000 digit of |d|.
func nbaseWeight(d Decimal) (int, int) {
	a := new(big.Int).Abs(d.Coef)
	if a.Sign() == 0 {
		return 0, 0
	}
	return digitsWeight(a.String(), d.Scale)
}

// digitsWeight is nbaseWeight of the non-zero |value| written as digits at
// scale.
func digitsWeight(digits string, scale int) (int, int) {
	// Align the decimal point to a multiple of 4 digits as NBASE does.
	pad := (4 - scale%4) % 4
	digits += strings.Repeat("0", pad)
	intLen := len(digits) - (scale + pad)
	// Prepend zeros so the integer part is a multiple of 4 long.
	for intLen%4 != 0 {
		digits, intLen = "0"+digits, intLen+1
	}
	w := intLen/4 - 1
	for len(digits) >= 4 && digits[:4] == "0000" {
		digits, w = digits[4:], w-1
	}
	first := 0
	for _, c := range digits[:4] {
		first = first*10 + int(c-'0')
	}
	return w, first
}

func ratToDecimal(q *big.Rat, scale int) Decimal {
	num := new(big.Int).Mul(q.Num(), pow10(scale+1))
	num.Quo(num, q.Denom())
	d := Decimal{Coef: num, Scale: scale + 1}
	// Rescale truncates the guard digit into half-away-from-zero rounding;
	// the truncated remainder below it cannot turn a tie into a non-tie
	// because ties need an exact 5 followed by zeros.
	exact := new(big.Rat).SetFrac(num, pow10(scale+1)).Cmp(q) == 0
	if !exact {
		// Push the guard digit away from a false tie: a remainder exists.
		if num.Sign() >= 0 {
			num.Mul(num, bigTen).Add(num, big.NewInt(1))
		} else {
			num.Mul(num, bigTen).Sub(num, big.NewInt(1))
		}
		d = Decimal{Coef: num, Scale: scale + 2}
	}
	return d.Rescale(scale)
}

// mod is PostgreSQL's numeric %: truncated quotient, result scale max of inputs.
func (d Decimal) mod(o Decimal) Decimal {
	s := max(d.Scale, o.Scale)
	a, b := d.Rescale(s).Coef, o.Rescale(s).Coef
	return Decimal{Coef: new(big.Int).Rem(a, b), Scale: s}
}

// Sqrt is √d rounded half up at scale s, as PostgreSQL's sqrt_var; d must
// not be negative.
func (d Decimal) Sqrt(s int) Decimal {
	// √(c·10^-k) at scale s+1 is isqrt(c · 10^(2(s+1)-k)) · 10^-(s+1).
	shift := 2*(s+1) - d.Scale
	x := new(big.Int).Abs(d.Coef)
	if shift >= 0 {
		x.Mul(x, pow10(shift))
	} else {
		x.Quo(x, pow10(-shift))
	}
	r := x.Sqrt(x)
	last := new(big.Int).Mod(r, bigTen).Int64()
	r.Quo(r, bigTen)
	if last >= 5 {
		r.Add(r, big.NewInt(1))
	}
	return Decimal{Coef: r, Scale: s}
}

// Add is d + o, exactly.
func (d Decimal) Add(o Decimal) Decimal { return d.add(o) }
