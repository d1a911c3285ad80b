package deletes

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table/dv"

	"github.com/magmalake/magmalake/internal/lru"
	"github.com/magmalake/magmalake/internal/progress"
	"github.com/magmalake/magmalake/lake"
)

// FileCache keeps the decoded columns of small data files that statements
// plan against, least recently used first out (as lru approximates it, in
// shards). A table written by many small INSERTs gains a data file each
// time, and every DELETE, UPDATE and MERGE reads the predicate's columns
// of every file: opening, parsing the footer and decoding a few KiB cost
// ~0.2 ms a file, a third of a contended server's CPU once a table has
// hundreds. Data files never change once written (a path is never reused),
// so an entry needs no invalidation.
// Only files of at most lake.WholeReadMax bytes are kept (on object
// storage that spares their GETs too). Safe for concurrent use; a nil
// *FileCache keeps nothing.
type FileCache struct {
	entries *lru.Sharded[string, *cachedFile]
	// entryLimit bounds one file's entry, so that a file cannot flush the
	// cache; an eighth of the cache.
	entryLimit int64
}

// NewFileCache returns a cache holding at most limit bytes of decoded
// columns; limit <= 0 gives nil, a cache that keeps nothing.
func NewFileCache(limit int64) *FileCache {
	if limit <= 0 {
		return nil
	}
	return newFileCache(limit, limit/8)
}

// newFileCache shards the cache into as many parts as entries of the
// largest size fit in it, at most 8: an entry must fit its shard.
func newFileCache(limit, entryLimit int64) *FileCache {
	release := func(cf *cachedFile) { releaseAll(cf.batches) }
	shards := int(min(8, limit/max(entryLimit, 1)))
	return &FileCache{entries: lru.NewSharded[string](limit, shards, release), entryLimit: entryLimit}
}

// cachedFile is one file read through one projection: its batches and the
// position of each batch's first row.
type cachedFile struct {
	key     string
	batches []arrow.RecordBatch
	bases   []int64
	dv      *dv.RoaringPositionBitmap // a deletion vector's entry instead
	bytes   int64
}

// Hits is how many reads the cache answered (tests read it).
func (c *FileCache) Hits() int64 {
	if c == nil {
		return 0
	}
	return c.entries.Hits()
}

// cacheKey names a file read through the reader's projection of requested:
// the batches differ by columns (ids, names, types), batch size, format
// version, field-id stamping and name mapping.
func (r positionalReader) cacheKey(path string, requested *iceberg.Schema) string {
	if r.keys == nil {
		return path + r.projectionKey(requested)
	}
	if k, ok := r.keys.Load(requested); ok {
		return path + k.(string)
	}
	k := r.projectionKey(requested)
	r.keys.Store(requested, k)
	return path + k
}

// projectionKey is the part of a cache key that names the projection.
func (r positionalReader) projectionKey(requested *iceberg.Schema) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\x00%d\x00%d\x00%t\x00", r.batchSize, r.formatVersion, r.withFieldIDs)
	for _, f := range requested.Fields() {
		fmt.Fprintf(&b, "%d:%s:%s:%t;", f.ID, f.Name, f.Type, f.Required)
	}
	if r.nameMapping != nil {
		fmt.Fprintf(&b, "\x00%v", r.nameMapping)
	}
	return b.String()
}

// replay hands the cached batches of key to fn, as a read would; false if
// key is not cached.
func (c *FileCache) replay(key string, prog *progress.Progress, fn batchFunc) (bool, error) {
	if c == nil {
		return false, nil
	}
	cf, ok := c.entries.Get(key, func(cf *cachedFile) {
		for _, b := range cf.batches {
			b.Retain() // an eviction meanwhile must not free them under fn
		}
	})
	if !ok {
		return false, nil
	}
	var err error
	for i, b := range cf.batches {
		if err == nil {
			prog.AddRows(b.NumRows())
			err = fn(b, cf.bases[i])
		}
		b.Release()
	}
	return true, err
}

// deletionVector reads the bitmap of deletion vector d, from the cache when
// it holds it: a DV never changes either (deleting more rows of a data file
// writes a new one, at a new path or offset), and a contended statement
// read every candidate file's DV again (7% of a soak's CPU). The bitmap is
// shared: callers only read it.
func (c *FileCache) deletionVector(fs iceio.IO, d iceberg.DataFile) (*dv.RoaringPositionBitmap, error) {
	if c == nil {
		return lake.ReadDV(fs, d)
	}
	key := fmt.Sprintf("dv\x00%s\x00%d\x00%d", d.FilePath(), ptrOr(d.ContentOffset()), ptrOr(d.ContentSizeInBytes()))
	if cf, ok := c.entries.Get(key, nil); ok {
		return cf.dv, nil
	}
	bm, err := lake.ReadDV(fs, d)
	if err != nil {
		return nil, err
	}
	c.add(&cachedFile{key: key, dv: bm, bytes: max(ptrOr(d.ContentSizeInBytes()), 64)})
	return bm, nil
}

// add keeps an entry: a file's batches (retained by the caller for the
// cache) or a deletion vector. An entry too large, or read meanwhile by
// another statement, is released instead.
func (c *FileCache) add(cf *cachedFile) {
	if cf.bytes > c.entryLimit || !c.entries.Add(cf.key, cf, cf.bytes) {
		releaseAll(cf.batches)
	}
}

// batchBytes is the size of b's buffers.
func batchBytes(b arrow.RecordBatch) int64 {
	var n int64
	for _, col := range b.Columns() {
		n += dataBytes(col.Data())
	}
	return n
}

func dataBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, buf := range d.Buffers() {
		if buf != nil {
			n += int64(buf.Len())
		}
	}
	for _, ch := range d.Children() {
		n += dataBytes(ch)
	}
	if dict := d.Dictionary(); dict != nil && d.DataType().ID() == arrow.DICTIONARY {
		n += dataBytes(dict)
	}
	return n
}
