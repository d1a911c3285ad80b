package deletes

import (
	"context"
	"fmt"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	lake "github.com/magmalake/magmalake/iceberg"
)

// withAllDeleteFiles replaces the delete files on tasks planned with a row
// filter by those an unfiltered plan attaches. iceberg-go prunes equality
// delete files whose column stats cannot match the filter: right for a
// filtered read, wrong for a rewrite, which keeps rows outside the filter and
// so must drop every row any delete removes (or it resurrects them).
func withAllDeleteFiles(ctx context.Context, tbl *table.Table, tasks []table.FileScanTask, caseSensitive bool) ([]table.FileScanTask, error) {
	all, err := tbl.Scan(table.WithCaseSensitive(caseSensitive)).PlanFiles(ctx)
	if err != nil {
		return nil, fmt.Errorf("plan files for delete files: %w", err)
	}
	type deleteSet struct{ pos, eq, dvs []iceberg.DataFile }
	byPath := make(map[string]deleteSet, len(all))
	for _, t := range all {
		if _, ok := byPath[t.File.FilePath()]; !ok {
			byPath[t.File.FilePath()] = deleteSet{t.DeleteFiles, t.EqualityDeleteFiles, t.DeletionVectorFiles}
		}
	}
	out := make([]table.FileScanTask, len(tasks))
	for i, t := range tasks {
		if d, ok := byPath[t.File.FilePath()]; ok {
			t.DeleteFiles, t.EqualityDeleteFiles, t.DeletionVectorFiles = d.pos, d.eq, d.dvs
		}
		out[i] = t
	}
	return out, nil
}

// mayHaveEqualityDeletes reports whether tbl's current snapshot may hold
// equality deletes, the only delete files a filtered plan can leave off a
// task (position deletes and DVs are matched by path and partition). No,
// only when its summary's total-equality-deletes is 0: every writer that
// keeps that total (magmalake, Java, iceberg-go) adds each equality delete
// file's rows to it, and one that does not leaves it out. Sparing the
// unfiltered plan halves the manifests a DML statement reads.
func mayHaveEqualityDeletes(tbl *table.Table) bool {
	snap := tbl.CurrentSnapshot()
	if snap == nil || snap.Summary == nil {
		return true
	}
	return snap.Summary.Properties[lake.SummaryTotalEqDeletes] != "0"
}
