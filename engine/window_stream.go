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

// Window calls that need no more of their partition than the rows before
// the current one — row_number(), rank(), dense_rank(), lag() by a constant
// offset, aggregates over a frame from UNBOUNDED PRECEDING to CURRENT ROW —
// are computed in one pass over rows sorted by partition and order keys,
// as PostgreSQL's WindowAgg does over a Sort, once their input is past
// work_mem: the sort spills (sort_spill.go) and the pass holds only the
// current peer group (rows equal in the ORDER BY), which a RANGE or GROUPS
// frame ending at CURRENT ROW includes. So a window without PARTITION BY,
// or with a partition larger than work_mem, no longer fails with 53200;
// only a peer group larger than work_mem does.

// maxStreamedLag bounds the lag() offsets computed in the pass: the
// offset's values are held.
const maxStreamedLag = 1024

// windowInOrder reports whether q's window calls can all be computed in
// one pass over rows sorted by their partition and order keys: they share
// both, over the query's rows (not its groups, nor a top-N of each
// partition), and each needs only the rows before it.
func (q *selectQuery) windowInOrder() bool {
	if q.Win == nil || q.Agg != nil || q.WinTop != 0 {
		return false
	}
	first := q.Win.Calls[0]
	for _, c := range q.Win.Calls {
		if !sameExprs(c.Partition, first.Partition) || !sameWindowOrder(c.Order, first.Order) || !streamedCall(c) {
			return false
		}
	}
	return true
}

func sameExprs(a, b []sql.Expr) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].String() != b[i].String() {
			return false
		}
	}
	return true
}

func sameWindowOrder(a, b []sql.WindowOrder) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Expr.String() != b[i].Expr.String() || a[i].Desc != b[i].Desc || a[i].NullsFirst != b[i].NullsFirst {
			return false
		}
	}
	return true
}

// streamedCall reports whether c's value at a row depends only on the rows
// up to it (and its peers, for a RANGE or GROUPS frame).
func streamedCall(c *sql.WindowCall) bool {
	switch c.Name {
	case "row_number", "rank", "dense_rank":
		return true
	case "lag":
		if len(c.Args) < 2 {
			return true
		}
		_, ok := lagOffset(c.Args[1])
		return ok
	}
	if !c.Agg || c.Start.Kind != sql.BoundUnboundedPreceding || c.End.Kind != sql.BoundCurrentRow {
		return false
	}
	// Without ORDER BY every row is a peer of every other: a RANGE or
	// GROUPS frame is the whole partition.
	if c.Mode != sql.FrameRows && len(c.Order) == 0 {
		return false
	}
	switch c.Name {
	case "count", "sum", "avg", "min", "max", "bool_and", "bool_or",
		"stddev_samp", "stddev_pop", "var_samp", "var_pop":
		return true
	}
	return false
}

// lagOffset is lag's offset when it is a constant the pass can hold
// (nil: NULL, every value NULL).
func lagOffset(e sql.Expr) (*int64, bool) {
	if c, ok := e.(*sql.Cast); ok {
		e = c.X
	}
	k, ok := e.(*sql.Const)
	if !ok {
		return nil, false
	}
	var n int64
	switch v := k.Value.(type) {
	case nil:
		return nil, true
	case int64:
		n = v
	case int32:
		n = int64(v)
	case int16:
		n = int64(v)
	default:
		return nil, false
	}
	return &n, n >= 0 && n <= maxStreamedLag
}

// windowInOrderRun sorts first and then the rest of the input by the
// windows' partition and order keys and computes the calls in one pass.
func (p *pipeline) windowInOrderRun(ctx context.Context, env *Env, first []arrow.RecordBatch, c *pullChain) (pullFunc, error) {
	call := p.q.Win.Calls[0]
	exprs := append([]sql.Expr(nil), call.Partition...)
	specs := make([]plan.SortSpec, len(call.Partition))
	for _, o := range call.Order {
		exprs = append(exprs, o.Expr)
		specs = append(specs, plan.SortSpec{Desc: o.Desc, NullsFirst: o.NullsFirst})
	}
	width := int(first[0].NumCols())
	sorted, mem, err := p.windowSorted(ctx, env, first, exprs, specs, c)
	if err != nil {
		return nil, err
	}
	w := &windowPass{p: p, calls: p.q.Win.Calls, src: sorted, width: width, nPart: len(call.Partition),
		specs: specs, mem: mem, check: cancelCheck{ctx: ctx}}
	w.states = make([]windowCallState, len(w.calls))
	for k, c := range w.calls {
		w.states[k].peers = c.Agg && c.Mode != sql.FrameRows
		w.hasPeers = w.hasPeers || w.states[k].peers
		if c.Name == "lag" {
			w.states[k].lag = 1
			if len(c.Args) > 1 {
				w.states[k].lagNull = true
				if n, _ := lagOffset(c.Args[1]); n != nil {
					w.states[k].lag, w.states[k].lagNull = *n, false
				}
			}
		}
	}
	c.onClose(w.release)
	return w.next, nil
}

// windowPass computes the window calls over rows sorted by partition and
// order keys (the columns from width on: nPart partition keys, then the
// order keys).
type windowPass struct {
	p        *pipeline
	calls    []*sql.WindowCall
	src      pullFunc
	width    int
	nPart    int
	specs    []plan.SortSpec
	mem      *memBudget // what the open peer group holds
	check    cancelCheck
	states   []windowCallState
	hasPeers bool // a call's value waits for the end of its peer group
	// prev is the key columns of the last row seen (one row); nil
	// before the first.
	prev                []arrow.Array
	rowNum, rank, dense int64 // of the current row in its partition
	// held is the rows of the open peer group from earlier batches
	// (copies), waiting for its aggregates; out is the rows computed.
	held []*windowSeg
	out  []arrow.RecordBatch
	done bool
}

// windowCallState is one call's state within the current partition.
type windowCallState struct {
	acc     accumulator
	peers   bool  // an aggregate over the rows up to the current peer group's end
	lag     int64 // lag's offset
	lagNull bool  // lag's offset is NULL
	hist    []any // lag: the argument's latest values
}

// windowSeg is rows of one batch (key columns and all) and the calls'
// values for them.
type windowSeg struct {
	b     arrow.RecordBatch
	vals  [][]any // [call][row]
	bytes int64   // charged to work_mem while held
}

// windowArgs are a batch's arguments of each call: an aggregate's as an
// array (nil for count(*)), lag's value and default as datums.
type windowArgs struct {
	arr      arrow.Array
	val, def []any
}

func (w *windowPass) next(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		if len(w.out) > 0 {
			b := w.out[0]
			w.out = w.out[1:]
			return b, nil
		}
		if w.done {
			return nil, io.EOF
		}
		b, err := w.src(ctx)
		if err == io.EOF {
			w.done = true
			if err := w.closePeers(ctx, nil, 0, 0); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		err = w.add(ctx, b)
		b.Release()
		if err != nil {
			return nil, err
		}
	}
}

// add computes the calls for b's rows and hands on those whose values are
// all known; the rows of the open peer group wait.
func (w *windowPass) add(ctx context.Context, b arrow.RecordBatch) error {
	n := int(b.NumRows())
	args, err := w.args(ctx, b)
	defer func() {
		for _, a := range args {
			if a.arr != nil {
				a.arr.Release()
			}
		}
	}()
	if err != nil {
		return err
	}
	seg := &windowSeg{b: b, vals: make([][]any, len(w.calls))}
	for k := range seg.vals {
		seg.vals[k] = make([]any, n)
	}
	keys := b.Columns()[w.width:]
	open := 0 // the first row of the open peer group within b
	for r := 0; r < n; r++ {
		if err := w.check.step(1); err != nil {
			return err
		}
		newPart, newPeer := w.boundary(keys, r)
		if newPeer {
			if err := w.closePeers(ctx, seg, open, r); err != nil {
				return err
			}
			open = r
		}
		if newPart {
			w.rowNum, w.dense = 0, 0
			for k := range w.states {
				w.states[k].acc, w.states[k].hist = nil, w.states[k].hist[:0]
			}
		}
		w.rowNum++
		if newPeer {
			w.rank = w.rowNum
			w.dense++
		}
		for k := range w.calls {
			if seg.vals[k][r], err = w.value(ctx, k, args[k], r); err != nil {
				return err
			}
		}
	}
	if n > 0 {
		releaseArrays(w.prev)
		w.prev = w.prev[:0]
		for _, k := range keys {
			w.prev = append(w.prev, array.NewSlice(k, int64(n-1), int64(n)))
		}
	}
	if !w.hasPeers {
		open = n
	}
	return w.hold(ctx, seg, open)
}

// boundary reports whether row r of keys starts a partition and a peer
// group, compared with the row before it.
func (w *windowPass) boundary(keys []arrow.Array, r int) (newPart, newPeer bool) {
	ref, refRow := w.prev, 0
	if r > 0 {
		ref, refRow = keys, r-1
	}
	if len(ref) == 0 {
		return true, true
	}
	if compareKeyRows(keys[:w.nPart], r, ref[:w.nPart], refRow, w.specs[:w.nPart]) != 0 {
		return true, true
	}
	return false, compareKeyRows(keys[w.nPart:], r, ref[w.nPart:], refRow, w.specs[w.nPart:]) != 0
}

// args evaluates each call's arguments over b.
func (w *windowPass) args(ctx context.Context, b arrow.RecordBatch) ([]windowArgs, error) {
	out := make([]windowArgs, len(w.calls))
	for k, c := range w.calls {
		var err error
		switch {
		case c.Agg && !c.Star:
			out[k].arr, err = sql.Eval(ctx, c.Args[0], b, w.p.params)
		case c.Name == "lag":
			out[k].val, err = batchDatums(ctx, c.Args[0], b, w.p.params)
			if err == nil && len(c.Args) > 2 {
				out[k].def, err = batchDatums(ctx, c.Args[2], b, w.p.params)
			}
		}
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// batchDatums is e's value at each row of b.
func batchDatums(ctx context.Context, e sql.Expr, b arrow.RecordBatch, params []any) ([]any, error) {
	arr, err := sql.Eval(ctx, e, b, params)
	if err != nil {
		return nil, err
	}
	defer arr.Release()
	out := make([]any, arr.Len())
	for r := range out {
		out[r] = sql.DatumAt(arr, e.Type(), r)
	}
	return out, nil
}

// value is call k's value at row r (an aggregate over the peer group:
// fed, its value filled in when the group ends).
func (w *windowPass) value(ctx context.Context, k int, a windowArgs, r int) (any, error) {
	st := &w.states[k]
	switch w.calls[k].Name {
	case "row_number":
		return w.rowNum, nil
	case "rank":
		return w.rank, nil
	case "dense_rank":
		return w.dense, nil
	case "lag":
		return st.shift(a, r), nil
	}
	if st.acc == nil {
		c := w.calls[k]
		spec := aggSpec{Func: c.Name, Star: c.Star}
		if !c.Star {
			spec.Input = c.Args[0].Type()
		}
		var err error
		if st.acc, err = newAccumulator(spec, c.T); err != nil {
			return nil, err
		}
	}
	if err := st.acc.update(0, a.arr, r); err != nil {
		return nil, err
	}
	if st.peers {
		return nil, nil
	}
	return w.result(ctx, k)
}

// shift is lag's value at row r, before r's own value joins the history.
func (st *windowCallState) shift(a windowArgs, r int) any {
	var v any
	switch n := int(st.lag); {
	case st.lagNull:
	case len(st.hist) >= n:
		if n == 0 {
			v = a.val[r]
		} else {
			v = st.hist[len(st.hist)-n]
		}
	case a.def != nil:
		v = a.def[r]
	}
	if st.lagNull || st.lag == 0 {
		return v
	}
	if len(st.hist) >= 2*int(st.lag) {
		st.hist = append(st.hist[:0], st.hist[len(st.hist)-int(st.lag):]...)
	}
	st.hist = append(st.hist, a.val[r])
	return v
}

// result is call k's aggregate over the rows fed so far.
func (w *windowPass) result(ctx context.Context, k int) (any, error) {
	arr, err := w.states[k].acc.result(ctx, memory.DefaultAllocator, 1)
	if err != nil {
		return nil, err
	}
	defer arr.Release()
	return sql.DatumAt(arr, w.calls[k].T, 0), nil
}

// closePeers ends the open peer group — the held rows and rows [from, to)
// of seg (nil at the end of the input) — filling in the aggregates over it;
// the held rows are handed on.
func (w *windowPass) closePeers(ctx context.Context, seg *windowSeg, from, to int) error {
	if !w.hasPeers {
		return nil
	}
	for k, st := range w.states {
		if !st.peers || st.acc == nil {
			continue
		}
		v, err := w.result(ctx, k)
		if err != nil {
			return err
		}
		for _, h := range w.held {
			for r := range h.vals[k] {
				h.vals[k][r] = v
			}
		}
		if seg != nil {
			for r := from; r < to; r++ {
				seg.vals[k][r] = v
			}
		}
	}
	held := w.held
	w.held = nil
	for _, h := range held {
		if err := w.emit(ctx, h, 0, int(h.b.NumRows())); err != nil {
			return err
		}
		w.mem.release(h.bytes)
	}
	return nil
}

// hold hands on seg's rows before open and keeps a copy of the rest, the
// open peer group's, charged to work_mem.
func (w *windowPass) hold(ctx context.Context, seg *windowSeg, open int) error {
	n := int(seg.b.NumRows())
	if err := w.emit(ctx, seg, 0, open); err != nil || open == n {
		return err
	}
	rows := make([]int32, n-open)
	for i := range rows {
		rows[i] = int32(open + i)
	}
	b, err := takeBatch(memory.DefaultAllocator, seg.b, rows)
	if err != nil {
		return err
	}
	h := &windowSeg{b: b, vals: make([][]any, len(seg.vals))}
	for k := range seg.vals {
		h.vals[k] = seg.vals[k][open:]
	}
	h.bytes = BatchBytes(b) + int64(n-open)*int64(len(w.calls))*windowRowBytes
	w.held = append(w.held, h)
	if w.mem.charge(h.bytes, "window function") != nil {
		return peerGroupTooLarge(w.mem)
	}
	return nil
}

// emit hands on rows [from, to) of seg with the calls' columns, projected.
func (w *windowPass) emit(ctx context.Context, seg *windowSeg, from, to int) error {
	if from == to {
		return nil
	}
	cols := seg.b.Columns()[:w.width]
	fields := seg.b.Schema().Fields()[:w.width]
	base := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, seg.b.NumRows())
	defer base.Release()
	part := base.NewSlice(int64(from), int64(to))
	vals := make([][]any, len(seg.vals))
	for k := range vals {
		vals[k] = seg.vals[k][from:to]
	}
	in := &windowInput{batches: []arrow.RecordBatch{part}}
	ext, err := in.extend(ctx, w.calls, vals)
	part.Release()
	if err != nil {
		return err
	}
	defer ReleaseAll(ext)
	for _, b := range ext {
		r, err := Project(ctx, w.p.q.Outputs, w.p.q.Names, b, w.p.params)
		if err != nil {
			return err
		}
		w.out = append(w.out, r)
	}
	return nil
}

func peerGroupTooLarge(mem *memBudget) error {
	return &pgerr.Error{Code: pgerr.OutOfMemory, Message: "out of memory",
		Detail: "window function needs more than work_mem (" + sql.FormatKB(mem.limit/1024) + ") to hold the rows of one value of its ORDER BY; magmalake computes such a window in one pass over its sorted rows, holding only the rows of the current value.",
		Hint:   "Raise work_mem, or order the window by more keys."}
}

func (w *windowPass) release() {
	for _, h := range w.held {
		h.b.Release()
	}
	ReleaseAll(w.out)
	releaseArrays(w.prev)
	w.held, w.out, w.prev = nil, nil, nil
}
