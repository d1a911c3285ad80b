package metatable

import (
	"context"
	"strconv"

	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/deletes"
	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/sql"
)

// defaultTargetFileSize is write.target-file-size-bytes' default (Java's).
const defaultTargetFileSize = 512 << 20

var debtColumns = []sql.Column{
	{Name: "file_path", Type: sql.Text}, {Name: "partition", Type: sql.Text}, {Name: "spec_id", Type: sql.Int32},
	{Name: "file_size_in_bytes", Type: sql.Int64}, {Name: "record_count", Type: sql.Int64}, {Name: "deleted_rows", Type: sql.Int64},
	{Name: "live_rows", Type: sql.Int64}, {Name: "dead_ratio", Type: sql.Float64}, {Name: "dead_bytes", Type: sql.Int64},
	{Name: "delete_files", Type: sql.Int32}, {Name: "bounds", Type: sql.Text},
}

// debtRows: per live data file its rows, the rows its deletes remove and
// what they cost. bounds is 'wide' once any row is deleted: the file's
// column bounds were computed over rows that include dead ones, so they
// may claim values no live row holds (pruning then opens it for nothing);
// a rewrite makes them 'tight' again.
func debtRows(ctx context.Context, tbl *table.Table) ([][]any, error) {
	files, err := deletes.Debt(ctx, tbl, deletes.PlanOptions{})
	if err != nil {
		return nil, err
	}
	parts, err := lake.PartitionTexts(ctx, tbl)
	if err != nil {
		return nil, err
	}
	rows := make([][]any, 0, len(files))
	for _, f := range files {
		df := f.File
		ratio := 0.0
		if df.Count() > 0 {
			ratio = float64(f.DeletedRows) / float64(df.Count())
		}
		bounds := "tight"
		if f.DeletedRows > 0 {
			bounds = "wide"
		}
		part, ok := parts[df.FilePath()]
		if !ok {
			part = "{}" // an unpartitioned table
		}
		rows = append(rows, []any{df.FilePath(), part, int64(df.SpecID()),
			df.FileSizeBytes(), df.Count(), f.DeletedRows, f.LiveRows(), ratio,
			int64(float64(df.FileSizeBytes()) * ratio), int64(len(f.DeleteFiles)), bounds})
	}
	return rows, nil
}

var debtSummaryColumns = []sql.Column{
	{Name: "data_files", Type: sql.Int64}, {Name: "record_count", Type: sql.Int64}, {Name: "live_rows", Type: sql.Int64}, {Name: "deleted_rows", Type: sql.Int64},
	{Name: "dead_bytes", Type: sql.Int64}, {Name: "delete_files", Type: sql.Int64}, {Name: "small_files", Type: sql.Int64},
	{Name: "target_file_size_bytes", Type: sql.Int64}, {Name: "snapshots", Type: sql.Int64},
	{Name: "old_snapshot_files", Type: sql.Int64}, {Name: "old_snapshot_bytes", Type: sql.Int64},
}

// debtSummaryRows totals the debt of a table: its files and rows, dead
// rows and bytes, distinct delete files, files below the target size, and
// what only older snapshots keep on storage.
func debtSummaryRows(ctx context.Context, tbl *table.Table) ([][]any, error) {
	files, err := deletes.Debt(ctx, tbl, deletes.PlanOptions{})
	if err != nil {
		return nil, err
	}
	target := int64(defaultTargetFileSize)
	if v, err := strconv.ParseInt(tbl.Properties()["write.target-file-size-bytes"], 10, 64); err == nil && v > 0 {
		target = v
	}
	var records, dead, deadBytes, small int64
	deleteFiles := map[string]bool{}
	for _, f := range files {
		records += f.File.Count()
		dead += f.DeletedRows
		if f.File.Count() > 0 {
			deadBytes += int64(float64(f.File.FileSizeBytes()) * float64(f.DeletedRows) / float64(f.File.Count()))
		}
		if f.File.FileSizeBytes() < target {
			small++
		}
		for _, p := range f.DeleteFiles {
			deleteFiles[p] = true
		}
	}
	ret, err := lake.RetainedFiles(ctx, tbl)
	if err != nil {
		return nil, err
	}
	row := []any{int64(len(files)), records, records - dead, dead, deadBytes, int64(len(deleteFiles)), small,
		target, int64(ret.Snapshots), int64(ret.OldOnlyFiles), ret.OldOnlyBytes}
	return [][]any{row}, nil
}
