package engine

import (
	"context"
	"iter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go"

	"github.com/magmalake/magmalake/sql"
)

// WITH RECURSIVE as PostgreSQL evaluates it: the non-recursive term's rows
// start the working table; the recursive term runs over the working table
// alone, its new rows (under UNION, those never produced before) are
// output and become the next working table, until a round adds none. Rows
// stream out as rounds produce them, so a LIMIT over an endless recursion
// ends.

// workTable is the rows of the last round, which the recursive term reads
// where it names the WITH query.
type workTable struct {
	sc   *sql.Scope
	rows []arrow.RecordBatch
}

// recursiveSource is one reference to a recursive WITH query.
type recursiveSource struct {
	start, step *selectQuery
	distinct    bool // UNION rather than UNION ALL
	work        *workTable
	sc          *sql.Scope
	env         *Env
}

func (r *recursiveSource) scope() *sql.Scope { return r.sc }

func (r *recursiveSource) batches(ctx context.Context, _ iceberg.BooleanExpression, params []any) (iter.Seq2[arrow.RecordBatch, error], error) {
	return func(yield func(arrow.RecordBatch, error) bool) {
		mem := budgetFor(ctx, r, r.env.Options.WorkMem)
		seen := newRowCounter(ctx, mem, "WITH RECURSIVE")
		defer func() { releaseAll(r.work.rows); r.work.rows = nil }()
		round := r.start
		var held int64 // the working table's bytes, charged to work_mem
		for {
			if err := canceled(ctx); err != nil {
				yield(nil, err)
				return
			}
			var next []arrow.RecordBatch
			ok, err := r.round(ctx, round, params, seen, mem, &next, yield)
			releaseAll(r.work.rows)
			mem.release(held)
			held = 0
			for _, b := range next {
				held += BatchBytes(b)
			}
			r.work.rows = next
			if err != nil {
				yield(nil, err)
				return
			}
			if !ok || len(next) == 0 {
				return
			}
			round = r.step
		}
	}, nil
}

// round runs one term, passing its new rows on and keeping them in next;
// ok is false when the consumer stopped.
func (r *recursiveSource) round(ctx context.Context, q *selectQuery, params []any, seen *rowCounter, mem *memBudget,
	next *[]arrow.RecordBatch, yield func(arrow.RecordBatch, error) bool) (bool, error) {
	rows, err := q.run(ctx, r.env, params)
	if err != nil {
		return false, err
	}
	var failed error
	keep := func(b arrow.RecordBatch, err error) bool {
		if err != nil {
			failed = err
			return false
		}
		b = renamed(b, r.sc)
		if err := mem.charge(BatchBytes(b), "WITH RECURSIVE"); err != nil {
			b.Release()
			failed = err
			return false
		}
		b.Retain()
		*next = append(*next, b)
		return yield(b, nil)
	}
	var done bool
	if r.distinct {
		done = seen.distinct(rowsSeq(ctx, rows), keep)
	} else {
		done = forward(rowsSeq(ctx, rows), keep)
	}
	if failed != nil {
		return false, failed
	}
	return done, nil
}

// renamed gives a batch the WITH query's column names.
func renamed(b arrow.RecordBatch, sc *sql.Scope) arrow.RecordBatch {
	fields := make([]arrow.Field, len(sc.Columns))
	for i, c := range sc.Columns {
		fields[i] = arrow.Field{Name: c.Name, Type: b.Column(i).DataType(), Nullable: true}
	}
	out := array.NewRecordBatch(arrow.NewSchema(fields, nil), b.Columns(), b.NumRows())
	b.Release()
	return out
}

func releaseAll(bs []arrow.RecordBatch) {
	for _, b := range bs {
		b.Release()
	}
}

// workSource is the recursive term's reference to its WITH query: the
// last round's rows.
type workSource struct {
	work *workTable
	sc   *sql.Scope
}

func (w *workSource) scope() *sql.Scope { return w.sc }

func (w *workSource) batches(context.Context, iceberg.BooleanExpression, []any) (iter.Seq2[arrow.RecordBatch, error], error) {
	rows := w.work.rows
	return func(yield func(arrow.RecordBatch, error) bool) {
		for _, b := range rows {
			b.Retain()
			if !yield(b, nil) {
				return
			}
		}
	}, nil
}
