package engine

import (
	"context"
	"io"
	"iter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go"

	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// derivedSource reads the rows of a query planned inside another: a
// subquery in FROM or a WITH query.
type derivedSource struct {
	q   *selectQuery
	env *Env
	sc  *sql.Scope
}

func newDerived(q *selectQuery, env *Env, qual string) *derivedSource {
	sc := &sql.Scope{}
	for _, c := range q.Columns() {
		sc.Columns = append(sc.Columns, sql.ScopeColumn{Table: qual, Name: c.Name, T: c.Type})
	}
	return &derivedSource{q: q, env: env, sc: sc}
}

func (d *derivedSource) scope() *sql.Scope { return d.sc }

func (d *derivedSource) batches(ctx context.Context, _ iceberg.BooleanExpression, params []any) (iter.Seq2[arrow.RecordBatch, error], error) {
	if d.q.Shared {
		if seq, ok, err := d.sharedBatches(ctx, params); ok || err != nil {
			return seq, err
		}
	}
	rows, err := d.q.run(ctx, d.env, params)
	if err != nil {
		return nil, err
	}
	return rowsSeq(ctx, rows), nil
}

// rowsSeq streams a result's batches; each is retained for the consumer,
// who releases it.
func rowsSeq(ctx context.Context, rows stmt.Rows) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		defer rows.Close()
		for {
			b, err := rows.Next(ctx)
			if err == io.EOF {
				return
			}
			if err != nil {
				yield(nil, err)
				return
			}
			b.Retain()
			if !yield(b, nil) {
				return
			}
		}
	}
}

// picked keeps some columns of a source, in a given order.
type picked struct {
	src  source
	cols []int
	sc   *sql.Scope
}

func (p *picked) scope() *sql.Scope { return p.sc }

func (p *picked) batches(ctx context.Context, filter iceberg.BooleanExpression, params []any) (iter.Seq2[arrow.RecordBatch, error], error) {
	seq, err := p.src.batches(ctx, filter, params)
	if err != nil {
		return nil, err
	}
	return mapSeq(seq, func(b arrow.RecordBatch) (arrow.RecordBatch, error) {
		return pickColumns(b, p.cols, p.sc), nil
	}), nil
}

// mapSeq passes each batch of seq through f, releasing the input.
func mapSeq(seq iter.Seq2[arrow.RecordBatch, error], f func(arrow.RecordBatch) (arrow.RecordBatch, error)) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		for b, err := range seq {
			if err != nil {
				yield(nil, err)
				return
			}
			out, err := f(b)
			b.Release()
			if !yield(out, err) || err != nil {
				return
			}
		}
	}
}

// pickColumns is a batch of b's columns cols, named after sc.
func pickColumns(b arrow.RecordBatch, cols []int, sc *sql.Scope) arrow.RecordBatch {
	arrs := make([]arrow.Array, len(cols))
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		arrs[i] = b.Column(c)
		fields[i] = arrow.Field{Name: sc.Columns[i].Name, Type: arrs[i].DataType(), Nullable: true}
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, b.NumRows())
}

// rescoped is a source seen under other column names (an alias's column list).
type rescoped struct {
	src source
	sc  *sql.Scope
}

func (r *rescoped) scope() *sql.Scope { return r.sc }

func (r *rescoped) batches(ctx context.Context, filter iceberg.BooleanExpression, params []any) (iter.Seq2[arrow.RecordBatch, error], error) {
	return r.src.batches(ctx, filter, params)
}
