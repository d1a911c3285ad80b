package deletes

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
)

// PropUpdateMode is the table property choosing UPDATE's strategy.
const PropUpdateMode = "write.update.mode"

// UpdateModeOf is write.update.mode, defaulting to copy-on-write as Java does.
func UpdateModeOf(props iceberg.Properties) Mode { return modeProp(props, PropUpdateMode) }

// UpdateFunc turns the old values of matched rows (every column of the
// current schema, in order, types as iceberg-go reads them) into their new
// values (the executor's Arrow types, columns named as the table's). It must
// return exactly one output row per input row.
type UpdateFunc func(ctx context.Context, old arrow.RecordBatch) (arrow.RecordBatch, error)

// UpdateOptions drive Update. Options.Mode "" means write.update.mode.
type UpdateOptions struct {
	Options
	// KeepNew returns the new rows in Outcome.Returned (RETURNING).
	KeepNew bool
}

// Update replaces every row pred matches with fn's version of it: the old
// rows are deleted by the table's update strategy and the new ones added,
// in one commit (one snapshot unless a merge-on-read update also drops whole
// files). Deleted counts the rows updated. A row moved to another partition
// is simply written there.
func Update(ctx context.Context, to CommitTarget, ident table.Identifier, pred Predicate, fn UpdateFunc, opts UpdateOptions) (Outcome, error) {
	var out Outcome
	committed, err := to.Commit(ctx, ident, func(ctx context.Context, head *table.Table) (lake.FileChange, []string, error) {
		out.Attempts++
		releaseAll(out.Returned)
		out = Outcome{Attempts: out.Attempts}
		return PrepareUpdate(ctx, head, pred, fn, opts, &out)
	})
	if err != nil {
		releaseAll(out.Returned)
		return Outcome{}, fmt.Errorf("update %v: %w", ident, err)
	}
	if out.Deleted > 0 && !opts.DryRun {
		if s := snapshotOf(committed); s != nil {
			out.SnapshotID = s.SnapshotID
		}
	}
	return out, nil
}

func updateMode(head *table.Table, mode Mode) Mode {
	if mode == "" {
		mode = UpdateModeOf(head.Properties())
	}
	return effectiveMode(head, mode)
}

// PrepareUpdate plans the update against head (a committed table or a
// transaction's view), writes the new rows and the delete side in the
// table's update mode, and returns them as one change.
func PrepareUpdate(ctx context.Context, head *table.Table, pred Predicate, fn UpdateFunc, opts UpdateOptions, out *Outcome) (lake.FileChange, []string, error) {
	mode := updateMode(head, opts.Mode)
	planOpts := opts.Plan
	planOpts.ReturnColumns = nil
	for _, f := range head.Schema().Fields() {
		planOpts.ReturnColumns = append(planOpts.ReturnColumns, f.Name)
	}
	// An updated row keeps its _row_id (v3): the plan returns it last.
	planOpts.rowIDs = head.Metadata().Version() >= 3
	plans, err := PlanRowDeletes(ctx, head, pred, planOpts)
	if err != nil {
		return lake.FileChange{}, nil, err
	}
	var old []arrow.RecordBatch
	for i := range plans {
		out.Deleted += plans[i].Deleted()
		old = append(old, plans[i].Returned...)
	}
	if out.Deleted == 0 || opts.DryRun {
		releaseAll(old)
		out.Files = Actions(head, plans, mode)
		return lake.FileChange{}, nil, nil
	}
	var ids []arrow.Array
	if planOpts.rowIDs {
		old, ids = splitRowIDs(old)
		defer releaseArrays(ids)
	}
	fresh, err := updatedRows(ctx, old, fn)
	releaseAll(old)
	if err != nil {
		return lake.FileChange{}, nil, err
	}
	if opts.KeepNew {
		for _, b := range fresh {
			b.Retain()
		}
		out.Returned = fresh
	}
	write := lake.WriteDataFiles
	if planOpts.rowIDs {
		fresh, write = updatedLineage(fresh, ids), lake.WriteDataFilesWithLineage
	}
	r, err := writeReplacement(ctx, head, fresh, write, plans, mode)
	if err != nil {
		return lake.FileChange{}, r.written, err
	}
	out.Files = r.change.Actions()
	return r.change.FileChange(r.added, opts.SnapshotProps), r.written, nil
}

// updatedRows applies fn to every batch of old rows.
func updatedRows(ctx context.Context, old []arrow.RecordBatch, fn UpdateFunc) ([]arrow.RecordBatch, error) {
	var fresh []arrow.RecordBatch
	for _, b := range old {
		nb, err := fn(ctx, b)
		if err != nil {
			releaseAll(fresh)
			return nil, fmt.Errorf("compute new rows: %w", err)
		}
		if nb.NumRows() != b.NumRows() {
			nb.Release()
			releaseAll(fresh)
			return nil, fmt.Errorf("update function returned %d rows for %d", nb.NumRows(), b.NumRows())
		}
		fresh = append(fresh, nb)
	}
	return fresh, nil
}
