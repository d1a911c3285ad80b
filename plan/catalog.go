package plan

import (
	"context"
	"iter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go/table"
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
	Columns []sql.Column
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

// FileReader opens the files read_csv and read_parquet name in FROM. The
// session implements it: it decides which paths a client may read and how
// each format is parsed; the engine only sees columns and batches.
type FileReader interface {
	OpenFiles(ctx context.Context, call FileCall) (FileRelation, error)
}

// FileCall is one read_csv/read_parquet call with its arguments evaluated.
type FileCall struct {
	Function string // as called: read_csv, read_csv_auto, read_parquet, parquet_scan
	Path     string // a path or a glob pattern, as given
	// Options are the named arguments (DuckDB's name = value, or
	// PostgreSQL's name => value): string, int64, float64 or bool values.
	Options map[string]any
}

// FileRelation is the rows of the files one call named: columns known when
// the statement is planned, rows read when it runs.
type FileRelation interface {
	Columns() []sql.Column
	// Batches streams the given columns, in that order, typed as Columns
	// says. With no columns the batches still carry the row counts.
	Batches(ctx context.Context, cols []int) (iter.Seq2[arrow.RecordBatch, error], error)
}
