package engine

import (
	"context"
	"iter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"

	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
)

// fileSource is a FileRelation as a FROM item.
type fileSource struct {
	rel  plan.FileRelation
	cols []int
	sc   *sql.Scope
}

func (f *fileSource) scope() *sql.Scope { return f.sc }

func (f *fileSource) batches(ctx context.Context, _ iceberg.BooleanExpression, _ []any) (iter.Seq2[arrow.RecordBatch, error], error) {
	return f.rel.Batches(ctx, f.cols)
}
