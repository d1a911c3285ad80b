package engine

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
)

// Once a window's input is past work_mem, its calls are computed over the
// input sorted on disk (sort_spill.go), as PostgreSQL's WindowAgg over a
// Sort is. Calls of the kinds a pass over sorted rows computes (ranks,
// lag, lead, ntile, running aggregates, aggregates over the whole
// partition or a ROWS frame, first_value, last_value, ...: window_kinds.go)
// are computed in such passes, one per window, holding no partition in
// memory (window_stream.go, window_whole.go). Other calls (RANGE or GROUPS
// frames with offsets) sharing one PARTITION BY hold a partition at a
// time: the input, with the partition keys computed as extra columns, is
// sorted by them and each partition read back is computed on its own; a
// partition larger than work_mem fails with 53200. Input that fits is
// computed in memory.

// windowStreams reports whether q's windows can be computed without
// holding all their rows: a partition at a time, or in one pass over the
// sorted rows (window_stream.go).
func (q *selectQuery) windowStreams() bool {
	return q.windowByPartitions() || q.windowInOrder()
}

// windowByPartitions reports whether q's windows can be computed a
// partition at a time: every call has the same, non-empty, PARTITION BY,
// over the query's rows (not its groups, nor a top-N of each partition).
func (q *selectQuery) windowByPartitions() bool {
	if q.Win == nil || q.Agg != nil || q.WinTop != 0 {
		return false
	}
	first := q.Win.Calls[0].Partition
	if len(first) == 0 {
		return false
	}
	for _, c := range q.Win.Calls[1:] {
		if len(c.Partition) != len(first) {
			return false
		}
		for i, e := range c.Partition {
			if e.String() != first[i].String() {
				return false
			}
		}
	}
	return true
}

// windowStream computes the windows, streaming the projected rows: in
// memory when the input fits in work_mem, else a partition at a time.
func (p *pipeline) windowStream(ctx context.Context, env *Env, c *pullChain) (pullFunc, error) {
	var held []arrow.RecordBatch
	var heldBytes, heldRows int64
	// What computing the calls over the held rows will charge besides.
	perRow := int64(len(p.q.Win.Calls)) * windowRowBytes
	c.onClose(func() { ReleaseAll(held); held = nil })
	for {
		b, err := p.nextFiltered(ctx)
		if err == io.EOF {
			rows, err := p.windowOver(ctx, held, p.mem)
			held = nil
			if err != nil {
				return nil, err
			}
			return slicePull(rows, c), nil
		}
		if err != nil {
			return nil, err
		}
		size := BatchBytes(b)
		if !p.mem.fits(size + (heldRows+b.NumRows())*perRow) {
			// Past work_mem: the held rows go to the sort first.
			rest := held
			held = nil
			p.mem.release(heldBytes)
			if p.q.windowInOrder() {
				return p.windowInOrderRun(ctx, env, append(rest, b), c)
			}
			return p.windowByPartition(ctx, env, append(rest, b), c)
		}
		p.mem.hold(size)
		heldBytes += size
		heldRows += b.NumRows()
		held = append(held, b)
	}
}

// windowByPartition sorts first and then the rest of the input by the
// partition keys and computes the windows a partition at a time.
func (p *pipeline) windowByPartition(ctx context.Context, env *Env, first []arrow.RecordBatch, c *pullChain) (pullFunc, error) {
	parts := p.q.Win.Calls[0].Partition
	width := int(first[0].NumCols())
	sorted, mem, err := p.windowSorted(ctx, env, p.inputAfter(first, c), parts, make([]plan.SortSpec, len(parts)), c)
	if err != nil {
		return nil, err
	}
	w := &windowPartitions{p: p, mem: mem, src: sorted, width: width, specs: make([]plan.SortSpec, len(parts))}
	c.onClose(w.release)
	return w.next, nil
}

// windowSorted sorts src's rows by exprs (in specs' directions), their
// values appended as columns after src's, through the external sort
// (always on disk: the input passed work_mem), and gives the window stage
// its own budget: a partition or a peer group held has work_mem of its
// own, as PostgreSQL's WindowAgg has beside the sort under it and the
// operators over it.
func (p *pipeline) windowSorted(ctx context.Context, env *Env, src pullFunc, exprs []sql.Expr, specs []plan.SortSpec,
	c *pullChain) (pullFunc, *memBudget, error) {
	// The keys follow src's columns, counted at its first batch: the sort
	// reads them only once it holds rows.
	keys := make([]plan.OrderKey, len(exprs))
	width := -1
	next := func(ctx context.Context) (arrow.RecordBatch, error) {
		b, err := src(ctx)
		if err != nil {
			return nil, err
		}
		defer b.Release()
		if width < 0 {
			width = int(b.NumCols())
			for i := range keys {
				keys[i] = plan.OrderKey{Col: width + i, Spec: specs[i]}
			}
		}
		return withColumns(ctx, b, exprs, p.params)
	}
	sorted := src // without keys (OVER ()) any order is the window's
	if len(exprs) > 0 {
		var err error
		if sorted, _, err = p.sortAll(ctx, env, keys, next, c, true); err != nil {
			return nil, nil, err
		}
	}
	mem := newMemBudget(ctx, p.mem.limit)
	mem.attribute(p.an.of(stageWindow))
	return sorted, mem, nil
}

// inputAfter pulls first's batches, then the rest of the query's rows.
func (p *pipeline) inputAfter(first []arrow.RecordBatch, c *pullChain) pullFunc {
	c.onClose(func() { ReleaseAll(first); first = nil })
	return func(ctx context.Context) (arrow.RecordBatch, error) {
		if len(first) > 0 {
			b := first[0]
			first = first[1:]
			return b, nil
		}
		return p.nextFiltered(ctx)
	}
}

// withColumns is b with exprs' values appended as columns.
func withColumns(ctx context.Context, b arrow.RecordBatch, exprs []sql.Expr, params []any) (arrow.RecordBatch, error) {
	cols := append([]arrow.Array(nil), b.Columns()...)
	fields := append([]arrow.Field(nil), b.Schema().Fields()...)
	var made []arrow.Array
	defer func() { releaseArrays(made) }()
	for _, e := range exprs {
		arr, err := sql.Eval(ctx, e, b, params)
		if err != nil {
			return nil, err
		}
		made = append(made, arr)
		cols = append(cols, arr)
		fields = append(fields, arrow.Field{Name: "?partition?", Type: arr.DataType(), Nullable: true})
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, b.NumRows()), nil
}

// windowPartitions cuts rows sorted by their partition keys (the columns
// from width on) into partitions and computes each one's windows.
type windowPartitions struct {
	p       *pipeline
	mem     *memBudget // what a partition holds
	src     pullFunc
	width   int
	specs   []plan.SortSpec
	cur     []arrow.RecordBatch // the partition being read, key columns and all
	size    int64               // the bytes it holds
	pending arrow.RecordBatch   // rows read past it
	out     []arrow.RecordBatch
	done    bool
}

func (w *windowPartitions) next(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		if len(w.out) > 0 {
			b := w.out[0]
			w.out = w.out[1:]
			return b, nil
		}
		if w.done {
			return nil, io.EOF
		}
		b := w.pending
		w.pending = nil
		if b == nil {
			var err error
			if b, err = w.src(ctx); err == io.EOF {
				w.done = true
				if err := w.flush(ctx); err != nil {
					return nil, err
				}
				continue
			} else if err != nil {
				return nil, err
			}
		}
		if err := w.cut(ctx, b); err != nil {
			return nil, err
		}
	}
}

// cut adds b's rows of the current partition to it; at the partition's
// end it is computed and the rest of b waits.
func (w *windowPartitions) cut(ctx context.Context, b arrow.RecordBatch) error {
	defer b.Release()
	keys := b.Columns()[w.width:]
	ref, refRow := keys, 0
	if len(w.cur) > 0 {
		ref = w.cur[0].Columns()[w.width:]
	}
	n := int(b.NumRows())
	end := 0
	for end < n && compareKeyRows(keys, end, ref, refRow, w.specs) == 0 {
		end++
	}
	if end > 0 {
		// A copy, not a slice: the partition holds (and is charged for)
		// its own rows, not the merged batch's buffers.
		rows := make([]int32, end)
		for i := range rows {
			rows[i] = int32(i)
		}
		part, err := takeBatch(memory.DefaultAllocator, b, rows)
		if err != nil {
			return err
		}
		w.cur = append(w.cur, part)
		w.size += BatchBytes(part)
	}
	if end == n {
		return nil
	}
	w.pending = b.NewSlice(int64(end), int64(n))
	return w.flush(ctx)
}

// flush computes the windows of the current partition.
func (w *windowPartitions) flush(ctx context.Context) error {
	if len(w.cur) == 0 {
		return nil
	}
	cur, size := w.cur, w.size
	w.cur, w.size = nil, 0
	defer ReleaseAll(cur)
	mem := w.mem
	used := mem.used
	defer mem.resetTo(used)
	if mem.charge(size, "window function") != nil {
		return partitionTooLarge(mem)
	}
	base := make([]arrow.RecordBatch, len(cur))
	for i, b := range cur {
		base[i] = array.NewRecordBatch(arrow.NewSchema(b.Schema().Fields()[:w.width], nil), b.Columns()[:w.width], b.NumRows())
	}
	rows, err := w.p.windowOver(ctx, base, mem)
	if err != nil {
		if pe, ok := err.(*pgerr.Error); ok && pe.Code == pgerr.OutOfMemory {
			return partitionTooLarge(mem)
		}
		return err
	}
	w.out = append(w.out, rows...)
	return nil
}

func partitionTooLarge(mem *memBudget) error {
	return &pgerr.Error{Code: pgerr.OutOfMemory, Message: "out of memory",
		Detail: "window function needs more than work_mem (" + sql.FormatKB(mem.limit/1024) + ") to hold one window partition; magmalake spills a window's rows to disk, and holds one partition at a time for a RANGE or GROUPS frame with offsets (n PRECEDING or FOLLOWING), which must fit.",
		Hint:   "Raise work_mem, or partition the window more finely."}
}

func (w *windowPartitions) release() {
	ReleaseAll(w.cur)
	ReleaseAll(w.out)
	if w.pending != nil {
		w.pending.Release()
	}
	w.cur, w.out, w.pending = nil, nil, nil
}
