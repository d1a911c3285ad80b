package sql

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestKernelsMatchRowTests checks each comparison kernel against rowTest's
// closure (the row-by-row comparison it replaces) on random columns with
// nulls, NaN, infinite dates and sliced arrays, every operator, with and
// without a selection.
func TestKernelsMatchRowTests(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	mem := memory.DefaultAllocator
	ts := Type{Kind: KindTimestamp}
	num := Type{Kind: KindNumeric, Precision: 15, Scale: 2}
	cases := []struct {
		name  string
		col   Type
		build func(n int) arrow.Array
		konst func() (any, Type, Type) // value, its type, the comparison's domain
	}{
		{"int64", Type{Kind: KindInt64}, func(n int) arrow.Array {
			b := array.NewInt64Builder(mem)
			for range n {
				appendOrNull(rng, b, func() { b.Append(rng.Int64N(20) - 10) })
			}
			return b.NewArray()
		}, func() (any, Type, Type) { return rng.Int64N(24) - 12, Type{Kind: KindInt64}, Type{Kind: KindInt64} }},
		{"int32 vs wide", Type{Kind: KindInt32}, func(n int) arrow.Array {
			b := array.NewInt32Builder(mem)
			for range n {
				appendOrNull(rng, b, func() { b.Append(int32(rng.Int64N(20)) - 10 + int32(rng.IntN(2))*math.MaxInt32/2) })
			}
			return b.NewArray()
		}, func() (any, Type, Type) {
			return []int64{0, 5, -7, math.MaxInt32 + 5, math.MinInt32 - 5}[rng.IntN(5)], Type{Kind: KindInt64}, Type{Kind: KindInt64}
		}},
		{"date vs timestamp", Type{Kind: KindDate}, func(n int) arrow.Array {
			b := array.NewDate32Builder(mem)
			for range n {
				appendOrNull(rng, b, func() {
					b.Append(arrow.Date32([]int64{rng.Int64N(40) - 20, math.MaxInt32, math.MinInt32, 3000000, 200000000}[rng.IntN(5)]))
				})
			}
			return b.NewArray()
		}, func() (any, Type, Type) {
			k := (rng.Int64N(40)-20)*usPerDay + []int64{0, 1, usPerDay / 2}[rng.IntN(3)]
			if rng.IntN(4) == 0 { // infinity, and the end of PostgreSQL's timestamps
				k = []int64{math.MaxInt64, math.MinInt64, math.MaxInt64 - 1}[rng.IntN(3)]
			}
			return k, ts, ts
		}},
		{"float64", Type{Kind: KindFloat64}, func(n int) arrow.Array {
			b := array.NewFloat64Builder(mem)
			for range n {
				appendOrNull(rng, b, func() {
					b.Append([]float64{float64(rng.IntN(10)) - 5, math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1)}[rng.IntN(5)])
				})
			}
			return b.NewArray()
		}, func() (any, Type, Type) {
			return []float64{0, 2.5, -3, math.Inf(1)}[rng.IntN(4)], Type{Kind: KindFloat64}, Type{Kind: KindFloat64}
		}},
		{"decimal(15,2)", num, func(n int) arrow.Array {
			b := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 15, Scale: 2})
			for range n {
				appendOrNull(rng, b, func() { b.Append(decimal128.FromI64(rng.Int64N(2000) - 1000)) })
			}
			return b.NewArray()
		}, func() (any, Type, Type) {
			d := Decimal{Coef: big.NewInt(rng.Int64N(200) - 100), Scale: rng.IntN(3)}
			return d, Type{Kind: KindNumeric, Precision: 10, Scale: d.Scale}, num
		}},
		{"text", Type{Kind: KindText}, func(n int) arrow.Array {
			b := array.NewStringBuilder(mem)
			words := []string{"", "MAIL", "MAILS", "SHIP", "AIR", "ship"}
			for range n {
				appendOrNull(rng, b, func() { b.Append(words[rng.IntN(len(words))]) })
			}
			return b.NewArray()
		}, func() (any, Type, Type) {
			return []string{"MAIL", "", "RAIL", "SHIPZ"}[rng.IntN(4)], Type{Kind: KindText}, Type{Kind: KindText}
		}},
	}
	ops := []CmpOp{OpEQ, OpNE, OpLT, OpLE, OpGT, OpGE}
	for _, tc := range cases {
		checked := 0
		for trial := range 300 {
			full := tc.build(64)
			arr := array.NewSlice(full, int64(trial%5), 64)
			full.Release()
			v, vt, dom := tc.konst()
			c := &ColumnRef{T: tc.col}
			kernel := kernelFor(c, vt, v, dom)
			test, ok := rowTest(c, vt, v, dom)
			if kernel == nil || !ok {
				t.Fatalf("%s: no kernel (%v) or row test (%v) for %v", tc.name, kernel != nil, ok, v)
			}
			var sel []int
			if trial%2 == 1 {
				for i := range arr.Len() {
					if rng.IntN(2) == 0 {
						sel = append(sel, i)
					}
				}
			}
			for _, op := range ops {
				want := compareColumn(arr, test(arr), op, sel)
				got := newTriMask(arr.Len())
				if !kernel(arr, tableOf(op), sel, got.val) {
					t.Fatalf("%s: the kernel refused its own kind", tc.name)
				}
				markNulls(arr, sel, got.null)
				for _, i := range rowsOf(arr.Len(), sel) {
					if want.null[i] != got.null[i] || !want.null[i] && want.val[i] != got.val[i] {
						t.Fatalf("%s: row %d (%v) op %v %v: kernel %v/%v, row test %v/%v", tc.name, i,
							DatumAt(arr, Unknown, i), op, v, got.val[i], got.null[i], want.val[i], want.null[i])
					}
					checked++
				}
			}
			arr.Release()
		}
		if checked == 0 {
			t.Fatalf("%s: nothing compared", tc.name)
		}
	}
}

func appendOrNull(rng *rand.Rand, b array.Builder, value func()) {
	if rng.IntN(6) == 0 {
		b.AppendNull()
		return
	}
	value()
}

func rowsOf(n int, sel []int) []int {
	if sel != nil {
		return sel
	}
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
