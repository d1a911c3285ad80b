package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/deletes"
	"github.com/magmalake/magmalake/iceberg"
	"github.com/magmalake/magmalake/sql"
)

// The metadata tables computed here rather than read from iceberg-go's
// inspection: what delete files cost ("t$delete_debt", one row per live
// data file, and "t$delete_debt_summary") and the table's properties
// ("t$properties").
var computedMeta = map[string]func(ctx context.Context, tbl *table.Table) ([]Column, [][]any, error){
	"delete_debt":         debtRows,
	"delete_debt_summary": debtSummaryRows,
	"properties":          propertyRows,
}

// defaultTargetFileSize is write.target-file-size-bytes' default (Java's).
const defaultTargetFileSize = 512 << 20

var debtColumns = []Column{
	{"file_path", sql.Text}, {"partition", sql.Text}, {"spec_id", sql.Int32},
	{"file_size_in_bytes", sql.Int64}, {"record_count", sql.Int64}, {"deleted_rows", sql.Int64},
	{"live_rows", sql.Int64}, {"dead_ratio", sql.Float64}, {"dead_bytes", sql.Int64},
	{"delete_files", sql.Int32}, {"bounds", sql.Text},
}

// debtRows: per live data file its rows, the rows its deletes remove and
// what they cost. bounds is 'wide' once any row is deleted: the file's
// column bounds were computed over rows that include dead ones, so they
// may claim values no live row holds (pruning then opens it for nothing);
// a rewrite makes them 'tight' again.
func debtRows(ctx context.Context, tbl *table.Table) ([]Column, [][]any, error) {
	files, err := deletes.Debt(ctx, tbl, deletes.PlanOptions{})
	if err != nil {
		return nil, nil, err
	}
	parts, err := iceberg.PartitionTexts(ctx, tbl)
	if err != nil {
		return nil, nil, err
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
	return debtColumns, rows, nil
}

var debtSummaryColumns = []Column{
	{"data_files", sql.Int64}, {"record_count", sql.Int64}, {"live_rows", sql.Int64}, {"deleted_rows", sql.Int64},
	{"dead_bytes", sql.Int64}, {"delete_files", sql.Int64}, {"small_files", sql.Int64},
	{"target_file_size_bytes", sql.Int64}, {"snapshots", sql.Int64},
	{"old_snapshot_files", sql.Int64}, {"old_snapshot_bytes", sql.Int64},
}

// debtSummaryRows totals the debt of a table: its files and rows, dead
// rows and bytes, distinct delete files, files below the target size, and
// what only older snapshots keep on storage.
func debtSummaryRows(ctx context.Context, tbl *table.Table) ([]Column, [][]any, error) {
	files, err := deletes.Debt(ctx, tbl, deletes.PlanOptions{})
	if err != nil {
		return nil, nil, err
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
	ret, err := iceberg.RetainedFiles(ctx, tbl)
	if err != nil {
		return nil, nil, err
	}
	row := []any{int64(len(files)), records, records - dead, dead, deadBytes, int64(len(deleteFiles)), small,
		target, int64(ret.Snapshots), int64(ret.OldOnlyFiles), ret.OldOnlyBytes}
	return debtSummaryColumns, [][]any{row}, nil
}

// propertyRows are the table's properties, format-version among them.
func propertyRows(_ context.Context, tbl *table.Table) ([]Column, [][]any, error) {
	var rows [][]any
	for _, kv := range iceberg.TableProperties(tbl) {
		rows = append(rows, []any{kv[0], kv[1]})
	}
	return []Column{{"key", sql.Text}, {"value", sql.Text}}, rows, nil
}

// openComputedMeta serves a computed metadata table as a metaSource.
func openComputedMeta(ctx context.Context, rt *Table, qual string, compute func(context.Context, *table.Table) ([]Column, [][]any, error)) (source, error) {
	cols, rows, err := compute(ctx, rt.Table)
	if err != nil {
		return nil, err
	}
	b, err := DatumBatch(cols, rows)
	if err != nil {
		return nil, err
	}
	m := &metaSource{sc: &sql.Scope{}, data: []arrow.RecordBatch{b}}
	for i, c := range cols {
		m.sc.Columns = append(m.sc.Columns, sql.ScopeColumn{Table: qual, Name: c.Name, T: c.Type})
		m.cols = append(m.cols, i)
	}
	return m, nil
}

// DatumBatch builds one batch of rows of datums.
func DatumBatch(cols []Column, rows [][]any) (arrow.RecordBatch, error) {
	fields := make([]arrow.Field, len(cols))
	arrs := make([]arrow.Array, len(cols))
	defer releaseArrays(arrs)
	for c, col := range cols {
		fields[c] = arrow.Field{Name: col.Name, Type: col.Type.ArrowType(), Nullable: true}
		b := array.NewBuilder(memory.DefaultAllocator, col.Type.ArrowType())
		for _, r := range rows {
			if err := sql.AppendDatum(b, col.Type, r[c]); err != nil {
				b.Release()
				return nil, fmt.Errorf("column %s: %w", col.Name, err)
			}
		}
		arrs[c] = b.NewArray()
		b.Release()
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, int64(len(rows))), nil
}

// ComputedMetaNames are the metadata tables computed here, sorted.
func ComputedMetaNames() []string {
	return slices.Sorted(slices.Values(append(slices.Collect(maps.Keys(computedMeta)), changesMeta)))
}
