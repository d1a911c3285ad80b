package engine

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// groupingAcc is GROUPING(a, b, ...) for one grouping set: the same value
// for every group of the set, a bit per argument (the last argument the
// lowest bit), set where the set leaves that GROUP BY key out.
type groupingAcc struct{ value int32 }

// newGroupingAcc computes the value from the call's key indexes and the
// set's membership of each GROUP BY key.
func newGroupingAcc(keys []int, member []bool) *groupingAcc {
	var v int32
	for _, k := range keys {
		v <<= 1
		if !member[k] {
			v |= 1
		}
	}
	return &groupingAcc{value: v}
}

func (g *groupingAcc) update(int, arrow.Array, int) error { return nil }

func (g *groupingAcc) result(_ context.Context, mem memory.Allocator, n int) (arrow.Array, error) {
	b := array.NewInt32Builder(mem)
	defer b.Release()
	for i := 0; i < n; i++ {
		b.Append(g.value)
	}
	return b.NewArray(), nil
}
