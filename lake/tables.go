package lake

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/iceberg-go/table"
)

// Ident names table tbl in namespace schema.
func Ident(schema, tbl string) table.Identifier { return table.Identifier{schema, tbl} }

// IdentKey prints an identifier the way SQL users wrote it (schema.table):
// how messages name a table, and the key of per-table maps.
func IdentKey(ident table.Identifier) string { return strings.Join(ident, ".") }

// LoadTable loads the current metadata of ident. A missing or unparsable
// metadata file gives an ErrCorruptMetadata error naming the table and the
// file; it affects only that table.
func (w *Warehouse) LoadTable(ctx context.Context, ident table.Identifier) (*table.Table, error) {
	tbl, err := w.cat.LoadTable(ctx, ident)
	if err == nil {
		return tbl, nil
	}
	what := "load table " + IdentKey(ident)
	if isCatalogSentinel(err) || ctx.Err() != nil {
		return nil, withCtxErr(ctx, mapCatalogErr(what, err))
	}
	if loc, ok := w.metadataLocation(ctx, ident); ok {
		return nil, fmt.Errorf("%s: %w: metadata file %s: %s", what, ErrCorruptMetadata, loc, oneLine(err))
	}
	return nil, fmt.Errorf("%s: %w", what, err)
}

func isCatalogSentinel(err error) bool {
	for _, m := range catalogSentinels {
		if errors.Is(err, m.from) {
			return true
		}
	}
	return false
}

// metadataLocation reads the catalog row of ident directly; only the
// embedded catalog can, since the catalog API gives the location only inside
// a loaded table.
func (w *Warehouse) metadataLocation(ctx context.Context, ident table.Identifier) (string, bool) {
	if w.db == nil || len(ident) < 2 {
		return "", false
	}
	ns := sqlNamespaceKey(ident[:len(ident)-1])
	var loc string
	err := w.db.QueryRowContext(ctx,
		`SELECT metadata_location FROM iceberg_tables WHERE catalog_name = ? AND table_namespace = ? AND table_name = ?`,
		w.name, ns, ident[len(ident)-1]).Scan(&loc)
	return loc, err == nil && loc != ""
}

// Tables are a warehouse's namespaces and tables as its catalog keeps
// them: creating (create_table.go), altering (properties.go,
// schema_update.go), renaming, listing and dropping them. It owns the
// roots where table properties may place files.
type Tables struct {
	wh    *Warehouse
	roots []location // where table properties may place files
}

// CreateNamespace creates namespace ns.
func (t *Tables) CreateNamespace(ctx context.Context, ns string) error {
	if err := CheckName("schema", ns); err != nil {
		return err
	}
	err := t.wh.cat.CreateNamespace(ctx, namespaceIdent(ns), nil)
	if ne := refusedName(err, "schema", ns); ne != nil {
		return ne
	}
	return mapCatalogErr("create schema "+ns, err)
}

// DropNamespace drops the empty namespace ns.
func (t *Tables) DropNamespace(ctx context.Context, ns string) error {
	err := t.wh.cat.DropNamespace(ctx, namespaceIdent(ns))
	return mapCatalogErr("drop schema "+ns, err)
}

// NamespaceExists reports whether namespace ns exists.
func (t *Tables) NamespaceExists(ctx context.Context, ns string) (bool, error) {
	ok, err := t.wh.cat.CheckNamespaceExists(ctx, namespaceIdent(ns))
	if err != nil {
		return false, fmt.Errorf("check schema %s: %w", ns, err)
	}
	return ok, nil
}

// ListNamespaces returns the top-level namespaces, sorted.
func (t *Tables) ListNamespaces(ctx context.Context) ([]string, error) {
	idents, err := t.wh.cat.ListNamespaces(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("list schemas: %w", err)
	}
	out := make([]string, 0, len(idents))
	for _, id := range idents {
		out = append(out, strings.Join(id, "."))
	}
	slices.Sort(out)
	return out, nil
}

// ListTables returns the names of the tables in namespace ns, sorted.
func (t *Tables) ListTables(ctx context.Context, ns string) ([]string, error) {
	var out []string
	for id, err := range t.wh.cat.ListTables(ctx, namespaceIdent(ns)) {
		if err != nil {
			return nil, mapCatalogErr("list tables in "+ns, err)
		}
		out = append(out, id[len(id)-1])
	}
	slices.Sort(out)
	return out, nil
}

// DropTable removes ident from the catalog; purge also deletes its files.
func (t *Tables) DropTable(ctx context.Context, ident table.Identifier, purge bool) error {
	what := "drop table " + IdentKey(ident)
	if !purge {
		return mapCatalogErr(what, t.wh.cat.DropTable(ctx, ident))
	}
	tbl, err := t.wh.LoadTable(ctx, ident)
	if err != nil {
		// A table whose metadata is gone can still be dropped, just not purged.
		if errors.Is(err, ErrCorruptMetadata) {
			return mapCatalogErr(what, t.wh.cat.DropTable(ctx, ident))
		}
		return err
	}
	if err := t.wh.cat.DropTable(ctx, ident); err != nil {
		return mapCatalogErr(what, err)
	}
	if err := tbl.PurgeFiles(ctx); err != nil {
		return fmt.Errorf("%s: dropped, but purging its files failed: %w", what, err)
	}
	return nil
}
