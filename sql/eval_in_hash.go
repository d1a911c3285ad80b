package sql

import (
	"context"

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
}

// newInSet builds the set, or false when some item is not a constant of a
// hashable domain the column shares.
func (ev *evaluator) newInSet(c *ColumnRef, x *InList) (*inSet, bool) {
	if len(x.List) < hashInMin {
		return nil, false
	}
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
	return s, true
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

// lookup returns a membership test for one batch's column, or false when
// the column's Arrow type is not one the set reads directly.
func (s *inSet) lookup(arr arrow.Array) (func(i int) bool, bool) {
	if s.strs != nil {
		a, ok := arr.(*array.String)
		if !ok {
			return nil, false
		}
		return func(i int) bool { _, hit := s.strs[a.Value(i)]; return hit }, true
	}
	var at func(i int) int64
	switch a := arr.(type) {
	case *array.Int16:
		at = func(i int) int64 { return int64(a.Value(i)) }
	case *array.Int32:
		at = func(i int) int64 { return int64(a.Value(i)) }
	case *array.Int64:
		at = a.Value
	case *array.Date32:
		at = func(i int) int64 { return int64(a.Value(i)) }
	case *array.Time64:
		at = func(i int) int64 { return int64(a.Value(i)) }
	case *array.Timestamp:
		at = func(i int) int64 { return int64(a.Value(i)) }
	default:
		return nil, false
	}
	return func(i int) bool { _, hit := s.ints[at(i)]; return hit }, true
}

// fastInSet is fastIn through a hash set: TRUE on a match, else NULL if the
// column or any item is NULL, else FALSE; NOT IN negates non-NULL results.
func (ev *evaluator) fastInSet(c *ColumnRef, x *InList, s *inSet) fastPred {
	return func(ctx context.Context, b arrow.RecordBatch, sel []int) triMask {
		col := b.Column(c.Index)
		m := newTriMask(col.Len())
		hit, ok := s.lookup(col)
		if !ok {
			// An unexpected physical type: decide each row the general way.
			hit = func(i int) bool { return s.contains(DatumAt(col, c.T, i)) }
		}
		eachRow(col.Len(), sel, func(i int) {
			switch {
			case col.IsNull(i):
				m.null[i] = true
			case hit(i):
				m.val[i] = !x.Not
			case s.sawNull:
				m.null[i] = true
			default:
				m.val[i] = x.Not
			}
		})
		return m
	}
}

func (s *inSet) contains(v any) bool {
	switch k := v.(type) {
	case int64:
		_, hit := s.ints[k]
		return hit
	case string:
		_, hit := s.strs[k]
		return hit
	}
	return false
}
