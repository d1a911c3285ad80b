package engine

import (
	"context"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
)

// orderedAcc is array_agg, and string_agg with ORDER BY or DISTINCT. Its
// input rows (group, ORDER BY keys, value, delimiter) are kept as Arrow
// batches in a spillSort ordered by group, then the keys: past work_mem
// they go to disk as sorted runs, as PostgreSQL's per-aggregate sorts do,
// so a group's rows may outgrow memory. At the end the rows come back in
// order and each group is folded in turn. The sort is stable, so rows with
// equal keys (all of them, without ORDER BY) keep their input order.
// DISTINCT sorts by the values, as PostgreSQL's does, and keeps the first
// of each run of equal ones.
type orderedAcc struct {
	call     *sql.AggCall
	sep      arrow.Array   // string_agg's delimiter column of the batch being folded
	keys     []arrow.Array // the ORDER BY key columns of that batch
	distinct bool
	mem      *memBudget
	tempDir  string
	batch    int
	rows     *spillSort // nil until the first row
	schema   *arrow.Schema
	// ctx is the statement's, for the sorts of spilled runs (the
	// accumulator interface passes none).
	ctx context.Context
}

// orderSensitive names the aggregates whose result depends on the order of
// their values: string_agg(DISTINCT x, ',') is in x's order.
func orderSensitive(c *sql.AggCall) bool {
	return c.Name == "array_agg" || c.Name == "string_agg" && (len(c.OrderBy) > 0 || c.Distinct)
}

func newOrderedAcc(c *sql.AggCall, mem *memBudget, tempDir string, batch int) *orderedAcc {
	return &orderedAcc{call: c, distinct: c.Distinct, mem: mem, tempDir: tempDir, batch: batch}
}

// orderedMinRun is what an ordered aggregate holds before it spills a run
// even when work_mem is already taken (by the groups around it): runs of a
// batch each would make the merge wide and slow.
const orderedMinRun = 256 << 10

func (o *orderedAcc) setSep(sep arrow.Array)         { o.sep = sep }
func (o *orderedAcc) setKeys(keys []arrow.Array)     { o.keys = keys }
func (o *orderedAcc) setContext(ctx context.Context) { o.ctx = ctx }

// The kept batch's columns: the group, the ORDER BY keys, the value, then
// the delimiter (string_agg).
const orderedGroupCol = 0

func (o *orderedAcc) valueCol() int { return 1 + len(o.keys) }

func (o *orderedAcc) update(g int, arr arrow.Array, i int) error {
	one := array.NewSlice(arr, int64(i), int64(i+1))
	defer one.Release()
	return o.updateBatch([]int32{int32(g)}, g+1, one)
}

// updateBatch keeps the batch's rows: ids[r] is row r's group.
func (o *orderedAcc) updateBatch(ids []int32, _ int, arr arrow.Array) error {
	if len(ids) == 0 {
		return nil
	}
	gb := array.NewInt32Builder(memory.DefaultAllocator)
	gb.AppendValues(ids, nil)
	groups := gb.NewArray()
	gb.Release()
	defer groups.Release()
	cols := append(append([]arrow.Array{groups}, o.keys...), arr)
	if o.sep != nil {
		cols = append(cols, o.sep)
	}
	if o.schema == nil {
		fields := make([]arrow.Field, len(cols))
		for c, a := range cols {
			fields[c] = arrow.Field{Name: "c", Type: a.DataType(), Nullable: true}
		}
		o.schema = arrow.NewSchema(fields, nil)
		minRun := int64(orderedMinRun)
		if o.mem != nil && o.mem.limit > 0 {
			// Within work_mem: the groups around must still find room.
			minRun = min(minRun, o.mem.limit/4)
		}
		o.rows = &spillSort{keys: o.sortKeys(), batchSize: o.batch, mem: o.mem, tempRoot: o.tempDir, minRun: minRun}
	}
	// A compact copy: the columns may be slices of a larger batch, whose
	// buffers work_mem would count whole.
	whole := array.NewRecordBatch(o.schema, cols, int64(len(ids)))
	b, err := takeBatch(memory.DefaultAllocator, whole, allRows(len(ids)))
	whole.Release()
	if err != nil {
		return err
	}
	ctx := o.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	return o.rows.add(ctx, b)
}

// allRows is 0..n-1.
func allRows(n int) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(i)
	}
	return out
}

// sortKeys orders the kept rows: by group, then ORDER BY (DISTINCT
// without it: the value, and string_agg's delimiter, which DISTINCT also
// compares).
func (o *orderedAcc) sortKeys() []plan.OrderKey {
	keys := []plan.OrderKey{{Col: orderedGroupCol}}
	for k, ord := range o.call.OrderBy {
		keys = append(keys, plan.OrderKey{Col: 1 + k, Spec: plan.SortSpec{Desc: ord.Desc, NullsFirst: ord.NullsFirst}})
	}
	if o.distinct && len(o.call.OrderBy) == 0 {
		keys = append(keys, plan.OrderKey{Col: o.valueCol()})
	}
	if o.distinct && o.call.Sep != nil {
		keys = append(keys, plan.OrderKey{Col: o.valueCol() + 1})
	}
	return keys
}

// removeSpill deletes what the rows hold, in memory and on disk (the
// statement failed or was cancelled before result).
func (o *orderedAcc) removeSpill() {
	if o.rows != nil {
		o.rows.release()
		o.rows = nil
	}
}

func (o *orderedAcc) result(ctx context.Context, mem memory.Allocator, n int) (arrow.Array, error) {
	defer o.removeSpill()
	b := array.NewBuilder(mem, o.call.T.ArrowType())
	defer b.Release()
	f := &orderedFold{acc: o, out: b}
	if o.rows != nil {
		next, stop, err := o.sortedRows(ctx)
		if err != nil {
			return nil, err
		}
		defer stop()
		for {
			rb, err := next(ctx)
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, err
			}
			err = f.add(rb)
			rb.Release()
			if err != nil {
				return nil, err
			}
		}
	}
	if err := f.finish(n); err != nil {
		return nil, err
	}
	return b.NewArray(), nil
}

// sortedRows streams the kept rows in order: from memory when they
// fitted, else from the merge of the spilled runs.
func (o *orderedAcc) sortedRows(ctx context.Context) (func(context.Context) (arrow.RecordBatch, error), func(), error) {
	if !o.rows.spilled() {
		batches, err := o.rows.sorted(ctx)
		if err != nil {
			return nil, nil, err
		}
		next := func(context.Context) (arrow.RecordBatch, error) {
			if len(batches) == 0 {
				return nil, io.EOF
			}
			b := batches[0]
			batches = batches[1:]
			return b, nil
		}
		return next, func() { ReleaseAll(batches) }, nil
	}
	m, err := o.rows.merged(ctx)
	if err != nil {
		return nil, nil, err
	}
	return m.next, m.close, nil
}

// orderedFold folds sorted rows group by group into the output column.
type orderedFold struct {
	acc     *orderedAcc
	out     array.Builder
	next    int // the group whose value is appended next
	vals    []any
	text    strings.Builder
	seen    bool // text holds a value
	prev    [2]any
	hasPrev bool
}

func (f *orderedFold) add(b arrow.RecordBatch) error {
	o := f.acc
	groups := b.Column(orderedGroupCol).(*array.Int32)
	val := b.Column(o.valueCol())
	var sep arrow.Array
	if o.call.Sep != nil {
		sep = b.Column(o.valueCol() + 1)
	}
	for r := 0; r < int(b.NumRows()); r++ {
		if g := int(groups.Value(r)); g != f.next {
			if err := f.finish(g); err != nil {
				return err
			}
		}
		cur := [2]any{sql.DatumAt(val, o.call.Arg.Type(), r), nil}
		if sep != nil {
			cur[1] = sql.DatumAt(sep, o.call.Sep.Type(), r)
		}
		if o.distinct && f.hasPrev && o.sameValue(f.prev, cur) {
			continue
		}
		f.prev, f.hasPrev = cur, true
		f.take(cur[0], cur[1])
	}
	return nil
}

// take adds one value (and its delimiter) to the current group.
func (f *orderedFold) take(v, sep any) {
	if f.acc.call.Name == "array_agg" {
		f.vals = append(f.vals, v)
		return
	}
	if v == nil {
		return
	}
	if f.seen && sep != nil {
		f.text.WriteString(sep.(string))
	}
	f.text.WriteString(v.(string))
	f.seen = true
}

// finish appends the current group's value and NULL for every group before
// upto that had no rows; the group upto is next.
func (f *orderedFold) finish(upto int) error {
	for ; f.next < upto; f.next++ {
		if err := sql.AppendDatum(f.out, f.acc.call.T, f.value()); err != nil {
			return err
		}
		f.vals, f.seen, f.hasPrev = f.vals[:0], false, false
		f.text.Reset()
	}
	return nil
}

// value is the current group's aggregate: NULL for no rows (and for
// string_agg over only NULLs).
func (f *orderedFold) value() any {
	if f.acc.call.Name == "array_agg" {
		if len(f.vals) == 0 {
			return nil
		}
		return sql.FormatArrayDatums(f.acc.call.T.ElemType(), f.vals)
	}
	if !f.seen {
		return nil
	}
	return f.text.String()
}

// sameValue reports whether DISTINCT takes b (value, delimiter) for a
// repeat of a.
func (o *orderedAcc) sameValue(a, b [2]any) bool {
	equal := func(t sql.Type, x, y any) bool {
		return x == nil && y == nil || x != nil && y != nil && sql.CompareDatums(t, x, y) == 0
	}
	if !equal(o.call.Arg.Type(), a[0], b[0]) {
		return false
	}
	return o.call.Sep == nil || equal(o.call.Sep.Type(), a[1], b[1])
}
