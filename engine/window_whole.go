package engine

import (
	"context"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// When a pass over sorted rows (window_stream.go) has calls that need
// their whole partition — its size (ntile, percent_rank, cume_dist), rows
// after the current one (lead, last_value), an aggregate over all of it —
// each partition is read to its end first: its rows go to a windowSpool
// (memory, then disk past work_mem) with those calls' arguments computed
// as extra columns, and the aggregates over all of it are fed. The
// partition is then replayed through the pass, which finds those values
// in the spool. So such windows hold no partition in memory, as PostgreSQL
// holds none: its WindowAgg spills the partition's tuplestore.

// windowWhole is the pass's state for calls that need whole partitions.
type windowWhole struct {
	whole     bool // some call does
	tempRoot  string
	spoolMem  *memBudget // the partition's work_mem, beside the peer group's
	spool     *windowSpool
	partKey   []arrow.Array     // the current partition's keys (one row)
	pending   arrow.RecordBatch // rows of the next partitions, read past it
	replaying bool
	replayAt  int   // the next batch of the spool to replay
	partRows  int64 // the replayed partition's size
}

// argCols places the arguments of the calls that read the spool.
func (w *windowPass) argCols() {
	n := 0
	for k, c := range w.calls {
		if st := &w.states[k]; st.kind.readsSpool() {
			st.argCol = n
			n += len(c.Args)
		}
	}
}

// collect adds b's rows to the current partition; at its end the
// partition is replayed and the rest of b waits.
func (w *windowPass) collect(ctx context.Context, b arrow.RecordBatch) error {
	n := int(b.NumRows())
	if n == 0 {
		return nil
	}
	if w.spool == nil {
		if err := w.openPartition(b); err != nil {
			return err
		}
	}
	end := w.partitionEnd(b)
	if end > 0 {
		if err := w.spoolRows(ctx, b, end); err != nil {
			return err
		}
	}
	if end == n {
		return nil
	}
	w.pending = b.NewSlice(int64(end), int64(n))
	return w.startReplay(ctx)
}

// openPartition starts a partition at b's first row.
func (w *windowPass) openPartition(b arrow.RecordBatch) error {
	for _, k := range b.Columns()[w.width : w.width+w.nPart] {
		w.partKey = append(w.partKey, array.NewSlice(k, 0, 1))
	}
	w.spool = newWindowSpool(w.spoolMem, w.tempRoot)
	for k, c := range w.calls {
		if w.states[k].kind != kindWholeAgg {
			continue
		}
		spec := aggSpec{Func: c.Name, Star: c.Star}
		if !c.Star {
			spec.Input = c.Args[0].Type()
		}
		var err error
		if w.states[k].acc, err = newAccumulator(spec, c.T); err != nil {
			return err
		}
	}
	return nil
}

// partitionEnd is the first row of b past the current partition (b is
// sorted: when its last row is in the partition, all are).
func (w *windowPass) partitionEnd(b arrow.RecordBatch) int {
	n := int(b.NumRows())
	if w.nPart == 0 {
		return n
	}
	keys := b.Columns()[w.width : w.width+w.nPart]
	in := func(r int) bool { return compareKeyRows(keys, r, w.partKey, 0, w.specs[:w.nPart]) == 0 }
	if in(n - 1) {
		return n
	}
	return sort.Search(n, func(r int) bool { return !in(r) })
}

// spoolRows feeds b's first end rows to the aggregates over the whole
// partition and spools them, with the arguments of the calls that read
// the spool.
func (w *windowPass) spoolRows(ctx context.Context, b arrow.RecordBatch, end int) error {
	chunk, err := takeBatch(memory.DefaultAllocator, b, allRows(end))
	if err != nil {
		return err
	}
	defer chunk.Release()
	if err := w.feedWhole(ctx, chunk); err != nil {
		return err
	}
	cols := append([]arrow.Array(nil), chunk.Columns()...)
	fields := append([]arrow.Field(nil), chunk.Schema().Fields()...)
	var made []arrow.Array
	defer func() { releaseArrays(made) }()
	for k, c := range w.calls {
		if !w.states[k].kind.readsSpool() {
			continue
		}
		for _, a := range c.Args {
			arr, err := sql.Eval(ctx, a, chunk, w.p.params)
			if err != nil {
				return err
			}
			made = append(made, arr)
			cols = append(cols, arr)
			fields = append(fields, arrow.Field{Name: "?arg?", Type: arr.DataType(), Nullable: true})
		}
	}
	return w.spool.add(array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(end)))
}

// feedWhole adds b's rows to the aggregates over the whole partition.
func (w *windowPass) feedWhole(ctx context.Context, b arrow.RecordBatch) error {
	n := int(b.NumRows())
	for k, c := range w.calls {
		st := &w.states[k]
		if st.kind != kindWholeAgg {
			continue
		}
		var arr arrow.Array
		if !c.Star {
			var err error
			if arr, err = sql.Eval(ctx, c.Args[0], b, w.p.params); err != nil {
				return err
			}
		}
		err := feedAll(st.acc, arr, n)
		if arr != nil {
			arr.Release()
		}
		if err != nil {
			return err
		}
	}
	return w.check.step(n)
}

// feedAll folds n rows of arr (nil: count(*)) into acc's one group.
func feedAll(acc accumulator, arr arrow.Array, n int) error {
	if ba, ok := acc.(batchAccumulator); ok {
		return ba.updateBatch(make([]int32, n), 1, arr)
	}
	for r := 0; r < n; r++ {
		if err := acc.update(0, arr, r); err != nil {
			return err
		}
	}
	return nil
}

// startReplay ends the current partition's reading: the aggregates over
// it are known, and its rows go through the pass.
func (w *windowPass) startReplay(ctx context.Context) error {
	if w.spool == nil {
		return w.closePeers(ctx, nil, 0, 0)
	}
	if err := w.spool.finish(); err != nil {
		return err
	}
	for k := range w.states {
		st := &w.states[k]
		if st.kind != kindWholeAgg {
			continue
		}
		v, err := w.result(ctx, k)
		if err != nil {
			return err
		}
		st.whole, st.acc = v, nil
	}
	w.partRows, w.replayAt, w.replaying = w.spool.n, 0, true
	return nil
}

// replayStep passes the next batch of the partition through the pass; at
// its end, the next partition is read.
func (w *windowPass) replayStep(ctx context.Context) error {
	if w.replayAt < w.spool.batches() {
		b, err := w.spool.batch(w.replayAt)
		if err != nil {
			return err
		}
		w.replayAt++
		// Lookups may evict b from the spool's cache while it is added.
		b.Retain()
		defer b.Release()
		return w.add(ctx, b)
	}
	if err := w.closePeers(ctx, nil, 0, 0); err != nil {
		return err
	}
	w.closePartition()
	if w.pending == nil {
		return nil
	}
	b := w.pending
	w.pending = nil
	defer b.Release()
	return w.collect(ctx, b)
}

// closePartition lets go of the replayed partition.
func (w *windowPass) closePartition() {
	if w.spool != nil {
		w.spool.close()
		w.spool = nil
	}
	releaseArrays(w.partKey)
	w.partKey, w.replaying = nil, false
}

// argAt is argument j of call k at the partition's row.
func (w *windowPass) argAt(k int, row int64, j int) (any, error) {
	col, r, err := w.argCell(k, row, j)
	if err != nil {
		return nil, err
	}
	return sql.DatumAt(col, w.calls[k].Args[j].Type(), r), nil
}

// aheadValue is call k's value at the current row, found in the spool.
func (w *windowPass) aheadValue(k int) (any, error) {
	c := w.calls[k]
	i, n := w.rowNum-1, w.partRows
	switch c.Name {
	case "percent_rank":
		if n <= 1 {
			return 0.0, nil
		}
		return float64(w.rank-1) / float64(n-1), nil
	case "ntile":
		// Its argument is the partition's first row's, as in windowEval.
		v, err := w.argAt(k, 0, 0)
		if v == nil || err != nil {
			return nil, err
		}
		buckets := v.(int64)
		if buckets <= 0 {
			return nil, pgerr.Errorf(pgerr.InvalidArgumentForNtileFunction, "argument of ntile must be greater than zero")
		}
		return ntile(i, n, buckets), nil
	case "lead":
		return w.leadValue(k, i, n)
	case "first_value", "last_value", "nth_value":
		// Frames from the partition's start (first_value's), to its end
		// (last_value's, nth_value's) or to the row (last_value over ROWS).
		e := n
		if c.Name == "last_value" && c.End.Kind == sql.BoundCurrentRow && c.Mode == sql.FrameRows {
			e = i + 1
		}
		return w.frameValueAt(k, i, 0, e)
	}
	return nil, pgerr.Errorf(pgerr.InternalError, "window function %s has no value in a pass", c.Name)
}

// rowsFrameValue is call k's value over the current row's ROWS frame,
// read from the spool.
func (w *windowPass) rowsFrameValue(ctx context.Context, k int) (any, error) {
	c, st := w.calls[k], &w.states[k]
	i, n := w.rowNum-1, w.partRows
	s, e := rowsFrame(c, st.offs, i, n)
	switch c.Name {
	case "first_value", "last_value", "nth_value":
		return w.frameValueAt(k, i, s, e)
	}
	if err := w.check.step(int(e - s)); err != nil {
		return nil, err
	}
	spec := aggSpec{Func: c.Name, Star: c.Star}
	if !c.Star {
		spec.Input = c.Args[0].Type()
	}
	acc, err := newAccumulator(spec, c.T)
	if err != nil {
		return nil, err
	}
	for q := s; q < e; q++ {
		var arr arrow.Array
		r := 0
		if !c.Star {
			if arr, r, err = w.argCell(k, q, 0); err != nil {
				return nil, err
			}
		}
		if err := acc.update(0, arr, r); err != nil {
			return nil, err
		}
	}
	res, err := acc.result(ctx, memory.DefaultAllocator, 1)
	if err != nil {
		return nil, err
	}
	defer res.Release()
	return sql.DatumAt(res, c.T, 0), nil
}

// frameValueAt is first_value, last_value or nth_value of call k over the
// frame [s, e) of row i.
func (w *windowPass) frameValueAt(k int, i, s, e int64) (any, error) {
	q := s
	switch w.calls[k].Name {
	case "last_value":
		q = e - 1
	case "nth_value":
		v, err := w.argAt(k, i, 1)
		if v == nil || err != nil {
			return nil, err
		}
		nth := v.(int64)
		if nth <= 0 {
			return nil, pgerr.Errorf(pgerr.InvalidArgumentForNthValueFunction, "argument of nth_value must be greater than zero")
		}
		q = s + nth - 1
	}
	if q < s || q >= e {
		return nil, nil
	}
	return w.argAt(k, q, 0)
}

// rowsFrame is the rows [s, e) of row i's ROWS frame in a partition of n
// rows (offs: the start's and end's offsets).
func rowsFrame(c *sql.WindowCall, offs [2]int64, i, n int64) (int64, int64) {
	at := func(b sql.FrameBound, off int64, end bool) int64 {
		var p int64
		switch b.Kind {
		case sql.BoundUnboundedPreceding:
			return 0
		case sql.BoundUnboundedFollowing:
			return n
		case sql.BoundPreceding:
			p = i - off
		case sql.BoundCurrentRow:
			p = i
		case sql.BoundFollowing:
			p = i + off
		}
		if end {
			p++ // the end bound's row is in the frame
		}
		return min(max(p, 0), n)
	}
	s, e := at(c.Start, offs[0], false), at(c.End, offs[1], true)
	return s, max(s, e)
}

// argCell is where argument j of call k is at the partition's row: its
// column in the spool's batch and the row's place in it.
func (w *windowPass) argCell(k int, row int64, j int) (arrow.Array, int, error) {
	b, r, err := w.spool.at(row)
	if err != nil {
		return nil, 0, err
	}
	return b.Column(w.width + w.nKeys + w.states[k].argCol + j), r, nil
}

// leadValue is lead()'s value at row i of a partition of n rows.
func (w *windowPass) leadValue(k int, i, n int64) (any, error) {
	c := w.calls[k]
	off := int64(1)
	if len(c.Args) > 1 {
		o, _ := constOffset(c.Args[1])
		if o == nil {
			return nil, nil
		}
		off = *o
	}
	if j := i + off; j >= 0 && j < n {
		return w.argAt(k, j, 0)
	}
	if len(c.Args) > 2 {
		return w.argAt(k, i, 2)
	}
	return nil, nil
}

// peerEndValue is call k's value for the peer group ending at the current
// row count: cume_dist(), or last_value() of the group's last row.
func (w *windowPass) peerEndValue(k int) (any, error) {
	if w.calls[k].Name == "cume_dist" {
		return float64(w.rowNum) / float64(w.partRows), nil
	}
	return w.argAt(k, w.rowNum-1, 0)
}

// releaseWhole lets go of the partition being read or replayed.
func (w *windowPass) releaseWhole() {
	w.closePartition()
	if w.pending != nil {
		w.pending.Release()
		w.pending = nil
	}
}
