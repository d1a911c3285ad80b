package lake

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// SchemaForSnapshot is the schema a read of snapID sees: that snapshot's own
// for time travel, the current one when snapID is nil.
func SchemaForSnapshot(tbl *table.Table, snapID *int64) *iceberg.Schema {
	return schemaForSnapshot(tbl, snapID)
}

// ToExecutorTypes converts a batch as iceberg-go reads it (large strings,
// other time units) to the executor's Arrow types, the same ones Scan emits.
// The result is a new reference; the caller releases both.
func ToExecutorTypes(b arrow.RecordBatch) (arrow.RecordBatch, error) {
	if hasContractTypes(b.Schema()) {
		b.Retain() // nothing to convert: no new schema for every small batch
		return b, nil
	}
	cols := make([]arrow.Array, b.NumCols())
	fields := make([]arrow.Field, b.NumCols())
	for i := range cols {
		c, err := toContract(memory.DefaultAllocator, b.Column(i))
		if err != nil {
			for _, d := range cols[:i] {
				d.Release()
			}
			return nil, err
		}
		cols[i] = c
		f := b.Schema().Field(i)
		f.Type = c.DataType()
		fields[i] = f
	}
	out := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, b.NumRows())
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}

// hasContractTypes reports whether every column of sc already has its
// executor type.
func hasContractTypes(sc *arrow.Schema) bool {
	for _, f := range sc.Fields() {
		if !arrow.TypeEqual(contractType(f.Type), f.Type) {
			return false
		}
	}
	return true
}
