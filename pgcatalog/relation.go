package pgcatalog

import (
	"context"
	"strings"

	"github.com/magmalake/magmalake/sql"
)

// colInfo is one column of a relation in a query's scope.
type colInfo struct {
	table string // qualifier: alias or relation name
	name  string
	t     sql.Type
	// usingHidden marks the right-hand copy of a JOIN ... USING column,
	// which unqualified names do not see.
	usingHidden bool
}

// relDef is a virtual catalog relation.
type relDef struct {
	schema string
	name   string
	oid    int64 // PostgreSQL's OID for it, for 'pg_class'::regclass
	cols   []colInfo
	rows   func(s *snapshot) [][]any
	// load, when set, is the row source instead of rows: one that reads
	// table files (pg_stats reads manifests), under the statement's ctx.
	load func(ctx context.Context, s *snapshot) ([][]any, error)
}

// spec parses "name type, name type, ..." into columns; array and
// internal types are carried as text.
func spec(s string) []colInfo {
	var out []colInfo
	for _, part := range strings.Split(s, ",") {
		f := strings.Fields(part)
		out = append(out, colInfo{name: f[0], t: specType(f[1])})
	}
	return out
}

func specType(t string) sql.Type {
	if strings.HasSuffix(t, "[]") {
		return sql.ArrayOf(specType(strings.TrimSuffix(t, "[]")))
	}
	switch t {
	case "oid", "regclass", "regtype", "regnamespace":
		return sql.OID
	case "regproc":
		return sql.Type{Kind: sql.KindOID, Reg: sql.RegProc}
	case "int2":
		return sql.Int16
	case "int4":
		return sql.Int32
	case "int8":
		return sql.Int64
	case "bool":
		return sql.Bool
	case "float4":
		return sql.Float32
	case "float8":
		return sql.Float64
	case "timestamptz":
		return sql.TimestampTZ
	case "int2vector":
		return sql.ArrayOf(sql.Int16)
	case "oidvector":
		return sql.ArrayOf(sql.OID)
	case "name":
		return sql.Name
	}
	return sql.Text // char, aclitem, pg_node_tree, xid
}

// relations are the virtual relations by schema-qualified name; built once,
// never changed.
var relations = buildRelations()

// relSet collects relation definitions.
type relSet map[string]*relDef

func (m relSet) add(schema, name string, oid int64, cols string, rows func(s *snapshot) [][]any) {
	m[schema+"."+name] = &relDef{schema: schema, name: name, oid: oid, cols: spec(cols), rows: rows}
}

// addLoaded adds a relation whose rows load reads under the statement's
// context.
func (m relSet) addLoaded(schema, name string, oid int64, cols string, load func(ctx context.Context, s *snapshot) ([][]any, error)) {
	m[schema+"."+name] = &relDef{schema: schema, name: name, oid: oid, cols: spec(cols), load: load}
}

func buildRelations() relSet {
	m := relSet{}
	addPgCatalog(m)
	addPgStats(m)
	addPgCatalogEmpty(m)
	addPgLanguage(m)
	addInformationSchema(m)
	return m
}

// none is the row source of relations that are always empty here.
func none(*snapshot) [][]any { return nil }

// findRelation resolves a FROM item name: qualified, or unqualified through
// pg_catalog as PostgreSQL's implicit search path does.
func findRelation(schema, name string) *relDef {
	if schema != "" {
		return relations[schema+"."+name]
	}
	return relations["pg_catalog."+name]
}

// IsCatalogRelation reports whether schema.name is a virtual relation here
// (schema "" tries pg_catalog).
func IsCatalogRelation(schema, name string) bool {
	return findRelation(schema, name) != nil
}

// rowsOf is d's rows now.
func (d *relDef) rowsOf(ctx context.Context, s *snapshot) ([][]any, error) {
	if d.load != nil {
		return d.load(ctx, s)
	}
	return d.rows(s), nil
}
