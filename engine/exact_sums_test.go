package engine

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestAddColumn128AgainstBigInts: a batch's 128-bit sums equal big.Int
// sums per group, with NULLs, mixed signs, and values near 2^127 that
// overflow the 128-bit part into the big.Int (both ways).
func TestAddColumn128AgainstBigInts(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	const groups = 5
	typ := &arrow.Decimal128Type{Precision: 38, Scale: 2}
	for round := range 50 {
		b := array.NewDecimal128Builder(memory.DefaultAllocator, typ)
		var ids []int32
		model := make([]*big.Int, groups)
		counts := make([]int64, groups)
		for g := range model {
			model[g] = new(big.Int)
		}
		for range 300 {
			g := int32(rng.IntN(groups))
			ids = append(ids, g)
			var v decimal128.Num
			switch rng.IntN(4) {
			case 0:
				b.AppendNull()
				continue
			case 1: // near the edges: sums overflow 128 bits
				v = decimal128.New(rng.Int64()|1<<62, rng.Uint64())
				if rng.IntN(2) == 0 {
					v = v.Negate()
				}
			default:
				v = decimal128.FromI64(rng.Int64N(1<<40) - 1<<39)
			}
			b.Append(v)
			model[g].Add(model[g], v.BigInt())
			counts[g]++
		}
		arr := b.NewDecimal128Array()
		var e exactSums
		e.growAt(groups, 2)
		got := make([]int64, groups)
		e.addColumn128(ids, arr.Values(), arr, arr.NullN() > 0, got)
		for g := range groups {
			sum := e.part[g].BigInt()
			if e.over[g] != nil {
				sum.Add(sum, e.over[g])
			}
			if sum.Cmp(model[g]) != 0 || got[g] != counts[g] {
				t.Fatalf("round %d group %d: sum %v of %d values, want %v of %d", round, g, sum, got[g], model[g], counts[g])
			}
		}
		arr.Release()
		b.Release()
	}
}
