package engine

import (
	"context"
	"iter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"

	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
)

// lateralSource is a join with a LATERAL subquery: the subquery runs for
// each distinct value of the left columns it reads, and its rows join the
// left row they ran for.
type lateralSource struct {
	left  source
	right *selectQuery
	refs  []sql.Expr    // the left values the subquery reads, over left's scope
	kind  plan.JoinKind // inner or left
	cond  sql.Expr      // ON, over sc; nil: every pair
	sc    *sql.Scope
	env   *Env
}

func (l *lateralSource) scope() *sql.Scope { return l.sc }

func (l *lateralSource) batches(ctx context.Context, _ iceberg.BooleanExpression, params []any) (iter.Seq2[arrow.RecordBatch, error], error) {
	seq, err := open(ctx, l.left, nil, params)
	if err != nil {
		return nil, err
	}
	return func(yield func(arrow.RecordBatch, error) bool) {
		run := &lateralRun{l: l, sub: &subPlan{q: l.right, env: l.env}, params: params, size: l.env.batchSize(),
			runs: map[string][][]any{}, cache: budgetFor(ctx, l, l.env.Options.WorkMem), yield: yield}
		if l.cond != nil {
			run.match = sql.NewMatcher(l.cond, params)
		}
		for b, err := range seq {
			if err != nil {
				yield(nil, err)
				return
			}
			ok, err := run.joinBatch(ctx, b)
			b.Release()
			if err != nil {
				yield(nil, err)
				return
			}
			if !ok {
				return
			}
		}
	}, nil
}

// lateralRun is one execution of a LATERAL join: the subquery's rows per
// distinct left value, kept while they fit work_mem, and the joined rows
// passed on a batch at a time.
type lateralRun struct {
	l      *lateralSource
	sub    *subPlan
	params []any
	size   int
	match  *sql.Matcher
	runs   map[string][][]any // the subquery's rows by left value
	cache  *memBudget         // what runs hold
	yield  func(arrow.RecordBatch, error) bool
}

// subRows are the subquery's rows for left values vals: from the cache, or
// run (one run's rows must fit work_mem) and kept while the cache fits it
// too (past it, the cache starts over).
func (r *lateralRun) subRows(ctx context.Context, vals []any) ([][]any, error) {
	key := sql.ValuesKey(vals)
	if rows, ok := r.runs[key]; ok {
		return rows, nil
	}
	mem := newMemBudget(ctx, r.l.env.Options.WorkMem)
	rows, err := r.sub.rows(ctx, r.params, vals, mem)
	mem.close() // the cache's budget counts the rows it keeps
	if err != nil {
		return nil, err
	}
	size := sql.RowsBytes(rows) + int64(len(key)) + mapEntryBytes
	if !r.cache.fits(size) {
		r.runs = map[string][][]any{}
		r.cache.close()
		r.cache = budgetFor(ctx, r.l, r.l.env.Options.WorkMem)
	}
	if r.cache.fits(size) {
		r.cache.hold(size)
		r.runs[key] = rows
	}
	return rows, nil
}

// joinBatch joins one left batch with the subquery's rows for each row;
// false means the consumer stopped.
func (r *lateralRun) joinBatch(ctx context.Context, b arrow.RecordBatch) (bool, error) {
	l := r.l
	n := int(b.NumRows())
	refs := make([][]any, len(l.refs))
	for k, e := range l.refs {
		arr, err := sql.Eval(ctx, e, b, r.params)
		if err != nil {
			return false, err
		}
		refs[k] = make([]any, n)
		for i := range n {
			refs[k][i] = sql.DatumAt(arr, e.Type(), i)
		}
		arr.Release()
	}
	out := newLateralOut(r, b)
	defer out.bld.Release()
	for i := range n {
		vals := make([]any, len(refs))
		for k := range refs {
			vals[k] = refs[k][i]
		}
		rows, err := r.subRows(ctx, vals)
		if err != nil {
			return false, err
		}
		for _, row := range rows {
			if ok, err := out.add(ctx, i, row); !ok || err != nil {
				return ok, err
			}
		}
		if l.kind == plan.JoinLeft && l.cond == nil && len(rows) == 0 {
			if ok, err := out.add(ctx, i, nil); !ok || err != nil {
				return ok, err
			}
		}
	}
	if ok, err := out.flush(ctx); !ok || err != nil {
		return ok, err
	}
	if l.kind != plan.JoinLeft || r.match == nil {
		return true, nil
	}
	// A LEFT join keeps the left rows ON rejected for every subquery row,
	// NULL-extended.
	for i, m := range out.matched {
		if !m {
			if ok, err := out.add(ctx, i, nil); !ok || err != nil {
				return ok, err
			}
		}
	}
	out.unfiltered = true
	return out.flush(ctx)
}

// lateralOut collects the joined rows of one left batch, passing them on
// (through ON) every size rows.
type lateralOut struct {
	r          *lateralRun
	b          arrow.RecordBatch // the left batch
	bld        *array.RecordBuilder
	leftRow    []int  // the left row of each row collected
	matched    []bool // left rows ON accepted with some subquery row
	unfiltered bool   // the NULL-extended rows of a LEFT join: not through ON
}

func newLateralOut(r *lateralRun, b arrow.RecordBatch) *lateralOut {
	return &lateralOut{r: r, b: b, bld: array.NewRecordBuilder(memory.DefaultAllocator, r.l.schema(b)),
		matched: make([]bool, b.NumRows())}
}

// add collects left row i joined with right (nil: NULLs), passing the
// rows on once a batch is full.
func (o *lateralOut) add(ctx context.Context, i int, right []any) (bool, error) {
	l := o.r.l
	if err := l.appendRow(o.bld, o.b, i, len(l.left.scope().Columns), right, o.r.sub.Columns()); err != nil {
		return false, err
	}
	o.leftRow = append(o.leftRow, i)
	if len(o.leftRow) < o.r.size {
		return true, nil
	}
	return o.flush(ctx)
}

// flush passes on the rows collected, those ON accepts unless unfiltered.
func (o *lateralOut) flush(ctx context.Context) (bool, error) {
	if err := canceled(ctx); err != nil {
		return false, err
	}
	if len(o.leftRow) == 0 {
		return true, nil
	}
	out := o.bld.NewRecordBatch()
	rows := o.leftRow
	o.leftRow = o.leftRow[:0]
	if o.r.match != nil && !o.unfiltered {
		mask, err := o.r.match.Match(ctx, out)
		if err != nil {
			out.Release()
			return false, err
		}
		for k, m := range mask {
			if m {
				o.matched[rows[k]] = true
			}
		}
		kept, err := filterBatch(out, mask)
		out.Release()
		if err != nil {
			return false, err
		}
		out = kept
	}
	if out.NumRows() == 0 {
		out.Release()
		return true, nil
	}
	return o.r.yield(out, nil), nil
}

func (l *lateralSource) schema(b arrow.RecordBatch) *arrow.Schema {
	fields := make([]arrow.Field, len(l.sc.Columns))
	nl := int(b.NumCols())
	for i, c := range l.sc.Columns {
		dt := c.T.ArrowType()
		if i < nl {
			dt = b.Column(i).DataType()
		}
		fields[i] = arrow.Field{Name: c.Name, Type: dt, Nullable: true}
	}
	return arrow.NewSchema(fields, nil)
}

// appendRow appends left row i of b joined with right (nil: NULLs).
func (l *lateralSource) appendRow(bld *array.RecordBuilder, b arrow.RecordBatch, i, nl int, right []any, rtypes []sql.Type) error {
	for c := 0; c < nl; c++ {
		if err := AppendFrom(bld.Field(c), b.Column(c), i); err != nil {
			return err
		}
	}
	for k, t := range rtypes {
		var v any
		if right != nil {
			v = right[k]
		}
		if err := sql.AppendDatum(bld.Field(nl+k), t, v); err != nil {
			return err
		}
	}
	return nil
}
