package engine

import (
	"context"

	"github.com/magmalake/magmalake/iceberg"
	"github.com/magmalake/magmalake/sql"
)

// changesMeta is the change feed's metadata table, "t$changes"
// (iceberg.Changes).
const changesMeta = "changes"

// openChangesSource reads the change feed: the table's columns with their
// declared types, then the feed's own.
func openChangesSource(ctx context.Context, rt *Table, qual string) (source, error) {
	schema, data, err := iceberg.Changes(ctx, rt.Table)
	if err != nil {
		return nil, err
	}
	fields := rt.Table.Schema().Fields()
	types := sql.ColumnTypes(rt.Table.Properties(), fields)
	m := &metaSource{sc: &sql.Scope{}, data: data}
	for i, f := range schema.Fields() {
		t := typeFromArrow(f.Type)
		if i < len(types) {
			t = types[i]
		}
		m.sc.Columns = append(m.sc.Columns, sql.ScopeColumn{Table: qual, Name: f.Name, T: t})
		m.cols = append(m.cols, i)
	}
	return m, nil
}
