package pgcatalog

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// Column is one column of a catalog relation.
type Column struct {
	Name string
	Type sql.Type
}

// Catalog is one statement's view of the catalog: the relations the query
// engine reads as sources, and the answers sql's catalog functions and
// reg* casts ask for (it implements sql.Catalog). The warehouse is read
// once, when a relation or a lookup first needs it.
type Catalog struct {
	env  *Env
	once sync.Once
	snap *snapshot
	err  error
}

var _ sql.Catalog = (*Catalog)(nil)

// New is the catalog of a statement run in env.
func New(env *Env) *Catalog { return &Catalog{env: env} }

func (c *Catalog) snapshot(ctx context.Context) (*snapshot, error) {
	c.once.Do(func() { c.snap, c.err = loadSnapshot(ctx, c.env) })
	return c.snap, c.err
}

// IsRelation reports whether schema.name is a catalog relation (schema ""
// means pg_catalog, searched first as PostgreSQL's implicit path does).
func IsRelation(schema, name string) bool { return findRelation(schema, name) != nil }

// RelationColumns is a catalog relation's columns (42P01 when none has
// that name).
func RelationColumns(schema, name string) ([]Column, error) {
	d := findRelation(schema, name)
	if d == nil {
		return nil, sql.UndefinedTable(schema, name)
	}
	return relColumns(d), nil
}

// TableOIDColumn is the system column a catalog relation with an OID ends
// with: that OID on every row (clients join pg_description on it).
const TableOIDColumn = "tableoid"

func relColumns(d *relDef) []Column {
	cols := make([]Column, len(d.cols))
	for i, col := range d.cols {
		cols[i] = Column{Name: col.name, Type: col.t}
	}
	if d.oid != 0 {
		cols = append(cols, Column{Name: TableOIDColumn, Type: sql.OID})
	}
	return cols
}

// Relation is the columns and rows of a catalog relation as they are now.
func (c *Catalog) Relation(ctx context.Context, schema, name string) ([]Column, arrow.RecordBatch, error) {
	d := findRelation(schema, name)
	if d == nil {
		return nil, nil, sql.UndefinedTable(schema, name)
	}
	snap, err := c.snapshot(ctx)
	if err != nil {
		return nil, nil, err
	}
	cols := relColumns(d)
	rows, err := d.rowsOf(ctx, snap)
	if err != nil {
		return nil, nil, fmt.Errorf("catalog relation %s.%s: %w", d.schema, d.name, err)
	}
	if d.oid != 0 {
		for i, r := range rows {
			rows[i] = append(r[:len(r):len(r)], d.oid)
		}
	}
	batch, err := rowsBatch(cols, rows)
	if err != nil {
		return nil, nil, fmt.Errorf("catalog relation %s.%s: %w", d.schema, d.name, err)
	}
	return cols, batch, nil
}

// rowsBatch builds one record batch from a relation's rows.
func rowsBatch(cols []Column, rows [][]any) (arrow.RecordBatch, error) {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: c.Name, Type: c.Type.ArrowType(), Nullable: true}
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fields, nil))
	defer b.Release()
	for _, r := range rows {
		for i, c := range cols {
			if err := sql.AppendValue(b.Field(i), c.Type, r[i]); err != nil {
				return nil, fmt.Errorf("column %s: %w", c.Name, err)
			}
		}
	}
	return b.NewRecordBatch(), nil
}

func (c *Catalog) User() string     { return c.env.User }
func (c *Catalog) Database() string { return c.env.Database }
func (c *Catalog) Version() string  { return c.env.Version }

func (c *Catalog) Setting(name string) (string, bool) {
	if c.env.Setting == nil {
		return "", false
	}
	return c.env.Setting(name)
}

// CurrentSchemas lists the search path's schemas that exist; it reads only
// the namespace list, not every table.
func (c *Catalog) CurrentSchemas(ctx context.Context, implicit bool) ([]string, error) {
	var out []string
	if implicit {
		out = append(out, "pg_catalog")
	}
	exists := map[string]bool{}
	if c.env.Warehouse != nil {
		names, err := c.env.Warehouse.Tables().ListNamespaces(ctx)
		if err != nil {
			return nil, fmt.Errorf("current_schemas: %w", err)
		}
		for _, n := range names {
			exists[n] = true
		}
	}
	for _, sp := range c.env.SearchPath {
		if exists[sp] {
			out = append(out, sp)
		}
	}
	return out, nil
}

func (c *Catalog) TableVisible(ctx context.Context, oid int64) (bool, error) {
	snap, err := c.snapshot(ctx)
	if err != nil {
		return false, err
	}
	t := snap.byOID[oid]
	return t != nil && snap.visible(t), nil
}

// RelationSize is pg_table_size: a table's live data and delete files as
// its current snapshot sums them; a catalog relation is 0 bytes.
func (c *Catalog) RelationSize(ctx context.Context, oid int64) (int64, bool, error) {
	if relationByOID(oid) != nil {
		return 0, true, nil
	}
	snap, err := c.snapshot(ctx)
	if err != nil {
		return 0, false, err
	}
	if t := snap.byOID[oid]; t != nil {
		return t.sizeBytes, true, nil
	}
	return 0, false, nil
}

// RelationByOID describes a table, view or catalog relation by oid.
func (c *Catalog) RelationByOID(ctx context.Context, oid int64) (sql.RelationInfo, bool, error) {
	if d := relationByOID(oid); d != nil {
		r := sql.RelationInfo{Name: d.name, Kind: 'v', Catalog: true}
		for _, col := range d.cols {
			r.Columns = append(r.Columns, col.name)
		}
		return r, true, nil
	}
	snap, err := c.snapshot(ctx)
	if err != nil {
		return sql.RelationInfo{}, false, err
	}
	t := snap.byOID[oid]
	if t == nil {
		return sql.RelationInfo{}, false, nil
	}
	r := sql.RelationInfo{Name: t.name, Kind: 'r'}
	if t.view != "" {
		r.Kind = 'v'
	}
	for _, col := range t.cols {
		r.Columns = append(r.Columns, col.name)
	}
	return r, true, nil
}

// DatabaseOID is pg_database's one row's oid.
func (c *Catalog) DatabaseOID() int64 { return oidDatabase }

func (c *Catalog) FormatType(oid, typmod int64) (string, bool) {
	return formatType(oid, typmod), true
}

// RegName prints an oid as regclass, regtype or regnamespace do.
func (c *Catalog) RegName(ctx context.Context, kind sql.RegKind, oid int64) (string, error) {
	switch kind {
	case sql.RegType:
		if t := typeByOID(oid); t != nil {
			return t.display, nil
		}
		if t := typeByArrayOID(oid); t != nil {
			return t.display + "[]", nil
		}
		return strconv.FormatInt(oid, 10), nil
	case sql.RegClass:
		if d := relationByOID(oid); d != nil {
			return d.name, nil
		}
	case sql.RegProc, sql.RegProcedure:
		return procName(kind, oid), nil
	}
	snap, err := c.snapshot(ctx)
	if err != nil {
		return "", err
	}
	if kind == sql.RegNamespace {
		if ns := snap.namespaceByOID(oid); ns != nil {
			return ns.name, nil
		}
		return strconv.FormatInt(oid, 10), nil
	}
	return snap.relationName(oid), nil
}

// RegOID reads a name as regclass, regtype or regnamespace do.
func (c *Catalog) RegOID(ctx context.Context, kind sql.RegKind, name string) (int64, error) {
	if kind == sql.RegType {
		if t := typeByName(name); t != nil {
			return t.oid, nil
		}
		return 0, sql.UndefinedReg(kind, name)
	}
	if kind == sql.RegProc || kind == sql.RegProcedure {
		return procOID(kind, name)
	}
	snap, err := c.snapshot(ctx)
	if err != nil {
		return 0, err
	}
	schema, rel := sql.SplitQualifiedName(name)
	if kind == sql.RegNamespace {
		if ns := snap.namespace(rel); ns != nil {
			return ns.oid, nil
		}
		return 0, sql.UndefinedReg(kind, name)
	}
	if schema == "" || schema == "pg_catalog" || schema == "information_schema" {
		if d := findRelation(schema, rel); d != nil && d.oid != 0 {
			return d.oid, nil
		}
	}
	if t := snap.lookupTable(schema, rel); t != nil {
		return t.oid, nil
	}
	if schema != "" && schema != "pg_catalog" && schema != "information_schema" && snap.namespace(schema) == nil {
		return 0, pgerr.Errorf(pgerr.InvalidSchemaName, "schema %q does not exist", schema)
	}
	return 0, sql.UndefinedReg(kind, name)
}

// relationName is regclass output: the name, qualified when the table is
// not visible through the search path.
func (s *snapshot) relationName(oid int64) string {
	if t := s.byOID[oid]; t != nil {
		if s.visible(t) {
			return quoteIdent(t.name)
		}
		return quoteIdent(t.ns.name) + "." + quoteIdent(t.name)
	}
	return strconv.FormatInt(oid, 10)
}

// relationByOID finds a catalog relation by its PostgreSQL OID.
func relationByOID(oid int64) *relDef {
	if oid == 0 {
		return nil
	}
	for _, d := range relations {
		if d.oid == oid {
			return d
		}
	}
	return nil
}

// quoteIdent is quote_ident: names that are not plain lower-case words
// get double quotes.
func quoteIdent(s string) string {
	safe := s != ""
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			safe = false
		}
	}
	if safe {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
