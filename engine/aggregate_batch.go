package engine

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/magmalake/magmalake/sql"
)

// batchAccumulator is an accumulator that folds a whole batch at once:
// ids[r] is the group of row r (all below groups), arr the argument column
// (nil for count(*)). The typed loops read Arrow's value slices directly:
// no interface call, type switch or boxed value per row.
type batchAccumulator interface {
	updateBatch(ids []int32, groups int, arr arrow.Array) error
}

// growTo extends s to n elements (zero values).
func growTo[T any](s []T, n int) []T {
	if len(s) >= n {
		return s
	}
	return append(s, make([]T, n-len(s))...)
}

func (c *countAcc) updateBatch(ids []int32, groups int, arr arrow.Array) error {
	c.n = growTo(c.n, groups)
	if c.star || arr.NullN() == 0 {
		for _, g := range ids {
			c.n[g]++
		}
		return nil
	}
	for r, g := range ids {
		if arr.IsValid(r) {
			c.n[g]++
		}
	}
	return nil
}

func (s *sumAcc) updateBatch(ids []int32, groups int, arr arrow.Array) error {
	s.counts = growTo(s.counts, groups)
	nulls := arr.NullN() > 0
	if s.isFloat {
		s.floats = growTo(s.floats, groups)
		switch x := arr.(type) {
		case *array.Float64:
			vals := x.Float64Values()
			for r, g := range ids {
				if !nulls || x.IsValid(r) {
					s.counts[g]++
					s.floats[g] += vals[r]
				}
			}
			return nil
		case *array.Float32:
			vals := x.Float32Values()
			for r, g := range ids {
				if !nulls || x.IsValid(r) {
					s.counts[g]++
					s.floats[g] += float64(vals[r])
				}
			}
			return nil
		}
	}
	e := &s.exact
	switch x := arr.(type) {
	case *array.Decimal128:
		vals := x.Values()
		scale := int(x.DataType().(*arrow.Decimal128Type).Scale)
		e.growAt(groups, scale)
		if e.common == scale {
			e.addColumn128(ids, vals, x, nulls, s.counts)
			return nil
		}
		for r, g := range ids {
			if nulls && x.IsNull(r) {
				continue
			}
			s.counts[g]++
			if e.scales[g] == scale {
				e.add128(int(g), vals[r])
				continue
			}
			e.add(int(g), vals[r].BigInt(), scale, 1)
		}
		return nil
	}
	e.grow(groups)
	switch x := arr.(type) {
	case *array.Int64:
		return s.sumInts(ids, x, x.Int64Values(), nulls)
	case *array.Int32:
		return s.sumInts(ids, x, widen(x.Int32Values()), nulls)
	case *array.Int16:
		return s.sumInts(ids, x, widen(x.Int16Values()), nulls)
	case *sql.NumericArray:
		return s.sumNumerics(ids, x, nulls)
	}
	for r, g := range ids {
		if err := s.update(int(g), arr, r); err != nil {
			return err
		}
	}
	return nil
}

// sumInts folds integer values (scale 0) into their groups.
func (s *sumAcc) sumInts(ids []int32, arr arrow.Array, vals []int64, nulls bool) error {
	e := &s.exact
	for r, g := range ids {
		if nulls && arr.IsNull(r) {
			continue
		}
		s.counts[g]++
		e.addInt(int(g), vals[r])
	}
	return nil
}

// sumNumerics folds computed numerics (kept as text) into their groups: a
// value of at most 18 digits at its group's scale is read straight into an
// int64 and added in 128 bits (TPC-H Q9 sums such a column over every
// lineitem); the others take the exact path.
func (s *sumAcc) sumNumerics(ids []int32, x *sql.NumericArray, nulls bool) error {
	e := &s.exact
	for r, g := range ids {
		if nulls && x.IsNull(r) {
			continue
		}
		if c, scale, ok := sql.ParseScaled(x.Text(r)); ok && scale == e.scales[g] {
			s.counts[g]++
			e.add128(int(g), decimal128.FromI64(c))
			continue
		}
		if err := s.update(int(g), x, r); err != nil {
			return err
		}
	}
	return nil
}

// widen copies narrower integers to int64s.
func widen[T int16 | int32](vals []T) []int64 {
	out := make([]int64, len(vals))
	for i, v := range vals {
		out[i] = int64(v)
	}
	return out
}
