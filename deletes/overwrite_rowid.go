package deletes

import (
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// withRowIDs gives v3 files added through ReplaceFiles their first_row_id,
// which that producer demands (RowDelta.AddRows assigns them itself). IDs
// continue after the rewritten files Prepare already numbered.
func withRowIDs(head *table.Table, rewritten, added []iceberg.DataFile) []iceberg.DataFile {
	if head.Metadata().Version() < 3 || len(added) == 0 {
		return added
	}
	next := head.Metadata().NextRowID()
	for _, f := range rewritten {
		next += f.Count()
	}
	out := make([]iceberg.DataFile, len(added))
	for i, f := range added {
		out[i] = copyWithFirstRowID(head, f, next)
		next += f.Count()
	}
	return out
}

// copyWithFirstRowID rebuilds a data file description with first_row_id set;
// every other field is carried over.
func copyWithFirstRowID(head *table.Table, f iceberg.DataFile, id int64) iceberg.DataFile {
	spec := specOf(head, f)
	b, err := iceberg.NewDataFileBuilder(spec, f.ContentType(), f.FilePath(), f.FileFormat(), f.Partition(),
		nil, nil, f.Count(), f.FileSizeBytes())
	if err != nil {
		return f // cannot happen for a file iceberg-go wrote; the commit reports it
	}
	b.ColumnSizes(f.ColumnSizes()).ValueCounts(f.ValueCounts()).NullValueCounts(f.NullValueCounts()).
		NaNValueCounts(f.NaNValueCounts()).LowerBoundValues(f.LowerBoundValues()).
		UpperBoundValues(f.UpperBoundValues()).SplitOffsets(f.SplitOffsets()).FirstRowID(id)
	if so := f.SortOrderID(); so != nil {
		b.SortOrderID(*so)
	}
	if km := f.KeyMetadata(); km != nil {
		b.KeyMetadata(km)
	}
	return b.Build()
}
