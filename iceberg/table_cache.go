package iceberg

import (
	"context"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

// cachingCatalog answers LoadTable from tables it already parsed when the
// catalog row still points at the same metadata file. Parsing the metadata
// JSON grows with the table's snapshots and was the largest single cost of
// a small statement (several loads each: the statement's, the commit's, a
// retry's); asking the embedded catalog for the location is one indexed
// SQLite read. Metadata files are immutable, so a table parsed from one
// location is that location's table for good — unless something outside
// Iceberg rewrote the file: a local file must still have the size and
// modification time it had when parsed, so a damaged one is reported, not
// hidden.
type cachingCatalog struct {
	catalog.Catalog
	locate func(ctx context.Context, ident table.Identifier) (string, bool)

	mu     sync.Mutex
	tables map[tableVersion]cachedTable
	order  []tableVersion // oldest first
}

// cachedTable is a parsed table and, for a local file, what it was parsed from.
type cachedTable struct {
	tbl   *table.Table
	stamp fileStamp
}

// fileStamp is a local file's size and modification time; zero elsewhere.
type fileStamp struct {
	size  int64
	mtime time.Time
}

func stampOf(location string) fileStamp {
	u, err := url.Parse(location)
	if err != nil || (u.Scheme != "file" && u.Scheme != "") {
		return fileStamp{}
	}
	fi, err := os.Stat(u.Path)
	if err != nil {
		return fileStamp{size: -1}
	}
	return fileStamp{size: fi.Size(), mtime: fi.ModTime()}
}

// tableVersion is one table at one metadata file; the name is part of the
// key because a rename keeps the file.
type tableVersion struct{ ident, location string }

// tablesCached bounds the cache: a few versions of each of the tables in use.
const tablesCached = 64

func newCachingCatalog(cat catalog.Catalog, locate func(context.Context, table.Identifier) (string, bool)) *cachingCatalog {
	return &cachingCatalog{Catalog: cat, locate: locate, tables: map[tableVersion]cachedTable{}}
}

func (c *cachingCatalog) LoadTable(ctx context.Context, ident table.Identifier) (*table.Table, error) {
	loc, known := c.locate(ctx, ident)
	if known {
		if ct, ok := c.get(tableVersion{strings.Join(ident, "\x00"), loc}); ok && ct.stamp == stampOf(loc) {
			return ct.tbl, nil
		}
	}
	tbl, err := c.Catalog.LoadTable(ctx, ident)
	if err == nil {
		c.put(tableVersion{strings.Join(ident, "\x00"), tbl.MetadataLocation()}, cachedTable{tbl, stampOf(tbl.MetadataLocation())})
	}
	return tbl, err
}

func (c *cachingCatalog) get(k tableVersion) (cachedTable, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ct, ok := c.tables[k]
	return ct, ok
}

func (c *cachingCatalog) put(k tableVersion, ct cachedTable) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.tables[k]; ok {
		c.tables[k] = ct
		return
	}
	if len(c.order) == tablesCached {
		delete(c.tables, c.order[0])
		c.order = c.order[1:]
	}
	c.order = append(c.order, k)
	c.tables[k] = ct
}
