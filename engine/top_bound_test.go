package engine

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/magmalake/magmalake/plan"
)

// TestFirstKeyOrderMatchesCompareKeyRows checks the top-N's typed first-key
// pass against compareKeyRows, row by row, for every key type it reads,
// both directions and both NULL placements, with ties and NULLs.
func TestFirstKeyOrderMatchesCompareKeyRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	mem := memory.DefaultAllocator
	build := []func(vals []int) arrow.Array{
		func(vals []int) arrow.Array {
			b := array.NewInt64Builder(mem)
			for _, v := range vals {
				if v < 0 {
					b.AppendNull()
				} else {
					b.Append(int64(v) - 5)
				}
			}
			return b.NewArray()
		},
		func(vals []int) arrow.Array {
			b := array.NewDate32Builder(mem)
			for _, v := range vals {
				if v < 0 {
					b.AppendNull()
				} else {
					b.Append(arrow.Date32(v))
				}
			}
			return b.NewArray()
		},
		func(vals []int) arrow.Array {
			b := array.NewFloat64Builder(mem)
			for _, v := range vals {
				switch {
				case v < 0:
					b.AppendNull()
				case v == 9:
					b.Append(math.NaN())
				default:
					b.Append(float64(v) / 2)
				}
			}
			return b.NewArray()
		},
		func(vals []int) arrow.Array {
			b := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 12, Scale: 2})
			for _, v := range vals {
				if v < 0 {
					b.AppendNull()
				} else {
					b.Append(decimal128.FromI64(int64(v*37 - 100)))
				}
			}
			return b.NewArray()
		},
	}
	for kind, mk := range build {
		for trial := range 100 {
			vals := make([]int, 50)
			for i := range vals {
				vals[i] = rng.IntN(11) - 1 // -1: NULL
			}
			col := mk(vals)
			bound := mk([]int{rng.IntN(10)})
			spec := plan.SortSpec{Desc: trial%2 == 0, NullsFirst: trial%4 < 2}
			got, ok := firstKeyOrder(col, bound, spec)
			if !ok {
				t.Fatalf("kind %d: no typed pass", kind)
			}
			for r := range vals {
				want := compareKeyRows([]arrow.Array{col}, r, []arrow.Array{bound}, 0, []plan.SortSpec{spec})
				if int(got[r]) != want {
					t.Fatalf("kind %d spec %+v row %d (%v vs %v): got %d, want %d", kind, spec, r, vals[r], bound, got[r], want)
				}
			}
			col.Release()
			bound.Release()
		}
	}
}
