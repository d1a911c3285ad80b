package engine

import (
	"context"
	"iter"
	"math/big"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"

	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
)

// Set-returning functions in a select list (SELECT id, unnest(tags) ...,
// SELECT generate_series(1, 3), pgjdbc's _pg_expandarray): each input row
// is repeated once per value the function returns for it, as PostgreSQL's
// ProjectSet does. The calls become hidden columns of a source over the
// query's FROM, and the select list reads those columns.

// srfSource repeats each input row per value of its calls: several calls
// run in lockstep, the shorter ones padded with NULLs, as in PostgreSQL.
type srfSource struct {
	input source
	calls []plan.SRFCall
	sc    *sql.Scope
	env   *Env
}

func (s *srfSource) scope() *sql.Scope { return s.sc }

func (s *srfSource) batches(ctx context.Context, filter iceberg.BooleanExpression, params []any) (iter.Seq2[arrow.RecordBatch, error], error) {
	in, err := open(ctx, s.input, filter, params)
	if err != nil {
		return nil, err
	}
	return func(yield func(arrow.RecordBatch, error) bool) {
		out := newRowBuilder(s.sc, s.env.batchSize())
		defer out.release()
		for b, err := range in {
			if err != nil {
				yield(nil, err)
				return
			}
			ok, err := s.expand(ctx, b, params, out, yield)
			b.Release()
			if err != nil {
				yield(nil, err)
				return
			}
			if !ok {
				return
			}
		}
		if rb := out.flush(); rb != nil {
			yield(rb, nil)
		}
	}, nil
}

// expand appends each row of b once per value of the calls; ok is false
// when the consumer stopped.
func (s *srfSource) expand(ctx context.Context, b arrow.RecordBatch, params []any, out *rowBuilder, yield func(arrow.RecordBatch, error) bool) (bool, error) {
	args := make([][]arrow.Array, len(s.calls))
	for k, c := range s.calls {
		for _, a := range c.Args {
			arr, err := sql.Eval(ctx, a, b, params)
			if err != nil {
				return false, err
			}
			defer arr.Release()
			args[k] = append(args[k], arr)
		}
	}
	for r := 0; r < int(b.NumRows()); r++ {
		if ok, err := s.expandRow(ctx, b, r, args, out, yield); !ok || err != nil {
			return ok, err
		}
	}
	return true, nil
}

// expandRow appends row r of b once per value of the calls; its pulls end
// with it (one per call and row, each a coroutine, were kept for the whole
// batch).
func (s *srfSource) expandRow(ctx context.Context, b arrow.RecordBatch, r int, args [][]arrow.Array, out *rowBuilder,
	yield func(arrow.RecordBatch, error) bool) (bool, error) {
	nexts := make([]func() (any, error, bool), len(s.calls))
	for k, c := range s.calls {
		vals := make([]any, len(c.Args))
		for i, a := range args[k] {
			vals[i] = sql.DatumAt(a, c.Args[i].Type(), r)
		}
		next, stop := iter.Pull2(srfValues(c, vals))
		defer stop()
		nexts[k] = next
	}
	for {
		row, more, err := pullRow(nexts)
		if err != nil || !more {
			return err == nil, err
		}
		if err := out.appendRow(b, r, row); err != nil {
			return false, err
		}
		if out.full() {
			if err := canceled(ctx); err != nil {
				return false, err
			}
			if !yield(out.flush(), nil) {
				return false, nil
			}
		}
	}
}

// pullRow takes the next value of every call, NULL for those done; more is
// false when all are done.
func pullRow(nexts []func() (any, error, bool)) ([]any, bool, error) {
	row := make([]any, len(nexts))
	more := false
	for k, next := range nexts {
		v, err, ok := next()
		if err != nil {
			return nil, false, err
		}
		if ok {
			row[k], more = v, true
		}
	}
	return row, more, nil
}

// values are the call's results for one row's arguments; a NULL argument
// returns no rows (the functions are strict).
func srfValues(c plan.SRFCall, args []any) iter.Seq2[any, error] {
	return func(yield func(any, error) bool) {
		for _, a := range args {
			if a == nil {
				return
			}
		}
		switch c.Name {
		case "generate_series":
			seriesValues(c.T, args, yield)
		case "unnest", "_pg_expandarray":
			arrayValues(c, args[0].(string), yield)
		}
	}
}

func arrayValues(c plan.SRFCall, text string, yield func(any, error) bool) {
	at := c.Args[0].Type()
	ds, err := sql.ArrayDatums(text, at)
	if err != nil {
		yield(nil, err)
		return
	}
	for i, d := range ds {
		v := d
		if c.Name == "_pg_expandarray" {
			v = sql.FormatRecord(c.T, []any{d, int64(i + 1)})
		}
		if !yield(v, nil) {
			return
		}
	}
}

// seriesValues yields generate_series(start, stop [, step]) over t.
func seriesValues(t sql.Type, args []any, yield func(any, error) bool) {
	if t.Kind == sql.KindTimestamp || t.Kind == sql.KindTimestampTZ {
		timeSeriesValues(args, yield)
		return
	}
	if t.Kind == sql.KindNumeric {
		start, stop := args[0].(sql.Decimal), args[1].(sql.Decimal)
		step := sql.Decimal{Coef: big.NewInt(1)}
		if len(args) == 3 {
			step = args[2].(sql.Decimal)
		}
		if step.Coef.Sign() == 0 {
			yield(nil, errZeroStep)
			return
		}
		up := step.Coef.Sign() > 0
		for cur := start; ; cur = cur.Add(step) {
			if c := cur.Cmp(stop); up && c > 0 || !up && c < 0 || !yield(cur, nil) {
				return
			}
		}
	}
	start, stop, step := args[0].(int64), args[1].(int64), int64(1)
	if len(args) == 3 {
		step = args[2].(int64)
	}
	if step == 0 {
		yield(nil, errZeroStep)
		return
	}
	for cur := start; step > 0 && cur <= stop || step < 0 && cur >= stop; {
		if !yield(cur, nil) {
			return
		}
		next := cur + step
		if step > 0 && next < cur || step < 0 && next > cur {
			return // overflow ends the series, as in PostgreSQL
		}
		cur = next
	}
}

// rowBuilder collects output rows: input columns copied from a batch row,
// then the calls' values.
type rowBuilder struct {
	sc     *sql.Scope
	schema *arrow.Schema
	b      *array.RecordBuilder
	n, cap int
}

func newRowBuilder(sc *sql.Scope, size int) *rowBuilder {
	fields := make([]arrow.Field, len(sc.Columns))
	for i, c := range sc.Columns {
		fields[i] = arrow.Field{Name: "c" + strconv.Itoa(i), Type: c.T.ArrowType(), Nullable: true}
	}
	schema := arrow.NewSchema(fields, nil)
	return &rowBuilder{sc: sc, schema: schema, b: array.NewRecordBuilder(memory.DefaultAllocator, schema), cap: size}
}

func (r *rowBuilder) appendRow(b arrow.RecordBatch, row int, vals []any) error {
	in := int(b.NumCols())
	for i := 0; i < in; i++ {
		t := r.sc.Columns[i].T
		if err := sql.AppendDatum(r.b.Field(i), t, sql.DatumAt(b.Column(i), t, row)); err != nil {
			return err
		}
	}
	r.n++
	for k, v := range vals {
		if err := sql.AppendDatum(r.b.Field(in+k), r.sc.Columns[in+k].T, v); err != nil {
			return err
		}
	}
	return nil
}

func (r *rowBuilder) full() bool { return r.n >= r.cap }

// flush returns the rows collected so far (nil when none).
func (r *rowBuilder) flush() arrow.RecordBatch {
	if r.n == 0 {
		return nil
	}
	r.n = 0
	return r.b.NewRecordBatch()
}

func (r *rowBuilder) release() { r.b.Release() }

// timeSeriesValues yields timestamps from start by step while they do not
// pass stop; a step that moves nothing is an error.
func timeSeriesValues(args []any, yield func(any, error) bool) {
	start, stop, step := args[0].(int64), args[1].(int64), args[2].(sql.Interval)
	first, err := sql.AddInterval(start, step)
	if err != nil {
		yield(nil, err)
		return
	}
	if first == start {
		yield(nil, errZeroStep)
		return
	}
	up := first > start
	for cur := start; up && cur <= stop || !up && cur >= stop; {
		if !yield(cur, nil) {
			return
		}
		next, err := sql.AddInterval(cur, step)
		if err != nil {
			return // past the last timestamp: the series ends there
		}
		cur = next
	}
}
