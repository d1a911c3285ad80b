package ddl

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// Run runs one schema, table or view definition statement; inside a
// transaction block, Block stages what runs at COMMIT or is undone at
// ROLLBACK.
func Run(ctx context.Context, p Port, st sql.Statement) (*stmt.Result, error) {
	if p.CheckWrite() != nil {
		return nil, pgerr.Errorf(pgerr.ReadOnlySQLTransaction, "cannot execute %s in a read-only transaction", ddlVerb(st))
	}
	if b := p.Block(); b != nil {
		return inBlock(ctx, p, b, st)
	}
	switch x := st.(type) {
	case *sql.CreateSchema:
		return createSchema(ctx, p, x)
	case *sql.DropSchema:
		return dropSchema(ctx, p, x)
	case *sql.CreateTable:
		return createTable(ctx, p, x)
	case *sql.DropTable:
		return dropTable(ctx, p, x)
	case *sql.AlterTableProperties:
		return alterTable(ctx, p, x)
	case *sql.AlterTable:
		return alterSchema(ctx, p, x)
	case *sql.CreateView:
		return createView(ctx, p, x)
	case *sql.DropView:
		return dropView(ctx, p, x)
	}
	return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "this statement is not supported")
}

func ddlVerb(st sql.Statement) string {
	switch st.(type) {
	case *sql.CreateSchema:
		return "CREATE SCHEMA"
	case *sql.DropSchema:
		return "DROP SCHEMA"
	case *sql.CreateTable:
		return "CREATE TABLE"
	case *sql.DropTable:
		return "DROP TABLE"
	case *sql.CreateView:
		return "CREATE VIEW"
	case *sql.DropView:
		return "DROP VIEW"
	}
	return "ALTER TABLE"
}

func createSchema(ctx context.Context, p Port, x *sql.CreateSchema) (*stmt.Result, error) {
	err := p.Warehouse().Tables().CreateNamespace(ctx, x.Name)
	if errors.Is(err, lake.ErrNamespaceExists) {
		if x.IfNotExists {
			r := stmt.TagOnly("CREATE SCHEMA")
			r.Notices = []stmt.Notice{{Severity: "NOTICE", Code: pgerr.DuplicateSchema, Message: fmt.Sprintf("schema %q already exists, skipping", x.Name)}}
			return r, nil
		}
		return nil, pgerr.Errorf(pgerr.DuplicateSchema, "schema %q already exists", x.Name)
	}
	if err != nil {
		return nil, err
	}
	return stmt.TagOnly("CREATE SCHEMA"), nil
}

func dropSchema(ctx context.Context, p Port, x *sql.DropSchema) (*stmt.Result, error) {
	ok, err := p.Warehouse().Tables().NamespaceExists(ctx, x.Name)
	if err != nil {
		return nil, err
	}
	if !ok {
		if x.IfExists {
			r := stmt.TagOnly("DROP SCHEMA")
			r.Notices = []stmt.Notice{stmt.NewNotice(fmt.Sprintf("schema %q does not exist, skipping", x.Name))}
			return r, nil
		}
		return nil, pgerr.Errorf(pgerr.InvalidSchemaName, "schema %q does not exist", x.Name)
	}
	tables, err := p.Warehouse().Tables().ListTables(ctx, x.Name)
	if err != nil {
		return nil, err
	}
	if len(tables) > 0 && !x.Cascade {
		return nil, &pgerr.Error{Code: pgerr.DependentObjectsStillExist,
			Message: fmt.Sprintf("cannot drop schema %s because other objects depend on it", x.Name),
			Hint:    "Use DROP ... CASCADE to drop the dependent objects too."}
	}
	var notices []stmt.Notice
	for _, t := range tables {
		if err := p.Warehouse().Tables().DropTable(ctx, lake.Ident(x.Name, t), false); err != nil {
			return nil, err
		}
		notices = append(notices, stmt.NewNotice(fmt.Sprintf("drop cascades to table %s.%s", x.Name, t)))
	}
	if err := p.Warehouse().Tables().DropNamespace(ctx, x.Name); err != nil {
		return nil, err
	}
	r := stmt.TagOnly("DROP SCHEMA")
	r.Notices = notices
	return r, nil
}

func createTable(ctx context.Context, p Port, x *sql.CreateTable) (*stmt.Result, error) {
	schema, err := p.CreationSchema(ctx, x.Name)
	if err != nil {
		return nil, err
	}
	if x.Like != nil {
		if x, err = withLikeColumns(ctx, p, x); err != nil {
			return nil, err
		}
	}
	sc, err := icebergSchema(ctx, x.Columns, formatVersionOf(x.Properties))
	if err != nil {
		return nil, err
	}
	spec, err := partitionSpec(x.Partition, x.Columns)
	if err != nil {
		return nil, err
	}
	if err := p.CheckProperties(x.Properties); err != nil {
		return nil, err
	}
	props := declaredTypeProps(x.Columns)
	for k, v := range x.Properties {
		props[k] = v
	}
	_, err = p.Warehouse().Tables().CreateTable(ctx, lake.Ident(schema, x.Name.Table), sc, spec, props)
	switch {
	case errors.Is(err, lake.ErrTableExists) && x.IfNotExists:
		r := stmt.TagOnly("CREATE TABLE")
		r.Notices = []stmt.Notice{{Severity: "NOTICE", Code: pgerr.DuplicateTable, Message: fmt.Sprintf("relation %q already exists, skipping", x.Name.Table)}}
		return r, nil
	case errors.Is(err, lake.ErrTableExists):
		return nil, pgerr.Errorf(pgerr.DuplicateTable, "relation %q already exists", x.Name.Table)
	case errors.Is(err, lake.ErrNoSuchNamespace):
		return nil, pgerr.Errorf(pgerr.InvalidSchemaName, "schema %q does not exist", schema)
	case errors.Is(err, lake.ErrInvalidTransform):
		return nil, &pgerr.Error{Code: pgerr.DatatypeMismatch, Message: err.Error(), Err: err}
	case err != nil:
		return nil, err
	}
	return stmt.TagOnly("CREATE TABLE"), nil
}

// icebergSchema maps column definitions to an Iceberg schema of format
// version; the catalog assigns the final field ids.
func icebergSchema(ctx context.Context, cols []sql.ColumnDef, version int) (*iceberg.Schema, error) {
	if len(cols) == 0 {
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "a table needs at least one column")
	}
	seen := map[string]bool{}
	fields := make([]iceberg.NestedField, len(cols))
	for i, c := range cols {
		if seen[c.Name] {
			return nil, pgerr.Errorf(pgerr.DuplicateColumn, "column %q specified more than once", c.Name)
		}
		seen[c.Name] = true
		t, err := c.Type.IcebergType()
		if err != nil {
			return nil, err
		}
		fields[i] = iceberg.NestedField{ID: i + 1, Name: c.Name, Type: t, Required: c.NotNull}
		def, err := columnDefault(ctx, c, version)
		if err != nil {
			return nil, err
		}
		if def != nil {
			fields[i].InitialDefault, fields[i].WriteDefault = def.Any(), def.Any()
		}
		copied, err := likeDefault(c, version)
		if err != nil {
			return nil, err
		}
		if copied != nil {
			fields[i].InitialDefault, fields[i].WriteDefault = copied, copied
		}
	}
	return iceberg.NewSchema(0, fields...), nil
}

// partitionSpec maps PARTITIONED BY entries to Iceberg transforms.
func partitionSpec(parts []sql.PartitionField, cols []sql.ColumnDef) (lake.TableSpec, error) {
	var spec lake.TableSpec
	for _, p := range parts {
		found := false
		for _, c := range cols {
			found = found || c.Name == p.Column
		}
		if !found {
			return spec, pgerr.Errorf(pgerr.UndefinedColumn, "column %q named in partition key does not exist", p.Column)
		}
		t, err := icebergTransform(p)
		if err != nil {
			return spec, err
		}
		spec.Fields = append(spec.Fields, lake.PartitionField{Source: p.Column, Transform: t})
	}
	return spec, nil
}

// icebergTransform is the Iceberg transform of a PARTITIONED BY entry.
func icebergTransform(p sql.PartitionField) (iceberg.Transform, error) {
	switch p.Transform {
	case "identity":
		return iceberg.IdentityTransform{}, nil
	case "year":
		return iceberg.YearTransform{}, nil
	case "month":
		return iceberg.MonthTransform{}, nil
	case "day":
		return iceberg.DayTransform{}, nil
	case "hour":
		return iceberg.HourTransform{}, nil
	case "bucket":
		if p.Param <= 0 {
			return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "bucket count must be positive, got %d", p.Param)
		}
		return iceberg.BucketTransform{NumBuckets: p.Param}, nil
	case "truncate":
		if p.Param <= 0 {
			return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "truncate width must be positive, got %d", p.Param)
		}
		return iceberg.TruncateTransform{Width: p.Param}, nil
	}
	return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "partition transform %q is not supported", p.Transform)
}

func dropTable(ctx context.Context, p Port, x *sql.DropTable) (*stmt.Result, error) {
	ident, err := dropTarget(ctx, p, x.Name)
	if err != nil {
		var se *pgerr.Error
		if x.IfExists && errors.As(err, &se) && se.Code == pgerr.UndefinedTable {
			r := stmt.TagOnly("DROP TABLE")
			r.Notices = []stmt.Notice{stmt.NewNotice(fmt.Sprintf("table %q does not exist, skipping", x.Name.Table))}
			return r, nil
		}
		return nil, err
	}
	if err := p.Warehouse().Tables().DropTable(ctx, ident, x.Purge); err != nil {
		return nil, err
	}
	return stmt.TagOnly("DROP TABLE"), nil
}

// propertiesTarget resolves the table ALTER TABLE SET/RESET changes.
func propertiesTarget(ctx context.Context, p Port, n sql.TableName) (*plan.Table, error) {
	rt, err := p.ResolveTable(ctx, n)
	if err != nil {
		return nil, err
	}
	if err := p.TableItself(rt, n); err != nil {
		return nil, err
	}
	return rt, nil
}

// dropTarget resolves a table to drop; a table whose metadata cannot be
// read can still be dropped, so the catalog can be repaired from SQL.
func dropTarget(ctx context.Context, p Port, n sql.TableName) (table.Identifier, error) {
	rt, err := p.ResolveTable(ctx, n)
	if err == nil {
		if err := p.TableItself(rt, n); err != nil {
			return nil, err
		}
		return rt.Ident, nil
	}
	if !errors.Is(err, lake.ErrCorruptMetadata) {
		return nil, err
	}
	schema, serr := p.CreationSchema(ctx, n)
	if serr != nil {
		return nil, err
	}
	return lake.Ident(schema, n.Table), nil
}

func alterTable(ctx context.Context, p Port, x *sql.AlterTableProperties) (*stmt.Result, error) {
	rt, err := propertiesTarget(ctx, p, x.Name)
	if err != nil {
		return nil, err
	}
	if len(x.Set) > 0 {
		if err := p.CheckProperties(x.Set); err != nil {
			return nil, err
		}
		if _, err := p.Warehouse().Tables().SetProperties(ctx, rt.Ident, x.Set); err != nil {
			return nil, err
		}
	}
	if len(x.Reset) > 0 {
		if _, err := p.Warehouse().Tables().RemoveProperties(ctx, rt.Ident, x.Reset); err != nil {
			return nil, err
		}
	}
	return stmt.TagOnly("ALTER TABLE"), nil
}

// withLikeColumns puts the LIKE source's columns (declared types, NOT
// NULL, defaults when included) where LIKE stands among the statement's
// own.
func withLikeColumns(ctx context.Context, p Port, x *sql.CreateTable) (*sql.CreateTable, error) {
	rt, err := p.ResolveTable(ctx, *x.Like)
	if err != nil {
		return nil, err
	}
	if rt.Meta != "" {
		return nil, pgerr.Errorf(pgerr.WrongObjectType, "%q is a metadata table; LIKE takes a table", x.Like.Table)
	}
	declared := sql.DeclaredTypes(rt.Table.Properties(), rt.Table.Schema().Fields())
	var cols []sql.ColumnDef
	for i, f := range rt.Table.Schema().Fields() {
		t := sql.TypeFromIceberg(f.Type)
		if d, ok := declared[i]; ok {
			t = d
		}
		col := sql.ColumnDef{Name: f.Name, Type: t, NotNull: f.Required}
		if x.LikeDefaults {
			col.LikeDefault = f.WriteDefault
		}
		cols = append(cols, col)
	}
	out := *x
	out.Columns = append(append(append([]sql.ColumnDef(nil), x.Columns[:x.LikeAt]...), cols...), x.Columns[x.LikeAt:]...)
	return &out, nil
}
