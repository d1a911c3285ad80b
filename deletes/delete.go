package deletes

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	lake "github.com/magmalake/magmalake/iceberg"
)

// CommitTarget is the catalog a delete commits through.
type CommitTarget = catalog.Catalog

// ErrConflict is lake.ErrConflict: every attempt lost to a concurrent writer
// (SQLSTATE 40001).
var ErrConflict = lake.ErrConflict

// Committer publishes one statement's change. The default commits one
// snapshot, re-planning against the new head when another writer got there
// first; a transaction block stages the change instead and returns a nil
// table (nothing published yet).
type Committer func(ctx context.Context, ident table.Identifier, plan lake.ChangeFunc) (*table.Table, error)

// Options drive Delete.
type Options struct {
	// Commit publishes the change; nil commits it right away.
	Commit        Committer
	Plan          PlanOptions
	Mode          Mode // "" = the table's write.delete.mode
	DryRun        bool // plan only, for EXPLAIN: no file written, nothing committed
	Retry         lake.RetryPolicy
	SnapshotProps iceberg.Properties
}

// Outcome is what a delete did.
type Outcome struct {
	Deleted    int64
	SnapshotID int64 // 0 when nothing was committed
	Files      []FileAction
	// Returned holds Plan.ReturnColumns of the deleted rows; the caller
	// releases the batches.
	Returned []arrow.RecordBatch
	Attempts int
}

// Delete runs an autocommit DELETE: plan against the head, write, stage and
// commit; on a conflict re-plan against the new head (rows another writer
// already deleted are neither counted nor resurrected) and retry. A delete
// matching nothing commits nothing. Files of attempts that did not commit are
// removed.
func Delete(ctx context.Context, cat CommitTarget, ident table.Identifier, pred Predicate, opts Options) (Outcome, error) {
	var out Outcome
	committed, err := opts.commit(ctx, cat, ident, func(ctx context.Context, head *table.Table) (lake.FileChange, []string, error) {
		out.Attempts++
		releaseAll(out.Returned)
		out = Outcome{Attempts: out.Attempts}
		return PrepareDelete(ctx, head, pred, opts, &out)
	})
	if err != nil {
		releaseAll(out.Returned)
		return Outcome{}, fmt.Errorf("delete from %s: %w", strings.Join(ident, "."), err)
	}
	if out.Deleted > 0 && !opts.DryRun {
		if s := snapshotOf(committed); s != nil {
			out.SnapshotID = s.SnapshotID
		}
	}
	return out, nil
}

// PrepareDelete plans the delete against head (a committed table or a
// transaction's view of one), writes its files and returns the change to
// commit, empty when nothing matched or on a dry run. out collects counts,
// per-file actions and RETURNING rows.
func PrepareDelete(ctx context.Context, head *table.Table, pred Predicate, opts Options, out *Outcome) (lake.FileChange, []string, error) {
	plans, err := PlanRowDeletes(ctx, head, pred, opts.Plan)
	if err != nil {
		return lake.FileChange{}, nil, err
	}
	for i := range plans {
		out.Deleted += plans[i].Deleted()
		out.Returned = append(out.Returned, plans[i].Returned...)
	}
	if out.Deleted == 0 || opts.DryRun {
		out.Files = Actions(head, plans, opts.Mode)
		return lake.FileChange{}, nil, nil
	}
	change, err := Prepare(ctx, head, plans, opts.Mode)
	if err != nil {
		return lake.FileChange{}, nil, err
	}
	out.Files = change.Actions()
	return change.FileChange(nil, opts.SnapshotProps), change.Written(), nil
}

func (o Options) commit(ctx context.Context, cat CommitTarget, ident table.Identifier, plan lake.ChangeFunc) (*table.Table, error) {
	if o.Commit != nil {
		return o.Commit(ctx, ident, plan)
	}
	return lake.CommitLoop{Catalog: cat, Policy: o.Retry, Rebase: Rebase}.Commit(ctx, ident, plan)
}

// snapshotOf is the current snapshot of a published table, nil when the
// change was only staged.
func snapshotOf(t *table.Table) *table.Snapshot {
	if t == nil {
		return nil
	}
	return t.CurrentSnapshot()
}
