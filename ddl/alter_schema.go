package ddl

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// checkRenameTarget refuses a RENAME TO or SET SCHEMA to a name no
// Iceberg catalog takes.
func checkRenameTarget(x *sql.AlterTable) error {
	var err error
	switch a := x.Actions[0]; a.Kind {
	case sql.AlterRenameTable:
		err = lake.CheckName("table", a.NewName)
	case sql.AlterSetSchema:
		err = lake.CheckName("schema", a.NewName)
	}
	return err // the session gives it its SQLSTATE, as every statement's error
}

// alterSchema runs ALTER TABLE's schema actions, renames and SET SCHEMA.
func alterSchema(ctx context.Context, p Port, x *sql.AlterTable) (*stmt.Result, error) {
	rt, err := p.ResolveTable(ctx, x.Name)
	if err != nil {
		var se *pgerr.Error
		if x.IfExists && errors.As(err, &se) && se.Code == pgerr.UndefinedTable {
			r := stmt.TagOnly("ALTER TABLE")
			r.Notices = []stmt.Notice{stmt.NewNotice(fmt.Sprintf("relation %q does not exist, skipping", x.Name.Table))}
			return r, nil
		}
		return nil, err
	}
	if rt.Meta != "" || rt.Virtual != nil || rt.Ref != "" {
		return nil, pgerr.Errorf(pgerr.WrongObjectType, "%q is not a table", x.Name.Table)
	}
	switch a := x.Actions[0]; a.Kind {
	case sql.AlterRenameTable:
		return renameTable(ctx, p, rt.Ident, lake.Ident(rt.Ident[0], a.NewName))
	case sql.AlterSetSchema:
		return renameTable(ctx, p, rt.Ident, lake.Ident(a.NewName, rt.Ident[len(rt.Ident)-1]))
	}
	if part, err := partitionActions(x.Actions); err != nil || part {
		if err != nil {
			return nil, err
		}
		return alterPartitioning(ctx, p, rt.Ident, x.Name.Table, x.Actions)
	}
	allow, err := checkNulls(ctx, p, rt.Ident, x.Actions)
	if err != nil {
		return nil, err
	}
	var notices []stmt.Notice
	_, err = p.Warehouse().Tables().EvolveSchema(ctx, rt.Ident, allow, func(tbl *table.Table, us *table.UpdateSchema) (map[string]string, []string, error) {
		ev := &schemaEvolution{tbl: tbl, us: us, name: x.Name.Table, next: tbl.Metadata().LastColumnID() + 1,
			set: map[string]string{}, fields: map[string]iceberg.NestedField{}}
		for _, f := range tbl.Schema().Fields() {
			ev.fields[f.Name] = f
		}
		for _, a := range x.Actions {
			if err := ev.stage(ctx, a); err != nil {
				return nil, nil, err
			}
		}
		notices = ev.notices
		return ev.set, ev.remove, nil
	})
	if err != nil {
		return nil, err
	}
	r := stmt.TagOnly("ALTER TABLE")
	r.Notices = append(unreadableDefaultWarnings(rt.Table), notices...)
	return r, nil
}

// unreadableDefaultWarnings warn of the defaults of tbl that cannot be read
// (an earlier version wrote a decimal's without its value): the schema an
// ALTER TABLE commits leaves them out, as they could not be kept.
func unreadableDefaultWarnings(tbl *table.Table) []stmt.Notice {
	var out []stmt.Notice
	for _, name := range lake.UnreadableDefaults(tbl.Schema()) {
		out = append(out, stmt.Notice{Severity: "WARNING", Code: pgerr.Warning,
			Message: fmt.Sprintf("the default of column %q cannot be read and is dropped", name)})
	}
	return out
}

// schemaEvolution stages one statement's actions, tracking the columns as
// the earlier actions left them.
type schemaEvolution struct {
	tbl     *table.Table
	us      *table.UpdateSchema
	name    string // the table, as the statement named it
	next    int    // the field id the next added column gets
	fields  map[string]iceberg.NestedField
	set     map[string]string
	remove  []string
	notices []stmt.Notice
}

func (ev *schemaEvolution) stage(ctx context.Context, a sql.AlterAction) error {
	f, exists := ev.fields[a.Name]
	if a.Kind == sql.AlterAddColumn {
		return ev.add(ctx, a, exists)
	}
	if !exists {
		if a.Kind == sql.AlterDropColumn && a.IfExists {
			ev.notices = append(ev.notices, stmt.NewNotice(fmt.Sprintf("column %q of relation %q does not exist, skipping", a.Name, ev.name)))
			return nil
		}
		return pgerr.Errorf(pgerr.UndefinedColumn, "column %q of relation %q does not exist", a.Name, ev.name)
	}
	switch a.Kind {
	case sql.AlterDropColumn:
		return ev.drop(f)
	case sql.AlterRenameColumn:
		if _, taken := ev.fields[a.NewName]; taken {
			return pgerr.Errorf(pgerr.DuplicateColumn, "column %q of relation %q already exists", a.NewName, ev.name)
		}
		ev.us.RenameColumn([]string{a.Name}, a.NewName)
		delete(ev.fields, a.Name)
		f.Name = a.NewName
		ev.fields[a.NewName] = f
	case sql.AlterColumnType:
		return ev.retype(f, a.Column.Type)
	case sql.AlterSetNotNull:
		ev.us.UpdateColumn([]string{f.Name}, table.ColumnUpdate{Required: iceberg.Optional[bool]{Valid: true, Val: true}})
	case sql.AlterDropNotNull:
		if ev.identifier(f) {
			return pgerr.Errorf(pgerr.InvalidTableDefinition, "column %q is in a primary key", f.Name)
		}
		ev.us.UpdateColumn([]string{f.Name}, table.ColumnUpdate{Required: iceberg.Optional[bool]{Valid: true, Val: false}})
	case sql.AlterSetDefault, sql.AlterDropDefault:
		return ev.setDefault(ctx, f, a)
	}
	return nil
}

func (ev *schemaEvolution) add(ctx context.Context, a sql.AlterAction, exists bool) error {
	if exists {
		if a.IfExists {
			ev.notices = append(ev.notices, stmt.NewNotice(fmt.Sprintf("column %q of relation %q already exists, skipping", a.Name, ev.name)))
			return nil
		}
		return pgerr.Errorf(pgerr.DuplicateColumn, "column %q of relation %q already exists", a.Name, ev.name)
	}
	it, err := a.Column.Type.IcebergType()
	if err != nil {
		return err
	}
	def, err := columnDefault(ctx, a.Column, ev.tbl.Metadata().Version())
	if err != nil {
		return err
	}
	ev.us.AddColumn([]string{a.Name}, it, "", a.Column.NotNull, def)
	id := ev.next
	ev.next++
	if sql.Narrowed(a.Column.Type) {
		ev.set[sql.DeclaredTypePrefix+strconv.Itoa(id)] = a.Column.Type.String()
	}
	ev.fields[a.Name] = iceberg.NestedField{ID: id, Name: a.Name, Type: it, Required: a.Column.NotNull}
	return nil
}

func (ev *schemaEvolution) drop(f iceberg.NestedField) error {
	for _, spec := range ev.tbl.Metadata().PartitionSpecs() {
		for _, pf := range spec.Fields() {
			if pf.SourceID() == f.ID {
				return &pgerr.Error{Code: pgerr.DependentObjectsStillExist,
					Message: fmt.Sprintf("cannot drop column %s of table %s because the table is partitioned by it", f.Name, ev.name),
					Hint:    "Iceberg keeps every partition spec's source columns; recreate the table to drop it."}
			}
		}
	}
	if len(ev.fields) == 1 {
		return pgerr.Errorf(pgerr.FeatureNotSupported, "cannot drop the last column of table %s: an Iceberg schema needs one", ev.name)
	}
	if ev.identifier(f) {
		return pgerr.Errorf(pgerr.DependentObjectsStillExist, "cannot drop column %s of table %s because it is an identifier field", f.Name, ev.name)
	}
	ev.us.DeleteColumn([]string{f.Name})
	delete(ev.fields, f.Name)
	ev.remove = append(ev.remove, sql.DeclaredTypePrefix+strconv.Itoa(f.ID))
	return nil
}

func (ev *schemaEvolution) identifier(f iceberg.NestedField) bool {
	for _, id := range ev.tbl.Schema().IdentifierFieldIDs {
		if id == f.ID {
			return true
		}
	}
	return false
}

// retype changes a column's type the ways Iceberg can without rewriting a
// file: int to bigint, real to double precision, a wider decimal of the
// same scale, and for varchar(n) and smallint (Iceberg strings and ints) a
// wider declared type.
func (ev *schemaEvolution) retype(f iceberg.NestedField, to sql.Type) error {
	declared := sql.DeclaredTypes(ev.tbl.Properties(), []iceberg.NestedField{f})
	from := sql.TypeFromIceberg(f.Type)
	if d, ok := declared[0]; ok {
		from = d
	}
	it, err := to.IcebergType()
	if err != nil {
		return err
	}
	if from.Kind == sql.KindDate && to.Kind == sql.KindTimestamp {
		return &pgerr.Error{Code: pgerr.FeatureNotSupported,
			Message: fmt.Sprintf("cannot change the type of column %q from date to timestamp", f.Name),
			Hint:    "Iceberg's format version 3 allows it, but iceberg-go v0.7.0, which magmalake reads files with, cannot read the older files' dates as timestamps."}
	}
	if !widens(from, to) {
		return &pgerr.Error{Code: pgerr.FeatureNotSupported,
			Message: fmt.Sprintf("cannot change the type of column %q from %s to %s", f.Name, from, to),
			Hint:    "Iceberg changes a type only by widening it (integer to bigint, real to double precision, a decimal to more digits of the same scale, varchar(n) to a longer varchar or text); it never rewrites data files."}
	}
	if !it.Equals(f.Type) {
		ev.us.UpdateColumn([]string{f.Name}, table.ColumnUpdate{FieldType: iceberg.Optional[iceberg.Type]{Valid: true, Val: it}})
	}
	key := sql.DeclaredTypePrefix + strconv.Itoa(f.ID)
	if sql.Narrowed(to) {
		ev.set[key] = to.String()
	} else if _, ok := declared[0]; ok {
		ev.remove = append(ev.remove, key)
	}
	f.Type = it
	ev.fields[f.Name] = f
	return nil
}

// widens reports whether every value of from is a value of to.
func widens(from, to sql.Type) bool {
	if from.String() == to.String() {
		return true
	}
	switch from.Kind {
	case sql.KindVarchar:
		if from.Bpchar || to.Bpchar {
			return false // char(n) values are padded to n
		}
		return to.Kind == sql.KindText || to.Kind == sql.KindVarchar && (to.Length == 0 || from.Length > 0 && to.Length >= from.Length)
	case sql.KindText:
		return to.Kind == sql.KindVarchar && to.Length == 0 && !to.Bpchar
	case sql.KindNumeric:
		return to.Kind == sql.KindNumeric && from.Precision > 0 && to.Scale == from.Scale && to.Precision >= from.Precision
	case sql.KindFloat32:
		return to.Kind == sql.KindFloat64
	}
	rank := map[sql.Kind]int{sql.KindInt16: 1, sql.KindInt32: 2, sql.KindInt64: 3}
	return rank[from.Kind] > 0 && rank[to.Kind] > rank[from.Kind]
}

// checkNulls refuses SET NOT NULL, and ADD COLUMN ... NOT NULL, on a table
// with rows that would break it, as PostgreSQL does (23502); true when
// the change may then make columns required.
func checkNulls(ctx context.Context, p Port, ident table.Identifier, actions []sql.AlterAction) (bool, error) {
	allow := false
	for _, a := range actions {
		var cond string
		switch {
		case a.Kind == sql.AlterSetNotNull:
			cond = sql.QuoteIdent(a.Name) + " IS NULL"
		case a.Kind == sql.AlterAddColumn && a.Column.NotNull && nonNullDefault(ctx, a.Column):
			allow = true // old rows read the default
			continue
		case a.Kind == sql.AlterAddColumn && a.Column.NotNull:
			cond = "true"
		default:
			continue
		}
		allow = true
		found, err := anyRow(ctx, p, ident, cond)
		if err != nil {
			return false, err
		}
		if found {
			return false, &pgerr.Error{Code: pgerr.NotNullViolation,
				Message: fmt.Sprintf("column %q of relation %q contains null values", a.Name, ident[len(ident)-1])}
		}
	}
	return allow, nil
}

// anyRow reports whether a row of the table meets cond (SQL text), on
// main or on any branch: the schema is every branch's. Each is read by
// name ("t@b"), whatever branch the session writes.
func anyRow(ctx context.Context, p Port, ident table.Identifier, cond string) (bool, error) {
	tbl, err := p.Warehouse().LoadTable(ctx, ident)
	if err != nil {
		return false, err
	}
	for name, ref := range tbl.Metadata().Refs() {
		if ref.SnapshotRefType != table.BranchRef {
			continue
		}
		at := slices.Clone(ident)
		at[len(at)-1] += "@" + name
		if found, err := p.AnyRow(ctx, at, cond); err != nil || found {
			return found, err
		}
	}
	return false, nil
}

// renameTable is ALTER TABLE ... RENAME TO and SET SCHEMA.
func renameTable(ctx context.Context, p Port, from, to table.Identifier) (*stmt.Result, error) {
	if ok, err := p.Warehouse().Tables().NamespaceExists(ctx, to[0]); err != nil {
		return nil, err
	} else if !ok {
		return nil, pgerr.Errorf(pgerr.InvalidSchemaName, "schema %q does not exist", to[0])
	}
	err := p.Warehouse().Tables().RenameTable(ctx, from, to)
	if errors.Is(err, lake.ErrTableExists) {
		return nil, pgerr.Errorf(pgerr.DuplicateTable, "relation %q already exists", to[len(to)-1])
	}
	if err != nil {
		return nil, err
	}
	return stmt.TagOnly("ALTER TABLE"), nil
}
