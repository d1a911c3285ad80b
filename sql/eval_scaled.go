package sql

import (
	"context"
	"math"
	"math/bits"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Numeric arithmetic in the general evaluator is a big.Int per value and
// per node, and an unconstrained numeric result travels as text: TPC-H's
// sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) spent ~3 µs a row
// there. Yet + - * over numeric(p,s) columns and integers has a display
// scale fixed by the operands' (PostgreSQL: the larger for + and -, the
// sum for *), so such a tree is computed here column-wise on integers
// scaled to that one scale. A value that would leave 64 bits makes the
// whole batch take the general path: exactness never depends on this one.

// scaledVec is a column of numeric values as integers at one scale;
// valid is nil when no value is NULL.
type scaledVec struct {
	v     []int64
	valid []bool
	scale int
}

// maxScaledScale bounds the scale a kernel produces: Arrow's decimal128
// holds 38 digits.
const maxScaledScale = 38

// EvalScaled computes e over batch as a decimal128 column at the display
// scale PostgreSQL gives it, when e is + - * or unary minus over numeric
// and integer columns and constants and every operator's type is
// unconstrained numeric; false otherwise, or when a value does not fit
// 64 bits at that scale (the caller then takes Eval).
func EvalScaled(ctx context.Context, e Expr, batch arrow.RecordBatch) (arrow.Array, bool) {
	vec, ok := evalScaledBatch(ctx, e, batch)
	if !ok {
		return nil, false
	}
	return vec.decimal128(), true
}

// evalScaledBatch is the kernel entry: only arithmetic roots qualify, so
// a bare column or constant keeps its own path.
func evalScaledBatch(ctx context.Context, e Expr, batch arrow.RecordBatch) (scaledVec, bool) {
	if batch == nil || ctx.Err() != nil || !scaledRoot(e) {
		return scaledVec{}, false
	}
	return scaledEval(e, batch, int(batch.NumRows()))
}

// scaledRoot: an arithmetic node of unconstrained numeric type.
func scaledRoot(e Expr) bool {
	switch x := e.(type) {
	case *BinaryOp:
		return unconstrainedNumeric(x.T)
	case *UnaryOp:
		return unconstrainedNumeric(x.T)
	}
	return false
}

func unconstrainedNumeric(t Type) bool { return t.Kind == KindNumeric && t.Precision == 0 }

func isIntKind(k Kind) bool { return k == KindInt16 || k == KindInt32 || k == KindInt64 }

// scaledEval computes node e over n rows.
func scaledEval(e Expr, b arrow.RecordBatch, n int) (scaledVec, bool) {
	switch x := e.(type) {
	case *BinaryOp:
		if !unconstrainedNumeric(x.T) || (x.Op != "+" && x.Op != "-" && x.Op != "*") {
			return scaledVec{}, false
		}
		l, ok := scaledEval(x.L, b, n)
		if !ok {
			return scaledVec{}, false
		}
		r, ok := scaledEval(x.R, b, n)
		if !ok {
			return scaledVec{}, false
		}
		return scaledBinary(x.Op, l, r)
	case *UnaryOp:
		// Integer negation has its own overflow (-(-32768)::smallint
		// fails), so only numeric's is taken.
		if !unconstrainedNumeric(x.T) {
			return scaledVec{}, false
		}
		v, ok := scaledEval(x.X, b, n)
		if !ok || x.Op == "+" {
			return v, ok
		}
		return scaledNeg(v)
	case *Cast:
		// A cast to unconstrained numeric keeps an integer's or a
		// numeric's value and scale; one with a typmod rounds, so it
		// takes the general path.
		if !unconstrainedNumeric(x.T) {
			return scaledVec{}, false
		}
		t := x.X.Type()
		if t.Kind != KindNumeric && !isIntKind(t.Kind) {
			return scaledVec{}, false
		}
		return scaledEval(x.X, b, n)
	case *ColumnRef:
		if x.Index >= int(b.NumCols()) {
			return scaledVec{}, false
		}
		return scaledColumn(b.Column(x.Index))
	case *Const:
		return scaledConst(x.Value, n)
	}
	return scaledVec{}, false
}

// scaledColumn reads an integer or decimal128 column.
func scaledColumn(col arrow.Array) (scaledVec, bool) {
	n := col.Len()
	out := scaledVec{v: make([]int64, n)}
	switch a := col.(type) {
	case *array.Int16:
		for i, x := range a.Int16Values() {
			out.v[i] = int64(x)
		}
	case *array.Int32:
		for i, x := range a.Int32Values() {
			out.v[i] = int64(x)
		}
	case *array.Int64:
		copy(out.v, a.Int64Values())
	case *array.Decimal128:
		out.scale = int(a.DataType().(*arrow.Decimal128Type).Scale)
		for i, x := range a.Values() {
			lo, hi := x.LowBits(), x.HighBits()
			if hi != int64(lo)>>63 {
				if a.IsNull(i) {
					continue
				}
				return scaledVec{}, false
			}
			out.v[i] = int64(lo)
		}
	case *NumericArray:
		return scaledNumericText(a)
	default:
		return scaledVec{}, false
	}
	if col.NullN() > 0 {
		out.valid = make([]bool, n)
		for i := range out.valid {
			out.valid[i] = col.IsValid(i)
			if !out.valid[i] {
				out.v[i] = 0 // a NULL's slot must not overflow what it is combined with
			}
		}
	}
	return out, true
}

// scaledNumericText reads unconstrained numeric values (text, each at its
// own display scale: sum() and avg() results) at the largest scale among
// them.
func scaledNumericText(a *NumericArray) (scaledVec, bool) {
	n := a.Len()
	out := scaledVec{v: make([]int64, n)}
	scales := make([]int8, n)
	for i := range n {
		if a.IsNull(i) {
			continue
		}
		v, s, ok := ParseScaled(a.Text(i))
		if !ok {
			return scaledVec{}, false
		}
		out.v[i], scales[i] = v, int8(s)
		out.scale = max(out.scale, s)
	}
	for i, s := range scales {
		if int(s) == out.scale || out.v[i] == 0 {
			continue
		}
		p, ok := mulChecked(out.v[i], pow10Int64(out.scale-int(s)))
		if !ok {
			return scaledVec{}, false
		}
		out.v[i] = p
	}
	if a.NullN() > 0 {
		out.valid = make([]bool, n)
		for i := range out.valid {
			out.valid[i] = a.IsValid(i)
		}
	}
	return out, true
}

// ParseScaled reads a numeric's canonical text ("-12.50") as an integer
// at its display scale (-1250, 2); false for text of another form (NaN,
// an exponent) or past 18 digits.
func ParseScaled(s string) (v int64, scale int, ok bool) {
	i, neg := 0, false
	if s != "" && s[0] == '-' {
		i, neg = 1, true
	}
	var u uint64
	digits, point := 0, -1
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '.' && point < 0:
			point = digits
			continue
		case c < '0' || c > '9' || digits == 18:
			return 0, 0, false
		}
		u = u*10 + uint64(c-'0')
		digits++
	}
	if digits == 0 {
		return 0, 0, false
	}
	if point >= 0 {
		scale = digits - point
	}
	if neg {
		return -int64(u), scale, true
	}
	return int64(u), scale, true
}

// pow10Int64 is 10^n for n in [0, 18].
func pow10Int64(n int) int64 { return int64(pow10Uint64(n)) }

// scaledConst repeats a constant n times.
func scaledConst(v any, n int) (scaledVec, bool) {
	out := scaledVec{v: make([]int64, n)}
	var k int64
	switch c := v.(type) {
	case nil:
		out.valid = make([]bool, n)
		return out, true
	case int64:
		k = c
	case Decimal:
		if !c.Coef.IsInt64() {
			return scaledVec{}, false
		}
		k, out.scale = c.Coef.Int64(), c.Scale
	default:
		return scaledVec{}, false
	}
	for i := range out.v {
		out.v[i] = k
	}
	return out, true
}

// scaledBinary is l op r at PostgreSQL's display scale.
func scaledBinary(op string, l, r scaledVec) (scaledVec, bool) {
	out := scaledVec{v: l.v, valid: andValid(l.valid, r.valid)}
	if op == "*" {
		out.scale = l.scale + r.scale
		if out.scale > maxScaledScale {
			return scaledVec{}, false
		}
		for i, a := range l.v {
			p, ok := mulChecked(a, r.v[i])
			if !ok {
				return scaledVec{}, false
			}
			out.v[i] = p
		}
		return out, true
	}
	out.scale = max(l.scale, r.scale)
	if !rescaleVec(&l, out.scale) || !rescaleVec(&r, out.scale) {
		return scaledVec{}, false
	}
	out.v = l.v
	for i, a := range l.v {
		b := r.v[i]
		if op == "-" {
			if b == math.MinInt64 {
				return scaledVec{}, false
			}
			b = -b
		}
		s := a + b
		if (a^s)&(b^s) < 0 {
			return scaledVec{}, false
		}
		out.v[i] = s
	}
	return out, true
}

// scaledNeg is -v.
func scaledNeg(v scaledVec) (scaledVec, bool) {
	for i, x := range v.v {
		if x == math.MinInt64 {
			return scaledVec{}, false
		}
		v.v[i] = -x
	}
	return v, true
}

// rescaleVec raises v to scale s (at least its own), in place.
func rescaleVec(v *scaledVec, s int) bool {
	if v.scale == s {
		return true
	}
	if s-v.scale > 18 {
		return false
	}
	f := pow10Int64(s - v.scale)
	for i, x := range v.v {
		p, ok := mulChecked(x, f)
		if !ok {
			return false
		}
		v.v[i] = p
	}
	v.scale = s
	return true
}

// mulChecked is a*b, false when it overflows int64.
func mulChecked(a, b int64) (int64, bool) {
	if uint64(a+1<<31) < 1<<32 && uint64(b+1<<31) < 1<<32 {
		return a * b, true // both within ±2^31: the product fits
	}
	if a == 0 || b == 0 {
		return 0, true
	}
	ua, ub := uint64(a), uint64(b)
	neg := (a < 0) != (b < 0)
	if a < 0 {
		ua = -ua
	}
	if b < 0 {
		ub = -ub
	}
	hi, lo := bits.Mul64(ua, ub)
	if neg && hi == 0 && lo == 1<<63 {
		return math.MinInt64, true
	}
	if hi != 0 || lo > math.MaxInt64 {
		return 0, false
	}
	if neg {
		return -int64(lo), true
	}
	return int64(lo), true
}

// andValid is the rows valid in both (nil: all).
func andValid(a, b []bool) []bool {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	for i := range a {
		a[i] = a[i] && b[i]
	}
	return a
}

// decimal128 is the vector as an Arrow decimal128(38, scale) column,
// its buffers written directly (a builder's per-value append was a third
// of a kernel's time).
func (v scaledVec) decimal128() arrow.Array {
	n := len(v.v)
	vals := make([]decimal128.Num, n)
	for i, x := range v.v {
		vals[i] = decimal128.FromI64(x)
	}
	var bitmap *memory.Buffer
	nulls := 0
	if v.valid != nil {
		bits := make([]byte, bitutil.BytesForBits(int64(n)))
		for i, ok := range v.valid {
			if ok {
				bitutil.SetBit(bits, i)
			} else {
				nulls++
			}
		}
		bitmap = memory.NewBufferBytes(bits)
	}
	data := array.NewData(&arrow.Decimal128Type{Precision: 38, Scale: int32(v.scale)}, n,
		[]*memory.Buffer{bitmap, memory.NewBufferBytes(arrow.Decimal128Traits.CastToBytes(vals))}, nil, nulls, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// numericText is the vector as unconstrained numeric (its text form, as
// Decimal.String prints a value at the vector's scale).
func (v scaledVec) numericText() arrow.Array {
	b := NewNumericType().NewBuilder(memory.DefaultAllocator).(*NumericBuilder)
	defer b.Release()
	sb := b.Builder.(*array.StringBuilder)
	sb.Reserve(len(v.v))
	var buf []byte
	for i, x := range v.v {
		if v.valid != nil && !v.valid[i] {
			b.AppendNull()
			continue
		}
		buf = AppendScaled(buf[:0], x, v.scale)
		sb.BinaryBuilder.Append(buf)
	}
	return b.NewArray()
}

// AppendScaled appends x·10^-scale as PostgreSQL prints a numeric at that
// display scale (Decimal.String): "-0.05",
// "12.00", "7".
func AppendScaled(b []byte, x int64, scale int) []byte {
	u := uint64(x)
	if x < 0 {
		u = -u
		b = append(b, '-')
	}
	var digits [20]byte
	d := strconv.AppendUint(digits[:0], u, 10)
	switch {
	case scale <= 0:
		return append(b, d...)
	case len(d) <= scale:
		b = append(b, '0', '.')
		for range scale - len(d) {
			b = append(b, '0')
		}
		return append(b, d...)
	}
	b = append(b, d[:len(d)-scale]...)
	b = append(b, '.')
	return append(b, d[len(d)-scale:]...)
}
