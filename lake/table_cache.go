package lake

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

	mu      sync.Mutex
	tables  map[tableVersion]cachedTable
	order   []tableVersion                 // oldest first
	loading map[tableVersion]chan struct{} // parses under way: one per version
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
	return &cachingCatalog{Catalog: cat, locate: locate, tables: map[tableVersion]cachedTable{},
		loading: map[tableVersion]chan struct{}{}}
}

// LoadTable: after a commit every session of a server loads the new
// version at about the same time, so one of them parses it and the others
// wait for that.
func (c *cachingCatalog) LoadTable(ctx context.Context, ident table.Identifier) (*table.Table, error) {
	loc, known := c.locate(ctx, ident)
	if !known {
		return c.load(ctx, ident)
	}
	k := tableVersion{strings.Join(ident, "\x00"), loc}
	for {
		ct, ok, wait := c.lookup(k)
		if ok && ct.stamp == stampOf(loc) {
			return ct.tbl, nil
		}
		if wait == nil {
			break
		}
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	defer c.loaded(k)
	return c.load(ctx, ident)
}

// lookup is k's cached table; when there is none and another caller is
// parsing it, wait is closed when that is done; else this caller is now
// the one parsing it and must call loaded.
func (c *cachingCatalog) lookup(k tableVersion) (ct cachedTable, ok bool, wait chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ct, ok = c.tables[k]; ok {
		return ct, true, nil
	}
	if w, busy := c.loading[k]; busy {
		return cachedTable{}, false, w
	}
	c.loading[k] = make(chan struct{})
	return cachedTable{}, false, nil
}

func (c *cachingCatalog) loaded(k tableVersion) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if w, ok := c.loading[k]; ok {
		close(w)
		delete(c.loading, k)
	}
}

func (c *cachingCatalog) load(ctx context.Context, ident table.Identifier) (*table.Table, error) {
	tbl, err := c.Catalog.LoadTable(ctx, ident)
	if err == nil {
		c.remember(tbl)
	}
	return tbl, err
}

// remember caches tbl as its metadata file's table: what LoadTable parsed,
// or what a commit of this process produced (its next load is then free).
func (c *cachingCatalog) remember(tbl *table.Table) {
	loc := tbl.MetadataLocation()
	c.put(tableVersion{strings.Join(tbl.Identifier(), "\x00"), loc}, cachedTable{tbl, stampOf(loc)})
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
