// Package engine is the query engine: it binds a query over its sources
// (Iceberg tables, metadata tables, derived tables, VALUES, joins, set
// operations) into a tree of operators over Arrow batches and runs it. It is
// the one place relational work happens, for SELECT and for the read side of
// DML; sessions, transactions and settings stay in the caller.
package engine

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/sql"
)

// Table is a table name looked up in the catalog. Meta names a metadata
// table of the registry, metaTables ("snapshots" for "t$snapshots").
type Table struct {
	Ident table.Identifier
	Table *table.Table
	Meta  string
	// Ref is a branch or tag the name carried ("t@b", t.branch_b): the
	// table is read as FOR VERSION AS OF that ref.
	Ref string
	// Virtual, when set, is a relation the session computes (pg_catalog,
	// information_schema) instead of an Iceberg table.
	Virtual *Virtual
	// View, when set, is an Iceberg view: a query planned where it is named.
	View *View
}

// View is a stored query: its text (PostgreSQL's dialect) and the names
// its columns were given.
type View struct {
	SQL     string
	Columns []string
}

// Virtual is a small relation read whole: its columns and its rows now.
type Virtual struct {
	Columns []Column
	// System counts the last columns that are system columns (tableoid):
	// read by qualified name only, never by *.
	System int
	Rows   func(ctx context.Context) (arrow.RecordBatch, error)
}

// Catalog resolves the relation names of a statement (the session applies
// its search_path).
type Catalog interface {
	ResolveTable(ctx context.Context, name sql.TableName) (*Table, error)
}

// Options are a statement's execution limits.
type Options struct {
	// BatchSize caps rows per result batch.
	BatchSize int
	// WorkMem bounds what one materialising operator may hold, in bytes
	// (0: unbounded).
	WorkMem int64
	// TempDir is where ORDER BY spills its sorted runs past WorkMem
	// ("": os.TempDir(), i.e. $TMPDIR or /tmp).
	TempDir string
	// Manifests keeps decoded manifests across scans (the warehouse's);
	// nil: each scan reads its snapshot's manifests.
	Manifests *lake.ManifestCache
}

// Env is what a statement's planning and execution need from the session.
type Env struct {
	Catalog Catalog
	Options Options
	// Files opens read_csv/read_parquet's files; nil refuses them.
	Files FileReader
	// Binds, when set, counts the statements bound against the Env.
	Binds *BindCount
	// Generation, when set, moves on whenever the session changes what
	// binding may read besides the catalog's names: its settings, its
	// transaction block, its writes. A plan is reused only at the
	// generation it was bound at (Deps).
	Generation func() uint64
	// recorders are the Deps binding against the Env records in (Recording).
	recorders []*Deps
}

func (e *Env) batchSize() int {
	if e.Options.BatchSize <= 0 {
		return 4096
	}
	return e.Options.BatchSize
}

// Column is one output column of a query.
type Column struct {
	Name string
	Type sql.Type
}
