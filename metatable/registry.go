package metatable

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// ErrUnknown is a "t$kind" whose kind no metadata table has.
var ErrUnknown = errors.New("unknown metadata table")

// Table is one of the metadata tables every Iceberg table has, named
// "t$<Name>": its columns and how its rows are produced.
type Table struct {
	Name string
	// Columns are the columns every table's copy has: set for the tables
	// computed here (DESCRIBE takes them from here). Nil where they follow
	// the table (iceberg-go types a partition by the table's specs, the
	// change feed carries the table's columns): they come with the rows.
	Columns []sql.Column
	// read produces tbl's rows, with their columns.
	read func(ctx context.Context, tbl *table.Table) ([]sql.Column, []arrow.RecordBatch, error)
}

// metaTables is the one list of metadata tables, sorted by name: name
// resolution, the query engine's source, DESCRIBE and the shell's
// completion all consult it. Some are read through iceberg-go's
// inspection, the others computed here (delete debt, properties) or by
// the lake package (the change feed).
var metaTables = []Table{
	changesTable(),
	inspected("data_files", table.InspectTable.DataFiles),
	computed("delete_debt", debtColumns, debtRows),
	computed("delete_debt_summary", debtSummaryColumns, debtSummaryRows),
	inspected("delete_files", table.InspectTable.DeleteFiles),
	inspected("entries", table.InspectTable.Entries),
	inspected("files", table.InspectTable.Files),
	inspected("history", table.InspectTable.History),
	inspected("manifests", table.InspectTable.Manifests),
	inspected("partitions", table.InspectTable.Partitions),
	computed("properties", propertyColumns, propertyRows),
	inspected("refs", table.InspectTable.Refs),
	inspected("snapshots", table.InspectTable.Snapshots),
}

// Names are the names after "$" the metadata tables take, sorted.
func Names() []string {
	names := make([]string, len(metaTables))
	for i, m := range metaTables {
		names[i] = m.Name
	}
	return names
}

// Find is metadata table kind of table ident ("snapshots" of
// ident$snapshots). None of that name is 42P01, as any relation that does
// not exist (DROP TABLE IF EXISTS skips it), wrapping
// ErrUnknown and naming the kinds there are.
func Find(ident table.Identifier, kind string) (*Table, error) {
	i := slices.IndexFunc(metaTables, func(m Table) bool { return m.Name == kind })
	if i < 0 {
		return nil, &pgerr.Error{Code: pgerr.UndefinedTable, Err: ErrUnknown,
			Message: fmt.Sprintf("read %s$%s: %v (known: %v)", strings.Join(ident, "."), kind, ErrUnknown, Names())}
	}
	return &metaTables[i], nil
}

// inspected is a metadata table iceberg-go's inspection reads; its columns
// are what the lake package makes of the inspection's.
func inspected(name string, read lake.Inspection) Table {
	return Table{Name: name, read: func(ctx context.Context, tbl *table.Table) ([]sql.Column, []arrow.RecordBatch, error) {
		schema, data, err := lake.Inspect(ctx, tbl, name, read)
		if err != nil {
			return nil, nil, err
		}
		cols := make([]sql.Column, schema.NumFields())
		for i, f := range schema.Fields() {
			cols[i] = sql.Column{Name: f.Name, Type: sql.TypeFromArrow(f.Type)}
		}
		return cols, data, nil
	}}
}

// computed is a metadata table of columns cols whose rows of datums rows
// computes.
func computed(name string, cols []sql.Column, rows func(context.Context, *table.Table) ([][]any, error)) Table {
	return Table{Name: name, Columns: cols, read: func(ctx context.Context, tbl *table.Table) ([]sql.Column, []arrow.RecordBatch, error) {
		rs, err := rows(ctx, tbl)
		if err != nil {
			return nil, nil, err
		}
		b, err := sql.DatumBatch(cols, rs)
		if err != nil {
			return nil, nil, err
		}
		return cols, []arrow.RecordBatch{b}, nil
	}}
}

var propertyColumns = []sql.Column{{Name: "key", Type: sql.Text}, {Name: "value", Type: sql.Text}}

// propertyRows are the table's properties, format-version among them.
func propertyRows(_ context.Context, tbl *table.Table) ([][]any, error) {
	var rows [][]any
	for _, kv := range lake.TableProperties(tbl) {
		rows = append(rows, []any{kv[0], kv[1]})
	}
	return rows, nil
}

// Read produces tbl's rows of this metadata table, with their columns.
func (m *Table) Read(ctx context.Context, tbl *table.Table) ([]sql.Column, []arrow.RecordBatch, error) {
	return m.read(ctx, tbl)
}

// ColumnsOf are the columns of this metadata table of tbl as a query sees
// them: DESCRIBE shows these, not the base table's. Those the registry
// lists need no rows read (t$delete_debt plans every delete).
func (m *Table) ColumnsOf(ctx context.Context, tbl *table.Table) ([]sql.Column, error) {
	if m.Columns != nil {
		return slices.Clone(m.Columns), nil
	}
	cols, data, err := m.read(ctx, tbl)
	for _, b := range data {
		b.Release()
	}
	return cols, err
}
