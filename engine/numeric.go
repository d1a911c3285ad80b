package engine

import "math/big"

// divRound returns round(x/10^xs / (y/10^ys)) at scale rs, half away from
// zero, as PostgreSQL's div_var with rounding does.
func divRound(x *big.Int, xs int, y *big.Int, ys int, rs int) *big.Int {
	// x/10^xs / (y/10^ys) * 10^rs = x * 10^(ys+rs) / (y * 10^xs)
	num := new(big.Int).Mul(x, pow10(ys+rs))
	den := new(big.Int).Mul(y, pow10(xs))
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	// Round half away from zero: compare 2|r| with |den|.
	r2 := new(big.Int).Abs(r)
	r2.Lsh(r2, 1)
	if r2.Cmp(new(big.Int).Abs(den)) >= 0 {
		if (num.Sign() < 0) != (den.Sign() < 0) {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}

func pow10(n int) *big.Int {
	if n <= 0 {
		return big.NewInt(1)
	}
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}
