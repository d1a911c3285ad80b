package sql

import (
	"math"
	"math/bits"
	"strconv"
)

// AppendFloat appends f as PostgreSQL 15 prints float4 (bitSize 32) or float8
// (bitSize 64) with extra_float_digits > 0: the shortest digits that round-trip,
// in fixed notation when the decimal exponent is in [-4, 6) for float4 and
// [-4, 15) for float8, otherwise as d.ddde+XX (printf's thresholds, which
// PostgreSQL's Ryu output copies).
func AppendFloat(buf []byte, f float64, bitSize int) []byte {
	switch {
	case math.IsNaN(f):
		return append(buf, "NaN"...)
	case math.IsInf(f, 1):
		return append(buf, "Infinity"...)
	case math.IsInf(f, -1):
		return append(buf, "-Infinity"...)
	}
	var tmp [40]byte
	s := strconv.AppendFloat(tmp[:0], f, 'e', -1, bitSize)
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	// s is d[.ddd]e±XX
	e := len(s) - 1
	for s[e] != 'e' {
		e--
	}
	exp := 0
	for _, c := range s[e+2:] {
		exp = exp*10 + int(c-'0')
	}
	if s[e+1] == '-' {
		exp = -exp
	}
	var digits [24]byte
	nd := 0
	for _, c := range s[:e] {
		if c != '.' {
			digits[nd] = c
			nd++
		}
	}
	if neg {
		buf = append(buf, '-')
	}
	fixedMax := 15
	if bitSize == 32 {
		fixedMax = 6
	}
	if exp < -4 || exp >= fixedMax {
		return fmtSci(buf, digits[:nd], exp)
	}
	return fmtFixed(buf, digits[:nd], exp)
}

func fmtSci(buf, digits []byte, exp int) []byte {
	buf = append(buf, digits[0])
	if len(digits) > 1 {
		buf = append(buf, '.')
		buf = append(buf, digits[1:]...)
	}
	buf = append(buf, 'e')
	if exp < 0 {
		buf = append(buf, '-')
		exp = -exp
	} else {
		buf = append(buf, '+')
	}
	if exp < 10 {
		buf = append(buf, '0')
	}
	return strconv.AppendInt(buf, int64(exp), 10)
}

func fmtFixed(buf, digits []byte, exp int) []byte {
	if exp < 0 {
		buf = append(buf, '0', '.')
		for k := exp + 1; k < 0; k++ {
			buf = append(buf, '0')
		}
		return append(buf, digits...)
	}
	intLen := exp + 1
	if len(digits) <= intLen {
		buf = append(buf, digits...)
		for k := len(digits); k < intLen; k++ {
			buf = append(buf, '0')
		}
		return buf
	}
	buf = append(buf, digits[:intLen]...)
	buf = append(buf, '.')
	return append(buf, digits[intLen:]...)
}

// AppendDecimal appends the 128-bit two's complement integer hi:lo scaled by
// 10^-scale as PostgreSQL prints numeric: exactly scale fractional digits.
func AppendDecimal(buf []byte, hi int64, lo uint64, scale int) []byte {
	uhi := uint64(hi)
	if hi < 0 {
		buf = append(buf, '-')
		// two's complement negation of the 128-bit value
		lo = ^lo + 1
		uhi = ^uhi
		if lo == 0 {
			uhi++
		}
	}
	var digits [48]byte
	n := len(digits)
	for uhi != 0 || lo != 0 {
		var rem uint64
		uhi, rem = bits.Div64(0, uhi, 1e19)
		lo, rem = bits.Div64(rem, lo, 1e19)
		for k := 0; k < 19; k++ {
			n--
			digits[n] = byte('0' + rem%10)
			rem /= 10
			if uhi == 0 && lo == 0 && rem == 0 {
				break
			}
		}
	}
	d := digits[n:]
	if scale <= 0 {
		if len(d) == 0 {
			return append(buf, '0')
		}
		buf = append(buf, d...)
		for k := 0; k < -scale; k++ {
			buf = append(buf, '0')
		}
		return buf
	}
	if len(d) <= scale {
		buf = append(buf, '0', '.')
		for k := len(d); k < scale; k++ {
			buf = append(buf, '0')
		}
		return append(buf, d...)
	}
	buf = append(buf, d[:len(d)-scale]...)
	buf = append(buf, '.')
	return append(buf, d[len(d)-scale:]...)
}
