package engine

import (
	"context"
	"iter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go"

	"github.com/magmalake/magmalake/sql"
)

// mergedSource is a USING join: the merged columns first, then the join's.
type mergedSource struct {
	src    source
	merged []sql.Expr // over src's scope
	sc     *sql.Scope
}

func (m *mergedSource) scope() *sql.Scope { return m.sc }

func (m *mergedSource) batches(ctx context.Context, _ iceberg.BooleanExpression, params []any) (iter.Seq2[arrow.RecordBatch, error], error) {
	seq, err := m.src.batches(ctx, nil, params)
	if err != nil {
		return nil, err
	}
	return mapSeq(seq, func(b arrow.RecordBatch) (arrow.RecordBatch, error) {
		return m.withMerged(ctx, b, params)
	}), nil
}

func (m *mergedSource) withMerged(ctx context.Context, b arrow.RecordBatch, params []any) (arrow.RecordBatch, error) {
	var arrs []arrow.Array
	var fields []arrow.Field
	for i, e := range m.merged {
		a, err := sql.Eval(ctx, e, b, params)
		if err != nil {
			for _, x := range arrs {
				x.Release()
			}
			return nil, err
		}
		arrs = append(arrs, a)
		fields = append(fields, arrow.Field{Name: m.sc.Columns[i].Name, Type: a.DataType(), Nullable: true})
	}
	for i, c := range b.Columns() {
		c.Retain()
		arrs = append(arrs, c)
		fields = append(fields, arrow.Field{Name: m.sc.Columns[len(m.merged)+i].Name, Type: c.DataType(), Nullable: true})
	}
	out := array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, b.NumRows())
	for _, a := range arrs {
		a.Release()
	}
	return out, nil
}
