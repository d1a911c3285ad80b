package sql

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestMulCheckedAgainstBigInts: the product, or false exactly when it
// leaves int64, for values around ±2^31 (the fast path's edge), ±2^32 and
// the int64 extremes.
func TestMulCheckedAgainstBigInts(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	edges := []int64{0, 1, -1, 1<<31 - 1, 1 << 31, -1 << 31, -1<<31 - 1, 1 << 32, -1 << 32, 3037000499, 3037000500,
		math.MaxInt64, math.MinInt64, math.MaxInt64 / 2, math.MinInt64 / 2}
	pick := func() int64 {
		switch rng.IntN(3) {
		case 0:
			return edges[rng.IntN(len(edges))] + rng.Int64N(3) - 1
		case 1:
			return rng.Int64N(1<<34) - 1<<33
		}
		return int64(rng.Uint64())
	}
	for range 200000 {
		a, b := pick(), pick()
		want := new(big.Int).Mul(big.NewInt(a), big.NewInt(b))
		got, ok := mulChecked(a, b)
		if fits := want.IsInt64(); ok != fits || ok && got != want.Int64() {
			t.Fatalf("mulChecked(%d, %d) = %d, %v; want %v, fits %v", a, b, got, ok, want, fits)
		}
	}
}
