package engine

import (
	"container/heap"
	"context"
	"slices"

	"github.com/magmalake/magmalake/plan"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// topRows is the first n rows of batches in the keys' order, as a stable
// sort would give them (ties keep their input order), in new batches; it
// releases batches. It keeps a heap of n rows while it reads, so ORDER BY
// ... LIMIT over many groups (GROUP BY name: 100,000 of them) compares each
// row with the current n-th instead of sorting them all.
func topRows(ctx context.Context, batches []arrow.RecordBatch, keys []plan.OrderKey, n int64, batchSize int) (_ []arrow.RecordBatch, err error) {
	defer ReleaseAll(batches)
	if len(batches) == 0 || n <= 0 {
		return nil, nil
	}
	h := &rowHeap{specs: make([]plan.SortSpec, len(keys)), cols: make([][]arrow.Array, len(batches))}
	for i, k := range keys {
		h.specs[i] = k.Spec
	}
	for b, rb := range batches {
		for _, k := range keys {
			h.cols[b] = append(h.cols[b], rb.Column(k.Col))
		}
	}
	check := cancelCheck{ctx: ctx}
	for b, rb := range batches {
		for r := range int(rb.NumRows()) {
			if err := check.step(1); err != nil {
				return nil, err
			}
			ref := rowRef{int32(b), int32(r)}
			switch {
			case int64(len(h.refs)) < n:
				heap.Push(h, ref)
			case h.before(ref, h.refs[0]):
				h.refs[0] = ref
				heap.Fix(h, 0)
			}
		}
	}
	refs := slices.Clone(h.refs)
	stop := newSortStop(ctx)
	defer stop.catch(&err)
	slices.SortFunc(refs, func(x, y rowRef) int {
		stop.look()
		if h.before(x, y) {
			return -1
		}
		return 1 // refs are distinct: never equal
	})
	return gatherRows(ctx, memory.DefaultAllocator, batches[0].Schema(), batches, refs, batchSize)
}

// rowHeap holds row references with the last in order on top.
type rowHeap struct {
	specs []plan.SortSpec
	cols  [][]arrow.Array // key columns by batch
	refs  []rowRef
}

// before orders x ahead of y: by the keys, then by input position.
func (h *rowHeap) before(x, y rowRef) bool {
	if c := compareKeyRows(h.cols[x.batch], int(x.row), h.cols[y.batch], int(y.row), h.specs); c != 0 {
		return c < 0
	}
	if x.batch != y.batch {
		return x.batch < y.batch
	}
	return x.row < y.row
}

func (h *rowHeap) Len() int           { return len(h.refs) }
func (h *rowHeap) Less(i, j int) bool { return h.before(h.refs[j], h.refs[i]) }
func (h *rowHeap) Swap(i, j int)      { h.refs[i], h.refs[j] = h.refs[j], h.refs[i] }
func (h *rowHeap) Push(x any)         { h.refs = append(h.refs, x.(rowRef)) }
func (h *rowHeap) Pop() any {
	last := h.refs[len(h.refs)-1]
	h.refs = h.refs[:len(h.refs)-1]
	return last
}
