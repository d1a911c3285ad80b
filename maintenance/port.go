// Package maintenance plans and runs table maintenance: ALTER TABLE ...
// EXECUTE procedures (optimize, expire_snapshots, remove_orphan_files,
// rollback_to_snapshot, set_current_snapshot, fast_forward,
// cherrypick_snapshot, rewrite_manifests), ALTER TABLE ... CREATE/REPLACE/
// DROP BRANCH|TAG, VACUUM, and the background AutoVacuum.
//
// It knows the session only through Port, the few things maintenance asks
// of it, so that the session dispatches here and nothing here calls back
// into the session's own planning.
package maintenance

import (
	"context"

	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/deletes"
	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// Port is what a maintenance statement needs of the session running it.
type Port interface {
	// Allowed refuses the maintenance statement named what inside a
	// transaction block, or in a read-only session.
	Allowed(what string) error
	// TableItself resolves n to the table itself, not to the session's
	// branch, refusing a metadata table ("t$files") or a ref ("t@b").
	TableItself(ctx context.Context, n sql.TableName) (*plan.Table, error)
	// ReadTable resolves n to the table itself or to a ref of it ("t@b"),
	// refusing a metadata table; a view or a catalog relation comes back
	// without a Table.
	ReadTable(ctx context.Context, n sql.TableName) (*plan.Table, error)
	// WritableTable resolves n as the session's statements see it (on its
	// branch), refusing a name that statement verb cannot change.
	WritableTable(ctx context.Context, n sql.TableName, verb string) (*plan.Table, error)
	// Scope lays out tbl's columns, named by qualifier, for binding a
	// condition on them.
	Scope(tbl *table.Table, qualifier string) *sql.Scope
	// Setting is the session's value of the setting name.
	Setting(name string) (string, error)
	// Warehouse is the engine's catalog, with its holds on files being
	// written and snapshots being read.
	Warehouse() *lake.Warehouse
	// DeleteOptions are the delete engine's options for the session's
	// statements: its file cache and manifest reader.
	DeleteOptions() deletes.Options
	// CommitTarget is where the session's statements hand their change:
	// its branch, through the session's commit loop.
	CommitTarget() deletes.CommitTarget
	// CommitLoop commits a change to branch ("" is main) as the session's
	// statements do.
	CommitLoop(branch string) lake.CommitLoop
	// Discard deletes files a statement wrote and never published.
	Discard(tbl *table.Table, paths []string)
}

// Run executes a planned maintenance statement for the session p is the
// port of, with the values of its parameters. A prepared statement may run
// in a later transaction than the one it was planned in, so what the
// session allows is checked here, not at planning.
type Run func(ctx context.Context, p Port, args []any) (*stmt.Result, error)
