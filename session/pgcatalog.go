package session

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/magmalake/magmalake/pgcatalog"
	logical "github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
)

// withCatalog gives a statement its view of the catalog: the pg_catalog and
// information_schema relations the engine reads, and what sql's catalog
// functions and reg* casts look up. The warehouse is listed once per
// statement, when something first needs it.
func (r *nameResolver) withCatalog(ctx context.Context) context.Context {
	return sql.WithCatalog(ctx, pgcatalog.New(r.catalogEnv()))
}

func (r *nameResolver) catalogEnv() *pgcatalog.Env {
	return &pgcatalog.Env{
		Warehouse:  r.engine.wh,
		User:       r.info.User,
		Database:   r.info.Database,
		SearchPath: r.searchPath(),
		Setting: func(name string) (string, bool) {
			v, err := r.settings.Get(name)
			return v, err == nil
		},
		Settings: r.settings.All,
		Version:  VersionString,
	}
}

// catalogRelation resolves a pg_catalog or information_schema name: schema
// qualified, or unqualified when pg_catalog, searched first as PostgreSQL
// does, has it. ok is false for every other name.
func (r *nameResolver) catalogRelation(ctx context.Context, n sql.TableName) (*logical.Table, bool, error) {
	switch n.Schema {
	case "pg_catalog", "information_schema":
		if !pgcatalog.IsRelation(n.Schema, n.Table) {
			return nil, true, undefinedTable(n)
		}
	case "":
		if !pgcatalog.IsRelation("", n.Table) {
			return nil, false, nil
		}
	default:
		return nil, false, nil
	}
	schema := n.Schema
	if schema == "" {
		schema = "pg_catalog"
	}
	cat, ok := sql.CatalogOf(ctx).(*pgcatalog.Catalog)
	if !ok {
		cat = pgcatalog.New(r.catalogEnv())
	}
	cols, err := relationColumns(schema, n.Table)
	if err != nil {
		return nil, true, err
	}
	system := 0
	for _, c := range cols[max(0, len(cols)-1):] {
		if c.Name == pgcatalog.TableOIDColumn {
			system = 1
		}
	}
	v := &logical.Virtual{Columns: cols, System: system, Rows: func(ctx context.Context) (arrow.RecordBatch, error) {
		_, batch, err := cat.Relation(ctx, schema, n.Table)
		return batch, err
	}}
	return &logical.Table{Virtual: v}, true, nil
}

// relationColumns is a relation's row description without its rows.
func relationColumns(schema, name string) ([]sql.Column, error) {
	cs, err := pgcatalog.RelationColumns(schema, name)
	if err != nil {
		return nil, err
	}
	out := make([]sql.Column, len(cs))
	for i, c := range cs {
		out[i] = sql.Column{Name: c.Name, Type: c.Type}
	}
	return out, nil
}
