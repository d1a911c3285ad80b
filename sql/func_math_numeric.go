package sql

import (
	"math"
	"math/big"

	"github.com/magmalake/magmalake/pgerr"
)

// The numeric forms of sqrt, exp, ln, log and power. PostgreSQL picks each
// result's display scale from an estimate of its magnitude (at least 16
// significant digits, no fewer decimals than an input's); the value is
// computed here in binary floating point with guard digits to spare and
// rounded half away from zero at that scale.

const (
	numericMinSigDigits  = 16
	numericMaxDispScale  = 1000
	numericMaxResultScal = 2000
)

// clampScale bounds a result scale to PostgreSQL's display-scale range.
func clampScale(s int) int { return min(max(s, 0), numericMaxDispScale) }

func overflowsNumeric() *pgerr.Error {
	return pgerr.Errorf(pgerr.NumericValueOutOfRange, "value overflows numeric format")
}

// nbaseDigits is d in PostgreSQL's base-10000 form: its weight, its first
// two digits and how many digits it has (0 for zero).
func nbaseDigits(d Decimal) (weight, d0, d1, n int) {
	a := new(big.Int).Abs(d.Coef)
	if a.Sign() == 0 {
		return 0, 0, 0, 0
	}
	pad := (4 - d.Scale%4) % 4
	s := a.String()
	for k := 0; k < pad; k++ {
		s += "0"
	}
	for (len(s)-(d.Scale+pad))%4 != 0 {
		s = "0" + s
	}
	weight = (len(s)-(d.Scale+pad))/4 - 1
	for len(s) >= 4 && s[:4] == "0000" {
		s, weight = s[4:], weight-1
	}
	for len(s) >= 4 && s[len(s)-4:] == "0000" {
		s = s[:len(s)-4]
	}
	group := func(k int) int {
		v := 0
		for _, c := range s[4*k : 4*k+4] {
			v = v*10 + int(c-'0')
		}
		return v
	}
	n = len(s) / 4
	d0 = group(0)
	if n > 1 {
		d1 = group(1)
	}
	return weight, d0, d1, n
}

// estimateLnDweight is PostgreSQL's estimate_ln_dweight: the decimal weight
// of ln(d), from d - 1 near 1 and from the leading digits elsewhere.
func estimateLnDweight(d Decimal) int {
	if d.Coef.Sign() <= 0 {
		return 0
	}
	lo, hi := Decimal{Coef: big.NewInt(9), Scale: 1}, Decimal{Coef: big.NewInt(11), Scale: 1}
	if d.Cmp(lo) >= 0 && d.Cmp(hi) <= 0 {
		x := d.add(DecimalFromInt(-1))
		w, d0, _, n := nbaseDigits(x)
		if n == 0 {
			return 0
		}
		return w*4 + int(math.Log10(float64(d0)))
	}
	w, d0, d1, n := nbaseDigits(d)
	digits, dweight := float64(d0), w*4
	if n > 1 {
		digits = digits*10000 + float64(d1)
		dweight -= 4
	}
	lnv := math.Log(digits) + float64(dweight)*2.302585092994046
	return int(math.Log10(math.Abs(lnv)))
}

// bitsFor is the binary precision that holds digits decimal digits with
// guard bits to spare.
func bitsFor(digits int) uint { return uint(max(digits, 1))*34/10 + 64 }

// bigOf is d as a big.Float of prec bits.
func bigOf(d Decimal, prec uint) *big.Float {
	return new(big.Float).SetPrec(prec).SetRat(d.Rat())
}

// roundBig rounds f half away from zero at scale s.
func roundBig(f *big.Float, s int) Decimal {
	r, _ := f.Rat(nil)
	return ratToDecimal(r, s)
}

// bigLn is ln(x), x > 0: x = m·2^e with m in [0.75, 1.5), ln m by square
// roots toward 1 and the atanh series, e·ln 2 likewise.
func bigLn(x *big.Float, prec uint) *big.Float {
	work := prec + 64
	m := new(big.Float).SetPrec(work)
	e := x.MantExp(m)
	if m.Cmp(big.NewFloat(0.75)) < 0 {
		// m in [0.75, 1.5): ln 1 is exactly 0, with no ln 2 to cancel.
		m.SetMantExp(m, 1)
		e--
	}
	r := lnNearOne(m, work)
	if e != 0 {
		ln2 := lnNearOne(new(big.Float).SetPrec(work).SetInt64(2), work)
		r.Add(r, ln2.Mul(ln2, new(big.Float).SetPrec(work).SetInt64(int64(e))))
	}
	return r
}

// lnNearOne is ln(y) for y in [0.5, 2]: 2^k·2·atanh(z), z = (y'-1)/(y'+1)
// with y' = y^(1/2^k) close to 1.
func lnNearOne(y *big.Float, prec uint) *big.Float {
	const k = 12
	v := new(big.Float).SetPrec(prec + 2*k).Set(y)
	for i := 0; i < k; i++ {
		v.Sqrt(v)
	}
	one := new(big.Float).SetPrec(v.Prec()).SetInt64(1)
	num := new(big.Float).SetPrec(v.Prec()).Sub(v, one)
	den := new(big.Float).SetPrec(v.Prec()).Add(v, one)
	z := num.Quo(num, den)
	z2 := new(big.Float).SetPrec(v.Prec()).Mul(z, z)
	sum := new(big.Float).SetPrec(v.Prec()).Set(z)
	term := new(big.Float).SetPrec(v.Prec()).Set(z)
	eps := new(big.Float).SetMantExp(big.NewFloat(1), -int(v.Prec()))
	for n := int64(3); ; n += 2 {
		term.Mul(term, z2)
		t := new(big.Float).SetPrec(v.Prec()).Quo(term, new(big.Float).SetInt64(n))
		sum.Add(sum, t)
		if new(big.Float).Abs(t).Cmp(new(big.Float).Mul(eps, new(big.Float).Abs(sum))) <= 0 {
			break
		}
	}
	return sum.SetMantExp(sum, k+1)
}

// bigExp is e^x: x/2^k small enough for a short Taylor series, then k squarings.
func bigExp(x *big.Float, prec uint) *big.Float {
	k := max(x.MantExp(nil)+12, 0)
	work := prec + uint(k) + 64
	r := new(big.Float).SetPrec(work).SetMantExp(x, -k)
	sum := new(big.Float).SetPrec(work).SetInt64(1)
	term := new(big.Float).SetPrec(work).SetInt64(1)
	eps := new(big.Float).SetMantExp(big.NewFloat(1), -int(work))
	for n := int64(1); ; n++ {
		term.Mul(term, r)
		term.Quo(term, new(big.Float).SetInt64(n))
		sum.Add(sum, term)
		if new(big.Float).Abs(term).Cmp(eps) <= 0 {
			break
		}
	}
	for i := 0; i < k; i++ {
		sum.Mul(sum, sum)
	}
	return sum
}

// numericSqrt is sqrt(numeric): scale from the argument's weight.
func numericSqrt(d Decimal) (any, error) {
	if d.Coef.Sign() < 0 {
		return nil, pgerr.Errorf(pgerr.InvalidArgumentForPowerFunction, "cannot take square root of a negative number")
	}
	w, _, _, _ := nbaseDigits(d)
	sweight := (w+1)*4/2 - 1
	return d.Sqrt(clampScale(max(numericMinSigDigits-sweight, d.Scale))), nil
}

// numericExp is exp(numeric); |x| ≥ 6000 overflows, or underflows to 0.
func numericExp(d Decimal) (any, error) {
	val := d.Float64() * 0.434294481903252
	val = max(min(val, numericMaxResultScal), -numericMaxResultScal)
	rscale := clampScale(max(numericMinSigDigits-int(val), d.Scale))
	return expAtScale(d, rscale)
}

func expAtScale(d Decimal, rscale int) (any, error) {
	if v := d.Float64(); math.Abs(v) >= numericMaxResultScal*3 {
		if v > 0 {
			return nil, overflowsNumeric()
		}
		return Decimal{Coef: new(big.Int), Scale: rscale}, nil
	}
	intDigits := max(int(d.Float64()*0.434294481903252)+2, 0)
	prec := bitsFor(intDigits + rscale + 10)
	return roundBig(bigExp(bigOf(d, prec), prec), rscale), nil
}

func checkLnArg(d Decimal) error {
	switch d.Coef.Sign() {
	case 0:
		return pgerr.Errorf(pgerr.InvalidArgumentForLogarithm, "cannot take logarithm of zero")
	case -1:
		return pgerr.Errorf(pgerr.InvalidArgumentForLogarithm, "cannot take logarithm of a negative number")
	}
	return nil
}

// numericLn is ln(numeric).
func numericLn(d Decimal) (any, error) {
	if err := checkLnArg(d); err != nil {
		return nil, err
	}
	rscale := clampScale(max(numericMinSigDigits-estimateLnDweight(d), d.Scale))
	prec := bitsFor(rscale + 20)
	return roundBig(bigLn(bigOf(d, prec), prec), rscale), nil
}

// numericLog is log(base, x) = ln x / ln base.
func numericLog(base, x Decimal) (any, error) {
	if err := checkLnArg(base); err != nil {
		return nil, err
	}
	if err := checkLnArg(x); err != nil {
		return nil, err
	}
	dw := estimateLnDweight(x) - estimateLnDweight(base)
	rscale := clampScale(max(numericMinSigDigits-dw, base.Scale, x.Scale))
	if base.Cmp(DecimalFromInt(1)) == 0 {
		return nil, divByZero()
	}
	prec := bitsFor(rscale + max(dw, 0) + 20)
	lb := bigLn(bigOf(base, prec), prec)
	lx := bigLn(bigOf(x, prec), prec)
	return roundBig(lx.Quo(lx, lb), rscale), nil
}

// numericPower is power(numeric, numeric): an integral exponent that fits
// an integer is exact at scale max(16, the base's); any other goes through
// exp(y · ln x) at a scale from the result's magnitude.
func numericPower(x, y Decimal) (any, error) {
	if x.Coef.Sign() == 0 && y.Coef.Sign() < 0 {
		return nil, pgerr.Errorf(pgerr.InvalidArgumentForPowerFunction, "zero raised to a negative power is undefined")
	}
	yr := y.Rat()
	if x.Coef.Sign() < 0 && !yr.IsInt() {
		return nil, pgerr.Errorf(pgerr.InvalidArgumentForPowerFunction, "a negative number raised to a non-integer power yields a complex result")
	}
	if yr.IsInt() && yr.Num().IsInt64() && yr.Num().Int64() == int64(int32(yr.Num().Int64())) {
		return powerInt(x, int(yr.Num().Int64()), clampScale(max(numericMinSigDigits, x.Scale)))
	}
	if x.Coef.Sign() == 0 {
		return Decimal{Coef: new(big.Int), Scale: numericMinSigDigits}, nil
	}
	return powerReal(x, y)
}

// powerInt is PostgreSQL's power_var_int: the early overflow and
// underflow tests on the estimated result weight, then the exact power.
func powerInt(x Decimal, n int, rscale int) (any, error) {
	switch {
	case n == 0:
		return Decimal{Coef: pow10(rscale), Scale: rscale}, nil
	case x.Coef.Sign() == 0:
		if n < 0 {
			return nil, divByZero()
		}
		return Decimal{Coef: new(big.Int), Scale: rscale}, nil
	}
	w, d0, d1, nd := nbaseDigits(x)
	f, p := float64(d0), w*4
	if nd > 1 {
		f, p = f*10000+float64(d1), p-4
	}
	est := float64(n) * (math.Log10(f) + float64(p))
	if est > 3*math.MaxInt16*4 {
		return nil, overflowsNumeric()
	}
	if est+1 < float64(-rscale) || est+1 < -numericMaxDispScale {
		return Decimal{Coef: new(big.Int), Scale: rscale}, nil
	}
	digits := len(new(big.Int).Abs(x.Coef).String())
	if abs := max(n, -n); abs*digits <= 40000 {
		num := new(big.Int).Exp(x.Coef, big.NewInt(int64(abs)), nil)
		q := new(big.Rat).SetFrac(num, pow10(x.Scale*abs))
		if n < 0 {
			q.Inv(q)
		}
		return ratToDecimal(q, rscale), nil
	}
	prec := bitsFor(max(int(est), 0) + rscale + 20)
	xf := bigOf(x, prec)
	r := new(big.Float).SetPrec(prec).SetInt64(1)
	for k, b := max(n, -n), xf; k > 0; k >>= 1 {
		if k&1 == 1 {
			r.Mul(r, b)
		}
		b = new(big.Float).SetPrec(prec).Mul(b, b)
	}
	if n < 0 {
		r.Quo(new(big.Float).SetPrec(prec).SetInt64(1), r)
	}
	return roundBig(r, rscale), nil
}

// powerReal is x^y for a positive x and non-integral (or huge) y.
func powerReal(x, y Decimal) (any, error) {
	// A negative base only comes here with a huge integral exponent.
	neg := x.Coef.Sign() < 0 && y.Rat().Num().Bit(0) == 1
	if x.Coef.Sign() < 0 {
		x = x.neg()
	}
	est := bigLn(bigOf(x, 128), 128)
	est.Mul(est, bigOf(y, 128))
	val, _ := est.Float64()
	if math.Abs(val) > numericMaxResultScal*3.01 {
		if val > 0 {
			return nil, overflowsNumeric()
		}
		return Decimal{Coef: new(big.Int), Scale: numericMaxDispScale}, nil
	}
	val *= 0.434294481903252
	rscale := clampScale(max(numericMinSigDigits-int(val), x.Scale, y.Scale))
	digits := max(rscale+int(val), 0) + max(-estimateLnDweight(x), 0) + 20
	prec := bitsFor(digits + max(int(val), 0))
	l := bigLn(bigOf(x, prec), prec)
	l.Mul(l, bigOf(y, prec))
	if v, _ := l.Float64(); math.Abs(v) >= numericMaxResultScal*3 {
		if v > 0 {
			return nil, overflowsNumeric()
		}
		return Decimal{Coef: new(big.Int), Scale: rscale}, nil
	}
	r := roundBig(bigExp(l, prec), rscale)
	if neg {
		r = r.neg()
	}
	return r, nil
}
