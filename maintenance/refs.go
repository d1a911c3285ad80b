package maintenance

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// AlterRef runs ALTER TABLE t CREATE/REPLACE/DROP BRANCH|TAG: named
// snapshots (metadata only; the snapshots they name outlive expiry).
func AlterRef(ctx context.Context, p Port, x *sql.AlterRef) (*stmt.Result, error) {
	kind := "branch"
	if x.Tag {
		kind = "tag"
	}
	if err := p.Allowed(fmt.Sprintf("ALTER TABLE ... %s %s", refVerb(x), strings.ToUpper(kind))); err != nil {
		return nil, err
	}
	rt, err := p.TableItself(ctx, x.Table)
	if err != nil {
		return nil, err
	}
	if x.Name == "main" {
		return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "the branch main is the table's own history; it cannot be created, replaced or dropped")
	}
	if x.Drop {
		err = p.Warehouse().Branches().DropRef(ctx, rt.Ident, x.Name, x.Tag)
		if errors.Is(err, lake.ErrNoSuchRef) && x.IfNotExists {
			return skipped(fmt.Sprintf("%s %q does not exist, skipping", kind, x.Name)), nil
		}
		return refResult(err, kind, x)
	}
	rc := lake.RefChange{Name: x.Name, Tag: x.Tag, SnapshotID: x.SnapshotID, MaxRefAgeMs: x.RetainMs, Create: x.Create, Replace: x.Replace}
	_, err = p.Warehouse().Branches().SetRef(ctx, rt.Ident, rc)
	if errors.Is(err, lake.ErrRefExists) && x.IfNotExists {
		return skipped(fmt.Sprintf("%s %q already exists, skipping", kind, x.Name)), nil
	}
	return refResult(err, kind, x)
}

// skipped is ALTER TABLE's result when IF [NOT] EXISTS made it do nothing.
func skipped(msg string) *stmt.Result {
	return &stmt.Result{Tag: "ALTER TABLE",
		Notices: []stmt.Notice{stmt.NewNotice(msg)}}
}

func refVerb(x *sql.AlterRef) string {
	switch {
	case x.Drop:
		return "DROP"
	case x.Create && x.Replace:
		return "CREATE OR REPLACE"
	case x.Replace:
		return "REPLACE"
	}
	return "CREATE"
}

// refResult gives the reference errors their SQLSTATEs.
func refResult(err error, kind string, x *sql.AlterRef) (*stmt.Result, error) {
	switch {
	case err == nil:
		return &stmt.Result{Tag: "ALTER TABLE"}, nil
	case errors.Is(err, lake.ErrRefExists):
		return nil, pgerr.Errorf(pgerr.DuplicateObject, "%s %q of table %q already exists", kind, x.Name, x.Table.Table)
	case errors.Is(err, lake.ErrNoSuchRef):
		return nil, pgerr.Errorf(pgerr.UndefinedObject, "table %q has no %s %q", x.Table.Table, kind, x.Name)
	case errors.Is(err, lake.ErrRefKind):
		other := "tag"
		if x.Tag {
			other = "branch"
		}
		return nil, pgerr.Errorf(pgerr.WrongObjectType, "%q is a %s of table %q, not a %s", x.Name, other, x.Table.Table, kind)
	case errors.Is(err, lake.ErrNoSuchSnapshot) && x.SnapshotID == nil:
		return nil, pgerr.Errorf(pgerr.ObjectNotInPrerequisiteState, "table %q has no snapshot yet for a %s to name", x.Table.Table, kind)
	case errors.Is(err, lake.ErrNoSuchSnapshot):
		return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "table %q has no snapshot %d", x.Table.Table, *x.SnapshotID)
	}
	return nil, err
}

var fastForwardColumns = []stmt.Column{{Name: "branch_updated", Type: sql.Text},
	{Name: "previous_ref", Type: sql.Int64}, {Name: "updated_ref", Type: sql.Int64}}

// prepareFastForward plans ALTER TABLE t EXECUTE fast_forward(branch =>
// 'main', to => 'b'): the branch moves to the other's head when that head
// descends from its own (write-audit-publish's publish step).
func prepareFastForward(st *sql.AlterExecute, params *sql.Params) (Run, []stmt.Column, error) {
	run := func(ctx context.Context, p Port, args []any) (*stmt.Result, error) {
		if err := p.Allowed("ALTER TABLE ... EXECUTE fast_forward"); err != nil {
			return nil, err
		}
		rt, err := p.TableItself(ctx, st.Table)
		if err != nil {
			return nil, err
		}
		branch, to, err := fastForwardArgs(ctx, st, params, args)
		if err != nil {
			return nil, err
		}
		from, target, err := p.Warehouse().Branches().FastForward(ctx, rt.Ident, branch, to)
		switch {
		case errors.Is(err, lake.ErrNoSuchRef):
			return nil, pgerr.Errorf(pgerr.UndefinedObject, "table %q has no branch %q or %q", st.Table.Table, branch, to)
		case errors.Is(err, lake.ErrNotAhead):
			return nil, pgerr.Errorf(pgerr.ObjectNotInPrerequisiteState, "cannot fast-forward %s to %s: %s's head is not an ancestor of %s's", branch, to, branch, to)
		case err != nil:
			return nil, err
		}
		return datumResult("ALTER TABLE", fastForwardColumns, []any{branch, from, target})
	}
	return run, fastForwardColumns, nil
}

func fastForwardArgs(ctx context.Context, st *sql.AlterExecute, params *sql.Params, args []any) (string, string, error) {
	b, okB := st.Args["branch"]
	t, okT := st.Args["to"]
	if !okB || !okT || len(st.Args) != 2 || st.Where != nil {
		return "", "", pgerr.Errorf(pgerr.InvalidParameterValue, "fast_forward takes branch => 'name', to => 'name'")
	}
	branch, err := sql.ConstText(ctx, b, params, args)
	if err != nil {
		return "", "", err
	}
	to, err := sql.ConstText(ctx, t, params, args)
	return branch, to, err
}

// prepareSetCurrent plans ALTER TABLE t EXECUTE set_current_snapshot(
// snapshot_id => id | ref => 'name'): main points at any snapshot of the
// table, as Spark's procedure does (rollback_to_snapshot only goes back).
func prepareSetCurrent(st *sql.AlterExecute, params *sql.Params) (Run, []stmt.Column, error) {
	run := func(ctx context.Context, p Port, args []any) (*stmt.Result, error) {
		if err := p.Allowed("ALTER TABLE ... EXECUTE set_current_snapshot"); err != nil {
			return nil, err
		}
		rt, err := p.TableItself(ctx, st.Table)
		if err != nil {
			return nil, err
		}
		id, err := setCurrentTarget(ctx, rt, st, params, args)
		if err != nil {
			return nil, err
		}
		prev := int64(0)
		if cur := rt.Table.CurrentSnapshot(); cur != nil {
			prev = cur.SnapshotID
		}
		_, err = p.Warehouse().Branches().SetRef(ctx, rt.Ident, lake.RefChange{Name: "main", SnapshotID: &id, Replace: true, Create: true})
		if errors.Is(err, lake.ErrNoSuchSnapshot) {
			return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "table %q has no snapshot %d", st.Table.Table, id)
		}
		if err != nil {
			return nil, err
		}
		return datumResult("ALTER TABLE", rollbackColumns, []any{prev, id})
	}
	return run, rollbackColumns, nil
}

func setCurrentTarget(ctx context.Context, rt *plan.Table, st *sql.AlterExecute, params *sql.Params, args []any) (int64, error) {
	if n, ok := st.Args["ref"]; ok && len(st.Args) == 1 {
		name, err := sql.ConstText(ctx, n, params, args)
		if err != nil {
			return 0, err
		}
		snap := rt.Table.Metadata().SnapshotByName(name)
		if snap == nil {
			return 0, pgerr.Errorf(pgerr.UndefinedObject, "table %q has no branch or tag %q", st.Table.Table, name)
		}
		return snap.SnapshotID, nil
	}
	n, ok := st.Args["snapshot_id"]
	if !ok || len(st.Args) != 1 || st.Where != nil {
		return 0, pgerr.Errorf(pgerr.InvalidParameterValue, "set_current_snapshot takes snapshot_id => id or ref => 'name'")
	}
	v, err := sql.ConstText(ctx, n, params, args)
	if err != nil {
		return 0, err
	}
	id, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return 0, pgerr.Errorf(pgerr.InvalidParameterValue, "snapshot_id must be a snapshot's id, not %q", v)
	}
	return id, nil
}
