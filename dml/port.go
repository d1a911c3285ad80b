// Package dml plans and runs the statements that change a table's rows:
// INSERT (VALUES and SELECT, with RETURNING), DELETE, UPDATE and MERGE
// (DELETE ... USING and UPDATE ... FROM run as the MERGE they are), INSERT
// OVERWRITE and REPLACE WHERE, TRUNCATE, and EXPLAIN [ANALYZE] of them. It
// plans against Port, the little it needs of the session: names, settings,
// transaction state and how a change is committed stay the session's.
package dml

import (
	"context"
	"iter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/deletes"
	"github.com/magmalake/magmalake/engine"
	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// Port is what the DML statements need of the session that runs them.
type Port interface {
	// ResolveTable finds a table by name, through search_path when
	// unqualified, as the session sees it (its branch, its block). reads
	// false is an INSERT's target, which inside a block leaves the rows
	// earlier INSERTs buffered where they are.
	ResolveTable(ctx context.Context, n sql.TableName, reads bool) (*plan.Table, error)
	// Writable refuses a statement that would verb ("delete from") a
	// metadata table or a table named with a ref.
	Writable(rt *plan.Table, verb string, n sql.TableName) error
	// Scope lays out every column of the table's current schema.
	Scope(tbl *table.Table, qualifier string) *sql.Scope
	// QueryEnv is what the query engine needs of the session (subqueries,
	// INSERT ... SELECT, MERGE's source).
	QueryEnv() *engine.Env
	// CheckWrite refuses a write in a read-only transaction.
	CheckWrite() error
	// Setting is the session's value of a setting.
	Setting(name string) (string, error)
	// DeleteOptions are the delete engine's options (dry: plan only).
	DeleteOptions(dry bool) deletes.Options
	// CommitTarget is where a statement hands its change: committed now
	// (autocommit), or staged in the open block's net change.
	CommitTarget() deletes.CommitTarget
	// Append publishes the batches as one append to rt, written and
	// committed now or kept with the open block, and returns the rows it
	// took; an empty input changes nothing.
	Append(ctx context.Context, rt *plan.Table, rows iter.Seq2[arrow.RecordBatch, error]) (int64, error)
}

// Param is a bound parameter's value (stmt.Param).
type Param = any

// Run is a prepared statement, run by the session executing it.
type Run func(ctx context.Context, p Port, args []Param) (*stmt.Result, error)

// Explain is a prepared EXPLAIN, run by the session executing it; the
// session renders the plan in the format the statement asks.
type Explain func(ctx context.Context, p Port, args []Param) (*engine.ExplainPlan, error)

// session is the session a statement plans and runs on, as Port offers it.
type session struct{ Port }

// runOn is run as a Run.
func runOn(run func(context.Context, session, []Param) (*stmt.Result, error)) Run {
	return func(ctx context.Context, p Port, args []Param) (*stmt.Result, error) {
		return run(ctx, session{p}, args)
	}
}

// PrepareInsert plans an INSERT (an INSERT OVERWRITE or REPLACE WHERE too)
// now for its row description; the plan binds again when the table under
// its name changed.
func PrepareInsert(ctx context.Context, p Port, st *sql.Insert, params *sql.Params) (Run, []stmt.Column, error) {
	return session{p}.prepareInsert(ctx, st, params)
}

// PrepareDelete plans a DELETE now for its row description and its
// first execution (kept), and again at later executions.
func PrepareDelete(ctx context.Context, p Port, st *sql.Delete, params *sql.Params) (Run, []stmt.Column, error) {
	return session{p}.prepareDelete(ctx, st, params)
}

// PrepareUpdate plans an UPDATE now for its row description and its
// first execution (kept), and again at later executions.
func PrepareUpdate(ctx context.Context, p Port, st *sql.Update, params *sql.Params) (Run, []stmt.Column, error) {
	return session{p}.prepareUpdate(ctx, st, params)
}

// PrepareMerge plans a MERGE now for its row description and its
// first execution (kept), and again at later executions.
func PrepareMerge(ctx context.Context, p Port, st *sql.Merge, params *sql.Params) (Run, []stmt.Column, error) {
	return session{p}.prepareMerge(ctx, st, params)
}

// PrepareTruncate plans TRUNCATE [TABLE] t.
func PrepareTruncate(ctx context.Context, p Port, st *sql.Truncate) (Run, []stmt.Column, error) {
	return session{p}.prepareTruncate(ctx, st)
}

// PrepareExplain plans EXPLAIN [ANALYZE] of DELETE, UPDATE, MERGE, INSERT
// OVERWRITE, REPLACE WHERE and TRUNCATE; ok is false for other statements.
func PrepareExplain(ctx context.Context, p Port, x *sql.Explain, params *sql.Params) (Explain, bool, error) {
	return session{p}.prepareExplainDML(ctx, x, params)
}
