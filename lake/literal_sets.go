package lake

import (
	"slices"
	"sync"

	"github.com/apache/iceberg-go"
)

// literalSets remembers the literals of each IN and NOT IN predicate of a
// filter, sorted. iceberg-go's BoundSetPredicate.Literals copies its set on
// every call, and a join's key list reaches the scan as an IN of up to
// thousands of keys judged against every row group and page: copying and
// then comparing each key with each page's bounds was most of planning a
// TPC-H query's scan. Sorted, an IN is judged by one binary search. Safe
// for concurrent use; nil remembers nothing.
type literalSets struct{ m sync.Map } // iceberg.BoundSetPredicate -> *sortedLiterals

// sortedLiterals are a set predicate's literals in ascending order.
type sortedLiterals struct {
	lits []iceberg.Literal
	// ordered: every pair compared, so lits is sorted and binary search
	// may be used; otherwise lits are in the set's order.
	ordered bool
	nan     bool // a literal is NaN
}

func (s *literalSets) of(p iceberg.BoundSetPredicate) *sortedLiterals {
	if s != nil {
		if v, ok := s.m.Load(p); ok {
			return v.(*sortedLiterals)
		}
	}
	sl := newSortedLiterals(p.Literals().Members())
	if s != nil {
		s.m.Store(p, sl)
	}
	return sl
}

func newSortedLiterals(lits []iceberg.Literal) *sortedLiterals {
	sl := &sortedLiterals{lits: lits, ordered: true}
	for _, l := range lits {
		sl.nan = sl.nan || isNaNLiteral(l)
	}
	sorted := slices.Clone(lits)
	slices.SortFunc(sorted, func(a, b iceberg.Literal) int {
		n, ok := compareLiterals(a, b)
		if !ok {
			sl.ordered = false
		}
		return n
	})
	if sl.ordered {
		sl.lits = sorted
	}
	return sl
}

// anyWithin: some literal might lie in the bounds' range, as colStats.set
// judges each with belowLo and aboveHi. For sorted literals and exact
// bounds, the first literal not below lo is the only one to look at: every
// later one is larger still.
func (s *sortedLiterals) anyWithin(c colStats) bool {
	if s.ordered && c.lo != nil && c.hi != nil && !c.hiPrefix {
		failed := false
		i, _ := slices.BinarySearchFunc(s.lits, c.lo, func(l, lo iceberg.Literal) int {
			n, ok := compareLiterals(l, lo)
			failed = failed || !ok
			return n
		})
		if !failed {
			return i < len(s.lits) && !c.aboveHi(s.lits[i], false)
		}
	}
	for _, l := range s.lits {
		if !c.belowLo(l) && !c.aboveHi(l, false) {
			return true
		}
	}
	return false
}
