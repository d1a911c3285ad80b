package sql

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// DatumBatch builds one batch of rows of datums.
func DatumBatch(cols []Column, rows [][]any) (arrow.RecordBatch, error) {
	fields := make([]arrow.Field, len(cols))
	arrs := make([]arrow.Array, len(cols))
	defer func() {
		for _, a := range arrs {
			if a != nil {
				a.Release()
			}
		}
	}()
	for c, col := range cols {
		fields[c] = arrow.Field{Name: col.Name, Type: col.Type.ArrowType(), Nullable: true}
		b := array.NewBuilder(memory.DefaultAllocator, col.Type.ArrowType())
		for _, r := range rows {
			if err := AppendDatum(b, col.Type, r[c]); err != nil {
				b.Release()
				return nil, fmt.Errorf("column %s: %w", col.Name, err)
			}
		}
		arrs[c] = b.NewArray()
		b.Release()
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, int64(len(rows))), nil
}
