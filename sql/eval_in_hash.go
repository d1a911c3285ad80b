package sql

import (
	"context"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// hashInMin is the IN-list length from which a hash set beats comparing each
// item in turn; a 1,000,000-item list would otherwise cost a million
// comparisons per row.
const hashInMin = 8

// inSet is a column [NOT] IN (constants) as a set of the column's values:
// integers (and dates, times, timestamps) or strings. Other domains (floats
// with NaN and -0, numerics at several scales) keep the item-by-item test.
type inSet struct {
	ints    map[int64]struct{}
	strs    map[string]struct{}
	sawNull bool
	// intList and strList are the items of a short list (under
	// hashInMin), compared in turn: l_shipmode IN ('MAIL', 'SHIP').
	intList []int64
	strList []string
	// bits, when set, holds the integers of a longer list as a bitmap
	// from lo: a join's key list (dense keys, thousands of them) is
	// looked up by one shift and mask instead of hashing each row.
	bits []uint64
	lo   int64
}

// inBitmapMaxBits bounds an IN list's bitmap: 1 MiB.
const inBitmapMaxBits = 1 << 23

// newInSet builds the set, or false when some item is not a constant of a
// hashable domain the column shares.
func (ev *evaluator) newInSet(c *ColumnRef, x *InList) (*inSet, bool) {
	s := &inSet{}
	for k, it := range x.List {
		v, ok := ev.constValue(it)
		if !ok || !sameDomain(c.T, x.Domains[k]) {
			return nil, false
		}
		if v == nil {
			s.sawNull = true
			continue
		}
		if !s.add(toDomain(v, it.Type(), x.Domains[k])) {
			return nil, false
		}
	}
	s.bitmap()
	if len(x.List) < hashInMin {
		for v := range s.ints {
			s.intList = append(s.intList, v)
		}
		for v := range s.strs {
			s.strList = append(s.strList, v)
		}
	}
	return s, true
}

// hits sets out[i] for the rows sel (nil: all) of arr whose value is in
// the set (null rows get an arbitrary value); false when arr is not of a
// type it reads directly.
func (s *inSet) hits(arr arrow.Array, sel []int, out []bool) bool {
	if s.strs != nil {
		a, ok := arr.(*array.String)
		if ok {
			forRows(a.Len(), sel, out, func(i int) bool { return s.hasString(a.Value(i)) })
		}
		return ok
	}
	switch a := arr.(type) {
	case *array.Int16:
		intsIn(s, a.Int16Values(), sel, out)
	case *array.Int32:
		intsIn(s, a.Int32Values(), sel, out)
	case *array.Int64:
		intsIn(s, a.Int64Values(), sel, out)
	case *array.Date32:
		intsIn(s, a.Date32Values(), sel, out)
	case *array.Time64:
		intsIn(s, a.Time64Values(), sel, out)
	case *array.Timestamp:
		intsIn(s, a.TimestampValues(), sel, out)
	default:
		return false
	}
	return true
}

func (s *inSet) hasString(v string) bool {
	if s.strList != nil || len(s.strs) == 0 {
		for _, it := range s.strList {
			if v == it {
				return true
			}
		}
		return false
	}
	_, hit := s.strs[v]
	return hit
}

// bitmap sets bits when the integers of a list of hashInMin or more span
// fewer than inBitmapMaxBits values.
func (s *inSet) bitmap() {
	if len(s.ints) < hashInMin {
		return
	}
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for v := range s.ints {
		lo, hi = min(lo, v), max(hi, v)
	}
	if uint64(hi)-uint64(lo) >= inBitmapMaxBits { // unsigned: no overflow
		return
	}
	s.lo, s.bits = lo, make([]uint64, (hi-lo)/64+1)
	for v := range s.ints {
		d := uint64(v - lo)
		s.bits[d/64] |= 1 << (d % 64)
	}
}

func (s *inSet) hasInt(v int64) bool {
	if s.bits != nil {
		d := uint64(v) - uint64(s.lo)
		return d/64 < uint64(len(s.bits)) && s.bits[d/64]&(1<<(d%64)) != 0
	}
	if s.intList != nil || len(s.ints) == 0 {
		for _, it := range s.intList {
			if v == it {
				return true
			}
		}
		return false
	}
	_, hit := s.ints[v]
	return hit
}

func intsIn[T ~int16 | ~int32 | ~int64](s *inSet, vals []T, sel []int, out []bool) {
	if sel == nil {
		for i, v := range vals {
			out[i] = s.hasInt(int64(v))
		}
		return
	}
	for _, i := range sel {
		out[i] = s.hasInt(int64(vals[i]))
	}
}

// forRows sets out[i] = f(i) for the rows sel (nil: all n); f is called
// directly, so the compiler can inline it here.
func forRows(n int, sel []int, out []bool, f func(i int) bool) {
	if sel == nil {
		for i := range n {
			out[i] = f(i)
		}
		return
	}
	for _, i := range sel {
		out[i] = f(i)
	}
}

func (s *inSet) add(v any) bool {
	switch k := v.(type) {
	case int64:
		if s.strs != nil {
			return false
		}
		if s.ints == nil {
			s.ints = map[int64]struct{}{}
		}
		s.ints[k] = struct{}{}
	case string:
		if s.ints != nil {
			return false
		}
		if s.strs == nil {
			s.strs = map[string]struct{}{}
		}
		s.strs[k] = struct{}{}
	default:
		return false
	}
	return true
}

// fastInSet is fastIn through a hash set: TRUE on a match, else NULL if the
// column or any item is NULL, else FALSE; NOT IN negates non-NULL results.
func (ev *evaluator) fastInSet(c *ColumnRef, x *InList, s *inSet) fastPred {
	return func(ctx context.Context, b arrow.RecordBatch, sel []int) triMask {
		col := b.Column(c.Index)
		m := newTriMask(col.Len())
		if !s.hits(col, sel, m.val) {
			// An unexpected physical type: decide each row the general way.
			forRows(col.Len(), sel, m.val, func(i int) bool { return !col.IsNull(i) && s.contains(DatumAt(col, c.T, i)) })
		}
		markNulls(col, sel, m.null)
		inResults(m, sel, x.Not, s.sawNull)
		return m
	}
}

// inResults turns m's membership (val, for the non-null rows sel) into
// IN's answer: TRUE on a match, else NULL if an item is NULL, else FALSE;
// NOT IN negates the non-NULL answers.
func inResults(m triMask, sel []int, not, sawNull bool) {
	forRows(len(m.val), sel, m.val, func(i int) bool {
		if m.null[i] {
			return false
		}
		if !m.val[i] && sawNull {
			m.null[i] = true
			return false
		}
		return m.val[i] != not
	})
}

func (s *inSet) contains(v any) bool {
	switch k := v.(type) {
	case int64:
		return s.hasInt(k)
	case string:
		return s.hasString(k)
	}
	return false
}
