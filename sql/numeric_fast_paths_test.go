package sql

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
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

// TestParseScaledAgreesWithReadNumeric: the shortcut reads what
// readNumeric reads, or declines.
func TestParseScaledAgreesWithReadNumeric(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	fixed := []string{"0", "-0", "0.00", "-0.001", "123", "999999999999999999", "1000000000000000000",
		"-99999999999999999.9", "12.", ".5", "-.5", "NaN", "1e5", "", "-", "1.2.3", " 1", "+1"}
	for range 20000 {
		var b strings.Builder
		if rng.IntN(2) == 0 {
			b.WriteByte('-')
		}
		for range rng.IntN(12) {
			b.WriteByte(byte('0' + rng.IntN(10)))
		}
		if rng.IntN(3) > 0 {
			b.WriteByte('.')
			for range rng.IntN(12) {
				b.WriteByte(byte('0' + rng.IntN(10)))
			}
		}
		fixed = append(fixed, b.String())
	}
	for _, s := range fixed {
		coef, scale, ok := ParseScaled(s)
		if !ok {
			continue
		}
		d, err := readNumeric(s)
		if err != nil {
			t.Fatalf("ParseScaled(%q) = %d, %d; readNumeric refuses it: %v", s, coef, scale, err)
		}
		if d.Coef.Cmp(big.NewInt(coef)) != 0 || d.Scale != scale {
			t.Fatalf("ParseScaled(%q) = %d, %d; readNumeric: %v, %d", s, coef, scale, d.Coef, d.Scale)
		}
	}
}

// TestNumericAppendPrintsLikeString: NumericBuilder's int64 shortcut
// prints what Decimal.String prints, at every scale up to 20 and around
// the int64 extremes.
func TestNumericAppendPrintsLikeString(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 46))
	var ds []Decimal
	for _, c := range []int64{0, 1, -1, 9, -10, math.MaxInt64, math.MinInt64, math.MinInt64 + 1} {
		for s := range 21 {
			ds = append(ds, Decimal{Coef: big.NewInt(c), Scale: s})
		}
	}
	for range 2000 {
		c := rng.Int64() >> rng.IntN(64)
		if rng.IntN(2) == 0 {
			c = -c
		}
		ds = append(ds, Decimal{Coef: big.NewInt(c), Scale: rng.IntN(21)})
	}
	b := NewNumericType().NewBuilder(memory.DefaultAllocator).(*NumericBuilder)
	defer b.Release()
	for _, d := range ds {
		if err := b.Append(d); err != nil {
			t.Fatal(err)
		}
	}
	arr := b.NewArray().(*NumericArray)
	defer arr.Release()
	for i, d := range ds {
		if got := arr.Text(i); got != d.String() {
			t.Fatalf("%v at scale %d: %q, want %q", d.Coef, d.Scale, got, d.String())
		}
	}
}
