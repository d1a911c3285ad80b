// Package ddl plans and runs the statements that define schemas, tables and
// views: CREATE/DROP SCHEMA, CREATE/DROP TABLE (the table of CREATE TABLE
// AS too), ALTER TABLE (columns, defaults, renames, partitioning, SET/RESET
// properties) and CREATE/DROP VIEW, outside a transaction block and inside
// one. It asks the session only for what Port offers.
package ddl

import (
	"context"

	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// Port is what DDL needs of the session that runs it.
type Port interface {
	// Warehouse is the catalog and storage tables live in.
	Warehouse() *lake.Warehouse
	// ResolveTable finds a table by name, through search_path when
	// unqualified, as the session sees it (its branch, its block).
	ResolveTable(ctx context.Context, n sql.TableName) (*plan.Table, error)
	// TableItself refuses a resolved name that does not name the table
	// itself (a metadata table, a branch or tag).
	TableItself(rt *plan.Table, n sql.TableName) error
	// CreationSchema is the schema CREATE puts n in.
	CreationSchema(ctx context.Context, n sql.TableName) (string, error)
	// FindView looks n up among the views of its schema, or of search_path.
	FindView(ctx context.Context, n sql.TableName) (*plan.Table, bool, error)
	// CheckWrite refuses a write in a read-only transaction.
	CheckWrite() error
	// Block is the open transaction block's DDL staging; nil outside one.
	Block() Block
	// CheckProperties refuses values of the table properties the engine
	// acts on that it would otherwise silently ignore.
	CheckProperties(props map[string]string) error
	// QueryColumns plans a query for its row description.
	QueryColumns(ctx context.Context, q *sql.Select) ([]stmt.Column, error)
	// AnyRow reports whether a row of the relation ident names, as a query
	// reads it ("t@b" is branch b of t), meets cond (SQL text).
	AnyRow(ctx context.Context, ident table.Identifier, cond string) (bool, error)
}

// Block is a transaction block's DDL, which the session keeps with the
// block: what its statements no longer see, what ROLLBACK undoes and what
// COMMIT applies (after the block's DML, in statement order).
type Block interface {
	// HidesTable reports whether the block dropped the table (or its schema).
	HidesTable(ident table.Identifier) bool
	// HidesSchema reports whether the block dropped the schema.
	HidesSchema(name string) bool
	// HideTable hides a table the block drops, abandoning the block's
	// staged writes to it.
	HideTable(ident table.Identifier)
	HideSchema(name string)
	HideView(ident table.Identifier)
	// OnRollback records how to undo what a statement created.
	OnRollback(undo func(context.Context) error)
	// AtCommit records a change to apply at COMMIT.
	AtCommit(apply func(context.Context) error)
}
