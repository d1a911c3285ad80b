package iceberg

import (
	"context"
	dbsql "database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	ice "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	"github.com/apache/iceberg-go/table"
	_ "modernc.org/sqlite" // registers sql.driver=sqlite (pure Go)
)

// DefaultNamespace is the namespace created on first start (PostgreSQL's public schema).
const DefaultNamespace = "public"

// defaultCatalogName is used when Config.CatalogName is empty.
const defaultCatalogName = "magmalake"

// Config selects the catalog and warehouse a server runs on.
type Config struct {
	DataDir      string            // embedded catalog: holds catalog.db and warehouse/
	CatalogName  string            // catalog name (the SQL catalog's catalog_name column)
	CatalogProps map[string]string // iceberg-go catalog properties; type or uri selects an external catalog
	WarehouseURI string            // warehouse location; default <DataDir>/warehouse for the embedded catalog
	// AllowPaths are location prefixes outside the warehouse that table
	// properties (location, write.data.path, ...) may name.
	AllowPaths []string
	// WrapCatalog, when set, wraps the opened catalog: tracing, or tests
	// that inject what another server does between two catalog calls.
	WrapCatalog func(catalog.Catalog) catalog.Catalog
}

// Warehouse is an open catalog plus the resources Open acquired for it.
type Warehouse struct {
	cat    catalog.Catalog
	closer catalog.Catalog // the catalog as opened, which Close releases
	db     *dbsql.DB       // embedded catalog's database; nil for external catalogs
	// commitDB is an external SQL catalog's database as sqlCommitCatalog
	// uses it; nil for other catalogs.
	commitDB  *dbsql.DB
	name      string
	roots     []location // where table properties may place files
	queue     *CommitQueue
	manifests *ManifestCache // entries of manifests its commits read
	refs      *FileRefs      // what manifests name, for expiry and orphan removal
	views     viewCatalog    // nil: the catalog stores no views (REST here)
	readers   Readers        // the snapshots this process's statements read
	writes    Writes         // this process's writers with files not yet committed
	process   string         // names this warehouse's sweeps in tables' properties
	// sqlWarehouse is the warehouse a SQL catalog derives new tables'
	// locations from ("" for a REST catalog, whose server chooses them).
	sqlWarehouse string
}

// Open opens the catalog cfg describes and makes sure the default namespace exists.
func Open(ctx context.Context, cfg Config) (*Warehouse, error) {
	name := cfg.CatalogName
	if name == "" {
		name = defaultCatalogName
	}
	var (
		w   *Warehouse
		err error
	)
	if isExternalCatalog(cfg.CatalogProps) {
		w, err = openExternal(ctx, name, cfg)
	} else {
		w, err = openEmbedded(name, cfg)
	}
	if err != nil {
		return nil, err
	}
	if w.closer == nil {
		w.closer = w.cat
	}
	if cfg.WrapCatalog != nil {
		w.cat = cfg.WrapCatalog(w.cat)
	}
	w.cat = pinning(w.cat)
	w.process = newProcessID()
	if err := w.ensureNamespace(ctx, DefaultNamespace); err != nil {
		w.Close()
		return nil, fmt.Errorf("open catalog %q: %w", name, err)
	}
	return w, nil
}

func isExternalCatalog(props map[string]string) bool {
	return props["type"] != "" || props["uri"] != ""
}

// openEmbedded opens the SQLite catalog under cfg.DataDir, creating it on first start.
func openEmbedded(name string, cfg Config) (*Warehouse, error) {
	if cfg.DataDir == "" {
		return nil, errors.New("data directory is not set (Config.DataDir)")
	}
	dir, err := filepath.Abs(cfg.DataDir)
	if err != nil {
		return nil, fmt.Errorf("data directory %q: %w", cfg.DataDir, err)
	}
	whDir := filepath.Join(dir, "warehouse")
	if err := os.MkdirAll(whDir, 0o755); err != nil {
		return nil, fmt.Errorf("data directory %q: %w", cfg.DataDir, err)
	}
	warehouse := cfg.WarehouseURI
	if warehouse == "" {
		warehouse = (&url.URL{Scheme: "file", Path: filepath.ToSlash(whDir)}).String()
	}
	// WAL plus a busy timeout on every pooled connection lets concurrent
	// commits (several sessions, or several servers on one data dir) wait
	// for each other instead of failing with "database is locked". The
	// catalog's transactions read before they write; a deferred one that
	// finds another writer ahead of it at the upgrade fails at once, without
	// the busy handler, so they take the write lock when they begin.
	dsn := "file:" + filepath.Join(dir, "catalog.db") +
		"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_txlock=immediate"
	db, err := dbsql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open catalog database in %q: %w", cfg.DataDir, err)
	}
	props := ice.Properties{"warehouse": warehouse}
	for k, v := range cfg.CatalogProps {
		props[k] = v
	}
	cat, err := sqlcat.NewCatalog(name, db, sqlcat.SQLite, props)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open catalog database %s: %w", filepath.Join(dir, "catalog.db"), err)
	}
	w := &Warehouse{cat: cat, db: db, name: name, roots: locationRoots(warehouse, cfg.AllowPaths), queue: NewCommitQueue(), manifests: NewManifestCache(DefaultManifestCacheBytes), refs: NewFileRefs(DefaultFileRefsBytes), views: cat,
		sqlWarehouse: props.Get("warehouse", "")}
	w.closer = cat
	w.cat = &sqlCommitCatalog{Catalog: newCachingCatalog(cat, w.metadataLocation), db: db, name: name, bind: questionMarks}
	return w, nil
}

// openExternal loads any registered iceberg-go catalog from cfg.CatalogProps.
func openExternal(ctx context.Context, name string, cfg Config) (*Warehouse, error) {
	props := ice.Properties{}
	for k, v := range cfg.CatalogProps {
		props[k] = v
	}
	if cfg.WarehouseURI != "" {
		props["warehouse"] = cfg.WarehouseURI
	}
	if err := checkExternalProps(props); err != nil {
		return nil, err
	}
	cat, err := catalog.Load(ctx, name, props)
	if err != nil {
		return nil, fmt.Errorf("open catalog %q (type=%s, uri=%s): %s",
			name, props.Get("type", "?"), redactURI(props.Get("uri", "")), oneLine(err))
	}
	roots := locationRoots(externalWarehouse(props.Get("warehouse", "")), cfg.AllowPaths)
	w := &Warehouse{cat: cat, closer: cat, name: name, roots: roots, queue: NewCommitQueue(), manifests: NewManifestCache(DefaultManifestCacheBytes), refs: NewFileRefs(DefaultFileRefsBytes)}
	if vc, ok := cat.(viewCatalog); ok {
		w.views = vc
	}
	if err := w.commitThroughSQL(props); err != nil {
		w.Close()
		return nil, fmt.Errorf("open catalog %q: %w", name, err)
	}
	return w, nil
}

// commitThroughSQL makes a SQL catalog on a database whose placeholders we
// know commit through its rows itself (sqlCommitCatalog), on a connection
// pool of its own: several tables in one database transaction.
func (w *Warehouse) commitThroughSQL(props ice.Properties) error {
	if strings.ToLower(props.Get("type", "")) != "sql" {
		return nil
	}
	w.sqlWarehouse = props.Get("warehouse", "")
	bind := questionMarks
	switch props.Get(sqlcat.DialectKey, "") {
	case "postgres":
		bind = dollarNumbers
	case "sqlite", "mysql":
	default:
		return nil
	}
	db, err := dbsql.Open(props.Get(sqlcat.DriverKey, ""), strings.TrimPrefix(props.Get("uri", ""), "sql://"))
	if err != nil {
		return fmt.Errorf("catalog database: %s", oneLine(err))
	}
	w.commitDB = db
	w.cat = &sqlCommitCatalog{Catalog: w.cat, db: db, name: w.name, bind: bind}
	return nil
}

// checkExternalProps rejects settings catalog.Load would reject less clearly.
func checkExternalProps(props ice.Properties) error {
	typ := strings.ToLower(props.Get("type", ""))
	if typ == "" {
		uri := props.Get("uri", "")
		u, err := url.Parse(uri)
		if err != nil || u.Scheme == "" {
			return fmt.Errorf("catalog setting uri=%q: not a URI with a scheme and no type given", redactURI(uri))
		}
		typ = strings.ToLower(u.Scheme)
	}
	if typ == "http" || typ == "https" {
		typ = "rest"
	}
	if !slices.Contains(catalog.GetRegisteredCatalogs(), typ) {
		return fmt.Errorf("catalog setting type=%q: unknown catalog type (known: %s)",
			typ, strings.Join(catalog.GetRegisteredCatalogs(), ", "))
	}
	switch typ {
	case "sql":
		return checkSQLCatalogProps(props)
	case "rest":
		if props.Get("uri", "") == "" {
			return errors.New("catalog setting uri: required for type=rest")
		}
	}
	return nil
}

// checkSQLCatalogProps fills in the driver for the known dialects and
// validates the rest.
func checkSQLCatalogProps(props ice.Properties) error {
	dialect := strings.ToLower(props.Get(sqlcat.DialectKey, ""))
	driver := props.Get(sqlcat.DriverKey, "")
	switch dialect {
	case "":
		return fmt.Errorf("catalog setting %s: required for type=sql (sqlite, postgres, mysql, mssql or oracle)", sqlcat.DialectKey)
	case "sqlite":
		if driver == "" {
			driver = "sqlite"
		}
	case "postgres", "postgresql":
		dialect = "postgres"
		if driver == "" {
			driver = "pgx"
		}
	case "mysql", "mssql", "oracle":
	default:
		return fmt.Errorf("catalog setting %s=%q: unknown dialect (sqlite, postgres, mysql, mssql or oracle)", sqlcat.DialectKey, dialect)
	}
	if driver == "" {
		return fmt.Errorf("catalog setting %s: required for %s=%s", sqlcat.DriverKey, sqlcat.DialectKey, dialect)
	}
	if !slices.Contains(dbsql.Drivers(), driver) {
		return fmt.Errorf("catalog setting %s=%q: no such database driver (available: %s)",
			sqlcat.DriverKey, driver, strings.Join(dbsql.Drivers(), ", "))
	}
	if props.Get("uri", "") == "" {
		return errors.New("catalog setting uri: required for type=sql (the database DSN)")
	}
	props[sqlcat.DialectKey] = dialect
	props[sqlcat.DriverKey] = driver
	return nil
}

// redactURI hides a password so errors can be logged.
func redactURI(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// oneLine flattens multi-line errors (joined errors, driver dumps) so a bad
// setting reports as one line.
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// Catalog is the underlying iceberg-go catalog.
func (w *Warehouse) Catalog() catalog.Catalog { return w.cat }

// Manifests is the warehouse's cache of decoded manifests, for plans
// (PlanRequest.Manifests) as for its commits.
func (w *Warehouse) Manifests() *ManifestCache { return w.manifests }

// CommitLoop is how this warehouse's statements commit: through its
// catalog, in this process's per-table order.
func (w *Warehouse) CommitLoop(policy RetryPolicy) CommitLoop {
	return CommitLoop{Catalog: w.cat, Policy: policy, Queue: w.queue, Manifests: w.manifests, Self: w.process}
}

// StageView stages change on base to be read, not committed (a
// transaction block's view of its changes so far): StageChange reading the
// parent's manifests through the warehouse's cache, as its commits do, and
// merging no manifests. Discard it once read.
func (w *Warehouse) StageView(ctx context.Context, base *table.Table, change FileChange) (*StagedChange, error) {
	return stage(ctx, base, change, w.manifests, true)
}

// Readers are the snapshots this process's statements and blocks read,
// which expiry keeps.
func (w *Warehouse) Readers() *Readers { return &w.readers }

// Writes are this process's writers whose files are not committed yet,
// which orphan removal leaves alone.
func (w *Warehouse) Writes() *Writes { return &w.writes }

// Name is the catalog name.
func (w *Warehouse) Name() string { return w.name }

// Close releases the catalog and, for the embedded catalog, its database.
func (w *Warehouse) Close() error {
	var errs []error
	opened := w.closer
	if opened == nil {
		opened = w.cat
	}
	if c, ok := opened.(catalog.Closer); ok {
		errs = append(errs, c.Close())
	}
	for _, db := range []*dbsql.DB{w.db, w.commitDB} {
		if db != nil {
			errs = append(errs, db.Close())
		}
	}
	return errors.Join(errs...)
}

// ensureNamespace creates ns unless it exists.
func (w *Warehouse) ensureNamespace(ctx context.Context, ns string) error {
	ident := namespaceIdent(ns)
	ok, err := w.cat.CheckNamespaceExists(ctx, ident)
	if err != nil {
		return fmt.Errorf("check namespace %s: %s", ns, oneLine(err))
	}
	if ok {
		return nil
	}
	err = w.cat.CreateNamespace(ctx, ident, nil)
	if err != nil && !errors.Is(err, catalog.ErrNamespaceAlreadyExists) {
		return fmt.Errorf("create namespace %s: %w", ns, err)
	}
	return nil
}
