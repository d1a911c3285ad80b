package engine

import (
	"context"
	"slices"

	"github.com/magmalake/magmalake/plan"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// rowRef addresses one row of a materialised result.
type rowRef struct {
	batch, row int32
}

// sortRows orders all rows of the given key columns (keys[b][k] is key k of
// batch b) stably by the specs.
func sortRows(ctx context.Context, keys [][]arrow.Array, specs []plan.SortSpec) (refs []rowRef, err error) {
	for b, cols := range keys {
		n := 0
		if len(cols) > 0 {
			n = cols[0].Len()
		}
		for r := 0; r < n; r++ {
			refs = append(refs, rowRef{int32(b), int32(r)})
		}
	}
	stop := newSortStop(ctx)
	defer stop.catch(&err)
	slices.SortStableFunc(refs, func(x, y rowRef) int {
		stop.look()
		return compareKeyRows(keys[x.batch], int(x.row), keys[y.batch], int(y.row), specs)
	})
	return refs, nil
}

func nullOrder(s plan.SortSpec) int {
	if s.NullsFirst {
		return -1
	}
	return 1
}

// gatherRows copies the referenced rows of batches, in order, into new
// batches of at most batchSize rows, looking at ctx between them.
func gatherRows(ctx context.Context, mem memory.Allocator, schema *arrow.Schema, batches []arrow.RecordBatch, refs []rowRef, batchSize int) ([]arrow.RecordBatch, error) {
	var out []arrow.RecordBatch
	for start := 0; start < len(refs); start += batchSize {
		if err := canceled(ctx); err != nil {
			ReleaseAll(out)
			return nil, err
		}
		end := min(start+batchSize, len(refs))
		rb, err := gatherChunk(mem, schema, batches, refs[start:end])
		if err != nil {
			ReleaseAll(out)
			return nil, err
		}
		out = append(out, rb)
	}
	return out, nil
}

func gatherChunk(mem memory.Allocator, schema *arrow.Schema, batches []arrow.RecordBatch, refs []rowRef) (arrow.RecordBatch, error) {
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for c := range schema.NumFields() {
		fb := b.Field(c)
		fb.Reserve(len(refs))
		for _, r := range refs {
			if err := AppendFrom(fb, batches[r.batch].Column(c), int(r.row)); err != nil {
				return nil, err
			}
		}
	}
	return b.NewRecordBatch(), nil
}

// ReleaseAll releases every batch.
func ReleaseAll(batches []arrow.RecordBatch) {
	for _, b := range batches {
		b.Release()
	}
}

// compareKeyRows orders row i of key columns a against row j of b.
func compareKeyRows(a []arrow.Array, i int, b []arrow.Array, j int, specs []plan.SortSpec) int {
	for k, s := range specs {
		an, bn := a[k].IsNull(i), b[k].IsNull(j)
		var c int
		switch {
		case an && bn:
			c = 0
		case an:
			c = nullOrder(s)
		case bn:
			c = -nullOrder(s)
		default:
			c = compareCells(a[k], i, b[k], j)
			if s.Desc {
				c = -c
			}
		}
		if c != 0 {
			return c
		}
	}
	return 0
}
