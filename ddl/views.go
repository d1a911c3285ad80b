package ddl

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// createView stores the query as an Iceberg view after planning it: its
// errors are the CREATE's, its columns the view's schema.
func createView(ctx context.Context, p Port, x *sql.CreateView) (*stmt.Result, error) {
	ns, err := p.CreationSchema(ctx, x.Name)
	if err != nil {
		return nil, err
	}
	ident := lake.Ident(ns, x.Name.Table)
	cols, err := p.QueryColumns(ctx, x.Query)
	if err != nil {
		return nil, err
	}
	schema, err := viewSchema(cols, x.Columns)
	if err != nil {
		return nil, err
	}
	if _, err := p.Warehouse().LoadTable(ctx, ident); err == nil {
		if x.OrReplace {
			return nil, pgerr.Errorf(pgerr.WrongObjectType, "%q is not a view", x.Name.Table)
		}
		return nil, pgerr.Errorf(pgerr.DuplicateTable, "relation %q already exists", x.Name.Table)
	}
	var replaced *lake.View
	if x.OrReplace {
		if replaced, err = replaceableView(ctx, p, ident, schema); err != nil {
			return nil, err
		}
	}
	props := iceberg.Properties{"magmalake.dialect": "postgresql"}
	types := make([]sql.Type, len(cols))
	for i, c := range cols {
		types[i] = c.Type
	}
	maps.Copy(props, sql.ViewTypeProps(types, schema.Fields()))
	err = p.Warehouse().Views().CreateView(ctx, ident, schema, x.Definition, props)
	if err != nil && replaced != nil {
		// The catalog has no atomic replace: put the old view back rather
		// than lose it.
		err = errors.Join(err, p.Warehouse().Views().CreateView(ctx, ident, replaced.Schema, replaced.SQL, replaced.Properties))
	}
	switch {
	case errors.Is(err, lake.ErrViewExists):
		return nil, pgerr.Errorf(pgerr.DuplicateTable, "relation %q already exists", x.Name.Table)
	case errors.Is(err, lake.ErrViewsUnsupported):
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "%v", err)
	case errors.Is(err, lake.ErrNoSuchNamespace):
		return nil, pgerr.Errorf(pgerr.InvalidSchemaName, "schema %q does not exist", ns)
	case err != nil:
		return nil, err
	}
	return stmt.TagOnly("CREATE VIEW"), nil
}

// replaceableView drops the view CREATE OR REPLACE replaces, once the new
// columns keep the old ones' names in order, as PostgreSQL requires; it
// returns the dropped view (nil: there was none).
func replaceableView(ctx context.Context, p Port, ident table.Identifier, schema *iceberg.Schema) (*lake.View, error) {
	old, err := p.Warehouse().Views().LoadView(ctx, ident)
	if errors.Is(err, lake.ErrNoSuchView) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	olds, news := old.Schema.Fields(), schema.Fields()
	if len(news) < len(olds) {
		return nil, pgerr.Errorf(pgerr.InvalidTableDefinition, "cannot drop columns from view")
	}
	for i, f := range olds {
		if news[i].Name != f.Name {
			return nil, pgerr.Errorf(pgerr.InvalidTableDefinition, "cannot change name of view column %q to %q", f.Name, news[i].Name)
		}
	}
	return old, p.Warehouse().Views().DropView(ctx, ident)
}

// viewSchema is the view's columns as an Iceberg schema; a type Iceberg
// cannot hold (an unbounded numeric, an interval) is described as a string.
func viewSchema(cols []stmt.Column, names []string) (*iceberg.Schema, error) {
	if len(names) > len(cols) {
		return nil, pgerr.Errorf(pgerr.SyntaxError, "CREATE VIEW specifies more column names than columns")
	}
	fields := make([]iceberg.NestedField, len(cols))
	var seen []string
	for i, c := range cols {
		name := c.Name
		if i < len(names) {
			name = names[i]
		}
		if slices.Contains(seen, name) {
			return nil, pgerr.Errorf(pgerr.DuplicateColumn, "column %q specified more than once", name)
		}
		seen = append(seen, name)
		t, err := c.Type.IcebergType()
		if err != nil {
			t = iceberg.PrimitiveTypes.String
		}
		fields[i] = iceberg.NestedField{ID: i + 1, Name: name, Type: t}
	}
	return iceberg.NewSchema(0, fields...), nil
}

// dropView removes a view; a table's name is 42809, as in PostgreSQL.
func dropView(ctx context.Context, p Port, x *sql.DropView) (*stmt.Result, error) {
	v, found, err := p.FindView(ctx, x.Name)
	if err != nil {
		return nil, err
	}
	if !found {
		if _, err := p.ResolveTable(ctx, x.Name); err == nil {
			return nil, &pgerr.Error{Code: pgerr.WrongObjectType, Message: fmt.Sprintf("%q is not a view", x.Name.Table),
				Hint: "Use DROP TABLE to remove a table."}
		}
		if x.IfExists {
			r := stmt.TagOnly("DROP VIEW")
			r.Notices = []stmt.Notice{stmt.NewNotice(fmt.Sprintf("view %q does not exist, skipping", x.Name.Table))}
			return r, nil
		}
		return nil, pgerr.Errorf(pgerr.UndefinedTable, "view %q does not exist", x.Name.Table)
	}
	if b := p.Block(); b != nil {
		b.HideView(v.Ident)
		ident := v.Ident
		wh := p.Warehouse()
		b.AtCommit(func(ctx context.Context) error { return wh.Views().DropView(ctx, ident) })
		return stmt.TagOnly("DROP VIEW"), nil
	}
	if err := p.Warehouse().Views().DropView(ctx, v.Ident); err != nil {
		return nil, err
	}
	return stmt.TagOnly("DROP VIEW"), nil
}
