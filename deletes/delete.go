package deletes

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
)

// CommitTarget is the one port a statement of this package is planned
// against: it reads the table as stored, and takes the statement's change
// once, as the function that plans it against a head. A session commits it
// (planning again when another writer got there first) or, in a
// transaction block, stages it and returns a nil table (nothing published
// yet); Autocommit commits every change right away.
type CommitTarget interface {
	LoadTable(ctx context.Context, ident table.Identifier) (*table.Table, error)
	Commit(ctx context.Context, ident table.Identifier, plan lake.ChangeFunc) (*table.Table, error)
}

// Autocommit is the CommitTarget of cat for callers without a session:
// each change commits as one snapshot through a commit loop of its own,
// rebased or planned again when another writer got there first.
func Autocommit(cat catalog.Catalog) CommitTarget { return lake.CommitLoop{Catalog: cat} }

// ErrConflict is lake.ErrConflict: every attempt lost to a concurrent writer
// (SQLSTATE 40001).
var ErrConflict = lake.ErrConflict

// Options drive Delete.
type Options struct {
	Plan          PlanOptions
	Mode          Mode // "" = the table's write.delete.mode
	DryRun        bool // plan only, for EXPLAIN: no file written, nothing committed
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
func Delete(ctx context.Context, to CommitTarget, ident table.Identifier, pred Predicate, opts Options) (Outcome, error) {
	var out Outcome
	committed, err := to.Commit(ctx, ident, func(ctx context.Context, head *table.Table) (lake.FileChange, []string, error) {
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

// snapshotOf is the current snapshot of a published table, nil when the
// change was only staged.
func snapshotOf(t *table.Table) *table.Snapshot {
	if t == nil {
		return nil
	}
	return t.CurrentSnapshot()
}
