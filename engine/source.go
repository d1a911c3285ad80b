package engine

import (
	"context"
	"iter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/metatable"
	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
)

// source is what a SELECT reads from: a table (possibly as of a snapshot),
// a metadata table, or nothing (SELECT without FROM: one empty row).
type source interface {
	scope() *sql.Scope
	// batches streams the rows; filter may skip rows it proves false.
	// The caller releases each batch.
	batches(ctx context.Context, filter iceberg.BooleanExpression, params []any) (iter.Seq2[arrow.RecordBatch, error], error)
}

type tableSource struct {
	rt         *plan.Table
	sc         *sql.Scope
	cols       []string // nil: every column
	snapshotID *int64
	reuse      bool // read again per outer value of a correlated subquery
	manifests  *lake.ManifestCache
}

func (t *tableSource) scope() *sql.Scope { return t.sc }

func (t *tableSource) batches(ctx context.Context, filter iceberg.BooleanExpression, _ []any) (iter.Seq2[arrow.RecordBatch, error], error) {
	if seq, ok, err := t.cachedBatches(ctx, filter); ok || err != nil {
		return seq, err
	}
	return t.scan(ctx, filter)
}

func (t *tableSource) scan(ctx context.Context, filter iceberg.BooleanExpression) (iter.Seq2[arrow.RecordBatch, error], error) {
	_, seq, err := lake.Scan(ctx, t.rt.Table, lake.ScanOptions{
		Columns: t.cols, Filter: filter, SnapshotID: t.snapshotID, Manifests: t.manifests,
		Dynamic: t.dynamicOf(ctx),
	})
	if err != nil {
		return nil, err
	}
	return narrowedBatches(seq, t.sc.Columns), nil
}

// metaSource serves a metadata table ("t$snapshots"), read whole: they are small.
type metaSource struct {
	sc   *sql.Scope
	data []arrow.RecordBatch
	cols []int
}

func (m *metaSource) scope() *sql.Scope { return m.sc }

func (m *metaSource) batches(ctx context.Context, _ iceberg.BooleanExpression, _ []any) (iter.Seq2[arrow.RecordBatch, error], error) {
	fields := make([]arrow.Field, len(m.cols))
	for i, c := range m.sc.Columns {
		fields[i] = arrow.Field{Name: c.Name, Type: c.T.ArrowType(), Nullable: true}
	}
	schema := arrow.NewSchema(fields, nil)
	return func(yield func(arrow.RecordBatch, error) bool) {
		for _, b := range m.data {
			cols := make([]arrow.Array, len(m.cols))
			for i, c := range m.cols {
				cols[i] = b.Column(c)
			}
			if !yield(array.NewRecordBatch(schema, cols, b.NumRows()), nil) {
				return
			}
		}
	}, nil
}

// noSource is the single empty row SELECT without FROM evaluates over.
type noSource struct{}

func (noSource) scope() *sql.Scope { return &sql.Scope{} }
func (noSource) batches(context.Context, iceberg.BooleanExpression, []any) (iter.Seq2[arrow.RecordBatch, error], error) {
	return func(yield func(arrow.RecordBatch, error) bool) {
		yield(array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1), nil)
	}, nil
}

// metadataCount is the answer of SELECT count(*) [, count(*) ...] FROM t
// from t's snapshot summary, when no WHERE, grouping or delete file makes
// the rows differ from the files' record counts.
func (q *selectQuery) metadataCount() (int64, bool) {
	ts, ok := q.src.(*tableSource)
	if !ok || q.Where != nil || q.Agg == nil || len(q.Agg.GroupBy) > 0 || len(q.Agg.Calls) == 0 {
		return 0, false
	}
	for _, c := range q.Agg.Calls {
		if c.Name != "count" || c.Arg != nil || c.Distinct || c.Filter != nil {
			return 0, false
		}
	}
	n, deletes, ok := ts.recordCount()
	return n, ok && !deletes
}

// recordCount is the rows the scanned snapshot's summary records (0 for a
// table without one) and whether delete files apply; ok is false when the
// summary does not say.
func (t *tableSource) recordCount() (n int64, deletes, ok bool) {
	return lake.SnapshotRecords(t.rt.Table, t.snapshotID)
}

// MetaColumns are the columns of metadata table rt ("t$files") as a query
// sees them.
func MetaColumns(ctx context.Context, rt *plan.Table) ([]sql.Column, error) {
	mt, err := metatable.Find(rt.Ident, rt.Meta)
	if err != nil {
		return nil, err
	}
	return mt.ColumnsOf(ctx, rt.Table)
}
