package engine

import (
	"context"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
)

// windowRows appends each window call's column to the rows (the input, or
// the groups of a grouped query): rows are held whole, each call sorts
// them by its partition and order keys and walks each partition.
func windowRows(ctx context.Context, rows []arrow.RecordBatch, win *sql.WindowContext, params []any, mem *memBudget) ([]arrow.RecordBatch, error) {
	in := &windowInput{batches: rows}
	for bi, b := range rows {
		for r := 0; r < int(b.NumRows()); r++ {
			in.refs = append(in.refs, rowRef{batch: int32(bi), row: int32(r)})
		}
	}
	cols := make([][]any, len(win.Calls))
	for k, call := range win.Calls {
		if err := ctx.Err(); err != nil {
			return nil, pgerr.Canceled(err)
		}
		// Each call holds a sort order and a value per row until the
		// columns are built.
		if err := mem.charge(int64(len(in.refs))*windowRowBytes, "window function"); err != nil {
			return nil, err
		}
		var err error
		if cols[k], err = in.compute(ctx, call, params); err != nil {
			return nil, err
		}
	}
	return in.extend(ctx, win.Calls, cols)
}

// windowRowBytes is what a window call holds per row while it runs: its
// place in the sort order, the row's address and a boxed result.
const windowRowBytes = 8 + 8 + 24

// windowInput is the rows a query level's windows run over.
type windowInput struct {
	batches []arrow.RecordBatch
	refs    []rowRef // global row number → batch and row
}

// datums evaluates e for every row, in global row order.
func (in *windowInput) datums(ctx context.Context, e sql.Expr, params []any) ([]any, error) {
	out := make([]any, 0, len(in.refs))
	for _, b := range in.batches {
		arr, err := sql.Eval(ctx, e, b, params)
		if err != nil {
			return nil, err
		}
		for r := 0; r < int(b.NumRows()); r++ {
			out = append(out, sql.DatumAt(arr, e.Type(), r))
		}
		arr.Release()
	}
	return out, nil
}

// arrays evaluates e over each batch (for accumulators, which read arrays).
func (in *windowInput) arrays(ctx context.Context, e sql.Expr, params []any) ([]arrow.Array, error) {
	out := make([]arrow.Array, len(in.batches))
	for i, b := range in.batches {
		arr, err := sql.Eval(ctx, e, b, params)
		if err != nil {
			for _, a := range out[:i] {
				a.Release()
			}
			return nil, err
		}
		out[i] = arr
	}
	return out, nil
}

// windowKeys are a call's partition and order keys, as arrays per batch:
// sorting compares them in place, without boxing a value per row.
type windowKeys struct {
	in        *windowInput
	part      [][]arrow.Array // [batch][key]
	partSpec  []plan.SortSpec
	order     [][]arrow.Array
	orderSpec []plan.SortSpec
	spec      []sql.WindowOrder
}

func (in *windowInput) keys(ctx context.Context, call *sql.WindowCall, params []any) (*windowKeys, error) {
	k := &windowKeys{in: in, spec: call.Order, part: make([][]arrow.Array, len(in.batches)),
		order: make([][]arrow.Array, len(in.batches))}
	for range call.Partition {
		k.partSpec = append(k.partSpec, plan.SortSpec{})
	}
	for _, o := range call.Order {
		k.orderSpec = append(k.orderSpec, plan.SortSpec{Desc: o.Desc, NullsFirst: o.NullsFirst})
	}
	for b := range in.batches {
		for _, e := range call.Partition {
			arr, err := sql.Eval(ctx, e, in.batches[b], params)
			if err != nil {
				k.release()
				return nil, err
			}
			k.part[b] = append(k.part[b], arr)
		}
		for _, o := range call.Order {
			arr, err := sql.Eval(ctx, o.Expr, in.batches[b], params)
			if err != nil {
				k.release()
				return nil, err
			}
			k.order[b] = append(k.order[b], arr)
		}
	}
	return k, nil
}

func (k *windowKeys) release() {
	for _, per := range [][][]arrow.Array{k.part, k.order} {
		for _, arrs := range per {
			for _, a := range arrs {
				a.Release()
			}
		}
	}
}

func (k *windowKeys) cmpPartition(i, j int) int {
	if len(k.partSpec) == 0 {
		return 0
	}
	a, b := k.in.refs[i], k.in.refs[j]
	return compareKeyRows(k.part[a.batch], int(a.row), k.part[b.batch], int(b.row), k.partSpec)
}

func (k *windowKeys) cmpOrder(i, j int) int {
	if len(k.orderSpec) == 0 {
		return 0
	}
	a, b := k.in.refs[i], k.in.refs[j]
	return compareKeyRows(k.order[a.batch], int(a.row), k.order[b.batch], int(b.row), k.orderSpec)
}

// orderValue is the first ORDER BY key of global row i (RANGE offsets).
func (k *windowKeys) orderValue(i int) any {
	r := k.in.refs[i]
	return sql.DatumAt(k.order[r.batch][0], k.spec[0].Expr.Type(), int(r.row))
}

// compute returns the call's value for every row, in global row order.
func (in *windowInput) compute(ctx context.Context, call *sql.WindowCall, params []any) (_ []any, err error) {
	keys, err := in.keys(ctx, call, params)
	if err != nil {
		return nil, err
	}
	defer keys.release()
	n := len(in.refs)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	stop := newSortStop(ctx)
	defer stop.catch(&err)
	slices.SortStableFunc(order, func(i, j int) int {
		stop.look()
		if c := keys.cmpPartition(i, j); c != 0 {
			return c
		}
		return keys.cmpOrder(i, j)
	})
	w, err := newWindowEval(ctx, in, call, keys, params)
	if err != nil {
		return nil, err
	}
	defer w.release()
	out := make([]any, n)
	check := &cancelCheck{ctx: ctx}
	for start := 0; start < n; {
		end := start + 1
		for end < n && keys.cmpPartition(order[start], order[end]) == 0 {
			end++
		}
		if err := check.step(end - start); err != nil {
			return nil, err
		}
		if err := w.partition(check, order[start:end], out); err != nil {
			return nil, err
		}
		start = end
	}
	return out, nil
}

// extend appends the window columns to each batch.
func (in *windowInput) extend(ctx context.Context, calls []*sql.WindowCall, cols [][]any) ([]arrow.RecordBatch, error) {
	out := make([]arrow.RecordBatch, 0, len(in.batches))
	g := 0
	for _, b := range in.batches {
		if err := canceled(ctx); err != nil {
			ReleaseAll(out)
			return nil, err
		}
		arrs := append([]arrow.Array(nil), b.Columns()...)
		fields := append([]arrow.Field(nil), b.Schema().Fields()...)
		n := int(b.NumRows())
		var built []arrow.Array
		for k, call := range calls {
			bld := array.NewBuilder(memory.DefaultAllocator, call.T.ArrowType())
			for r := 0; r < n; r++ {
				if err := sql.AppendDatum(bld, call.T, cols[k][g+r]); err != nil {
					bld.Release()
					ReleaseAll(out)
					return nil, err
				}
			}
			a := bld.NewArray()
			bld.Release()
			built = append(built, a)
			arrs = append(arrs, a)
			fields = append(fields, arrow.Field{Name: call.String(), Type: a.DataType(), Nullable: true})
		}
		out = append(out, array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, int64(n)))
		for _, a := range built {
			a.Release()
		}
		g += n
	}
	return out, nil
}
