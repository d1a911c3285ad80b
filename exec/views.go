package exec

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	ice "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/exec/engine"
	"github.com/magmalake/magmalake/iceberg"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// viewNamed is what resolving a table finds when the name is a view's:
// 42809 for statements that need a table, the view for queries.
type viewNamed struct {
	err  *pgerr.Error
	view *engine.Table
}

func (e *viewNamed) Error() string { return e.err.Error() }
func (e *viewNamed) Unwrap() error { return e.err }

// findView looks n up among the views of its schema, or of search_path.
func (s *Session) findView(ctx context.Context, n sql.TableName) (*engine.Table, bool, error) {
	schemas := []string{n.Schema}
	if n.Schema == "" {
		schemas = s.searchPath()
	}
	for _, ns := range schemas {
		ident := iceberg.Ident(ns, n.Table)
		if s.tx.active && s.tx.ddl.hides(viewKey(ident)) {
			continue
		}
		v, err := s.engine.wh.LoadView(ctx, ident)
		if errors.Is(err, iceberg.ErrNoSuchView) {
			continue
		}
		if err != nil {
			return nil, false, err
		}
		names := make([]string, 0, len(v.Schema.Fields()))
		for _, f := range v.Schema.Fields() {
			names = append(names, f.Name)
		}
		return &engine.Table{Ident: ident, View: &engine.View{SQL: v.SQL, Columns: names}}, true, nil
	}
	return nil, false, nil
}

// viewKey is a view's key among a block's hidden (dropped) names.
func viewKey(ident table.Identifier) table.Identifier {
	return append(table.Identifier{"view:" + ident[0]}, ident[1:]...)
}

// isAView is the error for a view where a table is needed.
func isAView(name string, v *engine.Table) error {
	return &viewNamed{view: v, err: &pgerr.Error{Code: pgerr.WrongObjectType,
		Message: fmt.Sprintf("%q is a view", name),
		Hint:    "Views are read-only: write to the tables the view reads; DROP VIEW removes it."}}
}

// createView stores the query as an Iceberg view after planning it: its
// errors are the CREATE's, its columns the view's schema.
func (s *Session) createView(ctx context.Context, x *sql.CreateView) (*stmt.Result, error) {
	ns, err := s.creationSchema(ctx, x.Name)
	if err != nil {
		return nil, err
	}
	ident := iceberg.Ident(ns, x.Name.Table)
	_, cols, err := s.prepareSelect(ctx, x.Query, &sql.Params{})
	if err != nil {
		return nil, err
	}
	schema, err := viewSchema(cols, x.Columns)
	if err != nil {
		return nil, err
	}
	if _, err := s.engine.wh.LoadTable(ctx, ident); err == nil {
		if x.OrReplace {
			return nil, pgerr.Errorf(pgerr.WrongObjectType, "%q is not a view", x.Name.Table)
		}
		return nil, pgerr.Errorf(pgerr.DuplicateTable, "relation %q already exists", x.Name.Table)
	}
	var replaced *iceberg.View
	if x.OrReplace {
		if replaced, err = s.replaceableView(ctx, ident, schema); err != nil {
			return nil, err
		}
	}
	props := ice.Properties{"magmalake.dialect": "postgresql"}
	types := make([]sql.Type, len(cols))
	for i, c := range cols {
		types[i] = c.Type
	}
	maps.Copy(props, sql.ViewTypeProps(types, schema.Fields()))
	err = s.engine.wh.CreateView(ctx, ident, schema, x.Definition, props)
	if err != nil && replaced != nil {
		// The catalog has no atomic replace: put the old view back rather
		// than lose it.
		err = errors.Join(err, s.engine.wh.CreateView(ctx, ident, replaced.Schema, replaced.SQL, replaced.Properties))
	}
	switch {
	case errors.Is(err, iceberg.ErrViewExists):
		return nil, pgerr.Errorf(pgerr.DuplicateTable, "relation %q already exists", x.Name.Table)
	case errors.Is(err, iceberg.ErrViewsUnsupported):
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "%v", err)
	case errors.Is(err, iceberg.ErrNoSuchNamespace):
		return nil, pgerr.Errorf(pgerr.InvalidSchemaName, "schema %q does not exist", ns)
	case err != nil:
		return nil, err
	}
	return tagOnly("CREATE VIEW"), nil
}

// replaceableView drops the view CREATE OR REPLACE replaces, once the new
// columns keep the old ones' names in order, as PostgreSQL requires; it
// returns the dropped view (nil: there was none).
func (s *Session) replaceableView(ctx context.Context, ident table.Identifier, schema *ice.Schema) (*iceberg.View, error) {
	old, err := s.engine.wh.LoadView(ctx, ident)
	if errors.Is(err, iceberg.ErrNoSuchView) {
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
	return old, s.engine.wh.DropView(ctx, ident)
}

// viewSchema is the view's columns as an Iceberg schema; a type Iceberg
// cannot hold (an unbounded numeric, an interval) is described as a string.
func viewSchema(cols []stmt.Column, names []string) (*ice.Schema, error) {
	if len(names) > len(cols) {
		return nil, pgerr.Errorf(pgerr.SyntaxError, "CREATE VIEW specifies more column names than columns")
	}
	fields := make([]ice.NestedField, len(cols))
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
			t = ice.PrimitiveTypes.String
		}
		fields[i] = ice.NestedField{ID: i + 1, Name: name, Type: t}
	}
	return ice.NewSchema(0, fields...), nil
}

// dropView removes a view; a table's name is 42809, as in PostgreSQL.
func (s *Session) dropView(ctx context.Context, x *sql.DropView) (*stmt.Result, error) {
	v, found, err := s.findView(ctx, x.Name)
	if err != nil {
		return nil, err
	}
	if !found {
		if _, err := s.resolveTable(ctx, x.Name); err == nil {
			return nil, &pgerr.Error{Code: pgerr.WrongObjectType, Message: fmt.Sprintf("%q is not a view", x.Name.Table),
				Hint: "Use DROP TABLE to remove a table."}
		}
		if x.IfExists {
			r := tagOnly("DROP VIEW")
			r.Notices = []stmt.Notice{notice(fmt.Sprintf("view %q does not exist, skipping", x.Name.Table))}
			return r, nil
		}
		return nil, pgerr.Errorf(pgerr.UndefinedTable, "view %q does not exist", x.Name.Table)
	}
	if s.tx.active {
		s.tx.ddl.hide(identKey(viewKey(v.Ident)))
		ident := v.Ident
		s.tx.ddl.deferred = append(s.tx.ddl.deferred, func(ctx context.Context) error { return s.engine.wh.DropView(ctx, ident) })
		return tagOnly("DROP VIEW"), nil
	}
	if err := s.engine.wh.DropView(ctx, v.Ident); err != nil {
		return nil, err
	}
	return tagOnly("DROP VIEW"), nil
}
