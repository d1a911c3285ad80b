package session

import (
	"context"
	"time"

	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/deletes"
	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/maintenance"
	"github.com/magmalake/magmalake/pgerr"
	logical "github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// maintenancePort is the session as the maintenance statements see it
// (maintenance.Port): they plan and run in package maintenance, and ask
// the session only for what is its own: names, settings, transaction
// state and how it commits.
type maintenancePort struct{ s *Session }

var _ maintenance.Port = maintenancePort{}

// maintenancePlan is a planned maintenance statement as a plan of the
// session that executes it.
func maintenancePlan(run maintenance.Run, cols []stmt.Column, err error) (plan, []stmt.Column, error) {
	if err != nil {
		return nil, nil, err
	}
	execute := func(ctx context.Context, s *Session, args []stmt.Param) (*stmt.Result, error) {
		return run(ctx, maintenancePort{s}, args)
	}
	return planFunc(execute), cols, nil
}

// Allowed refuses maintenance inside a transaction block and in a
// read-only one.
func (p maintenancePort) Allowed(what string) error {
	if p.s.tx.active {
		return pgerr.Errorf(pgerr.ActiveSQLTransaction, "%s cannot run inside a transaction block", what)
	}
	return p.s.tx.checkWrite()
}

func (p maintenancePort) TableItself(ctx context.Context, n sql.TableName) (*logical.Table, error) {
	rt, err := p.s.names.resolveTableOn(ctx, n, true, "") // the table itself, not the session's branch
	if err != nil {
		return nil, err
	}
	if err := tableItself(rt, n); err != nil {
		return nil, err
	}
	return rt, nil
}

func (p maintenancePort) ReadTable(ctx context.Context, n sql.TableName) (*logical.Table, error) {
	if _, ok, err := p.s.names.catalogRelation(ctx, n); ok || err != nil {
		return &logical.Table{}, err
	}
	rt, err := p.s.names.resolveTableOn(ctx, n, true, "") // main, not the session's branch
	if err != nil {
		if _, ok, ferr := p.s.names.findView(ctx, n); ferr == nil && ok {
			return &logical.Table{}, nil
		}
		return nil, err
	}
	if rt.Meta != "" {
		return nil, pgerr.Errorf(pgerr.WrongObjectType, "%q is a metadata table", n.Table)
	}
	return rt, nil
}

func (p maintenancePort) WritableTable(ctx context.Context, n sql.TableName, verb string) (*logical.Table, error) {
	rt, err := p.s.names.resolveTable(ctx, n)
	if err != nil {
		return nil, err
	}
	if err := writableTable(rt, verb, n); err != nil {
		return nil, err
	}
	return rt, nil
}

func (p maintenancePort) Scope(tbl *table.Table, qualifier string) *sql.Scope {
	return tableScope(tbl, qualifier)
}

func (p maintenancePort) Setting(name string) (string, error) { return p.s.settings.Get(name) }

func (p maintenancePort) Warehouse() *lake.Warehouse { return p.s.engine.wh }

func (p maintenancePort) DeleteOptions() deletes.Options { return p.s.engine.deleteOptions(false) }

func (p maintenancePort) CommitTarget() deletes.CommitTarget { return p.s.tx.commitTarget() }

func (p maintenancePort) CommitLoop(branch string) lake.CommitLoop {
	return p.s.tx.commitLoop(branch)
}

func (p maintenancePort) Discard(tbl *table.Table, paths []string) { removeTableFiles(tbl, paths) }

// NewAutoVacuum prepares background maintenance of e's warehouse, giving
// way to the transaction blocks of e's sessions.
func (e *Engine) NewAutoVacuum(opts maintenance.AutoVacuumOptions) *maintenance.AutoVacuum {
	return maintenance.NewAutoVacuum(e.wh, autoVacuumBlocks{e}, e.opts.Logger, opts)
}

// autoVacuumBlocks is the engine's open transaction blocks as background
// maintenance sees them (maintenance.Blocks).
type autoVacuumBlocks struct{ e *Engine }

func (b autoVacuumBlocks) WhenIdle(ident table.Identifier, wait time.Duration, commit func() error) (bool, error) {
	return b.e.uses.whenIdle(lake.IdentKey(ident), wait, commit)
}

func (b autoVacuumBlocks) Discard(tbl *table.Table, paths []string) { removeTableFiles(tbl, paths) }
