package deletes

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
)

// PropMergeMode is the table property choosing MERGE's strategy.
const PropMergeMode = "write.merge.mode"

// MergeModeOf is write.merge.mode, defaulting to copy-on-write as Java does.
func MergeModeOf(props iceberg.Properties) Mode { return modeProp(props, PropMergeMode) }

// Merger is the row logic of a statement that changes some rows, removes
// others and adds new ones in one snapshot (MERGE). The engine runs it
// without knowing what decides: the Predicate's Match picks the target rows
// that change (updated or removed), Replace turns their old values into
// the rows that take their place, and Added gives the rows added besides,
// once every candidate file has been matched.
type Merger interface {
	// Start begins an attempt; one re-planned against a new head after a
	// conflict forgets what the previous one matched.
	Start()
	// Replace gets the old values of rows Match picked (the Predicate's
	// Columns, as Match gets them: types as iceberg-go reads them) and
	// returns their replacements, every column of the current schema in
	// order: any number of rows, none for rows removed. from[i] is the row
	// of old that replacement i is the new version of, which keeps that
	// row's _row_id on a v3 table; nil from gives every one a new id.
	Replace(ctx context.Context, old arrow.RecordBatch) (fresh arrow.RecordBatch, from []int32, err error)
	// Added returns the rows to insert besides the replacements.
	Added(ctx context.Context) ([]arrow.RecordBatch, error)
}

// MergeOutcome is what a merge did: Deleted counts the target rows that
// changed (replaced or removed), Written the rows written (replacements
// and additions).
type MergeOutcome struct {
	Outcome
	Written int64
}

// Merge runs m against the table in one commit: the changed rows' old
// versions go by the table's write.merge.mode (opts.Mode overrides it), the
// replacements and additions are appended. On a conflict it re-plans
// against the new head. Nothing is committed when nothing changes.
func Merge(ctx context.Context, to CommitTarget, ident table.Identifier, pred Predicate, m Merger, opts Options) (MergeOutcome, error) {
	var out MergeOutcome
	committed, err := to.Commit(ctx, ident, func(ctx context.Context, head *table.Table) (lake.FileChange, []string, error) {
		out = MergeOutcome{Outcome: Outcome{Attempts: out.Attempts + 1}}
		return PrepareMerge(ctx, head, pred, m, opts, &out)
	})
	if err != nil {
		return MergeOutcome{}, fmt.Errorf("merge into %v: %w", ident, err)
	}
	if out.Deleted+out.Written > 0 && !opts.DryRun {
		if s := snapshotOf(committed); s != nil {
			out.SnapshotID = s.SnapshotID
		}
	}
	return out, nil
}

func mergeMode(head *table.Table, mode Mode) Mode {
	if mode == "" {
		mode = MergeModeOf(head.Properties())
	}
	return effectiveMode(head, mode)
}

// PrepareMerge plans the merge against head (a committed table or a
// transaction's view), writes the new rows and the delete side, and returns
// them as one change; on a dry run it only plans (Files, Deleted).
func PrepareMerge(ctx context.Context, head *table.Table, pred Predicate, m Merger, opts Options, out *MergeOutcome) (lake.FileChange, []string, error) {
	mode := mergeMode(head, opts.Mode)
	m.Start()
	planOpts := opts.Plan
	planOpts.ReturnColumns = pred.Columns
	// An updated row keeps its _row_id (v3): the plan returns it last.
	planOpts.rowIDs = head.Metadata().Version() >= 3
	plans, err := PlanRowDeletes(ctx, head, pred, planOpts)
	if err != nil {
		return lake.FileChange{}, nil, err
	}
	replaced := make([]int64, len(plans))
	var fresh []arrow.RecordBatch
	for i := range plans {
		out.Deleted += plans[i].Deleted()
		if err == nil {
			var nb []arrow.RecordBatch
			nb, replaced[i], err = replacedRows(ctx, plans[i].Returned, m, planOpts.rowIDs)
			fresh = append(fresh, nb...)
		}
		releaseAll(plans[i].Returned)
	}
	if err != nil {
		releaseAll(fresh)
		return lake.FileChange{}, nil, err
	}
	withReplaced := func(files []FileAction) []FileAction {
		for i := range files {
			files[i].Replaced = replaced[i]
		}
		return files
	}
	added, err := m.Added(ctx)
	if err != nil {
		releaseAll(fresh)
		return lake.FileChange{}, nil, fmt.Errorf("compute added rows: %w", err)
	}
	if planOpts.rowIDs {
		added = newLineage(added)
	}
	fresh = append(fresh, added...)
	for _, b := range fresh {
		out.Written += b.NumRows()
	}
	if opts.DryRun || out.Deleted+out.Written == 0 {
		releaseAll(fresh)
		out.Files = withReplaced(Actions(head, plans, mode))
		return lake.FileChange{}, nil, nil
	}
	r, err := writeReplacement(ctx, head, fresh, lineageWriter(head), plans, mode)
	if err != nil {
		return lake.FileChange{}, r.written, err
	}
	out.Files = withReplaced(r.change.Actions())
	return r.change.FileChange(r.added, opts.SnapshotProps), r.written, nil
}

// replacedRows applies m.Replace to one file's batches of old rows and
// counts the replacements. With rowIDs the old rows carry their _row_id
// last, which the replacements keep (with their lineage columns added).
func replacedRows(ctx context.Context, old []arrow.RecordBatch, m Merger, rowIDs bool) ([]arrow.RecordBatch, int64, error) {
	var fresh []arrow.RecordBatch
	var n int64
	for _, b := range old {
		nb, err := replaceBatch(ctx, b, m, rowIDs)
		if err != nil {
			releaseAll(fresh)
			return nil, 0, err
		}
		if nb.NumRows() == 0 {
			nb.Release()
			continue
		}
		n += nb.NumRows()
		fresh = append(fresh, nb)
	}
	return fresh, n, nil
}

// replaceBatch is m's replacements of the rows of b (which it does not
// take over), with their lineage when b carries _row_id last.
func replaceBatch(ctx context.Context, b arrow.RecordBatch, m Merger, rowIDs bool) (arrow.RecordBatch, error) {
	if !rowIDs {
		nb, _, err := m.Replace(ctx, b)
		if err != nil {
			return nil, fmt.Errorf("compute replaced rows: %w", err)
		}
		return nb, nil
	}
	n := int(b.NumCols()) - 1
	rows := array.NewRecordBatch(arrow.NewSchema(b.Schema().Fields()[:n], nil), b.Columns()[:n], b.NumRows())
	defer rows.Release()
	nb, from, err := m.Replace(ctx, rows)
	if err != nil {
		return nil, fmt.Errorf("compute replaced rows: %w", err)
	}
	if from != nil && len(from) != int(nb.NumRows()) {
		nb.Release()
		return nil, fmt.Errorf("compute replaced rows: %d rows name %d old ones", nb.NumRows(), len(from))
	}
	ids, err := keptRowIDs(b.Column(n), from, int(nb.NumRows()))
	if err != nil {
		nb.Release()
		return nil, err
	}
	defer ids.Release()
	return withLineage(nb, ids), nil
}

// batchSource yields bs in order, handing each over to the consumer: what
// it does not take is released.
func batchSource(bs []arrow.RecordBatch) RowSource {
	return func(yield func(arrow.RecordBatch, error) bool) {
		for i, b := range bs {
			if !yield(b, nil) {
				releaseAll(bs[i+1:])
				return
			}
		}
	}
}
