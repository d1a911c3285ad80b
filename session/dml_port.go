package session

import (
	"context"
	"iter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/deletes"
	"github.com/magmalake/magmalake/dml"
	"github.com/magmalake/magmalake/engine"
	logical "github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// dmlPort is the session as INSERT, DELETE, UPDATE, MERGE, overwrite and
// TRUNCATE see it (dml.Port): they plan and run in package dml, and ask the
// session only for what is its own: names, settings, transaction state and
// how a change is committed.
type dmlPort struct{ s *Session }

var _ dml.Port = dmlPort{}

// dmlPlan is a planned DML statement as a plan of the session that
// executes it.
func dmlPlan(run dml.Run, cols []stmt.Column, err error) (plan, []stmt.Column, error) {
	if err != nil {
		return nil, nil, err
	}
	return dmlRun(run), cols, nil
}

// dmlRun is a prepared INSERT, DELETE, UPDATE, MERGE or TRUNCATE.
type dmlRun dml.Run

func (r dmlRun) execute(ctx context.Context, s *Session, args []stmt.Param) (*stmt.Result, error) {
	return r(ctx, dmlPort{s}, args)
}

// keepsPlans: a write changes a table's data, which kept plans read as it
// is when they run (engine.Deps moves them to the new snapshot), not what
// they were bound over.
func (dmlRun) keepsPlans(*Session) bool { return true }

func (p dmlPort) ResolveTable(ctx context.Context, n sql.TableName, reads bool) (*logical.Table, error) {
	return p.s.names.resolveTableFor(ctx, n, reads)
}

func (p dmlPort) Writable(rt *logical.Table, verb string, n sql.TableName) error {
	return writableTable(rt, verb, n)
}

func (p dmlPort) Scope(tbl *table.Table, qualifier string) *sql.Scope {
	return tableScope(tbl, qualifier)
}

func (p dmlPort) QueryEnv() *engine.Env { return p.s.queryEnv() }

func (p dmlPort) CheckWrite() error { return p.s.tx.checkWrite() }

func (p dmlPort) Setting(name string) (string, error) { return p.s.settings.Get(name) }

func (p dmlPort) DeleteOptions(dry bool) deletes.Options { return p.s.engine.deleteOptions(dry) }

func (p dmlPort) CommitTarget() deletes.CommitTarget { return p.s.tx.commitTarget() }

func (p dmlPort) Append(ctx context.Context, rt *logical.Table, rows iter.Seq2[arrow.RecordBatch, error]) (int64, error) {
	return p.s.tx.appendRows(ctx, rt, rows)
}
