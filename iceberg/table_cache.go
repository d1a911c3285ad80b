package iceberg

import (
	"context"
	"strings"
	"sync"

	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

// cachingCatalog answers LoadTable from tables it already parsed when the
// catalog row still points at the same metadata file. Parsing the metadata
// JSON grows with the table's snapshots and was the largest single cost of
// a small statement (several loads each: the statement's, the commit's, a
// retry's); asking the embedded catalog for the location is one indexed
// SQLite read. Metadata files are immutable, so a table parsed from one
// location is that location's table for good.
type cachingCatalog struct {
	catalog.Catalog
	locate func(ctx context.Context, ident table.Identifier) (string, bool)

	mu     sync.Mutex
	tables map[tableVersion]*table.Table
	order  []tableVersion // oldest first
}

// tableVersion is one table at one metadata file; the name is part of the
// key because a rename keeps the file.
type tableVersion struct{ ident, location string }

// tablesCached bounds the cache: a few versions of each of the tables in use.
const tablesCached = 64

func newCachingCatalog(cat catalog.Catalog, locate func(context.Context, table.Identifier) (string, bool)) *cachingCatalog {
	return &cachingCatalog{Catalog: cat, locate: locate, tables: map[tableVersion]*table.Table{}}
}

func (c *cachingCatalog) LoadTable(ctx context.Context, ident table.Identifier) (*table.Table, error) {
	loc, known := c.locate(ctx, ident)
	if known {
		if tbl := c.get(tableVersion{strings.Join(ident, "\x00"), loc}); tbl != nil {
			return tbl, nil
		}
	}
	tbl, err := c.Catalog.LoadTable(ctx, ident)
	if err == nil {
		c.put(tableVersion{strings.Join(ident, "\x00"), tbl.MetadataLocation()}, tbl)
	}
	return tbl, err
}

func (c *cachingCatalog) get(k tableVersion) *table.Table {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tables[k]
}

func (c *cachingCatalog) put(k tableVersion, tbl *table.Table) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.tables[k]; ok {
		return
	}
	if len(c.order) == tablesCached {
		delete(c.tables, c.order[0])
		c.order = c.order[1:]
	}
	c.order = append(c.order, k)
	c.tables[k] = tbl
}
