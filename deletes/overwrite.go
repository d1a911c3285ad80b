package deletes

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
)

// RowSource yields the new rows of an overwrite, in the executor's Arrow
// types with columns named as the table's. It is consumed once.
type RowSource = iter.Seq2[arrow.RecordBatch, error]

// ErrDynamicUnpartitioned: dynamic partition overwrite needs partitions
// (SQLSTATE 0A000, as PyIceberg refuses it too).
var ErrDynamicUnpartitioned = errors.New("dynamic partition overwrite needs a partitioned table")

// OverwriteOptions drive Overwrite. Options.Mode is ignored: an overwrite is
// always copy-on-write.
type OverwriteOptions struct {
	Options
	// Dynamic replaces exactly the partitions the new rows land in; the
	// predicate is ignored.
	Dynamic bool
}

// OverwriteOutcome is what an overwrite did: Deleted rows removed, Added
// rows inserted.
type OverwriteOutcome struct {
	Outcome
	Added int64
}

// Overwrite deletes every row pred matches (or, Dynamic, every row in a
// partition the new rows touch) and adds rows, in one snapshot. Copy-on-write
// always: merge-on-read deletes cannot skip rows added by the same commit.
// The new rows are written once, before planning; on a conflict only the
// delete side is re-planned. On failure nothing stays on disk.
func Overwrite(ctx context.Context, to CommitTarget, ident table.Identifier, pred Predicate, rows RowSource, opts OverwriteOptions) (OverwriteOutcome, error) {
	var out OverwriteOutcome
	head, err := to.LoadTable(ctx, ident)
	if err != nil {
		return out, fmt.Errorf("overwrite %v: load: %w", ident, err)
	}
	if opts.Dynamic && head.Spec().IsUnpartitioned() {
		return out, fmt.Errorf("overwrite %v: %w", ident, ErrDynamicUnpartitioned)
	}
	var added []iceberg.DataFile
	if !opts.DryRun && rows != nil {
		if added, out.Added, err = writeRows(ctx, head, rows); err != nil {
			return out, fmt.Errorf("overwrite %v: %w", ident, err)
		}
	}
	committed, err := to.Commit(ctx, ident, func(ctx context.Context, head *table.Table) (lake.FileChange, []string, error) {
		out.Attempts++
		out.Outcome = Outcome{Attempts: out.Attempts}
		return PrepareOverwrite(ctx, head, pred, added, opts, &out.Outcome)
	})
	if err != nil {
		removeUncommitted(to, ident, head, added)
		return OverwriteOutcome{}, fmt.Errorf("overwrite %v: %w", ident, err)
	}
	if !opts.DryRun && (out.Deleted > 0 || out.Added > 0) {
		if s := snapshotOf(committed); s != nil {
			out.SnapshotID = s.SnapshotID
		}
	}
	return out, nil
}

// PrepareOverwrite plans the delete side of an overwrite against head
// (pred, or with Dynamic the partitions the added files land in), writes the
// copy-on-write rewrites and returns them with the added files as one
// change. The added files are the caller's: they are not in the returned
// written list, so a retry keeps them.
func PrepareOverwrite(ctx context.Context, head *table.Table, pred Predicate, added []iceberg.DataFile, opts OverwriteOptions, out *Outcome) (lake.FileChange, []string, error) {
	var plans []RowDelete
	var err error
	if opts.Dynamic {
		plans, err = planDynamic(ctx, head, added, opts.Plan)
	} else {
		plans, err = PlanRowDeletes(ctx, head, pred, opts.Plan)
	}
	if err != nil {
		return lake.FileChange{}, nil, err
	}
	for i := range plans {
		out.Deleted += plans[i].Deleted()
		releaseAll(plans[i].Returned)
	}
	if opts.DryRun || (out.Deleted == 0 && len(added) == 0) {
		out.Files = Actions(head, plans, ModeCopyOnWrite)
		return lake.FileChange{}, nil, nil
	}
	change, err := Prepare(ctx, head, plans, ModeCopyOnWrite)
	if err != nil {
		return lake.FileChange{}, nil, err
	}
	out.Files = change.Actions()
	fc := change.FileChange(added, opts.SnapshotProps)
	fc.Operation = table.OpOverwrite
	return fc, change.Written(), nil
}

// WriteRows writes the new rows as data files of head (partitioned by its
// current spec) and counts them; nothing is committed.
func WriteRows(ctx context.Context, head *table.Table, rows RowSource) ([]iceberg.DataFile, int64, error) {
	return writeRows(ctx, head, rows)
}

// writeRows writes the new rows as data files of head (partitioned by its
// current spec) and counts them.
func writeRows(ctx context.Context, head *table.Table, rows RowSource) ([]iceberg.DataFile, int64, error) {
	return writeRowsWith(ctx, head, rows, lake.WriteDataFiles)
}

// dataFileWriter writes rows as data files of a table (lake.WriteDataFiles
// or its lineage-keeping twin).
type dataFileWriter func(context.Context, *table.Table, iter.Seq2[arrow.RecordBatch, error]) ([]iceberg.DataFile, error)

// writeRowsWith is writeRows through write.
func writeRowsWith(ctx context.Context, head *table.Table, rows RowSource, write dataFileWriter) ([]iceberg.DataFile, int64, error) {
	var n int64
	counted := func(yield func(arrow.RecordBatch, error) bool) {
		for b, err := range rows {
			if err == nil {
				n += b.NumRows()
			}
			if !yield(b, err) {
				return
			}
		}
	}
	files, err := write(ctx, head, counted)
	if err != nil {
		return nil, 0, err
	}
	return files, n, nil
}

// removeUncommitted removes the new rows' files after a failed overwrite,
// unless the table (reloaded) references one of them: an ambiguous commit
// may have landed, and orphans are safe where deleting committed data is not.
func removeUncommitted(to CommitTarget, ident table.Identifier, head *table.Table, files []iceberg.DataFile) {
	if len(files) == 0 {
		return
	}
	ctx := context.Background()
	now, err := to.LoadTable(ctx, ident)
	if err != nil {
		// A table dropped concurrently references nothing any more; any
		// other failure leaves the outcome unknown, and orphans are safe.
		if errors.Is(err, catalog.ErrNoSuchTable) || errors.Is(err, catalog.ErrNoSuchNamespace) {
			removeDataFiles(head, files)
		}
		return
	}
	if mayReference(ctx, head, now, files) {
		return
	}
	removeDataFiles(head, files)
}

// mayReference reports whether a branch head of now that head did not
// know (the change may have landed on any branch: the caller's commit
// target is not known here) references one of files, or could not be read.
func mayReference(ctx context.Context, head, now *table.Table, files []iceberg.DataFile) bool {
	mine := map[string]bool{}
	for _, f := range files {
		mine[f.FilePath()] = true
	}
	for _, ref := range now.Metadata().Refs() {
		if ref.SnapshotRefType != table.BranchRef || head.Metadata().SnapshotByID(ref.SnapshotID) != nil {
			continue
		}
		view, err := lake.SnapshotView(now, ref.SnapshotID)
		if err != nil {
			return true
		}
		data, _, err := liveFiles(ctx, view)
		if err != nil {
			return true
		}
		for _, d := range data {
			if mine[d.FilePath()] {
				return true
			}
		}
	}
	return false
}

func removeDataFiles(tbl *table.Table, files []iceberg.DataFile) {
	fs, err := tbl.FS(context.Background())
	if err != nil {
		return
	}
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.FilePath()
	}
	lake.RemoveWrittenFiles(fs, paths)
}
