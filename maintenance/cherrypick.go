package maintenance

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/magmalake/magmalake/deletes"
	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

var cherrypickColumns = []stmt.Column{{Name: "source_snapshot_id", Type: sql.Int64}, {Name: "current_snapshot_id", Type: sql.Int64}}

// prepareCherrypick plans ALTER TABLE t EXECUTE cherrypick_snapshot(
// snapshot_id => id): the change snapshot id made (on a branch, or one
// rolled back from main) is applied to main's head as a new snapshot, the
// snapshot itself untouched; main simply moves to it when its parent is
// main's head. Iceberg's Java library picks only appends and dynamic
// overwrites; here any change is carried over as a commit that lost a race
// would be (the delete engine's rebase): deletes of rows main still has
// hold, and a change main contradicts (its rows rewritten, its files gone)
// is refused with 55000 and commits nothing.
func prepareCherrypick(ctx context.Context, p Port, st *sql.AlterExecute, params *sql.Params) (Run, []stmt.Column, error) {
	if _, _, err := snapshotIDOption(ctx, p, st, params, nil); err != nil {
		return nil, nil, err
	}
	run := func(ctx context.Context, p Port, args []any) (*stmt.Result, error) {
		if err := p.Allowed("ALTER TABLE ... EXECUTE cherrypick_snapshot"); err != nil {
			return nil, err
		}
		rt, id, err := snapshotIDOption(ctx, p, st, params, args)
		if err != nil {
			return nil, err
		}
		cur, err := cherrypickRetrying(ctx, p, rt, id)
		if err != nil {
			return nil, err
		}
		return datumResult("ALTER TABLE", cherrypickColumns, []any{id, cur})
	}
	return run, cherrypickColumns, nil
}

// cherrypickRetrying is cherrypick again on a fresh head while a
// concurrent commit to main makes it lose at the catalog (moving main to
// the snapshot needs main where it was; the commit loop rebases the rest).
func cherrypickRetrying(ctx context.Context, p Port, rt *plan.Table, id int64) (int64, error) {
	for tries := 1; ; tries++ {
		cur, err := cherrypick(ctx, p, rt, id)
		if !lake.IsConflict(err) || tries == 5 {
			return cur, err
		}
		if rt.Table, err = p.Warehouse().LoadTable(ctx, rt.Ident); err != nil {
			return 0, err
		}
	}
}

// cherrypick applies snapshot id to main and returns main's new head.
func cherrypick(ctx context.Context, p Port, rt *plan.Table, id int64) (int64, error) {
	tbl, name := rt.Table, rt.Ident[len(rt.Ident)-1]
	meta := tbl.Metadata()
	snap := meta.SnapshotByID(id)
	switch {
	case snap == nil:
		return 0, pgerr.Errorf(pgerr.InvalidParameterValue, "table %q has no snapshot %d", name, id)
	case lake.InHistory(meta, "main", id):
		return 0, pgerr.Errorf(pgerr.ObjectNotInPrerequisiteState, "snapshot %d is already in the history of main", id)
	case lake.PickedInto(meta, "main", id) != nil:
		return 0, pgerr.Errorf(pgerr.ObjectNotInPrerequisiteState, "snapshot %d was already cherry-picked into main, as snapshot %d", id, lake.PickedInto(meta, "main", id).SnapshotID)
	}
	head := tbl.CurrentSnapshot()
	if head != nil && snap.ParentSnapshotID != nil && *snap.ParentSnapshotID == head.SnapshotID {
		if _, err := p.Warehouse().Branches().FastForwardTo(ctx, tbl, "main", id); err != nil {
			return 0, err
		}
		return id, nil
	}
	base, change, err := lake.SnapshotChange(ctx, tbl, id)
	if errors.Is(err, lake.ErrNoParent) {
		return 0, pgerr.Errorf(pgerr.FeatureNotSupported, "snapshot %d starts a history of its own; only a snapshot with a parent can be cherry-picked", id)
	}
	if err != nil {
		return 0, err
	}
	// The branch's delete files rebase by position, as those of the
	// statements that wrote them.
	change.Rebase = deletes.Rebase
	rebased, extra, err := change.Rebase(ctx, lake.RebaseInput{Base: base, Head: tbl, Change: change}.KeepingOwnFiles())
	if err != nil {
		return 0, pickRefused(id, err)
	}
	committed, err := p.CommitLoop("").PublishShared(ctx, tbl, rebased)
	if err != nil {
		p.Discard(tbl, extra)
		return 0, pickRefused(id, err)
	}
	return committed.CurrentSnapshot().SnapshotID, nil
}

// pickRefused says why a change main contradicts cannot be picked.
func pickRefused(id int64, err error) error {
	if !errors.Is(err, lake.ErrReplan) {
		return err
	}
	return &pgerr.Error{Code: pgerr.ObjectNotInPrerequisiteState,
		Message: "cannot cherry-pick snapshot " + strconv.FormatInt(id, 10) + ": main has changed what it changes",
		Detail:  strings.TrimPrefix(err.Error(), lake.ErrReplan.Error()+": "), Err: err}
}
