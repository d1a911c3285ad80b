package deletes

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/apache/iceberg-go/table/dv"
)

// FileDebt is what the deletes applying to one live data file cost its
// readers (../shared/reference/004: a merge-on-read delete moves the work
// to every reader until a rewrite pays it back).
type FileDebt struct {
	File iceberg.DataFile
	// DeletedRows are the file's rows its deletion vectors, position
	// deletes and equality deletes remove, counted exactly: equality deletes
	// by reading the file's key columns.
	DeletedRows int64
	// DeleteFiles are the paths of the delete files that apply (deletion
	// vectors' Puffin files, position delete files naming it, equality
	// delete files in scope).
	DeleteFiles []string
}

// LiveRows is the file's rows still visible.
func (d FileDebt) LiveRows() int64 { return d.File.Count() - d.DeletedRows }

// Debt reads the delete debt of every live data file of tbl's current
// snapshot, in scan order.
func Debt(ctx context.Context, tbl *table.Table, opts PlanOptions) ([]FileDebt, error) {
	out, err := eachFile(ctx, tbl, Predicate{Filter: iceberg.AlwaysTrue{}}, opts, (*planner).fileDebt)
	if err != nil {
		return nil, fmt.Errorf("delete debt: %w", err)
	}
	return out, nil
}

func (p *planner) fileDebt(ctx context.Context, tasks []table.FileScanTask) (FileDebt, error) {
	df := tasks[0].File
	ex, err := p.ix.load(ctx, df.FilePath(), tasks)
	if err != nil {
		return FileDebt{}, fmt.Errorf("existing deletes of %s: %w", df.FilePath(), err)
	}
	d := FileDebt{File: df}
	seen := map[string]bool{}
	for _, f := range ex.superseded {
		seen[f.FilePath()] = true
	}
	for _, f := range ex.posFiles {
		seen[f.FilePath()] = true
	}
	for _, t := range tasks {
		for _, f := range t.EqualityDeleteFiles {
			seen[f.FilePath()] = true
		}
	}
	d.DeleteFiles = slices.Sorted(maps.Keys(seen))
	r := &RowDelete{Task: tasks[0], File: df, Existing: ex.positions, eqDeleted: dv.NewRoaringPositionBitmap()}
	if len(ex.eqFiles) > 0 {
		// Only the equality keys are read; rows already deleted by
		// position are not counted twice (deadRows).
		if err := p.read(ctx, r, ex, nil, false); err != nil {
			return FileDebt{}, err
		}
	}
	d.DeletedRows = int64(ex.positions.Cardinality() + r.eqDeleted.Cardinality())
	return d, nil
}
