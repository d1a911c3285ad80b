package session

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/copyio"
	"github.com/magmalake/magmalake/engine"
	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/metatable"
	"github.com/magmalake/magmalake/pgerr"
	logical "github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// nameResolver finds what a statement's names denote: tables through
// search_path, as the session's branch and its transaction block see them,
// views, refs (t@b, t.branch_b), metadata tables (t$snapshots) and the
// system catalogs. Every statement family's port resolves through it.
type nameResolver struct {
	engine   *Engine
	settings *Settings
	info     stmt.SessionInfo
	tx       *txBlock
}

// searchPath lists the schemas unqualified names resolve through, in order;
// "$user" stands for the session user's schema, as in PostgreSQL.
func (r *nameResolver) searchPath() []string {
	v, _ := r.settings.Get("search_path")
	var out []string
	for _, part := range strings.Split(v, ",") {
		p := strings.TrimSpace(part)
		if strings.HasPrefix(p, `"`) && strings.HasSuffix(p, `"`) && len(p) >= 2 {
			p = strings.ReplaceAll(p[1:len(p)-1], `""`, `"`)
		} else {
			p = strings.ToLower(p)
		}
		if p == "$user" {
			p = r.info.User
		}
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// currentSchema is the first schema of search_path that exists.
func (r *nameResolver) currentSchema(ctx context.Context) (string, error) {
	for _, ns := range r.searchPath() {
		ok, err := r.engine.wh.Tables().NamespaceExists(ctx, ns)
		if err != nil {
			return "", err
		}
		if ok {
			return ns, nil
		}
	}
	return "", nil
}

// creationSchema is where CREATE puts an unqualified name.
func (r *nameResolver) creationSchema(ctx context.Context, n sql.TableName) (string, error) {
	if n.Schema != "" {
		return n.Schema, nil
	}
	ns, err := r.currentSchema(ctx)
	if err != nil {
		return "", err
	}
	if ns == "" {
		return "", pgerr.Errorf(pgerr.InvalidSchemaName, "no schema has been selected to create in")
	}
	return ns, nil
}

// resolvedTable is a table name looked up in the catalog. Meta names a
// metadata table ("snapshots" for "t$snapshots").
type resolvedTable = logical.Table

// queryEnv is what the query engine needs of this session: its catalog
// (through search_path) and its limits.
func (s *Session) queryEnv() *engine.Env {
	return &engine.Env{Catalog: sessionCatalog{s.names}, Files: copyio.Files{Port: copyioPort{s}},
		Options: engine.Options{BatchSize: s.engine.opts.BatchSize, WorkMem: s.settings.workMem(),
			TempDir: s.engine.opts.TempDir, Manifests: s.engine.wh.Commits().Manifests()},
		Binds: &s.binds, Generation: s.generation}
}

// sessionCatalog resolves names as the session does.
type sessionCatalog struct{ r *nameResolver }

func (c sessionCatalog) ResolveTable(ctx context.Context, n sql.TableName) (*logical.Table, error) {
	if rt, ok, err := c.r.catalogRelation(ctx, n); ok {
		return rt, err
	}
	rt, err := c.r.resolveTable(ctx, n)
	var v *viewNamed
	if errors.As(err, &v) {
		return v.view, nil // a query may read a view
	}
	return rt, err
}

// resolveTable finds a table by name, through search_path when unqualified.
func (r *nameResolver) resolveTable(ctx context.Context, n sql.TableName) (*resolvedTable, error) {
	return r.resolveTableFor(ctx, n, true)
}

// resolveTableFor is resolveTable; reads false is an INSERT's target, which
// inside a block leaves the rows earlier INSERTs buffered where they are.
// The table is as the session's branch sees it (branch.go).
func (r *nameResolver) resolveTableFor(ctx context.Context, n sql.TableName, reads bool) (*resolvedTable, error) {
	return r.resolveTableOn(ctx, n, reads, r.settings.branch())
}

// resolveTableOn is resolveTableFor on branch ("" is main).
func (r *nameResolver) resolveTableOn(ctx context.Context, n sql.TableName, reads bool, branch string) (*resolvedTable, error) {
	if _, ok, err := r.catalogRelation(ctx, n); ok {
		if err != nil {
			return nil, err
		}
		// Statements that write or describe Iceberg tables cannot take a
		// catalog relation; queries resolve through sessionCatalog.
		return nil, pgerr.Errorf(pgerr.InsufficientPrivilege, "permission denied: %q is a system catalog", n.Table)
	}
	name, meta := n.Table, ""
	if i := strings.LastIndexByte(name, '$'); i > 0 {
		name, meta = name[:i], name[i+1:]
	}
	name, ref := splitRefName(name, meta)
	rt, err := r.resolveName(ctx, n, name, meta, ref, reads, branch)
	if err != nil && n.Schema != "" && meta == "" && ref == "" {
		// t.branch_b / t.tag_v: Spark's spelling of a ref of table t.
		if rt, ok, rerr := r.resolveRefSuffix(ctx, n, branch); ok {
			return rt, rerr
		}
	}
	return rt, err
}

// resolveName finds table name (of n's schema, else through search_path).
// A ref (t@b) reads what the ref names now, like FOR VERSION AS OF; a
// metadata table (t$meta) is one of the registry's (metatable.Find).
func (r *nameResolver) resolveName(ctx context.Context, n sql.TableName, name, meta, ref string, reads bool, branch string) (*resolvedTable, error) {
	schemas := []string{n.Schema}
	if n.Schema == "" {
		schemas = r.searchPath()
	}
	// A table the block already pinned resolves without the catalog, even
	// behind a schema earlier in search_path ("$user") that would only
	// answer "no such table" again.
	for _, ns := range schemas {
		if ident := lake.Ident(ns, name); ref == "" && r.pinned(ident, meta) != nil {
			return r.inBlock(ctx, &resolvedTable{Ident: ident, Table: r.pinned(ident, meta).base}, reads)
		}
	}
	for _, ns := range schemas {
		ident := lake.Ident(ns, name)
		tbl, err := r.engine.wh.LoadTable(ctx, ident)
		if err == nil && r.tx.active && r.tx.ddl.hides(ident) {
			err = lake.ErrNoSuchTable // dropped earlier in this block
		}
		if err == nil && meta == "" && ref == "" {
			tbl, err = onBranch(tbl, branch)
		}
		if err == nil && meta != "" {
			if _, err := metatable.Find(ident, meta); err != nil {
				return nil, err // the table exists, the kind does not
			}
		}
		if err == nil {
			return r.inBlock(ctx, &resolvedTable{Ident: ident, Table: tbl, Meta: meta, Ref: ref}, reads)
		}
		if n.Schema == "" && (errors.Is(err, lake.ErrNoSuchTable) || errors.Is(err, lake.ErrNoSuchNamespace)) {
			continue
		}
		if errors.Is(err, lake.ErrNoSuchTable) || errors.Is(err, lake.ErrNoSuchNamespace) {
			return nil, r.notATable(ctx, n, meta)
		}
		return nil, err
	}
	return nil, r.notATable(ctx, n, meta)
}

// notATable is the error for a name no table has: 42809 when a view has
// it (which queries then read), 42P01 otherwise.
func (r *nameResolver) notATable(ctx context.Context, n sql.TableName, meta string) error {
	if meta == "" {
		if v, ok, err := r.findView(ctx, n); err != nil {
			return err
		} else if ok {
			return isAView(n.Table, v)
		}
	}
	return undefinedTable(n)
}

// pinned is the block's state of a table it already touched: the block
// reads its pinned snapshot whatever the catalog says now, so it need not
// ask (a block's thousands of INSERTs each asked twice). Metadata tables
// show what is committed and are always loaded.
func (r *nameResolver) pinned(ident table.Identifier, meta string) *txTable {
	if !r.tx.active || meta != "" || r.tx.ddl.hides(ident) {
		return nil
	}
	return r.tx.tables[lake.IdentKey(ident)]
}

func undefinedTable(n sql.TableName) error {
	return sql.UndefinedTable(n.Schema, n.Table)
}

// tableScope lays out every column of the table's current schema.
func tableScope(tbl *table.Table, qualifier string) *sql.Scope {
	fields := tbl.Schema().Fields() // a copy, as Properties is
	scope := &sql.Scope{}
	types := sql.ColumnTypes(tbl.Properties(), fields)
	for i, f := range fields {
		col := sql.ScopeColumn{Table: qualifier, Name: f.Name, T: types[i], FieldID: f.ID}
		if f.WriteDefault != nil {
			col.Default, col.DefaultErr = writeDefault(f, types[i])
		}
		scope.Columns = append(scope.Columns, col)
	}
	return scope
}

// writeDefault is f's write-default as a constant of type t. One that
// cannot be read (metadata another writer got wrong) is an error for the
// rows that would take it, not a NULL.
func writeDefault(f iceberg.NestedField, t sql.Type) (*sql.Const, error) {
	v, err := lake.TypedDefault(f.Type, f.WriteDefault)
	var k *sql.Const
	if err == nil {
		k, err = sql.DefaultConst(t, v)
	}
	if err != nil {
		return nil, &pgerr.Error{Code: pgerr.InvalidTableDefinition,
			Message: fmt.Sprintf("the default of column %q cannot be read", f.Name), Detail: err.Error(), Err: err}
	}
	return k, nil
}

// inBlock makes a transaction block read a table as it pinned it, with its
// own changes applied (metadata tables show what is committed).
func (r *nameResolver) inBlock(ctx context.Context, rt *resolvedTable, reads bool) (*resolvedTable, error) {
	if !r.tx.active || rt.Meta != "" || rt.Ref != "" {
		return rt, nil
	}
	get := r.tx.txEntry
	if reads {
		get = r.tx.txTable
	}
	tt, err := get(ctx, rt.Ident)
	if err != nil {
		return nil, err
	}
	if rt.Table, err = tt.current(ctx, r.engine.wh); err != nil {
		return nil, err
	}
	// The block pins its head until it ends; a cursor held past it reads
	// on, so the statement pins the head too.
	lake.PinHead(ctx, tt.base)
	return rt, nil
}

// MetadataTableKinds are the names after "$" a table's metadata tables
// take ("t$snapshots"), sorted: the registry's (metatable.Names),
// for the shell's completion.
func MetadataTableKinds() []string { return metatable.Names() }
