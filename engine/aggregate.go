package engine

import (
	"context"
	"math"
	"math/big"
	"math/bits"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// aggSpec describes one aggregate call of a query.
type aggSpec struct {
	Func     string // count, sum, avg, min, max
	Star     bool   // count(*)
	Distinct bool
	Input    sql.Type
}

// accumulator folds input values into per-group states.
type accumulator interface {
	// update folds value i of arr (arr is nil for count(*)) into group g.
	update(g int, arr arrow.Array, i int) error
	// result builds the output column for groups 0..n-1.
	result(ctx context.Context, mem memory.Allocator, n int) (arrow.Array, error)
}

// newAccumulator builds the state for one aggregate whose result type the
// binder chose (out).
func newAccumulator(a aggSpec, out sql.Type) (accumulator, error) {
	var acc accumulator
	switch a.Func {
	case "count":
		acc = &countAcc{star: a.Star}
	case "min", "max":
		acc = &extremeAcc{max: a.Func == "max", typ: out}
	case "sum", "avg":
		acc = newSumAcc(a, out)
	case "stddev_samp", "stddev_pop", "var_samp", "var_pop":
		acc = newVarianceAcc(a, out)
	case "bool_and", "bool_or":
		acc = &boolAcc{and: a.Func == "bool_and"}
	case "string_agg":
		acc = &stringAggAcc{}
	case "array_agg":
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "array_agg as a window function is not supported")
	default:
		return nil, pgerr.Errorf(pgerr.UndefinedFunction, "function %s does not exist", a.Func)
	}
	if a.Distinct && !a.Star {
		acc = &distinctAcc{inner: acc}
	}
	return acc, nil
}

type countAcc struct {
	star bool
	n    []int64
}

func (c *countAcc) update(g int, arr arrow.Array, i int) error {
	c.n = grow(c.n, g)
	if c.star || !arr.IsNull(i) {
		c.n[g]++
	}
	return nil
}

func (c *countAcc) result(_ context.Context, mem memory.Allocator, n int) (arrow.Array, error) {
	b := array.NewInt64Builder(mem)
	defer b.Release()
	c.n = grow(c.n, n-1)
	b.AppendValues(c.n[:n], nil)
	return b.NewArray(), nil
}

// extremeAcc keeps, per group, a one-element slice of the best value seen.
type extremeAcc struct {
	max  bool
	typ  sql.Type
	best []arrow.Array
}

func (e *extremeAcc) update(g int, arr arrow.Array, i int) error {
	for len(e.best) <= g {
		e.best = append(e.best, nil)
	}
	if arr.IsNull(i) {
		return nil
	}
	cur := e.best[g]
	if cur != nil {
		c := compareCells(arr, i, cur, 0)
		if (e.max && c <= 0) || (!e.max && c >= 0) {
			return nil
		}
		cur.Release()
	}
	e.best[g] = array.NewSlice(arr, int64(i), int64(i+1))
	return nil
}

func (e *extremeAcc) result(_ context.Context, mem memory.Allocator, n int) (arrow.Array, error) {
	b := array.NewBuilder(mem, e.typ.ArrowType())
	defer b.Release()
	for g := 0; g < n; g++ {
		if g >= len(e.best) || e.best[g] == nil {
			b.AppendNull()
			continue
		}
		if err := AppendFrom(b, e.best[g], 0); err != nil {
			return nil, err
		}
	}
	// The state stays: a running window frame asks again as it grows.
	return b.NewArray(), nil
}

// sumAcc sums exactly (big.Int at the group's scale for integers and
// numerics, float64 for floats) and counts, serving sum() and avg().
type sumAcc struct {
	avg     bool
	out     sql.Type
	isFloat bool
	exact   exactSums
	floats  []float64
	counts  []int64
}

func newSumAcc(a aggSpec, out sql.Type) *sumAcc {
	return &sumAcc{avg: a.Func == "avg", out: out, isFloat: inputIsFloat(a.Input)}
}

// inputIsFloat: floats fold as float64, everything else exactly.
func inputIsFloat(t sql.Type) bool {
	return t.Kind == sql.KindFloat32 || t.Kind == sql.KindFloat64
}

// exactSums holds per-group sums of integers at a per-group scale: the
// largest display scale seen, since unconstrained numeric inputs vary per
// value. A group's sum is part + over: part a 128-bit integer that takes
// every addition it can hold without overflowing (all of them, for sums of
// bigint or numeric(p<=38) columns short of 10^38), over a big.Int, nil
// until an addition would overflow part. Adding a bigint or a
// numeric(12,2) value then costs two machine additions, not a big.Int.
type exactSums struct {
	part   []decimal128.Num
	over   []*big.Int
	scales []int
	// common is the scale of every group, or -1 when they differ: a batch
	// of one column's values then needs no per-row look at scales.
	common int
}

// grow makes room for groups [0, n), new ones at scale 0.
func (e *exactSums) grow(n int) { e.growAt(n, 0) }

// growAt makes room for groups [0, n), new ones at scale s: a batch path
// creates a group at its column's scale, the scale its first value would
// raise it to (an empty group's scale is never shown: its sum is NULL).
func (e *exactSums) growAt(n, s int) {
	if len(e.part) >= n {
		return
	}
	switch {
	case len(e.part) == 0:
		e.common = s
	case e.common != s:
		e.common = -1
	}
	old := len(e.scales)
	e.part, e.over, e.scales = growTo(e.part, n), growTo(e.over, n), growTo(e.scales, n)
	if s != 0 {
		for g := old; g < n; g++ {
			e.scales[g] = s
		}
	}
}

// total is group g's sum (a new big.Int) at scale e.scales[g].
func (e *exactSums) total(g int) *big.Int {
	e.grow(g + 1)
	t := e.part[g].BigInt()
	if e.over[g] != nil {
		t.Add(t, e.over[g])
	}
	return t
}

// setTotal makes t (at the group's scale) group g's sum.
func (e *exactSums) setTotal(g int, t *big.Int) {
	if fits128(t) {
		e.part[g], e.over[g] = decimal128.FromBigInt(t), nil
		return
	}
	e.part[g], e.over[g] = decimal128.Num{}, t
}

// fits128 says whether v is safely a signed 128-bit integer.
func fits128(v *big.Int) bool { return v.BitLen() < 128 }

// add folds v·10^-scale (raised to power: 1 for Σx, 2 for Σx²) into group g.
func (e *exactSums) add(g int, v *big.Int, scale, power int) {
	e.grow(g + 1)
	s := scale * power
	switch {
	case s > e.scales[g]:
		e.rescale(g, s)
	case s < e.scales[g]:
		v = new(big.Int).Mul(v, pow10(e.scales[g]-s))
	}
	if fits128(v) {
		e.add128(g, decimal128.FromBigInt(v))
		return
	}
	e.addBig(g, v)
}

// rescale raises group g's sum to scale s, above its own.
func (e *exactSums) rescale(g, s int) {
	if e.part[g] != (decimal128.Num{}) || e.over[g] != nil {
		t := e.total(g)
		e.setTotal(g, t.Mul(t, pow10(s-e.scales[g])))
	}
	e.scales[g] = s
	if s != e.common {
		e.common = -1
	}
}

// add128 adds v, at the group's scale, into group g's 128-bit part, or
// into its big.Int when the part would overflow.
func (e *exactSums) add128(g int, v decimal128.Num) {
	if sum, ok := sum128(e.part[g], v); ok {
		e.part[g] = sum
		return
	}
	e.addBig(g, v.BigInt())
}

// sum128 is p+v over the 64-bit halves, false when it overflows 128 bits:
// two's complement overflows only when the sum's sign differs from both
// operands'.
func sum128(p, v decimal128.Num) (decimal128.Num, bool) {
	ph, vh := p.HighBits(), v.HighBits()
	lo, carry := bits.Add64(p.LowBits(), v.LowBits(), 0)
	hi := ph + vh + int64(carry)
	return decimal128.New(hi, lo), (hi^ph)&(hi^vh) >= 0
}

// addColumn128 adds vals[r] into group ids[r] (at the groups' common
// scale), counting each non-NULL value in counts: one batch's loop over
// sum128, which inlines (TPC-H Q1 sums four decimals over 6M rows).
func (e *exactSums) addColumn128(ids []int32, vals []decimal128.Num, arr arrow.Array, nulls bool, counts []int64) {
	part := e.part
	for r, g := range ids {
		if nulls && arr.IsNull(r) {
			continue
		}
		counts[g]++
		if sum, ok := sum128(part[g], vals[r]); ok {
			part[g] = sum
			continue
		}
		e.addBig(int(g), vals[r].BigInt())
	}
}

func (e *exactSums) addBig(g int, v *big.Int) {
	if e.over[g] == nil {
		e.over[g] = new(big.Int)
	}
	e.over[g].Add(e.over[g], v)
}

// addCell folds integer or numeric cell i of arr (not NULL) into group g;
// integers and decimals take the 128-bit path when the group's scale is
// theirs already.
func (e *exactSums) addCell(g int, arr arrow.Array, i int) error {
	e.grow(g + 1)
	switch a := arr.(type) {
	case *array.Int16:
		e.addInt(g, int64(a.Value(i)))
		return nil
	case *array.Int32:
		e.addInt(g, int64(a.Value(i)))
		return nil
	case *array.Int64:
		e.addInt(g, a.Value(i))
		return nil
	case *array.Decimal128:
		if scale := int(a.DataType().(*arrow.Decimal128Type).Scale); scale == e.scales[g] {
			e.add128(g, a.Value(i))
			return nil
		}
	}
	v, scale, err := exactValue(arr, i)
	if err != nil {
		return err
	}
	e.add(g, v, scale, 1)
	return nil
}

// addInt adds an integer (scale 0) into group g.
func (e *exactSums) addInt(g int, x int64) {
	if e.scales[g] == 0 {
		e.add128(g, decimal128.FromI64(x))
		return
	}
	e.add(g, big.NewInt(x), 0, 1)
}

// int64Sum is group g's sum when it fits an int64.
func (e *exactSums) int64Sum(g int) (int64, bool) {
	if g >= len(e.part) || e.over[g] != nil {
		return 0, false
	}
	p := e.part[g]
	lo, hi := p.LowBits(), p.HighBits()
	if (hi == 0 && lo <= math.MaxInt64) || (hi == -1 && lo > math.MaxInt64) {
		return int64(lo), true
	}
	return 0, false
}

// decimal is group g's sum as a numeric value.
func (e *exactSums) decimal(g int) sql.Decimal {
	return sql.Decimal{Coef: e.total(g), Scale: e.scales[g]}
}

// exactValue is an integer or numeric cell as an integer and its scale.
func exactValue(arr arrow.Array, i int) (*big.Int, int, error) {
	switch a := arr.(type) {
	case *array.Int16:
		return big.NewInt(int64(a.Value(i))), 0, nil
	case *array.Int32:
		return big.NewInt(int64(a.Value(i))), 0, nil
	case *array.Int64:
		return big.NewInt(a.Value(i)), 0, nil
	case *array.Decimal128:
		return a.Value(i).BigInt(), int(a.DataType().(*arrow.Decimal128Type).Scale), nil
	case *sql.NumericArray:
		d := a.Decimal(i)
		return d.Coef, d.Scale, nil
	}
	return nil, 0, pgerr.Errorf(pgerr.InternalError, "exact aggregate over %s", arr.DataType())
}

func (s *sumAcc) update(g int, arr arrow.Array, i int) error {
	s.counts = grow(s.counts, g)
	if arr.IsNull(i) {
		return nil
	}
	s.counts[g]++
	if s.isFloat {
		s.floats = grow(s.floats, g)
		switch x := arr.(type) {
		case *array.Float32:
			s.floats[g] += float64(x.Value(i))
		case *array.Float64:
			s.floats[g] += x.Value(i)
		}
		return nil
	}
	return s.exact.addCell(g, arr, i)
}

func (s *sumAcc) result(_ context.Context, mem memory.Allocator, n int) (arrow.Array, error) {
	s.counts = grow(s.counts, n-1)
	if s.isFloat {
		return s.floatResult(mem, n)
	}
	if s.out.Kind == sql.KindInt64 {
		b := array.NewInt64Builder(mem)
		defer b.Release()
		for g := 0; g < n; g++ {
			if s.counts[g] == 0 {
				b.AppendNull()
				continue
			}
			v := s.exact.total(g)
			if !v.IsInt64() {
				return nil, pgerr.Errorf(pgerr.NumericValueOutOfRange, "bigint out of range")
			}
			b.Append(v.Int64())
		}
		return b.NewArray(), nil
	}
	return s.numericResult(mem, n)
}

func (s *sumAcc) floatResult(mem memory.Allocator, n int) (arrow.Array, error) {
	b := array.NewBuilder(mem, s.out.ArrowType())
	defer b.Release()
	for g := 0; g < n; g++ {
		if s.counts[g] == 0 {
			b.AppendNull()
			continue
		}
		v := s.floats[g]
		if s.avg {
			v /= float64(s.counts[g])
		}
		switch fb := b.(type) {
		case *array.Float32Builder:
			fb.Append(float32(v))
		case *array.Float64Builder:
			fb.Append(v)
		}
	}
	return b.NewArray(), nil
}

// numericResult emits each group's sum, or for avg the sum divided by the
// count at PostgreSQL's division scale (so each value has its own scale).
func (s *sumAcc) numericResult(mem memory.Allocator, n int) (arrow.Array, error) {
	b := array.NewBuilder(mem, s.out.ArrowType())
	defer b.Release()
	nb, _ := b.(*sql.NumericBuilder)
	var text []byte
	for g := 0; g < n; g++ {
		if s.counts[g] == 0 {
			b.AppendNull()
			continue
		}
		if v, ok := s.exact.int64Sum(g); ok && nb != nil {
			// The common case, a sum that fits 64 bits, printed as
			// sql.Decimal prints it without a big.Int per group; an
			// average divides it by the count on machine integers too.
			scale := s.exact.scales[g]
			if s.avg {
				if v, scale, ok = sql.DivByCount(v, scale, s.counts[g]); !ok {
					v, scale = 0, -1
				}
			}
			if scale >= 0 {
				text = sql.AppendScaled(text[:0], v, scale)
				nb.Builder.(*array.StringBuilder).BinaryBuilder.Append(text)
				continue
			}
		}
		v := s.exact.decimal(g)
		if s.avg {
			v = v.Div(sql.DecimalFromInt(s.counts[g]))
		}
		if err := sql.AppendValue(b, s.out, v); err != nil {
			return nil, err
		}
	}
	return b.NewArray(), nil
}

// distinctAcc feeds each distinct non-null value of a group once. Values
// are numbered once for the whole column (ids) and each group keeps the
// numbers it has fed in a bitmap: a value that recurs in many groups (a
// name in every one of ten regions) is one map entry, not one per group,
// so the lookups stay in a table the size of the column's distinct values.
// Past work_mem it spills the (group, value) pairs it cannot hold
// (aggregate_distinct_spill.go).
type distinctAcc struct {
	inner accumulator
	// Keys of up to 15 bytes (their length in the last byte) sit in the
	// map's slots, so a lookup reads no key bytes elsewhere in memory.
	short map[[16]byte]uint32
	long  map[string]uint32
	next  uint32            // ids given so far
	seen  []*roaring.Bitmap // by group; nil until it feeds a value
	key   []byte
	mem   *memBudget // charged for every distinct value and group bit kept
	distinctSpilling
}

func (d *distinctAcc) update(g int, arr arrow.Array, i int) error {
	if arr.IsNull(i) {
		return d.inner.update(g, arr, i)
	}
	d.key = appendKey(d.key[:0], arr, i)
	id, known := d.lookup()
	if d.spill != nil {
		if known && d.fed(g, id) {
			return nil
		}
		return d.spill.add(g, arr, i, d.key)
	}
	if !known {
		if d.next == math.MaxUint32 {
			return pgerr.Errorf(pgerr.ProgramLimitExceeded, "an aggregate's DISTINCT holds more than %d values", uint32(math.MaxUint32))
		}
		// A map entry: the key, a string header and the bucket's share.
		if full, err := d.take(int64(len(d.key)) + 48); full || err != nil {
			return d.spillFrom(err, g, arr, i)
		}
		id = d.insert()
	}
	d.seen = grow(d.seen, g)
	if d.seen[g] == nil {
		d.seen[g] = roaring.New()
	}
	if !d.seen[g].CheckedAdd(id) { // one lookup: fed already, or now marked
		return nil
	}
	// A bit in a sparse container is two bytes; dense ones cost less.
	if full, err := d.take(2); full || err != nil {
		d.seen[g].Remove(id) // not fed: the pair spills
		return d.spillFrom(err, g, arr, i)
	}
	return d.inner.update(g, arr, i)
}

// fed reports whether group g has fed the value numbered id.
func (d *distinctAcc) fed(g int, id uint32) bool {
	return g < len(d.seen) && d.seen[g] != nil && d.seen[g].Contains(id)
}

// lookup is the number of the value in d.key, if it has one.
func (d *distinctAcc) lookup() (uint32, bool) {
	if len(d.key) < 16 {
		id, ok := d.short[shortKey(d.key)]
		return id, ok
	}
	id, ok := d.long[string(d.key)]
	return id, ok
}

// insert numbers the value in d.key, which has no number yet.
func (d *distinctAcc) insert() uint32 {
	id := d.next
	d.next++
	if len(d.key) < 16 {
		if d.short == nil {
			d.short = map[[16]byte]uint32{}
		}
		d.short[shortKey(d.key)] = id
	} else {
		if d.long == nil {
			d.long = map[string]uint32{}
		}
		d.long[string(d.key)] = id
	}
	return id
}

// shortKey is a key of up to 15 bytes with its length in the last byte.
func shortKey(key []byte) [16]byte {
	var k [16]byte
	copy(k[:], key)
	k[15] = byte(len(key))
	return k
}

func (d *distinctAcc) result(ctx context.Context, mem memory.Allocator, n int) (arrow.Array, error) {
	if err := d.drain(ctx); err != nil {
		return nil, err
	}
	return d.inner.result(ctx, mem, n)
}

func grow[T any](s []T, idx int) []T {
	for len(s) <= idx {
		var zero T
		s = append(s, zero)
	}
	return s
}
