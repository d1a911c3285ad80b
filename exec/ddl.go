package exec

import (
	"context"
	"errors"
	"fmt"

	ice "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/deletes"
	"github.com/magmalake/magmalake/iceberg"
	"github.com/magmalake/magmalake/maintenance"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// prepareDDL plans schema and table definition statements. They bind
// nothing, so all work happens at execution.
func (s *Session) prepareDDL(st sql.Statement) (plan, []stmt.Column, error) {
	run := func(ctx context.Context, s *Session, _ []Param) (*stmt.Result, error) {
		if s.tx.checkWrite() != nil {
			return nil, pgerr.Errorf(pgerr.ReadOnlySQLTransaction, "cannot execute %s in a read-only transaction", ddlVerb(st))
		}
		if s.tx.active {
			return s.ddlInBlock(ctx, st)
		}
		switch x := st.(type) {
		case *sql.CreateSchema:
			return s.createSchema(ctx, x)
		case *sql.DropSchema:
			return s.dropSchema(ctx, x)
		case *sql.CreateTable:
			return s.createTable(ctx, x)
		case *sql.DropTable:
			return s.dropTable(ctx, x)
		case *sql.AlterTableProperties:
			return s.alterTable(ctx, x)
		case *sql.AlterTable:
			return s.alterSchema(ctx, x)
		case *sql.CreateView:
			return s.createView(ctx, x)
		case *sql.DropView:
			return s.dropView(ctx, x)
		}
		return nil, notSupported("this statement is not supported")
	}
	return planFunc(run), nil, nil
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

func notice(msg string) stmt.Notice {
	return stmt.Notice{Severity: "NOTICE", Code: pgerr.SuccessfulCompletion, Message: msg}
}

func (s *Session) createSchema(ctx context.Context, x *sql.CreateSchema) (*stmt.Result, error) {
	err := s.engine.wh.CreateNamespace(ctx, x.Name)
	if errors.Is(err, iceberg.ErrNamespaceExists) {
		if x.IfNotExists {
			r := tagOnly("CREATE SCHEMA")
			r.Notices = []stmt.Notice{{Severity: "NOTICE", Code: pgerr.DuplicateSchema, Message: fmt.Sprintf("schema %q already exists, skipping", x.Name)}}
			return r, nil
		}
		return nil, pgerr.Errorf(pgerr.DuplicateSchema, "schema %q already exists", x.Name)
	}
	if err != nil {
		return nil, err
	}
	return tagOnly("CREATE SCHEMA"), nil
}

func (s *Session) dropSchema(ctx context.Context, x *sql.DropSchema) (*stmt.Result, error) {
	ok, err := s.engine.wh.NamespaceExists(ctx, x.Name)
	if err != nil {
		return nil, err
	}
	if !ok {
		if x.IfExists {
			r := tagOnly("DROP SCHEMA")
			r.Notices = []stmt.Notice{notice(fmt.Sprintf("schema %q does not exist, skipping", x.Name))}
			return r, nil
		}
		return nil, pgerr.Errorf(pgerr.InvalidSchemaName, "schema %q does not exist", x.Name)
	}
	tables, err := s.engine.wh.ListTables(ctx, x.Name)
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
		if err := s.engine.wh.DropTable(ctx, iceberg.Ident(x.Name, t), false); err != nil {
			return nil, err
		}
		notices = append(notices, notice(fmt.Sprintf("drop cascades to table %s.%s", x.Name, t)))
	}
	if err := s.engine.wh.DropNamespace(ctx, x.Name); err != nil {
		return nil, err
	}
	r := tagOnly("DROP SCHEMA")
	r.Notices = notices
	return r, nil
}

func (s *Session) createTable(ctx context.Context, x *sql.CreateTable) (*stmt.Result, error) {
	schema, err := s.creationSchema(ctx, x.Name)
	if err != nil {
		return nil, err
	}
	if x.Like != nil {
		if x, err = s.withLikeColumns(ctx, x); err != nil {
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
	if err := checkProperties(x.Properties); err != nil {
		return nil, err
	}
	props := declaredTypeProps(x.Columns)
	for k, v := range x.Properties {
		props[k] = v
	}
	_, err = s.engine.wh.CreateTable(ctx, iceberg.Ident(schema, x.Name.Table), sc, spec, props)
	switch {
	case errors.Is(err, iceberg.ErrTableExists) && x.IfNotExists:
		r := tagOnly("CREATE TABLE")
		r.Notices = []stmt.Notice{{Severity: "NOTICE", Code: pgerr.DuplicateTable, Message: fmt.Sprintf("relation %q already exists, skipping", x.Name.Table)}}
		return r, nil
	case errors.Is(err, iceberg.ErrTableExists):
		return nil, pgerr.Errorf(pgerr.DuplicateTable, "relation %q already exists", x.Name.Table)
	case errors.Is(err, iceberg.ErrNoSuchNamespace):
		return nil, pgerr.Errorf(pgerr.InvalidSchemaName, "schema %q does not exist", schema)
	case errors.Is(err, iceberg.ErrInvalidTransform):
		return nil, &pgerr.Error{Code: pgerr.DatatypeMismatch, Message: err.Error(), Err: err}
	case err != nil:
		return nil, err
	}
	return tagOnly("CREATE TABLE"), nil
}

// icebergSchema maps column definitions to an Iceberg schema of format
// version; the catalog assigns the final field ids.
func icebergSchema(ctx context.Context, cols []sql.ColumnDef, version int) (*ice.Schema, error) {
	if len(cols) == 0 {
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "a table needs at least one column")
	}
	seen := map[string]bool{}
	fields := make([]ice.NestedField, len(cols))
	for i, c := range cols {
		if seen[c.Name] {
			return nil, pgerr.Errorf(pgerr.DuplicateColumn, "column %q specified more than once", c.Name)
		}
		seen[c.Name] = true
		t, err := c.Type.IcebergType()
		if err != nil {
			return nil, err
		}
		fields[i] = ice.NestedField{ID: i + 1, Name: c.Name, Type: t, Required: c.NotNull}
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
	return ice.NewSchema(0, fields...), nil
}

// partitionSpec maps PARTITIONED BY entries to Iceberg transforms.
func partitionSpec(parts []sql.PartitionField, cols []sql.ColumnDef) (iceberg.TableSpec, error) {
	var spec iceberg.TableSpec
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
		spec.Fields = append(spec.Fields, iceberg.PartitionField{Source: p.Column, Transform: t})
	}
	return spec, nil
}

// icebergTransform is the Iceberg transform of a PARTITIONED BY entry.
func icebergTransform(p sql.PartitionField) (ice.Transform, error) {
	switch p.Transform {
	case "identity":
		return ice.IdentityTransform{}, nil
	case "year":
		return ice.YearTransform{}, nil
	case "month":
		return ice.MonthTransform{}, nil
	case "day":
		return ice.DayTransform{}, nil
	case "hour":
		return ice.HourTransform{}, nil
	case "bucket":
		if p.Param <= 0 {
			return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "bucket count must be positive, got %d", p.Param)
		}
		return ice.BucketTransform{NumBuckets: p.Param}, nil
	case "truncate":
		if p.Param <= 0 {
			return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "truncate width must be positive, got %d", p.Param)
		}
		return ice.TruncateTransform{Width: p.Param}, nil
	}
	return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "partition transform %q is not supported", p.Transform)
}

// checkProperties rejects values of the properties magmalake acts on that
// it would otherwise silently ignore.
func checkProperties(props map[string]string) error {
	for _, k := range []string{"write.delete.mode", "write.update.mode", "write.merge.mode"} {
		if v, ok := props[k]; ok && v != "copy-on-write" && v != "merge-on-read" {
			return pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for table property %q: %q (copy-on-write or merge-on-read)", k, v)
		}
	}
	for _, k := range []string{deletes.PropRewriteRatio, maintenance.PropVacuumRatioThreshold} {
		if v, ok := props[k]; ok {
			if _, err := maintenance.ParseRatio(v); err != nil {
				return pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for table property %q: %q (a number from 0 to 1)", k, v)
			}
		}
	}
	if v, ok := props[maintenance.PropVacuumSizeThreshold]; ok {
		if _, err := maintenance.ParseByteSize(v); err != nil {
			return pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for table property %q: %q (a size such as '128MB')", maintenance.PropVacuumSizeThreshold, v)
		}
	}
	if v, ok := props[maintenance.PropAutoVacuumEnabled]; ok && v != "true" && v != "false" {
		return pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for table property %q: %q (true or false)", maintenance.PropAutoVacuumEnabled, v)
	}
	return nil
}

func (s *Session) dropTable(ctx context.Context, x *sql.DropTable) (*stmt.Result, error) {
	ident, err := s.dropTarget(ctx, x.Name)
	if err != nil {
		var se *pgerr.Error
		if x.IfExists && errors.As(err, &se) && se.Code == pgerr.UndefinedTable {
			r := tagOnly("DROP TABLE")
			r.Notices = []stmt.Notice{notice(fmt.Sprintf("table %q does not exist, skipping", x.Name.Table))}
			return r, nil
		}
		return nil, err
	}
	if err := s.engine.wh.DropTable(ctx, ident, x.Purge); err != nil {
		return nil, err
	}
	return tagOnly("DROP TABLE"), nil
}

// propertiesTarget resolves the table ALTER TABLE SET/RESET changes.
func (s *Session) propertiesTarget(ctx context.Context, n sql.TableName) (*resolvedTable, error) {
	rt, err := s.resolveTable(ctx, n)
	if err != nil {
		return nil, err
	}
	if err := tableItself(rt, n); err != nil {
		return nil, err
	}
	return rt, nil
}

// dropTarget resolves a table to drop; a table whose metadata cannot be
// read can still be dropped, so the catalog can be repaired from SQL.
func (s *Session) dropTarget(ctx context.Context, n sql.TableName) (table.Identifier, error) {
	rt, err := s.resolveTable(ctx, n)
	if err == nil {
		if err := tableItself(rt, n); err != nil {
			return nil, err
		}
		return rt.Ident, nil
	}
	if !errors.Is(err, iceberg.ErrCorruptMetadata) {
		return nil, err
	}
	schema, serr := s.creationSchema(ctx, n)
	if serr != nil {
		return nil, err
	}
	return iceberg.Ident(schema, n.Table), nil
}

func (s *Session) alterTable(ctx context.Context, x *sql.AlterTableProperties) (*stmt.Result, error) {
	rt, err := s.propertiesTarget(ctx, x.Name)
	if err != nil {
		return nil, err
	}
	if len(x.Set) > 0 {
		if err := checkProperties(x.Set); err != nil {
			return nil, err
		}
		if _, err := s.engine.wh.SetProperties(ctx, rt.Ident, x.Set); err != nil {
			return nil, err
		}
	}
	if len(x.Reset) > 0 {
		if _, err := s.engine.wh.RemoveProperties(ctx, rt.Ident, x.Reset); err != nil {
			return nil, err
		}
	}
	return tagOnly("ALTER TABLE"), nil
}

// withLikeColumns puts the LIKE source's columns (declared types, NOT
// NULL, defaults when included) where LIKE stands among the statement's
// own.
func (s *Session) withLikeColumns(ctx context.Context, x *sql.CreateTable) (*sql.CreateTable, error) {
	rt, err := s.resolveTable(ctx, *x.Like)
	if err != nil {
		return nil, err
	}
	if rt.Meta != "" {
		return nil, pgerr.Errorf(pgerr.WrongObjectType, "%q is a metadata table; LIKE takes a table", x.Like.Table)
	}
	declared := declaredTypes(rt.Table)
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
