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

// Window calls are computed in one pass over rows sorted by partition and
// order keys, as PostgreSQL's WindowAgg does over a Sort, once their input
// is past work_mem: the sort spills (sort_spill.go) and the pass holds only
// the current peer group (rows equal in the ORDER BY), which a RANGE or
// GROUPS frame ending at CURRENT ROW includes, and for calls that need
// their whole partition the partition, spooled to disk past work_mem
// (window_whole.go). Windows with different keys get a pass each, the
// rows sorted again between them. So a window without PARTITION BY, or
// with a partition larger than work_mem, does not fail with 53200; only a
// peer group larger than work_mem does.

// maxStreamedLag bounds the lag() offsets computed in the pass: the
// offset's values are held.
const maxStreamedLag = 1024

// windowInOrder reports whether q's window calls can all be computed in
// passes over sorted rows, one per window (windowStages): over the query's
// rows (not its groups, nor a top-N of each partition), each a kind a pass
// computes (window_kinds.go).
func (q *selectQuery) windowInOrder() bool {
	if q.Win == nil || q.Agg != nil || q.WinTop != 0 {
		return false
	}
	for _, c := range q.Win.Calls {
		if _, ok := streamKind(c); !ok {
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

// lagOffset is lag's offset when it is a constant the pass can hold
// (nil: NULL, every value NULL).
func lagOffset(e sql.Expr) (*int64, bool) {
	n, ok := constOffset(e)
	return n, ok && (n == nil || *n >= 0 && *n <= maxStreamedLag)
}

// constOffset is an offset given as a constant (nil: NULL).
func constOffset(e sql.Expr) (*int64, bool) {
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
	return &n, true
}

// windowInOrderRun computes the windows stage by stage (windowStages):
// each stage sorts its input (first, then the rest of the query's rows;
// after the first stage, the stage before's rows) by its keys and computes
// its calls in one pass; the last stage's rows, their columns in the
// calls' order, are projected.
func (p *pipeline) windowInOrderRun(ctx context.Context, env *Env, first []arrow.RecordBatch, c *pullChain) (pullFunc, error) {
	stages := p.q.windowStages()
	width := int(first[0].NumCols())
	src := p.inputAfter(first, c)
	var placed []int // the calls, in the order their columns follow the input's
	for i, st := range stages {
		w, err := p.newWindowPass(ctx, env, src, width+len(placed), st, c)
		if err != nil {
			return nil, err
		}
		placed = append(placed, st.calls...)
		if i == len(stages)-1 {
			w.layout = outputLayout(width, placed)
		}
		src = w.next
	}
	return src, nil
}

// outputLayout is, for each column of the query's window rows (the input's
// width columns, then one per call in the query's order), where it is
// among the last stage's columns (the input's, then the calls as placed).
func outputLayout(width int, placed []int) []int {
	layout := make([]int, width+len(placed))
	for i := range width {
		layout[i] = i
	}
	for at, k := range placed {
		layout[width+k] = width + at
	}
	return layout
}

// newWindowPass sorts src by st's keys and computes its calls over it.
func (p *pipeline) newWindowPass(ctx context.Context, env *Env, src pullFunc, width int, st windowStage, c *pullChain) (*windowPass, error) {
	exprs := append([]sql.Expr(nil), st.part...)
	specs := make([]plan.SortSpec, len(st.part))
	for _, o := range st.order {
		exprs = append(exprs, o.Expr)
		specs = append(specs, plan.SortSpec{Desc: o.Desc, NullsFirst: o.NullsFirst})
	}
	sorted, mem, err := p.windowSorted(ctx, env, src, exprs, specs, c)
	if err != nil {
		return nil, err
	}
	w := &windowPass{p: p, src: sorted, width: width, nPart: len(st.part), nKeys: len(exprs),
		specs: specs, mem: mem, check: cancelCheck{ctx: ctx}}
	w.tempRoot = env.Options.TempDir
	for _, k := range st.calls {
		w.calls = append(w.calls, p.q.Win.Calls[k])
	}
	w.states = make([]windowCallState, len(w.calls))
	for k, c := range w.calls {
		if err := w.initState(ctx, k, c); err != nil {
			return nil, err
		}
	}
	if w.whole {
		w.spoolMem = newMemBudget(ctx, mem.limit)
		w.spoolMem.attribute(p.an.of(stageWindow))
		w.argCols()
	}
	c.onClose(w.release)
	return w, nil
}

// initState sets up call k's state.
func (w *windowPass) initState(ctx context.Context, k int, c *sql.WindowCall) error {
	st := &w.states[k]
	st.kind, _ = streamKind(c)
	st.peers = st.kind.peers()
	w.hasPeers = w.hasPeers || st.peers
	w.whole = w.whole || st.kind.wholePartition()
	if c.Name == "lag" {
		st.lag = 1
		if len(c.Args) > 1 {
			st.lagNull = true
			if n, _ := lagOffset(c.Args[1]); n != nil {
				st.lag, st.lagNull = *n, false
			}
		}
	}
	if st.kind != kindRowsFrame {
		return nil
	}
	for i, b := range []sql.FrameBound{c.Start, c.End} {
		if b.Offset == nil {
			continue
		}
		v, err := frameOffset(ctx, b.Offset, w.p.params, i == 0)
		if err != nil {
			return err
		}
		st.offs[i] = int64(min(v, 1<<50)) // past any partition, and no overflow
	}
	return nil
}

// windowPass computes the window calls over rows sorted by partition and
// order keys (the nKeys columns from width on: nPart partition keys, then
// the order keys).
type windowPass struct {
	p        *pipeline
	calls    []*sql.WindowCall
	src      pullFunc
	width    int
	nPart    int
	nKeys    int
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
	// layout, in the last stage, orders the columns for the projection
	// (outputLayout); nil: a stage whose rows go on to the next.
	layout []int
	windowWhole
}

// windowCallState is one call's state within the current partition.
type windowCallState struct {
	kind    windowKind
	acc     accumulator
	peers   bool     // a value known at the end of the row's peer group
	lag     int64    // lag's offset
	lagNull bool     // lag's offset is NULL
	hist    []any    // lag: the argument's latest values
	whole   any      // an aggregate over the whole partition
	argCol  int      // the first of the call's arguments among the spooled columns
	offs    [2]int64 // a ROWS frame's start and end offsets
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
		if w.replaying {
			if err := w.replayStep(ctx); err != nil {
				return nil, err
			}
			continue
		}
		if w.done {
			return nil, io.EOF
		}
		b, err := w.src(ctx)
		if err == io.EOF {
			w.done = true
			if w.whole {
				err = w.startReplay(ctx)
			} else {
				err = w.closePeers(ctx, nil, 0, 0)
			}
			if err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		if w.whole {
			err = w.collect(ctx, b)
		} else {
			err = w.add(ctx, b)
		}
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
	keys := b.Columns()[w.width : w.width+w.nKeys]
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
		case c.Agg && !c.Star && w.states[k].kind != kindWholeAgg:
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
	switch st.kind {
	case kindWholeAgg:
		return st.whole, nil
	case kindAhead:
		return w.aheadValue(k)
	case kindRowsFrame:
		return w.rowsFrameValue(ctx, k)
	case kindPeerEnd:
		return nil, nil // filled in when the peer group ends
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
	if !w.hasPeers || len(w.held) == 0 && (seg == nil || from == to) {
		return nil
	}
	for k, st := range w.states {
		if !st.peers || st.kind == kindPeerAgg && st.acc == nil {
			continue
		}
		v, err := w.peerValue(ctx, k)
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

// peerValue is call k's value over the peer group ending now.
func (w *windowPass) peerValue(ctx context.Context, k int) (any, error) {
	if w.states[k].kind == kindPeerEnd {
		return w.peerEndValue(k)
	}
	return w.result(ctx, k)
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
	if w.layout == nil {
		w.out = append(w.out, ext...)
		return nil
	}
	defer ReleaseAll(ext)
	for _, b := range ext {
		arranged := arrangeColumns(b, w.layout)
		r, err := Project(ctx, w.p.q.Outputs, w.p.q.Names, arranged, w.p.params)
		arranged.Release()
		if err != nil {
			return err
		}
		w.out = append(w.out, r)
	}
	return nil
}

// arrangeColumns is b's columns in layout's order (b, retained, when it
// is already).
func arrangeColumns(b arrow.RecordBatch, layout []int) arrow.RecordBatch {
	same := true
	for i, c := range layout {
		same = same && i == c
	}
	if same {
		b.Retain()
		return b
	}
	cols := make([]arrow.Array, len(layout))
	fields := make([]arrow.Field, len(layout))
	for i, c := range layout {
		cols[i], fields[i] = b.Column(c), b.Schema().Field(c)
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, b.NumRows())
}

func peerGroupTooLarge(mem *memBudget) error {
	return &pgerr.Error{Code: pgerr.OutOfMemory, Message: "out of memory",
		Detail: "window function needs more than work_mem (" + sql.FormatKB(mem.limit/1024) + ") to hold the rows of one value of its ORDER BY; magmalake computes such a window in one pass over its sorted rows, holding only the rows of the current value.",
		Hint:   "Raise work_mem, or order the window by more keys."}
}

func (w *windowPass) release() {
	w.releaseWhole()
	for _, h := range w.held {
		h.b.Release()
	}
	ReleaseAll(w.out)
	releaseArrays(w.prev)
	w.held, w.out, w.prev = nil, nil, nil
}
