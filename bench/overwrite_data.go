package bench

import (
	"context"
	"fmt"
	"iter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
)

// newRowName marks the rows an overwrite writes, so a read-back can count
// them apart from the rows they replace (generated names are "name-NNNNN").
const newRowName = "new"

// updatedName is what the UPDATE case sets name to, for the same reason.
const updatedName = "updated"

// overwriteShape is the partitioned table of `bench overwrite`: one data file
// per identity(grp) partition, so a partition is exactly one file's rows.
func overwriteShape(rows int64, parts int) shape {
	return shape{rows: rows, files: parts, parts: parts}
}

// overwritePartition is the partition the overwrite replaces: one in the
// middle, so neither the first nor the last manifest entry is special.
func (s shape) overwritePartition() int32 { return int32(s.parts / 2) }

// partitionRows counts the rows of partition g from the shape alone.
func (s shape) partitionRows(g int32) int64 {
	var n int64
	for f := range s.files {
		if int32(f%s.parts) == g {
			lo, hi := s.chunk(f)
			n += hi - lo
		}
	}
	return n
}

// owGenerate writes the shape's rows as table name, one data file per
// chunk, committed in one append.
func owGenerate(ctx context.Context, wh *lake.Warehouse, name string, l Layout, sh shape) (*source, error) {
	sc, err := tableSchema()
	if err != nil {
		return nil, err
	}
	ident := lake.Ident(lake.DefaultNamespace, name)
	tbl, err := wh.Tables().CreateTable(ctx, ident, sc, l.spec(), nil)
	if err != nil {
		return nil, fmt.Errorf("generate %s: %w", name, err)
	}
	src := &source{layout: l, shape: sh}
	for f := range sh.files {
		dfs, err := lake.WriteDataFiles(ctx, tbl, sh.fileBatches(f))
		if err != nil {
			return nil, fmt.Errorf("generate %s file %d: %w", name, f, err)
		}
		src.files = append(src.files, dfs...)
	}
	if _, err := lake.Append(ctx, wh, ident, src.files, nil); err != nil {
		return nil, fmt.Errorf("generate %s: %w", name, err)
	}
	return src, nil
}

// cloneWith is clone with explicit table properties (UPDATE's mode lives in
// write.update.mode, not in the delete modes' properties).
func (s *source) cloneWith(ctx context.Context, wh *lake.Warehouse, name string, props map[string]string) (table.Identifier, error) {
	sc, err := tableSchema()
	if err != nil {
		return nil, err
	}
	ident := lake.Ident(lake.DefaultNamespace, name)
	if _, err := wh.Tables().CreateTable(ctx, ident, sc, s.layout.spec(), props); err != nil {
		return nil, fmt.Errorf("clone %s: %w", name, err)
	}
	if _, err := lake.Append(ctx, wh, ident, s.files, nil); err != nil {
		return nil, fmt.Errorf("clone %s: %w", name, err)
	}
	return ident, nil
}

// owCreateEmpty creates a table of the generated schema and the layout's spec
// with no data: the floor's INSERT target.
func owCreateEmpty(ctx context.Context, wh *lake.Warehouse, name string, l Layout) (table.Identifier, error) {
	sc, err := tableSchema()
	if err != nil {
		return nil, err
	}
	ident := lake.Ident(lake.DefaultNamespace, name)
	if _, err := wh.Tables().CreateTable(ctx, ident, sc, l.spec(), map[string]string{"format-version": "2"}); err != nil {
		return nil, fmt.Errorf("create %s: %w", name, err)
	}
	return ident, nil
}

// owUpdateProps are the table properties of an UPDATE mode.
func owUpdateProps(m Mode) map[string]string {
	switch m {
	case MergeOnReadV2:
		return map[string]string{"format-version": "2", "write.update.mode": "merge-on-read"}
	case MergeOnReadV3:
		return map[string]string{"format-version": "3", "write.update.mode": "merge-on-read"}
	}
	return map[string]string{"format-version": "2", "write.update.mode": "copy-on-write"}
}

// writeStaging writes n new rows of partition g (ids from the shape's row
// count up, name newRowName) as an unpartitioned table: the SELECT both the
// overwrite and its floor read, so their source costs are identical.
func writeStaging(ctx context.Context, wh *lake.Warehouse, name string, sh shape, g int32, n int64) (table.Identifier, error) {
	sc, err := tableSchema()
	if err != nil {
		return nil, err
	}
	ident := lake.Ident(lake.DefaultNamespace, name)
	tbl, err := wh.Tables().CreateTable(ctx, ident, sc, Unpartitioned.spec(), nil)
	if err != nil {
		return nil, fmt.Errorf("staging %s: %w", name, err)
	}
	dfs, err := lake.WriteDataFiles(ctx, tbl, sh.stagingBatches(g, n))
	if err != nil {
		return nil, fmt.Errorf("staging %s: %w", name, err)
	}
	if _, err := lake.Append(ctx, wh, ident, dfs, nil); err != nil {
		return nil, fmt.Errorf("staging %s: %w", name, err)
	}
	return ident, nil
}

// stagingBatches yields the n new rows: generated rows past the table's end
// with grp pinned to g and name to newRowName.
func (s shape) stagingBatches(g int32, n int64) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		for lo := s.rows; lo < s.rows+n; lo += genBatchRows {
			b := pinStaging(s.batch(lo, min(lo+genBatchRows, s.rows+n)), g)
			if !yield(b, nil) {
				return
			}
		}
	}
}

// pinStaging replaces b's grp and name columns by constants.
func pinStaging(b arrow.RecordBatch, g int32) arrow.RecordBatch {
	defer b.Release()
	n := int(b.NumRows())
	gb := array.NewInt32Builder(memory.DefaultAllocator)
	defer gb.Release()
	nb := array.NewStringBuilder(memory.DefaultAllocator)
	defer nb.Release()
	gb.Reserve(n)
	nb.Reserve(n)
	for range n {
		gb.Append(g)
		nb.Append(newRowName)
	}
	grp, name := gb.NewArray(), nb.NewArray()
	defer grp.Release()
	defer name.Release()
	cols := make([]arrow.Array, b.NumCols())
	for i := range cols {
		switch b.Schema().Field(i).Name {
		case colGrp:
			cols[i] = grp
		case colName:
			cols[i] = name
		default:
			cols[i] = b.Column(i)
		}
	}
	return array.NewRecordBatch(b.Schema(), cols, int64(n))
}
