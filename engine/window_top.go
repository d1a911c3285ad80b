package engine

import (
	"container/heap"
	"context"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
)

// A query keeping the first rows of each window partition,
//
//	SELECT * FROM (SELECT ..., row_number() OVER (PARTITION BY p ORDER BY o) AS rn FROM t) s
//	WHERE rn <= 3
//
// (top-N per group, what BI tools send) needs only those rows of t: the
// inner query keeps, while it reads, a heap of the first N rows of each
// partition in the window's order (ties in input order, as the stable sort
// numbers them), so it holds partitions × N rows instead of the table,
// and the window numbers exactly the rows it would have numbered 1..N.

// compactBatches is how many batches' worth of rows beyond the kept ones
// the held batches may hold before they are compacted (a scan's batch may
// be a whole row group, many times the statement's batch size).
const compactBatches = 32

// windowTop holds the first n rows of each partition seen so far.
type windowTop struct {
	n     int64
	call  *sql.WindowCall
	specs []plan.SortSpec
	held  []arrow.RecordBatch
	order [][]arrow.Array // per held batch: its ORDER BY keys
	parts map[string]*partHeap
	live  int
	// heldRows counts the rows of held batches, kept or not.
	heldRows int64
	batch    int // rows per batch the statement builds
	mem      *memBudget
	bytes    int64 // work_mem charged for held
}

// partBytes is what a partition costs beyond its key and kept rows: its
// map entry, heap and slice header.
const partBytes = mapEntryBytes + 48

// partHeap is one partition's best rows, the last in order on top.
type partHeap struct {
	t    *windowTop
	refs []rowRef
}

func newWindowTop(n int64, call *sql.WindowCall, mem *memBudget, batch int) *windowTop {
	t := &windowTop{n: n, call: call, parts: map[string]*partHeap{}, mem: mem, batch: batch}
	for _, o := range call.Order {
		t.specs = append(t.specs, plan.SortSpec{Desc: o.Desc, NullsFirst: o.NullsFirst})
	}
	return t
}

// before orders x ahead of y: by the window's ORDER BY, then by arrival.
func (t *windowTop) before(x, y rowRef) bool {
	if c := compareKeyRows(t.order[x.batch], int(x.row), t.order[y.batch], int(y.row), t.specs); c != 0 {
		return c < 0
	}
	if x.batch != y.batch {
		return x.batch < y.batch
	}
	return x.row < y.row
}

func (h *partHeap) Len() int           { return len(h.refs) }
func (h *partHeap) Less(i, j int) bool { return h.t.before(h.refs[j], h.refs[i]) }
func (h *partHeap) Swap(i, j int)      { h.refs[i], h.refs[j] = h.refs[j], h.refs[i] }
func (h *partHeap) Push(x any)         { h.refs = append(h.refs, x.(rowRef)) }
func (h *partHeap) Pop() any {
	last := h.refs[len(h.refs)-1]
	h.refs = h.refs[:len(h.refs)-1]
	return last
}

// add offers b's rows (the window's input) to their partitions' heaps.
func (t *windowTop) add(ctx context.Context, b arrow.RecordBatch, params []any) error {
	part, err := evalAll(ctx, t.call.Partition, b, params)
	if err != nil {
		return err
	}
	defer releaseArrays(part)
	order, err := evalAll(ctx, plan.OrderExprs(t.call.Order), b, params)
	if err != nil {
		return err
	}
	bi := int32(len(t.held))
	t.held, t.order = append(t.held, b), append(t.order, order)
	size := BatchBytes(b)
	if err := t.mem.charge(size, "window function"); err != nil {
		return err
	}
	t.bytes += size
	var buf []byte
	for r := range int(b.NumRows()) {
		buf = buf[:0]
		for _, a := range part {
			buf = appendKey(buf, a, r)
		}
		h, ok := t.parts[string(buf)]
		if !ok {
			// A partition holds its key, map entry and heap while the
			// statement runs: millions of them are gigabytes.
			if err := t.mem.charge(int64(len(buf))+partBytes, "window function"); err != nil {
				return err
			}
			h = &partHeap{t: t}
			t.parts[string(buf)] = h
		}
		ref := rowRef{batch: bi, row: int32(r)}
		switch {
		case int64(len(h.refs)) < t.n:
			if err := t.mem.charge(8, "window function"); err != nil {
				return err
			}
			heap.Push(h, ref)
			t.live++
		case t.before(ref, h.refs[0]):
			h.refs[0] = ref
			heap.Fix(h, 0)
		}
	}
	// Held batches stay whole while a kept row points into them: once they
	// hold many more rows than are kept, the kept ones move to fresh
	// batches and the rest go.
	t.heldRows += b.NumRows()
	if t.heldRows > 4*int64(t.live)+compactBatches*int64(t.batch) {
		return t.compact(ctx, params, b.Schema(), t.batch)
	}
	return nil
}

// rows are the kept rows in arrival order, in new batches; held ones go.
func (t *windowTop) rows(ctx context.Context, schema *arrow.Schema, batchSize int) ([]arrow.RecordBatch, error) {
	defer t.release()
	if len(t.held) == 0 {
		return nil, nil
	}
	if schema == nil {
		schema = t.held[0].Schema()
	}
	return gatherRows(ctx, memory.DefaultAllocator, schema, t.held, t.keptRefs(), batchSize)
}

// keptRefs are the rows the heaps hold, in arrival order.
func (t *windowTop) keptRefs() []rowRef {
	var refs []rowRef
	for _, h := range t.parts {
		refs = append(refs, h.refs...)
	}
	slices.SortFunc(refs, func(x, y rowRef) int {
		if x.batch != y.batch {
			return int(x.batch - y.batch)
		}
		return int(x.row - y.row)
	})
	return refs
}

// compact copies the kept rows into new batches so the ones they came
// from can go: rows keep their arrival order, so ties still break by it.
func (t *windowTop) compact(ctx context.Context, params []any, schema *arrow.Schema, batchSize int) error {
	order := make(map[rowRef]rowRef, t.live) // old place → new
	refs := t.keptRefs()
	fresh, err := gatherRows(ctx, memory.DefaultAllocator, schema, t.held, refs, batchSize)
	if err != nil {
		return err
	}
	for i, r := range refs {
		order[r] = rowRef{batch: int32(i / batchSize), row: int32(i % batchSize)}
	}
	var keys [][]arrow.Array
	for _, b := range fresh {
		ks, err := evalAll(ctx, plan.OrderExprs(t.call.Order), b, params)
		if err != nil {
			ReleaseAll(fresh)
			for _, k := range keys {
				releaseArrays(k)
			}
			return err
		}
		keys = append(keys, ks)
	}
	t.release()
	t.held, t.order, t.heldRows = fresh, keys, int64(len(refs))
	for _, b := range fresh {
		t.bytes += BatchBytes(b)
	}
	if err := t.mem.charge(t.bytes, "window function"); err != nil {
		return err
	}
	for _, h := range t.parts {
		for i, r := range h.refs {
			h.refs[i] = order[r]
		}
	}
	return nil
}

func (t *windowTop) release() {
	ReleaseAll(t.held)
	for _, ks := range t.order {
		releaseArrays(ks)
	}
	t.held, t.order = nil, nil
	t.mem.release(t.bytes)
	t.bytes = 0
}

func evalAll(ctx context.Context, es []sql.Expr, b arrow.RecordBatch, params []any) ([]arrow.Array, error) {
	out := make([]arrow.Array, 0, len(es))
	for _, e := range es {
		arr, err := sql.Eval(ctx, e, b, params) // a column as it is: no conversion per row
		if err != nil {
			releaseArrays(out)
			return nil, err
		}
		out = append(out, arr)
	}
	return out, nil
}

func releaseArrays(as []arrow.Array) {
	for _, a := range as {
		if a != nil {
			a.Release()
		}
	}
}
