package pgcatalog

import (
	"context"
	"fmt"
	"hash/fnv"
	"sort"
	"strconv"

	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/sql"
)

// Env is what a catalog query needs from the session running it.
type Env struct {
	Warehouse *lake.Warehouse
	User      string
	Database  string
	// SearchPath lists the schemas unqualified names resolve through.
	SearchPath []string
	// Setting answers current_setting(name); ok false for an unknown name.
	Setting func(name string) (value string, ok bool)
	// Settings lists every parameter for pg_settings.
	Settings func() [][2]string
	// Version is version()'s answer.
	Version string
}

// Fixed OIDs PostgreSQL 15 uses, so that clients that hard-code them work.
const (
	oidPgCatalog   int64 = 11
	oidPublic      int64 = 2200
	oidInfoSchema  int64 = 13000
	oidSuperuser   int64 = 10
	oidHeapAM      int64 = 2
	oidDatabase    int64 = 16383
	firstUserOID   int64 = 16384
	userOIDSpan    int64 = 1<<31 - firstUserOID
	collDefault    int64 = 100
	encodingUTF8   int64 = 6
	classOIDpgType int64 = 1247
)

// column is one column of a user table as the catalog shows it.
type column struct {
	name    string
	t       sql.Type
	notNull bool
	def     any // the default as PostgreSQL shows it (defaultText); nil: none
}

// nsInfo is a schema.
type nsInfo struct {
	name string
	oid  int64
	user bool // an Iceberg namespace (not pg_catalog / information_schema)
}

// tableInfo is a user table.
type tableInfo struct {
	ns          *nsInfo
	name        string
	oid         int64
	cols        []column
	partitioned bool
	createdMs   int64
	sizeBytes   int64        // the current snapshot's files, for pg_table_size
	tuples      int64        // the current snapshot's live rows, for pg_class.reltuples
	tbl         *table.Table // the Iceberg table (nil for a view), for pg_stats
	// view holds an Iceberg view's definition; empty for tables.
	view string
}

// snapshot is the catalog as one query sees it.
type snapshot struct {
	env        *Env
	namespaces []*nsInfo
	tables     []*tableInfo
	byOID      map[int64]*tableInfo
}

// loadSnapshot reads every namespace and table of the warehouse. OIDs come
// from table UUIDs (schema names for namespaces), so they stay stable for a
// table's life and clients' cached OIDs stay valid.
func loadSnapshot(ctx context.Context, env *Env) (*snapshot, error) {
	s := &snapshot{env: env, byOID: map[int64]*tableInfo{}}
	used := map[int64]bool{}
	s.namespaces = append(s.namespaces,
		&nsInfo{name: "pg_catalog", oid: oidPgCatalog},
		&nsInfo{name: "information_schema", oid: oidInfoSchema})
	if env.Warehouse == nil {
		return s, nil
	}
	names, err := env.Warehouse.Tables().ListNamespaces(ctx)
	if err != nil {
		return nil, fmt.Errorf("catalog snapshot: %w", err)
	}
	for _, name := range names {
		ns := &nsInfo{name: name, user: true, oid: oidPublic}
		if name != "public" {
			ns.oid = stableOID("namespace:"+name, used)
		}
		used[ns.oid] = true
		s.namespaces = append(s.namespaces, ns)
		if err := s.loadTables(ctx, ns, used); err != nil {
			return nil, err
		}
	}
	sort.Slice(s.namespaces, func(i, j int) bool { return s.namespaces[i].name < s.namespaces[j].name })
	// PostgreSQL lists pg_class in creation order; clients that do not sort
	// show that order.
	sort.SliceStable(s.tables, func(i, j int) bool { return s.tables[i].createdMs < s.tables[j].createdMs })
	return s, nil
}

func (s *snapshot) loadTables(ctx context.Context, ns *nsInfo, used map[int64]bool) error {
	tables, err := s.env.Warehouse.Tables().ListTables(ctx, ns.name)
	if err != nil {
		return fmt.Errorf("catalog snapshot: %w", err)
	}
	for _, name := range tables {
		tbl, err := s.env.Warehouse.LoadTable(ctx, lake.Ident(ns.name, name))
		if err != nil {
			return fmt.Errorf("catalog snapshot: load %s.%s: %w", ns.name, name, err)
		}
		ti := &tableInfo{ns: ns, name: name, partitioned: !tbl.Spec().IsUnpartitioned(),
			createdMs: tbl.Metadata().LastUpdatedMillis()}
		if cur := tbl.CurrentSnapshot(); cur != nil && cur.Summary != nil {
			ti.sizeBytes, _ = strconv.ParseInt(cur.Summary.Properties["total-files-size"], 10, 64)
		}
		ti.tuples, _ = lake.LiveRecords(tbl, nil)
		ti.tbl = tbl
		for e := range tbl.Metadata().PreviousFiles() {
			ti.createdMs = e.TimestampMs
			break
		}
		ti.oid = stableOID("table:"+tbl.Metadata().TableUUID().String(), used)
		used[ti.oid] = true
		declared := sql.DeclaredTypes(tbl.Properties(), tbl.Schema().Fields())
		for i, f := range tbl.Schema().Fields() {
			t := sql.TypeFromIceberg(f.Type)
			if d, ok := declared[i]; ok {
				t = d // varchar(n), smallint: as created, for \d and information_schema
			}
			ti.cols = append(ti.cols, column{name: f.Name, t: t, notNull: f.Required, def: defaultText(t, f)})
		}
		s.tables = append(s.tables, ti)
		s.byOID[ti.oid] = ti
	}
	return s.loadViews(ctx, ns, used)
}

// loadViews adds the namespace's Iceberg views (relkind v).
func (s *snapshot) loadViews(ctx context.Context, ns *nsInfo, used map[int64]bool) error {
	views, err := s.env.Warehouse.Views().ListViews(ctx, ns.name)
	if err != nil {
		return fmt.Errorf("catalog snapshot: %w", err)
	}
	for _, name := range views {
		v, err := s.env.Warehouse.Views().LoadView(ctx, lake.Ident(ns.name, name))
		if err != nil {
			return fmt.Errorf("catalog snapshot: load view %s.%s: %w", ns.name, name, err)
		}
		ti := &tableInfo{ns: ns, name: name, view: v.SQL, oid: stableOID("view:"+ns.name+"."+name, used)}
		used[ti.oid] = true
		types := sql.ViewColumnTypes(v.Properties, v.Schema.Fields())
		for i, f := range v.Schema.Fields() {
			ti.cols = append(ti.cols, column{name: f.Name, t: types[i]})
		}
		s.tables = append(s.tables, ti)
		s.byOID[ti.oid] = ti
	}
	return nil
}

// stableOID hashes key into the user OID range, probing past OIDs taken.
func stableOID(key string, used map[int64]bool) int64 {
	h := fnv.New32a()
	h.Write([]byte(key))
	oid := firstUserOID + int64(h.Sum32())%userOIDSpan
	for used[oid] {
		oid++
		if oid >= firstUserOID+userOIDSpan {
			oid = firstUserOID
		}
	}
	return oid
}

// namespace finds a schema by name.
func (s *snapshot) namespace(name string) *nsInfo {
	for _, ns := range s.namespaces {
		if ns.name == name {
			return ns
		}
	}
	return nil
}

func (s *snapshot) namespaceByOID(oid int64) *nsInfo {
	for _, ns := range s.namespaces {
		if ns.oid == oid {
			return ns
		}
	}
	return nil
}

// visible reports pg_table_is_visible: the first schema of the search path
// holding a table of that name is the table's own.
func (s *snapshot) visible(t *tableInfo) bool {
	for _, sp := range s.env.SearchPath {
		for _, o := range s.tables {
			if o.ns.name == sp && o.name == t.name {
				return o == t
			}
		}
	}
	return false
}

// lookupTable resolves a (possibly qualified) relation name as regclass does.
func (s *snapshot) lookupTable(schema, name string) *tableInfo {
	schemas := []string{schema}
	if schema == "" {
		schemas = s.env.SearchPath
	}
	for _, sp := range schemas {
		for _, t := range s.tables {
			if t.ns.name == sp && t.name == name {
				return t
			}
		}
	}
	return nil
}
