package engine

import (
	"context"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/magmalake/magmalake/sql"
)

// windowRows appends each window call's column to the rows (the input, or
// the groups of a grouped query): rows are held whole, each call sorts
// them by its partition and order keys and walks each partition.
func windowRows(ctx context.Context, rows []arrow.RecordBatch, win *sql.WindowContext, params []any) ([]arrow.RecordBatch, error) {
	in := &windowInput{batches: rows}
	for bi, b := range rows {
		for r := 0; r < int(b.NumRows()); r++ {
			in.refs = append(in.refs, rowRef{batch: int32(bi), row: int32(r)})
		}
	}
	cols := make([][]any, len(win.Calls))
	for k, call := range win.Calls {
		if err := ctx.Err(); err != nil {
			return nil, sql.Canceled(err)
		}
		var err error
		if cols[k], err = in.compute(ctx, call, params); err != nil {
			return nil, err
		}
	}
	return in.extend(win.Calls, cols)
}

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

// windowKeys are a call's partition and order key values per row.
type windowKeys struct {
	part  [][]any
	ptype []sql.Type
	order [][]any
	spec  []sql.WindowOrder
}

func (in *windowInput) keys(ctx context.Context, call *sql.WindowCall, params []any) (*windowKeys, error) {
	k := &windowKeys{spec: call.Order}
	for _, e := range call.Partition {
		v, err := in.datums(ctx, e, params)
		if err != nil {
			return nil, err
		}
		k.part, k.ptype = append(k.part, v), append(k.ptype, e.Type())
	}
	for _, o := range call.Order {
		v, err := in.datums(ctx, o.Expr, params)
		if err != nil {
			return nil, err
		}
		k.order = append(k.order, v)
	}
	return k, nil
}

// cmpNullable orders datums of t with NULLs last (first when nullsFirst).
func cmpNullable(t sql.Type, a, b any, nullsFirst bool) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		if nullsFirst {
			return -1
		}
		return 1
	case b == nil:
		if nullsFirst {
			return 1
		}
		return -1
	}
	return sql.CompareDatums(t, a, b)
}

func (k *windowKeys) cmpPartition(i, j int) int {
	for c, vals := range k.part {
		if r := cmpNullable(k.ptype[c], vals[i], vals[j], false); r != 0 {
			return r
		}
	}
	return 0
}

func (k *windowKeys) cmpOrder(i, j int) int {
	for c, vals := range k.order {
		o := k.spec[c]
		r := cmpNullable(o.Expr.Type(), vals[i], vals[j], o.NullsFirst)
		if o.Desc {
			r = -r
			// NULLS FIRST/LAST is about position, not value: undo the flip.
			if (vals[i] == nil) != (vals[j] == nil) {
				r = -r
			}
		}
		if r != 0 {
			return r
		}
	}
	return 0
}

// compute returns the call's value for every row, in global row order.
func (in *windowInput) compute(ctx context.Context, call *sql.WindowCall, params []any) ([]any, error) {
	keys, err := in.keys(ctx, call, params)
	if err != nil {
		return nil, err
	}
	n := len(in.refs)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		i, j := order[a], order[b]
		if c := keys.cmpPartition(i, j); c != 0 {
			return c < 0
		}
		return keys.cmpOrder(i, j) < 0
	})
	w, err := newWindowEval(ctx, in, call, keys, params)
	if err != nil {
		return nil, err
	}
	defer w.release()
	out := make([]any, n)
	for start := 0; start < n; {
		end := start + 1
		for end < n && keys.cmpPartition(order[start], order[end]) == 0 {
			end++
		}
		if err := w.partition(ctx, order[start:end], out); err != nil {
			return nil, err
		}
		start = end
	}
	return out, nil
}

// extend appends the window columns to each batch.
func (in *windowInput) extend(calls []*sql.WindowCall, cols [][]any) ([]arrow.RecordBatch, error) {
	out := make([]arrow.RecordBatch, 0, len(in.batches))
	g := 0
	for _, b := range in.batches {
		arrs := append([]arrow.Array(nil), b.Columns()...)
		fields := append([]arrow.Field(nil), b.Schema().Fields()...)
		n := int(b.NumRows())
		var built []arrow.Array
		for k, call := range calls {
			bld := array.NewBuilder(memory.DefaultAllocator, call.T.ArrowType())
			for r := 0; r < n; r++ {
				if err := sql.AppendValue(bld, call.T, cols[k][g+r]); err != nil {
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
