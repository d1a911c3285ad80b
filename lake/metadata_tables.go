package lake

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go/table"
)

// Inspection is one of iceberg-go's metadata table readers
// (table.InspectTable.Snapshots, .Files, ...). The query engine's registry
// of metadata tables names the one each of its inspected tables reads.
type Inspection func(table.InspectTable, context.Context) (array.RecordReader, error)

// Inspect reads tbl's metadata table kind ("snapshots") through read.
// Columns are converted to the executor's Arrow types; maps, lists and
// structs (summary, partition, lower_bounds, ...) become JSON text. The
// caller releases the batches.
func Inspect(ctx context.Context, tbl *table.Table, kind string, read Inspection) (*arrow.Schema, []arrow.RecordBatch, error) {
	what := fmt.Sprintf("read %s$%s", IdentKey(tbl.Identifier()), kind)
	rdr, err := read(tbl.Inspect(), ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", what, err)
	}
	defer rdr.Release()
	out := contractSchema(rdr.Schema())
	var batches []arrow.RecordBatch
	release := func() {
		for _, b := range batches {
			b.Release()
		}
	}
	for rdr.Next() {
		b, err := contractBatch(rdr.RecordBatch(), out)
		if err != nil {
			release()
			return nil, nil, fmt.Errorf("%s: %w", what, err)
		}
		batches = append(batches, b)
	}
	if err := rdr.Err(); err != nil {
		release()
		return nil, nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, batches, nil
}

// contractBatch converts every column of rec to out's types.
func contractBatch(rec arrow.RecordBatch, out *arrow.Schema) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, 0, rec.NumCols())
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	for i, col := range rec.Columns() {
		c, err := toContract(memory.DefaultAllocator, col)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", rec.Schema().Field(i).Name, err)
		}
		cols = append(cols, c)
		if !arrow.TypeEqual(c.DataType(), out.Field(i).Type) {
			return nil, fmt.Errorf("column %s: got %s, expected %s", rec.Schema().Field(i).Name, c.DataType(), out.Field(i).Type)
		}
	}
	return array.NewRecordBatch(out, slices.Clone(cols), rec.NumRows()), nil
}

// PartitionTexts maps each live data file of tbl to its partition as the
// metadata tables show it ("t$files".partition: JSON of the union of every
// spec's fields in field-id order, dates and times as text), so that
// tables computed elsewhere ("t$delete_debt") join with them. An
// unpartitioned table has none.
func PartitionTexts(ctx context.Context, tbl *table.Table) (map[string]string, error) {
	sc, batches, err := Inspect(ctx, tbl, "data_files", table.InspectTable.DataFiles)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	pathCol, partCol := sc.FieldIndices("file_path"), sc.FieldIndices("partition")
	out := map[string]string{}
	if len(pathCol) != 1 || len(partCol) != 1 {
		return out, nil
	}
	for _, b := range batches {
		paths, parts := b.Column(pathCol[0]).(*array.String), b.Column(partCol[0]).(*array.String)
		for i := range paths.Len() {
			out[paths.Value(i)] = parts.Value(i)
		}
	}
	return out, nil
}
