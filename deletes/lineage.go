package deletes

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
)

// rowLineage is what a v3 rewrite needs to keep a source file's row lineage
// (spec, "Row Lineage"): a row keeps its _row_id when its file is rewritten,
// and keeps its _last_updated_sequence_number unless it is updated. A row
// without an explicit value has first_row_id + position and the file's data
// sequence number, so a rewrite must write both down explicitly: the new
// file gets a new first_row_id and sequence number.
type rowLineage struct {
	firstRowID *int64 // the source file's, after inheritance; nil: unknown
	seq        *int64 // the source file's data sequence number; nil: unknown
}

// lineageOf is the lineage of the file a task reads, or false when the table
// has none to keep (before format version 3: v2 files stay as they were).
func lineageOf(tbl *table.Table, task table.FileScanTask) (rowLineage, bool) {
	if tbl.Metadata().Version() < 3 {
		return rowLineage{}, false
	}
	return rowLineage{firstRowID: task.FirstRowID, seq: task.DataSequenceNumber}, true
}

// lineageSchema is sc with the two reserved lineage fields appended, in
// this order (both optional longs): reading a file through it yields the
// file's explicit values, or nulls where it has none.
func lineageSchema(sc *iceberg.Schema) *iceberg.Schema {
	return iceberg.SchemaWithRowLineageColumns(sc, true, true)
}

// readSchemaFor is what a rewrite of tbl reads its survivors as, and the
// schema its new files are described with (their metrics name every column
// the file has): the table's schema, plus the lineage fields on v3. The
// table's schema itself never gains them.
func readSchemaFor(tbl *table.Table) *iceberg.Schema {
	if tbl.Metadata().Version() < 3 {
		return tbl.Schema()
	}
	return lineageSchema(tbl.Schema())
}

// fill replaces the nulls of b's lineage columns (rows base.. of the file,
// read through a schema with the lineage fields last: lineageSchema) with
// the inherited values. It must run before rows are dropped: _row_id is
// first_row_id plus the row's position in the source file. The caller
// releases the result (b itself, retained, when nothing was null).
func (l rowLineage) fill(b arrow.RecordBatch, base int64) (arrow.RecordBatch, error) {
	n := int(b.NumCols())
	if n < 2 {
		return nil, fmt.Errorf("batch of %d columns lacks the lineage columns", n)
	}
	cols := append([]arrow.Array(nil), b.Columns()...)
	var built []arrow.Array
	defer func() {
		for _, a := range built {
			a.Release()
		}
	}()
	for _, c := range []struct {
		idx   int
		known bool
		value func(i int64) int64
	}{
		{n - 2, l.firstRowID != nil, func(i int64) int64 { return *l.firstRowID + base + i }},
		{n - 1, l.seq != nil, func(int64) int64 { return *l.seq }},
	} {
		if !c.known || cols[c.idx].NullN() == 0 {
			continue
		}
		arr, err := inherit(cols[c.idx], c.value)
		if err != nil {
			return nil, err
		}
		built = append(built, arr)
		cols[c.idx] = arr
	}
	if len(built) == 0 {
		b.Retain()
		return b, nil
	}
	return array.NewRecordBatch(b.Schema(), cols, b.NumRows()), nil
}

// inherit is col with each null replaced by value(row).
func inherit(col arrow.Array, value func(i int64) int64) (arrow.Array, error) {
	have, ok := col.(*array.Int64)
	if !ok {
		return nil, fmt.Errorf("lineage column is %s, want int64", col.DataType())
	}
	bld := array.NewInt64Builder(memory.DefaultAllocator)
	defer bld.Release()
	bld.Reserve(have.Len())
	for i := 0; i < have.Len(); i++ {
		if have.IsNull(i) {
			bld.UnsafeAppend(value(int64(i)))
		} else {
			bld.UnsafeAppend(have.Value(i))
		}
	}
	return bld.NewArray(), nil
}

// survivorsOf filters b (rows base.. of the file) down to the rows set in
// keep, after filling in its lineage when the rewrite keeps it (keepLineage,
// from lineageOf: b was read through readSchemaFor).
func (l rowLineage) survivorsOf(ctx context.Context, b arrow.RecordBatch, base int64, keep []byte, count int64, keepLineage bool) (arrow.RecordBatch, error) {
	if !keepLineage {
		return keepUndeleted(ctx, b, base, keep, count)
	}
	filled, err := l.fill(b, base)
	if err != nil {
		return nil, err
	}
	defer filled.Release()
	return keepUndeleted(ctx, filled, base, keep, count)
}

// splitRowIDs parts an UPDATE's old rows, read with their _row_id last, into
// the table's columns (what the update function sees) and the ids. It takes
// old over.
func splitRowIDs(old []arrow.RecordBatch) ([]arrow.RecordBatch, []arrow.Array) {
	rows := make([]arrow.RecordBatch, len(old))
	ids := make([]arrow.Array, len(old))
	for i, b := range old {
		n := int(b.NumCols()) - 1
		ids[i] = b.Column(n)
		ids[i].Retain()
		sc := arrow.NewSchema(b.Schema().Fields()[:n], nil)
		rows[i] = array.NewRecordBatch(sc, b.Columns()[:n], b.NumRows())
		b.Release()
	}
	return rows, ids
}

// updatedLineage appends to each batch of updated rows the _row_id its old
// version had and a NULL _last_updated_sequence_number, which inherits the
// sequence number of the snapshot that commits it: the row was updated
// there. It takes fresh over.
func updatedLineage(fresh []arrow.RecordBatch, ids []arrow.Array) []arrow.RecordBatch {
	out := make([]arrow.RecordBatch, len(fresh))
	for i, b := range fresh {
		seq := array.MakeArrayOfNull(memory.DefaultAllocator, arrow.PrimitiveTypes.Int64, int(b.NumRows()))
		fields := append(append([]arrow.Field(nil), b.Schema().Fields()...),
			arrow.Field{Name: iceberg.RowIDColumnName, Type: arrow.PrimitiveTypes.Int64, Nullable: true},
			arrow.Field{Name: iceberg.LastUpdatedSequenceNumberColumnName, Type: arrow.PrimitiveTypes.Int64, Nullable: true})
		cols := append(append([]arrow.Array(nil), b.Columns()...), ids[i], seq)
		out[i] = array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, b.NumRows())
		seq.Release()
		b.Release()
	}
	return out
}

// withLineage appends ids as _row_id and a NULL
// _last_updated_sequence_number (the committing snapshot's) to b. It
// takes b over.
func withLineage(b arrow.RecordBatch, ids arrow.Array) arrow.RecordBatch {
	out := updatedLineage([]arrow.RecordBatch{b}, []arrow.Array{ids})
	return out[0]
}

// newLineage gives rows written for the first time NULL lineage: ids and
// sequence number from the committing snapshot. It takes bs over.
func newLineage(bs []arrow.RecordBatch) []arrow.RecordBatch {
	out := make([]arrow.RecordBatch, len(bs))
	for i, b := range bs {
		ids := array.MakeArrayOfNull(memory.DefaultAllocator, arrow.PrimitiveTypes.Int64, int(b.NumRows()))
		out[i] = withLineage(b, ids)
		ids.Release()
	}
	return out
}

// keptRowIDs is, for n new rows, the _row_id of the old row each replaces
// (old[from[i]]), or NULL (a new id) where from is nil.
func keptRowIDs(old arrow.Array, from []int32, n int) (arrow.Array, error) {
	have, ok := old.(*array.Int64)
	if !ok {
		return nil, fmt.Errorf("_row_id column is %s, want int64", old.DataType())
	}
	bld := array.NewInt64Builder(memory.DefaultAllocator)
	defer bld.Release()
	bld.Reserve(n)
	for i := range n {
		switch {
		case from != nil && (from[i] < 0 || int(from[i]) >= have.Len()):
			return nil, fmt.Errorf("replacement %d names old row %d of %d", i, from[i], have.Len())
		case from == nil || have.IsNull(int(from[i])):
			bld.UnsafeAppendBoolToBitmap(false)
		default:
			bld.UnsafeAppend(have.Value(int(from[i])))
		}
	}
	return bld.NewArray(), nil
}

func releaseArrays(as []arrow.Array) {
	for _, a := range as {
		a.Release()
	}
}

// lineageWriter writes the rows a rewrite read through readSchemaFor(tbl):
// with their lineage columns on v3.
func lineageWriter(tbl *table.Table) dataFileWriter {
	if tbl.Metadata().Version() < 3 {
		return lake.WriteDataFiles
	}
	return lake.WriteDataFilesWithLineage
}
