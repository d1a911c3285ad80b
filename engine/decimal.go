package engine

import (
	"math/big"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// rescaleBig returns v (at scale from) as an integer at scale to >= from,
// which is always exact.
func rescaleBig(v decimal128.Num, from, to int32) *big.Int {
	b := v.BigInt()
	if to > from {
		return b.Mul(b, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(to-from)), nil))
	}
	return b
}
