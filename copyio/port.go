// Package copyio moves rows between tables and text: COPY ... FROM STDIN
// and COPY ... TO STDOUT, and the files read_csv and read_parquet read in
// FROM. It plans against Port, the little it needs of the session.
package copyio

import (
	"context"
	"iter"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// Port is what COPY, read_csv and read_parquet need of the session that
// runs them.
type Port interface {
	// CheckWrite refuses a load in a read-only transaction.
	CheckWrite() error
	// InsertTarget resolves the table and columns rows are loaded into, as
	// INSERT resolves its target.
	InsertTarget(ctx context.Context, ins *sql.Insert) (*Target, error)
	// FailLoad marks an open transaction block failed after a load went
	// wrong and returns err as the client sees it, with its SQLSTATE.
	FailLoad(err error) error
	// ResolveTable finds a table by name, through search_path when
	// unqualified.
	ResolveTable(ctx context.Context, n sql.TableName) (*plan.Table, error)
	// PrepareQuery plans a SELECT as the session plans one; RunQuery runs
	// it on the session executing the statement.
	PrepareQuery(ctx context.Context, q *sql.Select, params *sql.Params) (Query, error)
	RunQuery(ctx context.Context, q Query, args []any) (*stmt.Result, error)
	// InputStyle is how the session's DateStyle reads date/time text.
	InputStyle() sql.InputStyle
	// BatchSize is the rows in a batch the engine reads and writes.
	BatchSize() int
	// FileReadRoots are the directories read_csv and read_parquet may read
	// (serve --allow-file-read); none refuses every file.
	FileReadRoots() []string
}

// Query is a SELECT the session planned, kept for RunQuery; only the port
// that made it knows what it holds.
type Query any

// Target is a table as a load writes it.
type Target struct {
	Relation string     // the table's own name, for constraint messages
	Scope    *sql.Scope // the table's columns
	// Feeds gives, per table column, the input field that feeds it (-1:
	// none); Require marks the columns that are NOT NULL.
	Feeds   []int
	Require []bool
	Schema  *arrow.Schema // the table's Arrow schema
	Width   int           // the fields an input record holds
	// Append writes the batches and publishes them as one append, the way
	// the session writes: committed now, or staged in its open block.
	Append func(ctx context.Context, rows iter.Seq2[arrow.RecordBatch, error]) (int64, error)
}

// Plan is a prepared COPY, run by the session executing it.
type Plan func(ctx context.Context, p Port, args []any) (*stmt.Result, error)
