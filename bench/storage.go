package bench

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	iceio "github.com/apache/iceberg-go/io"

	"github.com/magmalake/magmalake/lake"
)

// Storage says where a bench keeps its tables' files: in the scratch
// directory (the zero value) or under a warehouse location such as
// s3://bucket/prefix, so that the same run can be measured on local disk and
// on object storage (issue 18). The embedded SQLite catalog stays in the
// scratch directory either way: only the files move.
type Storage struct {
	// Warehouse is the location the run's tables go under; each run uses
	// a fresh prefix below it and removes it afterwards. Empty: the
	// scratch directory.
	Warehouse string
	// CatalogProps are key=value iceberg-go properties of the file IO:
	// s3.endpoint, s3.region, s3.access-key-id, s3.secret-access-key,
	// s3.force-virtual-addressing, ... Properties that select another
	// catalog (type, uri) are refused: the bench's tables are throwaway
	// and belong in its own scratch catalog.
	CatalogProps []string
}

// Storage kinds, as reports name them.
const (
	StorageLocal = "local"
	StorageS3    = "s3"
)

// Kind is where the files are: local, s3, or the warehouse's URI scheme
// for other object stores.
func (s Storage) Kind() string {
	u, err := url.Parse(s.Warehouse)
	if s.Warehouse == "" || err != nil || u.Scheme == "" || u.Scheme == "file" {
		return StorageLocal
	}
	switch u.Scheme {
	case "s3", "s3a", "s3n":
		return StorageS3
	}
	return u.Scheme
}

// Check refuses properties that are no key=value or that would select
// another catalog, and a warehouse that is no location URI.
func (s Storage) Check() error {
	props, err := catalogPropMap(s.CatalogProps)
	if err != nil {
		return err
	}
	for _, k := range []string{"type", "uri", "warehouse"} {
		if _, ok := props[k]; ok {
			return fmt.Errorf("catalog property %q: the bench keeps its own catalog in the scratch directory; give the file IO's properties (s3.*) and --warehouse", k)
		}
	}
	if s.Warehouse != "" {
		u, err := url.Parse(s.Warehouse)
		if err != nil || u.Scheme == "" || (u.Host == "" && u.Scheme != "file") {
			return fmt.Errorf("warehouse %q: want a location URI such as s3://bucket/prefix", s.Warehouse)
		}
	}
	return nil
}

// config is the warehouse configuration of a run whose scratch directory
// is dir: the catalog in dir, the files under a prefix named after dir
// (so runs never share files) when the warehouse is elsewhere.
func (s Storage) config(dir string) (lake.Config, string, error) {
	props, err := catalogPropMap(s.CatalogProps)
	if err != nil {
		return lake.Config{}, "", err
	}
	cfg := lake.Config{DataDir: dir, CatalogProps: props}
	if s.Warehouse == "" {
		return cfg, "", nil
	}
	cfg.WarehouseURI = strings.TrimRight(s.Warehouse, "/") + "/" + filepath.Base(dir)
	return cfg, cfg.WarehouseURI, nil
}

// removeWarehouse deletes every file under loc, the run's own prefix: the
// scratch directory's removal does not reach object storage. Clones share
// the source's data files, so purging table by table would remove files
// twice; the prefix holds exactly the run's files.
func removeWarehouse(props map[string]string, loc string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	fsys, err := iceio.LoadFS(ctx, props, loc)
	if err != nil {
		return fmt.Errorf("remove %s: %w", loc, err)
	}
	lister, ok := fsys.(iceio.ListableIO)
	if !ok {
		return fmt.Errorf("remove %s: its file IO cannot list; remove it by hand", loc)
	}
	var files []string
	err = lister.WalkDir(loc, func(path string, d iofs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			files = append(files, path)
		}
		return nil
	})
	if err != nil && !errors.Is(err, iofs.ErrNotExist) {
		return fmt.Errorf("remove %s: list: %w", loc, err)
	}
	if bulk, ok := fsys.(iceio.BulkRemovableIO); ok {
		if _, err := bulk.DeleteFiles(ctx, files); err != nil {
			return fmt.Errorf("remove %s: %w", loc, err)
		}
		return nil
	}
	var errs error
	for _, f := range files {
		errs = errors.Join(errs, fsys.Remove(f))
	}
	if errs != nil {
		return fmt.Errorf("remove %s: %w", loc, errs)
	}
	return nil
}
