package maintenance

import (
	"context"
	"strconv"
	"strings"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

var rollbackColumns = []stmt.Column{{Name: "previous_snapshot_id", Type: sql.Int64}, {Name: "current_snapshot_id", Type: sql.Int64}}

// prepareRollback plans ALTER TABLE t EXECUTE rollback_to_snapshot(
// snapshot_id => id): the snapshot, an ancestor of the current one,
// becomes current.
func prepareRollback(ctx context.Context, p Port, st *sql.AlterExecute, params *sql.Params) (Run, []stmt.Column, error) {
	if _, _, err := snapshotIDOption(ctx, p, st, params, nil); err != nil {
		return nil, nil, err
	}
	run := func(ctx context.Context, p Port, args []any) (*stmt.Result, error) {
		if err := p.Allowed("ALTER TABLE ... EXECUTE rollback_to_snapshot"); err != nil {
			return nil, err
		}
		rt, id, err := snapshotIDOption(ctx, p, st, params, args)
		if err != nil {
			return nil, err
		}
		prev, err := p.Warehouse().Branches().RollbackToSnapshot(ctx, rt.Ident, id)
		if err != nil {
			return nil, err
		}
		return datumResult("ALTER TABLE", rollbackColumns, []any{prev, id})
	}
	return run, rollbackColumns, nil
}

// snapshotIDOption reads the one argument, snapshot_id => id, of a
// procedure such as rollback_to_snapshot; the id is 0 at planning when a
// parameter gives it.
func snapshotIDOption(ctx context.Context, p Port, st *sql.AlterExecute, params *sql.Params, args []any) (*plan.Table, int64, error) {
	rt, err := p.TableItself(ctx, st.Table)
	if err != nil {
		return nil, 0, err
	}
	n, ok := st.Args["snapshot_id"]
	if len(st.Args) != 1 || !ok || st.Where != nil {
		return nil, 0, pgerr.Errorf(pgerr.InvalidParameterValue, "%s takes one argument, snapshot_id => id", strings.ToLower(st.Procedure))
	}
	if args == nil && params != nil && len(params.Types) > 0 {
		return rt, 0, nil // a parameter's value comes at execution
	}
	v, err := sql.ConstText(ctx, n, params, args)
	if err != nil {
		return nil, 0, err
	}
	id, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return nil, 0, pgerr.Errorf(pgerr.InvalidParameterValue, "snapshot_id must be a snapshot's id, not %q", v)
	}
	return rt, id, nil
}
