package metatable

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/sql"
)

// changesTable is the change feed, "t$changes" (lake.Changes): the
// table's columns with their declared types, then the feed's own.
func changesTable() Table {
	return Table{Name: "changes", read: changesRows}
}

func changesRows(ctx context.Context, tbl *table.Table) ([]sql.Column, []arrow.RecordBatch, error) {
	schema, data, err := lake.Changes(ctx, tbl)
	if err != nil {
		return nil, nil, err
	}
	fields := tbl.Schema().Fields()
	types := sql.ColumnTypes(tbl.Properties(), fields)
	cols := make([]sql.Column, schema.NumFields())
	for i, f := range schema.Fields() {
		t := sql.TypeFromArrow(f.Type)
		if i < len(types) {
			t = types[i]
		}
		cols[i] = sql.Column{Name: f.Name, Type: t}
	}
	return cols, data, nil
}
