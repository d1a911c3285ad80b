package engine

import (
	"context"
	"iter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"

	"github.com/magmalake/magmalake/sql"
)

// filterSource runs a plan.Filter: the rows of its source its condition
// keeps.
type filterSource struct {
	src  source
	cond sql.Expr
}

func (f *filterSource) scope() *sql.Scope { return f.src.scope() }

func (f *filterSource) batches(ctx context.Context, _ iceberg.BooleanExpression, params []any) (iter.Seq2[arrow.RecordBatch, error], error) {
	return filteredBatches(ctx, f.src, f.cond, params)
}

// filteredBatches streams the rows of src that filter keeps (all: nil); a
// table's scan skips the files and row groups the filter rules out.
func filteredBatches(ctx context.Context, src source, filter sql.Expr, params []any) (iter.Seq2[arrow.RecordBatch, error], error) {
	if filter == nil {
		return open(ctx, src, nil, params)
	}
	var prune iceberg.BooleanExpression
	if _, ok := src.(*tableSource); ok {
		prune = sql.Translate(ctx, filter, src.scope(), params).Filter
	}
	seq, err := open(ctx, src, prune, params)
	if err != nil {
		return nil, err
	}
	m := sql.NewMatcher(filter, params)
	return func(yield func(arrow.RecordBatch, error) bool) {
		for b, err := range seq {
			if err == nil {
				var mask []bool
				if mask, err = m.Match(ctx, b); err == nil {
					var f arrow.RecordBatch
					f, err = filterBatch(b, mask)
					b.Release()
					b = f
				} else {
					b.Release()
				}
			}
			if err != nil {
				yield(nil, err)
				return
			}
			if b.NumRows() == 0 {
				b.Release()
				continue
			}
			if !yield(b, nil) {
				return
			}
		}
	}, nil
}
