// Package deletes is magmalake's row-level delete engine: it plans which rows
// of which data files a delete takes out, writes deletion vectors, position
// delete files or rewritten data files, and stages them as one commit. It
// knows no SQL: the executor hands it a Predicate.
package deletes

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
)

// Predicate is what the executor builds from a WHERE clause.
type Predicate struct {
	// Filter is implied by the WHERE (unbound, by column name), so it is safe
	// for pruning; AlwaysTrue when there is no WHERE or nothing translates.
	Filter iceberg.BooleanExpression
	// Exact says Filter is equivalent to the WHERE: rows where Filter is true
	// are exactly the matches. Only then may a file be dropped from its
	// partition data alone.
	Exact bool
	// Columns are the table columns Match needs, in order.
	Columns []string
	// Match gets a batch holding Columns in order (current schema, types as
	// iceberg-go reads them) and returns true for each row to delete.
	Match func(ctx context.Context, batch arrow.RecordBatch) ([]bool, error)
}

// Mode is the table's write.delete.mode.
type Mode string

// Delete modes, spelled as the table property spells them.
const (
	ModeCopyOnWrite Mode = "copy-on-write"
	ModeMergeOnRead Mode = "merge-on-read"
)

// PropDeleteMode is the table property choosing the strategy.
const PropDeleteMode = "write.delete.mode"

// ModeOf is the delete mode in props, defaulting to copy-on-write as Java does.
func ModeOf(props iceberg.Properties) Mode { return modeProp(props, PropDeleteMode) }

// modeProp reads a write.*.mode property: merge-on-read, else Java's
// default, copy-on-write.
func modeProp(props iceberg.Properties, key string) Mode {
	if Mode(props[key]) == ModeMergeOnRead {
		return ModeMergeOnRead
	}
	return ModeCopyOnWrite
}

func (p Predicate) filter() iceberg.BooleanExpression {
	if p.Filter == nil {
		return iceberg.AlwaysTrue{}
	}
	return p.Filter
}
