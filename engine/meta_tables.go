package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// ErrNoSuchMetadataTable is a "t$kind" whose kind no metadata table has.
var ErrNoSuchMetadataTable = errors.New("unknown metadata table")

// MetaTable is one of the metadata tables every Iceberg table has, named
// "t$<Name>": its columns and how its rows are produced.
type MetaTable struct {
	Name string
	// Columns are the columns every table's copy has: set for the tables
	// computed here (DESCRIBE takes them from here). Nil where they follow
	// the table (iceberg-go types a partition by the table's specs, the
	// change feed carries the table's columns): they come with the rows.
	Columns []Column
	// read produces tbl's rows, with their columns.
	read func(ctx context.Context, tbl *table.Table) ([]Column, []arrow.RecordBatch, error)
}

// metaTables is the one list of metadata tables, sorted by name: name
// resolution, the query engine's source, DESCRIBE and the shell's
// completion all consult it. Some are read through iceberg-go's
// inspection, the others computed here (delete debt, properties) or by
// the lake package (the change feed).
var metaTables = []MetaTable{
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

// MetaTableNames are the names after "$" the metadata tables take, sorted.
func MetaTableNames() []string {
	names := make([]string, len(metaTables))
	for i, m := range metaTables {
		names[i] = m.Name
	}
	return names
}

// FindMetaTable is metadata table kind of table ident ("snapshots" of
// ident$snapshots). None of that name is 42P01, as any relation that does
// not exist (DROP TABLE IF EXISTS skips it), wrapping
// ErrNoSuchMetadataTable and naming the kinds there are.
func FindMetaTable(ident table.Identifier, kind string) (*MetaTable, error) {
	i := slices.IndexFunc(metaTables, func(m MetaTable) bool { return m.Name == kind })
	if i < 0 {
		return nil, &pgerr.Error{Code: pgerr.UndefinedTable, Err: ErrNoSuchMetadataTable,
			Message: fmt.Sprintf("read %s$%s: %v (known: %v)", strings.Join(ident, "."), kind, ErrNoSuchMetadataTable, MetaTableNames())}
	}
	return &metaTables[i], nil
}

// inspected is a metadata table iceberg-go's inspection reads; its columns
// are what the lake package makes of the inspection's.
func inspected(name string, read lake.Inspection) MetaTable {
	return MetaTable{Name: name, read: func(ctx context.Context, tbl *table.Table) ([]Column, []arrow.RecordBatch, error) {
		schema, data, err := lake.Inspect(ctx, tbl, name, read)
		if err != nil {
			return nil, nil, err
		}
		cols := make([]Column, schema.NumFields())
		for i, f := range schema.Fields() {
			cols[i] = Column{Name: f.Name, Type: typeFromArrow(f.Type)}
		}
		return cols, data, nil
	}}
}

// computed is a metadata table of columns cols whose rows of datums rows
// computes.
func computed(name string, cols []Column, rows func(context.Context, *table.Table) ([][]any, error)) MetaTable {
	return MetaTable{Name: name, Columns: cols, read: func(ctx context.Context, tbl *table.Table) ([]Column, []arrow.RecordBatch, error) {
		rs, err := rows(ctx, tbl)
		if err != nil {
			return nil, nil, err
		}
		b, err := DatumBatch(cols, rs)
		if err != nil {
			return nil, nil, err
		}
		return cols, []arrow.RecordBatch{b}, nil
	}}
}

var propertyColumns = []Column{{"key", sql.Text}, {"value", sql.Text}}

// propertyRows are the table's properties, format-version among them.
func propertyRows(_ context.Context, tbl *table.Table) ([][]any, error) {
	var rows [][]any
	for _, kv := range lake.TableProperties(tbl) {
		rows = append(rows, []any{kv[0], kv[1]})
	}
	return rows, nil
}

// DatumBatch builds one batch of rows of datums.
func DatumBatch(cols []Column, rows [][]any) (arrow.RecordBatch, error) {
	fields := make([]arrow.Field, len(cols))
	arrs := make([]arrow.Array, len(cols))
	defer releaseArrays(arrs)
	for c, col := range cols {
		fields[c] = arrow.Field{Name: col.Name, Type: col.Type.ArrowType(), Nullable: true}
		b := array.NewBuilder(memory.DefaultAllocator, col.Type.ArrowType())
		for _, r := range rows {
			if err := sql.AppendDatum(b, col.Type, r[c]); err != nil {
				b.Release()
				return nil, fmt.Errorf("column %s: %w", col.Name, err)
			}
		}
		arrs[c] = b.NewArray()
		b.Release()
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, int64(len(rows))), nil
}
