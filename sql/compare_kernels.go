package sql

import (
	"math"
	"math/big"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// Comparison kernels: column op constant in one loop over the typed
// values, for the kinds WHERE clauses compare most (integers, dates,
// timestamps, floats, decimals). The closures of rowTest cost two
// indirect calls and a switch per row; TPC-H's filters spent a fifth of
// all CPU there. A kernel gives the same answer as rowTest's closure for
// the same array, value by value (compare_kernels_test.go checks).

// cmpTable is what an operator answers for a comparison that came out
// below, equal or above: one lookup per row instead of a switch.
type cmpTable [3]bool

func tableOf(op CmpOp) cmpTable { return cmpTable{cmpHolds(op, -1), cmpHolds(op, 0), cmpHolds(op, 1)} }

func (t cmpTable) pick(c int) bool { return t[c+1] }

// colKernel writes out[i] for the rows sel (nil: all) of arr compared with
// its constant; false when arr is not of a kind it knows (the closure
// then decides). Null rows get an arbitrary value: markNulls flags them.
type colKernel func(arr arrow.Array, t cmpTable, sel []int, out []bool) bool

// kernelFor is the kernel of rowTest's comparison of column c with v, or
// nil when there is none.
func kernelFor(c *ColumnRef, vt Type, v any, dom Type) colKernel {
	if c.T.Kind == KindDate && (dom.Kind == KindTimestamp || dom.Kind == KindTimestampTZ) {
		k, ok := toDomain(v, vt, dom).(int64)
		if !ok {
			return nil
		}
		return func(arr arrow.Array, t cmpTable, sel []int, out []bool) bool {
			a, ok := arr.(*array.Date32)
			if ok {
				datesAsTimestamps(a.Date32Values(), k, t, sel, out)
			}
			return ok
		}
	}
	if !sameDomain(c.T, dom) {
		return nil
	}
	switch k := toDomain(v, vt, dom).(type) {
	case int64:
		return intKernel(k)
	case float64:
		if math.IsNaN(k) {
			return nil
		}
		return floatKernel(k)
	case Decimal:
		return decimalKernel(k, c.T)
	case string:
		return stringKernel(k)
	}
	return nil
}

func stringKernel(k string) colKernel {
	return func(arr arrow.Array, t cmpTable, sel []int, out []bool) bool {
		a, ok := arr.(*array.String)
		if ok {
			forRows(a.Len(), sel, out, func(i int) bool { return t.pick(strings.Compare(a.Value(i), k)) })
		}
		return ok
	}
}

func intKernel(k int64) colKernel {
	return func(arr arrow.Array, t cmpTable, sel []int, out []bool) bool {
		switch a := arr.(type) {
		case *array.Int16:
			intsVs(a.Int16Values(), k, t, sel, out)
		case *array.Int32:
			intsVs(a.Int32Values(), k, t, sel, out)
		case *array.Int64:
			intsVs(a.Int64Values(), k, t, sel, out)
		case *array.Date32:
			intsVs(a.Date32Values(), k, t, sel, out)
		case *array.Time64:
			intsVs(a.Time64Values(), k, t, sel, out)
		case *array.Timestamp:
			intsVs(a.TimestampValues(), k, t, sel, out)
		default:
			return false
		}
		return true
	}
}

func intsVs[T ~int16 | ~int32 | ~int64](vals []T, k int64, t cmpTable, sel []int, out []bool) {
	if sel == nil {
		for i, v := range vals {
			out[i] = t.pick(cmp3(int64(v), k))
		}
		return
	}
	for _, i := range sel {
		out[i] = t.pick(cmp3(int64(vals[i]), k))
	}
}

// datesAsTimestamps compares each date, as the timestamp it converts to
// (dateToTimestamp, infinities included), with timestamp k.
func datesAsTimestamps(vals []arrow.Date32, k int64, t cmpTable, sel []int, out []bool) {
	if sel == nil {
		for i, v := range vals {
			out[i] = t.pick(cmp3(dateToTimestamp(int64(v)), k))
		}
		return
	}
	for _, i := range sel {
		out[i] = t.pick(cmp3(dateToTimestamp(int64(vals[i])), k))
	}
}

// floatKernel compares in PostgreSQL's float order (NaN above every
// number) with a k that is not NaN.
func floatKernel(k float64) colKernel {
	return func(arr arrow.Array, t cmpTable, sel []int, out []bool) bool {
		switch a := arr.(type) {
		case *array.Float64:
			floatsVs(a.Float64Values(), k, t, sel, out)
		case *array.Float32:
			floatsVs(a.Float32Values(), k, t, sel, out)
		default:
			return false
		}
		return true
	}
}

func floatsVs[T float32 | float64](vals []T, k float64, t cmpTable, sel []int, out []bool) {
	if sel == nil {
		for i, v := range vals {
			out[i] = t.pick(numberVsFloat(float64(v), k))
		}
		return
	}
	for _, i := range sel {
		out[i] = t.pick(numberVsFloat(float64(vals[i]), k))
	}
}

// numberVsFloat is floatCmp(x, k) for a k that is not NaN.
func numberVsFloat(x, k float64) int {
	switch {
	case x < k:
		return -1
	case x > k || x != x:
		return 1
	}
	return 0
}

// decimalKernel compares decimal128 values of the column's scale with k
// brought to that scale, as decimalTest does.
func decimalKernel(k Decimal, t Type) colKernel {
	if t.Kind != KindNumeric || t.Precision == 0 || k.Scale > t.Scale {
		return nil
	}
	kn, ok := scaledNum(k, t.Scale)
	if !ok {
		return nil
	}
	return func(arr arrow.Array, tab cmpTable, sel []int, out []bool) bool {
		a, ok := arr.(*array.Decimal128)
		if !ok || int(a.DataType().(*arrow.Decimal128Type).Scale) != t.Scale {
			return false
		}
		vals := a.Values()
		if sel == nil {
			for i, v := range vals {
				out[i] = tab.pick(v.Cmp(kn))
			}
			return true
		}
		for _, i := range sel {
			out[i] = tab.pick(vals[i].Cmp(kn))
		}
		return true
	}
}

// markNulls sets null[i] for the rows sel (nil: all) of arr that are null.
func markNulls(arr arrow.Array, sel []int, null []bool) {
	if arr.NullN() == 0 {
		return
	}
	bits, off := arr.NullBitmapBytes(), arr.Data().Offset()
	if bits == nil {
		return
	}
	if sel == nil {
		for i := range null {
			null[i] = !bitutil.BitIsSet(bits, off+i)
		}
		return
	}
	for _, i := range sel {
		null[i] = !bitutil.BitIsSet(bits, off+i)
	}
}

// scaledNum is k at scale (not below k's) as a decimal128, false when it
// needs more than 126 bits.
func scaledNum(k Decimal, scale int) (decimal128.Num, bool) {
	coef := new(big.Int).Mul(k.Coef, pow10(scale-k.Scale))
	if coef.BitLen() > 126 {
		return decimal128.Num{}, false
	}
	return decimal128.FromBigInt(coef), true
}

// pairKernelRun compares two columns of one Arrow type row by row in one
// loop (l_commitdate < l_receiptdate); false for other pairs, which
// pairCmp's closures compare.
func pairKernelRun(a, b arrow.Array, t cmpTable, sel []int, out []bool) bool {
	switch x := a.(type) {
	case *array.Int32:
		if y, ok := b.(*array.Int32); ok {
			pairsVs(x.Int32Values(), y.Int32Values(), t, sel, out)
			return true
		}
	case *array.Int64:
		if y, ok := b.(*array.Int64); ok {
			pairsVs(x.Int64Values(), y.Int64Values(), t, sel, out)
			return true
		}
	case *array.Date32:
		if y, ok := b.(*array.Date32); ok {
			pairsVs(x.Date32Values(), y.Date32Values(), t, sel, out)
			return true
		}
	case *array.Timestamp:
		if y, ok := b.(*array.Timestamp); ok {
			pairsVs(x.TimestampValues(), y.TimestampValues(), t, sel, out)
			return true
		}
	case *array.Decimal128:
		if y, ok := b.(*array.Decimal128); ok {
			xs, ys := x.Values(), y.Values()
			forRows(len(xs), sel, out, func(i int) bool { return t.pick(xs[i].Cmp(ys[i])) })
			return true
		}
	}
	return false
}

func pairsVs[T ~int32 | ~int64](xs, ys []T, t cmpTable, sel []int, out []bool) {
	if sel == nil {
		for i, v := range xs {
			out[i] = t.pick(cmp3(int64(v), int64(ys[i])))
		}
		return
	}
	for _, i := range sel {
		out[i] = t.pick(cmp3(int64(xs[i]), int64(ys[i])))
	}
}

// markMoreNulls is markNulls that leaves rows already flagged null.
func markMoreNulls(arr arrow.Array, sel []int, null []bool) {
	if arr.NullN() == 0 {
		return
	}
	bits, off := arr.NullBitmapBytes(), arr.Data().Offset()
	if bits == nil {
		return
	}
	forRows(len(null), sel, null, func(i int) bool { return null[i] || !bitutil.BitIsSet(bits, off+i) })
}
