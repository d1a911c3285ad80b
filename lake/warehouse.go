package lake

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

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
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

// Warehouse is an open catalog plus the resources Open acquired for it:
// the composition root that hands out the parts that work on it, each of
// one job (Tables, Views, Branches, Maintenance, Commits).
type Warehouse struct {
	cat    catalog.Catalog
	closer catalog.Catalog // the catalog as opened, which Close releases
	db     *dbsql.DB       // embedded catalog's database; nil for external catalogs
	// commitDB is an external SQL catalog's database as sqlCommitCatalog
	// uses it; nil for other catalogs.
	commitDB *dbsql.DB
	name     string
	// sqlWarehouse is the warehouse a SQL catalog derives new tables'
	// and views' locations from ("" for a REST catalog, whose server
	// chooses them).
	sqlWarehouse string

	tables   Tables
	views    Views
	branches Branches
	maint    Maintenance
	commits  Commits
}

// newWarehouse is a Warehouse on cat with its parts wired to it.
func newWarehouse(cat catalog.Catalog, name string, roots []location) *Warehouse {
	w := &Warehouse{cat: cat, name: name}
	w.tables = Tables{wh: w, roots: roots}
	w.views = Views{wh: w}
	w.branches = Branches{wh: w}
	w.maint = Maintenance{wh: w, commits: &w.commits, refs: NewFileRefs(DefaultFileRefsBytes)}
	w.commits = Commits{wh: w, queue: NewCommitQueue(), manifests: NewManifestCache(DefaultManifestCacheBytes)}
	return w
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
	w.commits.process = newProcessID()
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
	props := iceberg.Properties{"warehouse": warehouse}
	for k, v := range cfg.CatalogProps {
		props[k] = v
	}
	cat, err := sqlcat.NewCatalog(name, db, sqlcat.SQLite, props)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open catalog database %s: %w", filepath.Join(dir, "catalog.db"), err)
	}
	w := newWarehouse(cat, name, locationRoots(warehouse, cfg.AllowPaths))
	w.db = db
	w.views.store = cat
	w.sqlWarehouse = props.Get("warehouse", "")
	w.closer = cat
	w.cat = &sqlCommitCatalog{Catalog: newCachingCatalog(cat, w.metadataLocation), db: db, name: name, bind: questionMarks}
	return w, nil
}

// openExternal loads any registered iceberg-go catalog from cfg.CatalogProps.
func openExternal(ctx context.Context, name string, cfg Config) (*Warehouse, error) {
	props := iceberg.Properties{}
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
	w := newWarehouse(cat, name, roots)
	w.closer = cat
	if vc, ok := cat.(viewCatalog); ok {
		w.views.store = vc
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
func (w *Warehouse) commitThroughSQL(props iceberg.Properties) error {
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
func checkExternalProps(props iceberg.Properties) error {
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
func checkSQLCatalogProps(props iceberg.Properties) error {
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

// Tables are the catalog's namespaces and tables: creating, altering,
// renaming and dropping them.
func (w *Warehouse) Tables() *Tables { return &w.tables }

// Views are the catalog's views.
func (w *Warehouse) Views() *Views { return &w.views }

// Branches are tables' branches and tags, and rollback.
func (w *Warehouse) Branches() *Branches { return &w.branches }

// Maintenance expires snapshots, removes orphan files and rewrites
// manifests.
func (w *Warehouse) Maintenance() *Maintenance { return &w.maint }

// Commits is how this warehouse's statements commit and what its readers
// and writers hold meanwhile.
func (w *Warehouse) Commits() *Commits { return &w.commits }

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
