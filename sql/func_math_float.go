package sql

import (
	"math"
	"math/big"
)

// Double precision exp, ln, log10, power and cbrt as PostgreSQL computes
// them through the C library (glibc). Go's math package is off by an ulp
// now and then (and its amd64 Log is wrong for subnormal arguments), which
// shows in the shortest-digits output; exp, ln, log10 and power are
// computed here at 160 bits and rounded once, which is what glibc's
// correctly rounded routines answer, and cbrt follows glibc's own
// algorithm because that one is not correctly rounded.

const floatWorkBits = 160

func bigFloat(f float64) *big.Float { return new(big.Float).SetPrec(floatWorkBits).SetFloat64(f) }

// crLn is ln(f) for a finite f > 0, correctly rounded.
func crLn(f float64) float64 {
	r, _ := bigLn(bigFloat(f), floatWorkBits).Float64()
	return r
}

// crLog10 is log10(f) for a finite f > 0.
func crLog10(f float64) float64 {
	l := bigLn(bigFloat(f), floatWorkBits)
	r, _ := l.Quo(l, bigLn(bigFloat(10), floatWorkBits)).Float64()
	return r
}

// crExp is e^f for a finite f; beyond ±746 the result is certainly out of
// float8's range (Inf or 0), which bigExp need not compute.
func crExp(f float64) float64 {
	switch {
	case f > 710:
		return math.Inf(1)
	case f < -746:
		return 0
	}
	r, _ := bigExp(bigFloat(f), floatWorkBits).Float64()
	return r
}

// crPow is x^y for finite x, y with x > 0, or x < 0 and y integral.
func crPow(x, y float64) float64 {
	switch {
	case x == 0:
		return math.Pow(x, y)
	case y == 0 || x == 1:
		return 1
	}
	neg := x < 0 && math.Abs(y) < 1<<53 && int64(y)%2 != 0
	l := bigLn(bigFloat(math.Abs(x)), floatWorkBits)
	l.Mul(l, bigFloat(y))
	v, _ := l.Float64()
	var r float64
	switch {
	case v > 710:
		r = math.Inf(1)
	case v < -746:
		r = 0
	default:
		r, _ = bigExp(l, floatWorkBits).Float64()
	}
	if neg {
		return -r
	}
	return r
}

// glibcCbrt is glibc's cbrt (sysdeps/ieee754/dbl-64/s_cbrt.c): a
// polynomial first guess refined by one Halley step, each product rounded
// as the C code rounds it (no fused multiply-add).
func glibcCbrt(x float64) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x + x
	}
	const cbrt2, sqrCbrt2 = 1.2599210498948731648, 1.5874010519681994748
	factor := [5]float64{1.0 / sqrCbrt2, 1.0 / cbrt2, 1.0, cbrt2, sqrCbrt2}
	xm, xe := math.Frexp(math.Abs(x))
	u := float64(0.784932344976639262 - float64(0.145263899385486377*xm))
	u = float64(-1.83469277483613086 + float64(u*xm))
	u = float64(2.44693122563534430 + float64(u*xm))
	u = float64(-2.11499494167371287 + float64(u*xm))
	u = float64(1.50819193781584896 + float64(u*xm))
	u = float64(0.354895765043919860 + float64(u*xm))
	t2 := float64(float64(u*u) * u)
	num := float64(t2 + float64(2.0*xm))
	den := float64(float64(2.0*t2) + xm)
	ym := float64(float64(float64(u*num)/den) * factor[2+xe%3])
	if x < 0 {
		ym = -ym
	}
	return math.Ldexp(ym, xe/3)
}
