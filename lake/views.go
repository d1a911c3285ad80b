package lake

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	"github.com/apache/iceberg-go/view"
)

// viewCatalog is what iceberg-go's SQL catalog offers for Iceberg views
// (its REST catalog has another API, not used here).
type viewCatalog interface {
	CreateView(ctx context.Context, ident table.Identifier, schema *iceberg.Schema, viewSQL string, props iceberg.Properties) error
	LoadView(ctx context.Context, ident table.Identifier) (view.Metadata, error)
	DropView(ctx context.Context, ident table.Identifier) error
	ListViews(ctx context.Context, namespace table.Identifier) iter.Seq2[table.Identifier, error]
}

// Views are a warehouse's views, in the catalog's view store.
type Views struct {
	wh    *Warehouse
	store viewCatalog // nil: the catalog stores no views (REST here)
}

// ErrViewsUnsupported reports a catalog without views.
var ErrViewsUnsupported = errors.New("this catalog does not store views; use the embedded or a SQL catalog")

// ErrNoSuchView reports a view that does not exist.
var ErrNoSuchView = errors.New("view does not exist")

// ErrViewExists reports a name a view or table already has.
var ErrViewExists = errors.New("view already exists")

// View is an Iceberg view: its query text and its columns.
type View struct {
	Ident      table.Identifier
	SQL        string
	Schema     *iceberg.Schema
	Properties iceberg.Properties
}

func (v *Views) viewCatalog() (viewCatalog, error) {
	if v.store == nil {
		return nil, ErrViewsUnsupported
	}
	return v.store, nil
}

// CreateView stores a view; its schema is the query's columns.
func (v *Views) CreateView(ctx context.Context, ident table.Identifier, schema *iceberg.Schema, query string, props iceberg.Properties) error {
	vc, err := v.viewCatalog()
	if err != nil {
		return err
	}
	if err := v.checkViewName(ident); err != nil {
		return err
	}
	err = vc.CreateView(ctx, ident, schema, query, props)
	if errors.Is(err, catalog.ErrViewAlreadyExists) || errors.Is(err, catalog.ErrTableAlreadyExists) {
		return fmt.Errorf("create view %s: %w", IdentKey(ident), ErrViewExists)
	}
	return mapCatalogErr("create view "+IdentKey(ident), err)
}

// checkViewName refuses a view name a catalog refuses, or one from which
// the SQL catalog (which takes no location for a view) would derive a
// location that is not the view's own directory: a schema or view name
// with a '%' escape in it, say "%2E%2E%2Fx".
func (v *Views) checkViewName(ident table.Identifier) error {
	if err := checkIdent("view", ident); err != nil {
		return err
	}
	if v.wh.sqlWarehouse == "" {
		return nil
	}
	for i, part := range ident {
		if !readsAsItself(part) {
			kind, what := "view", "cannot name a view"
			if i < len(ident)-1 {
				kind, what = "schema", "cannot hold a view"
			}
			return &NameError{Kind: kind, Name: part,
				Why: what + `: the catalog makes a view's location of its schema and name, where this "%" would read as an escape`}
		}
	}
	return nil
}

// LoadView reads a view; ErrNoSuchView when there is none.
func (v *Views) LoadView(ctx context.Context, ident table.Identifier) (*View, error) {
	vc, err := v.viewCatalog()
	if err != nil {
		return nil, ErrNoSuchView
	}
	md, err := vc.LoadView(ctx, ident)
	if errors.Is(err, catalog.ErrNoSuchView) || errors.Is(err, catalog.ErrNoSuchNamespace) || errors.Is(err, catalog.ErrNoSuchTable) {
		return nil, ErrNoSuchView
	}
	if err != nil {
		return nil, fmt.Errorf("load view %s: %w", IdentKey(ident), err)
	}
	view := &View{Ident: ident, Schema: md.CurrentSchema(), Properties: md.Properties()}
	if ver := md.CurrentVersion(); ver != nil && len(ver.Representations) > 0 {
		view.SQL = ver.Representations[0].Sql
	}
	return view, nil
}

// DropView removes a view.
func (v *Views) DropView(ctx context.Context, ident table.Identifier) error {
	vc, err := v.viewCatalog()
	if err != nil {
		return err
	}
	err = vc.DropView(ctx, ident)
	if errors.Is(err, catalog.ErrNoSuchView) {
		return ErrNoSuchView
	}
	return mapCatalogErr("drop view "+IdentKey(ident), err)
}

// ListViews names the views of a namespace, sorted; none when the catalog
// has no views.
func (v *Views) ListViews(ctx context.Context, ns string) ([]string, error) {
	if v.store == nil {
		return nil, nil
	}
	var out []string
	for id, err := range v.store.ListViews(ctx, namespaceIdent(ns)) {
		if err != nil {
			return nil, mapCatalogErr("list views in "+ns, err)
		}
		out = append(out, id[len(id)-1])
	}
	slices.Sort(out)
	return out, nil
}
