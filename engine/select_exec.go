package engine

import (
	"cmp"
	"context"
	"errors"
	"io"
	"iter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"

	"github.com/magmalake/magmalake/internal/rowruns"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// run executes a bound query, counted under EXPLAIN ANALYZE.
func (q *selectQuery) run(ctx context.Context, env *Env, params []any) (stmt.Rows, error) {
	ctx, scope := withMemScope(ctx)
	var rows stmt.Rows
	var err error
	if l := analysisOf(ctx).level(q); l != nil {
		rows, err = l.run(func() (stmt.Rows, error) { return q.execute(ctx, env, params, l) })
	} else {
		rows, err = q.execute(ctx, env, params, nil)
	}
	if err != nil {
		scope.close()
		return nil, err
	}
	return closingScope(rows, scope), nil
}

// execute runs the query (an: its counters, nil unless analysed). Without
// grouping, DISTINCT or ORDER BY it streams; otherwise it materialises
// what it must (DISTINCT and windows by partition: select_distinct.go).
func (q *selectQuery) execute(ctx context.Context, env *Env, params []any, an *levelStats) (stmt.Rows, error) {
	limit, offset, err := q.bounds(ctx, params)
	if err != nil {
		return nil, err
	}
	cond := q.whereOf(ctx)
	filter, err := q.pruneFilter(ctx, cond, params)
	if err != nil {
		return nil, err
	}
	in := &pipeline{q: q, cond: cond, params: params, mem: newMemBudget(ctx, env.Options.WorkMem), batch: env.batchSize(), metaCount: -1, cut: -1,
		tempDir: env.Options.TempDir, an: an}
	stop := func() {}
	if n, ok := q.metadataCount(); ok && cond == nil {
		// count(*) of a table no delete file applies to: its snapshot says.
		in.metaCount = n
		in.next = func() (arrow.RecordBatch, error, bool) { return nil, nil, false }
	} else {
		scanCtx := ctx
		if ts, ok := q.src.(*tableSource); ok {
			if q.topsRows(limit) {
				in.bound = newTopBound(q, ts)
			}
			scanCtx = withTopBound(ctx, ts, in.bound)
		}
		seq, err := open(scanCtx, q.src, filter, params)
		if err != nil {
			return nil, err
		}
		in.next, stop = iter.Pull2(seq)
	}
	if q.Agg == nil && q.Win == nil && !q.Distinct && len(q.DistinctOn) == 0 && len(q.Order) == 0 {
		lim := &limiter{limit: limit, offset: offset}
		stmtCtx := ctx
		return &streamRows{verb: "SELECT", stop: stop, next: func(ctx context.Context) (arrow.RecordBatch, error) {
			if lim.done() {
				return nil, io.EOF
			}
			b, err := in.nextProjected(statementContext(stmtCtx, ctx))
			if err != nil {
				return nil, err
			}
			return lim.apply(b), nil
		}}, nil
	}
	if q.Distinct || len(q.DistinctOn) > 0 || q.windowStreams() {
		return q.runStreamed(ctx, env, in, &limiter{limit: limit, offset: offset}, stop)
	}
	defer stop()
	if q.topsRows(limit) {
		in.topN = limit + offset
	}
	if q.Agg == nil && q.Win == nil && len(q.Order) > 0 && in.topN == 0 {
		return q.runSorted(ctx, env, in, &limiter{limit: limit, offset: offset})
	}
	if limit >= 0 && len(q.Order) > 0 {
		// Only the first LIMIT+OFFSET rows in ORDER BY's order are wanted.
		in.cut = limit + offset
	}
	out, err := q.materialise(ctx, env, in)
	if full := (*topFull)(nil); errors.As(err, &full) {
		// The rows it kept go first to the spilling sort.
		in.pending, in.topN = full.held, 0
		return q.runSorted(ctx, env, in, &limiter{limit: limit, offset: offset})
	}
	if err != nil {
		return nil, err
	}
	lim := &limiter{limit: limit, offset: offset}
	var kept []arrow.RecordBatch
	for _, b := range out {
		if !lim.done() {
			kept = append(kept, lim.apply(b))
			continue
		}
		b.Release()
	}
	return NewBatchRows("SELECT", kept), nil
}

// topsRows reports whether the query keeps the first rows of its input in
// ORDER BY's order while it reads them (drainTop), under LIMIT limit.
func (q *selectQuery) topsRows(limit int64) bool {
	return limit >= 0 && len(q.Order) > 0 && q.Agg == nil && q.Win == nil && !q.Distinct && len(q.DistinctOn) == 0 && !q.windowStreams()
}

// pruneFilter is the Iceberg filter implied by WHERE (cond), for the scan
// to skip files.
func (q *selectQuery) pruneFilter(ctx context.Context, cond sql.Expr, params []any) (iceberg.BooleanExpression, error) {
	if cond == nil {
		return nil, nil
	}
	if _, ok := q.src.(*tableSource); !ok {
		return nil, nil
	}
	return sql.Translate(ctx, cond, q.Input, params).Filter, nil
}

// materialise runs grouping or windows, then ORDER BY, over the whole
// input (a query with neither only sorts: runSorted or, under a LIMIT,
// drainTop).
func (q *selectQuery) materialise(ctx context.Context, env *Env, in *pipeline) ([]arrow.RecordBatch, error) {
	var rows []arrow.RecordBatch
	var err error
	switch {
	case q.Win != nil:
		done := in.enter(stageWindow)
		rows, err = in.windowed(ctx)
		done(countRows(rows))
	case q.Agg != nil:
		rows, err = in.aggregate(ctx)
	default:
		// Part of the sort below, which counts it.
		in.mem.attribute(in.an.of(stageSort))
		rows, err = in.drainTop(ctx, env.batchSize())
	}
	if err != nil {
		return nil, err
	}
	if len(q.Order) > 0 {
		done := in.enter(stageSort)
		in.an.holds(stageSort, rows)
		if in.cut >= 0 && in.topN == 0 {
			// Grouped or windowed rows: select the LIMIT's rows, sorting only those.
			rows, err = topRows(ctx, rows, q.Order, in.cut, env.batchSize())
		} else {
			rows, err = sortBatches(ctx, rows, q.Order, env.batchSize())
		}
		if err != nil {
			return nil, err
		}
		done(countRows(rows))
	}
	for i, b := range rows {
		rows[i] = visibleColumns(b, q.Visible)
	}
	return rows, nil
}

// pipeline pulls input batches, applies WHERE and computes outputs.
type pipeline struct {
	q      *selectQuery
	cond   sql.Expr // WHERE, with what a join pushed into this run (derived_push.go)
	params []any
	next   func() (arrow.RecordBatch, error, bool)
	where  *sql.Matcher // WHERE compiled once for all batches
	mem    *memBudget   // what materialising operators may hold
	batch  int          // rows per batch the statement builds (Options.BatchSize)
	// tempDir is where GROUP BY spills past work_mem ("": os.TempDir()).
	tempDir string
	// onlySet, while a grouping set's spilled partitions are aggregated
	// (oneSet), is that set (groupingSets).
	onlySet []int
	oneSet  bool
	// metaCount is the row count the table's metadata gives, for a
	// count(*) that reads no rows; -1 otherwise.
	metaCount int64
	// topN, when positive, is how many rows of ORDER BY ... LIMIT are
	// wanted: the sort keeps only those while it reads.
	topN int64
	// bound, when not nil, is the top-N's bound its table scan skips by.
	bound *topBound
	// cut, when not negative, is how many rows of ORDER BY ... LIMIT are
	// wanted of what the query materialised (groups, window rows).
	cut int64
	// an counts for EXPLAIN ANALYZE; nil otherwise.
	an *levelStats
	// pending are output rows nextProjected gives before the input's: what
	// ORDER BY ... LIMIT kept when it handed over to the spilling sort.
	pending []arrow.RecordBatch
}

// nextFiltered is the next input batch with WHERE applied, io.EOF at the end.
func (p *pipeline) nextFiltered(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, pgerr.Canceled(err)
		}
		b, err, ok := p.next()
		if !ok {
			return nil, io.EOF
		}
		if err != nil {
			return nil, err
		}
		if p.cond == nil {
			return b, nil
		}
		if p.where == nil {
			p.where = sql.NewMatcher(p.cond, p.params)
		}
		mask, err := p.where.Match(ctx, b)
		if err != nil {
			b.Release()
			return nil, err
		}
		f, err := filterBatch(b, mask)
		b.Release()
		if err != nil {
			return nil, err
		}
		if f.NumRows() > 0 {
			if p.an != nil {
				p.an.filtered += f.NumRows()
			}
			return f, nil
		}
		f.Release()
	}
}

// nextProjected is the next batch of output rows (visible and hidden columns).
func (p *pipeline) nextProjected(ctx context.Context) (arrow.RecordBatch, error) {
	if len(p.pending) > 0 {
		b := p.pending[0]
		p.pending = p.pending[1:]
		return b, nil
	}
	b, err := p.nextFiltered(ctx)
	if err != nil {
		return nil, err
	}
	defer b.Release()
	return Project(ctx, p.q.Outputs, p.q.Names, b, p.params)
}

// windowed computes the window functions over the filtered (or grouped)
// rows, then the outputs.
func (p *pipeline) windowed(ctx context.Context) ([]arrow.RecordBatch, error) {
	var base []arrow.RecordBatch
	if p.q.Agg != nil {
		g, err := p.countedAggregateRows(ctx)
		if err != nil {
			return nil, err
		}
		p.mem.attribute(p.an.of(stageWindow))
		base = []arrow.RecordBatch{g}
	} else if p.q.WinTop != 0 {
		var err error
		if base, err = p.windowTopRows(ctx); err != nil {
			return nil, err
		}
	} else {
		for {
			b, err := p.nextFiltered(ctx)
			if err == io.EOF {
				break
			}
			if err == nil {
				if err = p.mem.charge(BatchBytes(b), "window function"); err != nil {
					b.Release()
				}
			}
			if err != nil {
				ReleaseAll(base)
				return nil, err
			}
			base = append(base, b)
		}
	}
	return p.windowOver(ctx, base, p.mem)
}

// windowOver computes the window functions over base, which it releases,
// then the outputs; mem bounds what they hold.
func (p *pipeline) windowOver(ctx context.Context, base []arrow.RecordBatch, mem *memBudget) ([]arrow.RecordBatch, error) {
	ext, err := windowRows(ctx, base, p.q.Win, p.params, mem)
	ReleaseAll(base)
	if err != nil {
		return nil, err
	}
	defer ReleaseAll(ext)
	out := make([]arrow.RecordBatch, 0, len(ext))
	for _, b := range ext {
		r, err := Project(ctx, p.q.Outputs, p.q.Names, b, p.params)
		if err != nil {
			ReleaseAll(out)
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// windowTopRows reads the input keeping only the first winTop rows of each
// window partition (window_top.go).
func (p *pipeline) windowTopRows(ctx context.Context) ([]arrow.RecordBatch, error) {
	t := newWindowTop(max(p.q.WinTop, 0), p.q.Win.Calls[0], p.mem, p.batch)
	var schema *arrow.Schema
	for {
		b, err := p.nextFiltered(ctx)
		if err == io.EOF {
			return t.rows(ctx, schema, p.batch)
		}
		if err != nil {
			t.release()
			return nil, err
		}
		if p.q.WinTop < 0 {
			b.Release()
			continue
		}
		schema = b.Schema()
		if err := t.add(ctx, b, p.params); err != nil {
			t.release()
			return nil, err
		}
	}
}

// drainTop reads the input keeping only the first topN rows in ORDER BY
// order: whenever twice that many are held, they are sorted and cut back,
// so memory stays bounded by the LIMIT, not the table.
func (p *pipeline) drainTop(ctx context.Context, batchSize int) ([]arrow.RecordBatch, error) {
	t := &topN{p: p, batchSize: batchSize}
	for {
		b, err := p.nextProjected(ctx)
		if err == io.EOF {
			return t.held, nil
		}
		if err == nil {
			err = t.add(ctx, b)
		}
		if err != nil {
			if pe := (*pgerr.Error)(nil); errors.As(err, &pe) && pe.Code == pgerr.OutOfMemory && len(t.held) > 0 {
				return nil, &topFull{held: t.held, err: err}
			}
			ReleaseAll(t.held)
			return nil, err
		}
	}
}

// topFull is ORDER BY ... LIMIT whose LIMIT + OFFSET rows are past
// work_mem (OFFSET 1000000 LIMIT 1): the rows it kept, in order, for the
// spilling sort to take over with the rest of the input (execute).
type topFull struct {
	held []arrow.RecordBatch
	err  error
}

func (e *topFull) Error() string { return e.err.Error() }
func (e *topFull) Unwrap() error { return e.err }

// topN holds the best rows of an ORDER BY ... LIMIT seen so far.
type topN struct {
	p         *pipeline
	batchSize int
	held      []arrow.RecordBatch
	n         int64         // rows held
	charged   int64         // work_mem the held rows take
	bound     []arrow.Array // the last kept row's keys, once rows were cut
}

// add takes a batch's rows that can still make the cut; past twice the
// LIMIT, or past work_mem, the rows are sorted and cut back to the LIMIT.
func (t *topN) add(ctx context.Context, b arrow.RecordBatch) error {
	var err error
	if t.bound != nil {
		// Only rows that sort before the current last kept row can
		// still make the cut.
		if b, err = t.p.beforeBound(b, t.bound); err != nil {
			return err
		}
	}
	t.held = append(t.held, b)
	t.n += b.NumRows()
	size := BatchBytes(b)
	// Past work_mem, or when the server's memory is short, the rows
	// are cut back rather than wait for memory.
	overBudget := !t.p.mem.fits(size)
	t.p.mem.hold(size)
	t.charged += size
	// Until there is a bound, a batch's worth of slack amortises the
	// heap; after it few rows get in, and cutting them soon tightens the
	// bound. A scan that skips pages by the bound gets it from the first
	// batch on.
	slack := int64(t.batchSize)
	if t.bound != nil || t.p.bound != nil {
		slack = 0
	}
	if t.n < 2*t.p.topN+slack && !overBudget {
		return nil
	}
	// A heap of the LIMIT's rows, not a sort of all held: the first
	// batch (no bound yet) holds a whole batch, which a sort ordered
	// just to keep ten rows of it.
	kept, err := topRows(ctx, t.held, t.p.q.Order, t.p.topN, t.batchSize)
	if err != nil {
		t.held = nil
		return err
	}
	t.held, t.n = kept, 0
	for _, h := range kept {
		t.n += h.NumRows()
	}
	// The kept rows count against work_mem: a large LIMIT is a large sort.
	t.p.mem.release(t.charged)
	t.charged = 0
	for _, h := range t.held {
		t.charged += BatchBytes(h)
	}
	if err := t.p.mem.charge(t.charged, "ORDER BY ... LIMIT"); err != nil {
		return err
	}
	if t.n == t.p.topN {
		t.bound = t.p.lastKeys(t.held)
		t.p.bound.publish(ctx, t.bound[0])
	}
	return nil
}

// lastKeys are the ORDER BY key columns of the last held row.
func (p *pipeline) lastKeys(held []arrow.RecordBatch) []arrow.Array {
	last := held[len(held)-1]
	r := last.NumRows() - 1
	keys := make([]arrow.Array, len(p.q.Order))
	for k, o := range p.q.Order {
		keys[k] = array.NewSlice(last.Column(o.Col), r, r+1)
	}
	return keys
}

// beforeBound keeps the rows of b that sort strictly before bound.
func (p *pipeline) beforeBound(b arrow.RecordBatch, bound []arrow.Array) (arrow.RecordBatch, error) {
	specs := make([]plan.SortSpec, len(p.q.Order))
	keys := make([]arrow.Array, len(p.q.Order))
	for k, o := range p.q.Order {
		specs[k], keys[k] = o.Spec, b.Column(o.Col)
	}
	mask := make([]bool, b.NumRows())
	first, ok := firstKeyOrder(keys[0], bound[0], specs[0])
	for r := range mask {
		switch {
		case !ok:
			mask[r] = compareKeyRows(keys, r, bound, 0, specs) < 0
		case first[r] == 0: // a tie on the first key: the others decide
			mask[r] = compareKeyRows(keys[1:], r, bound[1:], 0, specs[1:]) < 0
		default:
			mask[r] = first[r] < 0
		}
	}
	f, err := filterBatch(b, mask)
	b.Release()
	return f, err
}

// firstKeyOrder is, for each row of col, where it sorts against the bound's
// single value on this key (-1 before, 0 tied, 1 after), as compareKeyRows
// orders them, read in one typed loop for the usual key types: the top-N
// compares every row of its input with the bound. False for other types
// or a NULL bound.
func firstKeyOrder(col, bound arrow.Array, spec plan.SortSpec) ([]int8, bool) {
	if bound.IsNull(0) {
		return nil, false
	}
	out := make([]int8, col.Len())
	switch a := col.(type) {
	case *array.Int32:
		signsVs(a.Int32Values(), bound.(*array.Int32).Value(0), out)
	case *array.Int64:
		signsVs(a.Int64Values(), bound.(*array.Int64).Value(0), out)
	case *array.Date32:
		signsVs(a.Date32Values(), bound.(*array.Date32).Value(0), out)
	case *array.Timestamp:
		signsVs(a.TimestampValues(), bound.(*array.Timestamp).Value(0), out)
	case *array.Float64:
		k := bound.(*array.Float64).Value(0)
		for r, v := range a.Float64Values() {
			out[r] = int8(cmpFloat(v, k))
		}
	case *array.Decimal128:
		b := bound.(*array.Decimal128)
		if !arrow.TypeEqual(a.DataType(), b.DataType()) {
			return nil, false
		}
		k := b.Value(0)
		for r, v := range a.Values() {
			out[r] = int8(v.Cmp(k))
		}
	default:
		return nil, false
	}
	for r := range out {
		switch {
		case col.IsNull(r):
			out[r] = int8(nullOrder(spec))
		case spec.Desc:
			out[r] = -out[r]
		}
	}
	return out, true
}

func signsVs[T cmp.Ordered](vals []T, k T, out []int8) {
	for r, v := range vals {
		out[r] = int8(cmp.Compare(v, k))
	}
}

// Project evaluates exprs over b into a batch named after names (hidden
// sort columns get placeholder names).
func Project(ctx context.Context, exprs []sql.Expr, names []string, b arrow.RecordBatch, params []any) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, len(exprs))
	fields := make([]arrow.Field, len(exprs))
	for i, e := range exprs {
		arr, err := sql.Eval(ctx, e, b, params)
		if err != nil {
			for _, c := range cols[:i] {
				c.Release()
			}
			return nil, err
		}
		cols[i] = arr
		name := "?sort?"
		if i < len(names) {
			name = names[i]
		}
		fields[i] = arrow.Field{Name: name, Type: arr.DataType(), Nullable: true}
	}
	rb := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, b.NumRows())
	for _, c := range cols {
		c.Release()
	}
	return rb, nil
}

// filterRunRows is the average run of kept rows from which filterBatch
// copies runs (a memmove each) rather than gathering rows one by one.
const filterRunRows = 8

// filterBatch keeps the rows whose mask entry is true. A WHERE that keeps
// most rows (TPC-H Q1 keeps 98%) leaves long runs, copied whole.
func filterBatch(b arrow.RecordBatch, mask []bool) (arrow.RecordBatch, error) {
	kept, runs := rowruns.Shape(mask)
	if kept == len(mask) {
		b.Retain()
		return b, nil
	}
	if kept >= filterRunRows*runs {
		runs, _ := rowruns.MaskRuns(mask)
		if out, ok := rowruns.Copy(b, runs, kept); ok {
			return out, nil
		}
	}
	return takeBatch(memory.DefaultAllocator, b, rowruns.Kept(mask, kept))
}

// visibleColumns drops hidden sort columns.
func visibleColumns(b arrow.RecordBatch, n int) arrow.RecordBatch {
	if int(b.NumCols()) == n {
		return b
	}
	fields := b.Schema().Fields()[:n]
	rb := array.NewRecordBatch(arrow.NewSchema(fields, nil), b.Columns()[:n], b.NumRows())
	b.Release()
	return rb
}

// sortBatches orders rows by the keys; it releases batches.
func sortBatches(ctx context.Context, batches []arrow.RecordBatch, keys []plan.OrderKey, batchSize int) ([]arrow.RecordBatch, error) {
	if len(batches) == 0 {
		return nil, nil
	}
	cols := make([][]arrow.Array, len(batches))
	specs := make([]plan.SortSpec, len(keys))
	for i, k := range keys {
		specs[i] = k.Spec
	}
	for b, rb := range batches {
		for _, k := range keys {
			cols[b] = append(cols[b], rb.Column(k.Col))
		}
	}
	defer ReleaseAll(batches)
	refs, err := sortRows(ctx, cols, specs)
	if err != nil {
		return nil, err
	}
	return gatherRows(ctx, memory.DefaultAllocator, batches[0].Schema(), batches, refs, batchSize)
}

// limiter applies OFFSET then LIMIT across a stream of batches.
type limiter struct {
	limit, offset int64 // limit < 0: none
	emitted       int64
}

func (l *limiter) done() bool { return l.limit >= 0 && l.emitted >= l.limit }

func (l *limiter) apply(b arrow.RecordBatch) arrow.RecordBatch {
	n := b.NumRows()
	start := min(l.offset, n)
	l.offset -= start
	end := n
	if l.limit >= 0 {
		end = min(n, start+l.limit-l.emitted)
	}
	l.emitted += end - start
	if start == 0 && end == n {
		return b
	}
	s := b.NewSlice(start, end)
	b.Release()
	return s
}

// bounds evaluates LIMIT and OFFSET (-1: no limit).
func (q *selectQuery) bounds(ctx context.Context, params []any) (limit, offset int64, err error) {
	limit = -1
	if q.Limit != nil {
		v, null, err := evalCount(ctx, q.Limit, params, "LIMIT")
		if err != nil {
			return 0, 0, err
		}
		if !null {
			limit = v
		}
	}
	if q.Offset != nil {
		v, _, err := evalCount(ctx, q.Offset, params, "OFFSET")
		if err != nil {
			return 0, 0, err
		}
		offset = v
	}
	return limit, offset, nil
}

func evalCount(ctx context.Context, e sql.Expr, params []any, what string) (int64, bool, error) {
	arr, err := sql.Eval(ctx, &sql.Cast{X: e, T: sql.Int64}, nil, params)
	if err != nil {
		return 0, false, err
	}
	defer arr.Release()
	if arr.IsNull(0) {
		return 0, true, nil
	}
	v := arr.(*array.Int64).Value(0)
	if v < 0 {
		return 0, false, pgerr.Errorf(pgerr.InvalidRowCountInLimitClause, "%s must not be negative", what)
	}
	return v, false, nil
}
