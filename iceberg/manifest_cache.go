package iceberg

import (
	"container/list"
	"sync"

	ice "github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
)

// ManifestCache keeps the entries of manifests this process's commits read,
// for its later commits. Each commit reads the parent's manifests that hold
// a file it removes (to rewrite them) and the small ones it merges; under a
// stream of small statements on one table those are mostly the manifests
// the previous commits read too, and decoding them again (iceberg-go parses
// each file's Avro schema anew) was a tenth of a busy server's CPU. A
// manifest never changes once written, so nothing is invalidated; entries
// are keyed by what they inherit from the manifest list as well as by path,
// since a staged manifest can be listed again with another sequence number
// or first row id. Callers treat the entries as read-only: they are shared.
type ManifestCache struct {
	mu    sync.Mutex
	limit int64 // bytes held at most (estimated)
	held  int64
	order *list.List // of *cachedManifest, most recently used first
	items map[manifestKey]*list.Element
}

// DefaultManifestCacheBytes bounds a warehouse's cache (entriesBytes'
// estimate of the decoded entries).
const DefaultManifestCacheBytes = 32 << 20

type manifestKey struct {
	path        string
	seq, snap   int64
	firstRowID  int64
	hasFirstRow bool
}

type cachedManifest struct {
	key     manifestKey
	entries []ice.ManifestEntry
	bytes   int64
}

// NewManifestCache holds at most limit bytes of entries, least recently
// used out.
func NewManifestCache(limit int64) *ManifestCache {
	return &ManifestCache{limit: limit, order: list.New(), items: map[manifestKey]*list.Element{}}
}

func keyOf(mf ice.ManifestFile) manifestKey {
	k := manifestKey{path: mf.FilePath(), seq: mf.SequenceNum(), snap: mf.SnapshotID()}
	if id := mf.FirstRowID(); id != nil {
		k.firstRowID, k.hasFirstRow = *id, true
	}
	return k
}

// entries is every entry of mf, of every status, read through fs unless
// the cache holds it. A nil cache reads every time.
func (c *ManifestCache) entries(fs iceio.IO, mf ice.ManifestFile) ([]ice.ManifestEntry, error) {
	if c == nil {
		return mf.FetchEntries(fs, false)
	}
	k := keyOf(mf)
	c.mu.Lock()
	if el, ok := c.items[k]; ok {
		c.order.MoveToFront(el)
		c.mu.Unlock()
		return el.Value.(*cachedManifest).entries, nil
	}
	c.mu.Unlock()
	es, err := mf.FetchEntries(fs, false)
	if err != nil {
		return nil, err
	}
	c.add(k, es)
	return es, nil
}

func (c *ManifestCache) add(k manifestKey, es []ice.ManifestEntry) {
	n := entriesBytes(es)
	if n > c.limit {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[k]; ok {
		return // read at the same time by another commit
	}
	c.items[k] = c.order.PushFront(&cachedManifest{key: k, entries: es, bytes: n})
	c.held += n
	for c.held > c.limit {
		old := c.order.Remove(c.order.Back()).(*cachedManifest)
		delete(c.items, old.key)
		c.held -= old.bytes
	}
}

// entriesBytes estimates the memory decoded entries hold: a fixed part,
// the path, and each column statistic (map slots, and the bounds' bytes).
// Wide tables have many statistics per entry, so counting entries alone
// would let the cache grow a hundredfold with the column count.
func entriesBytes(es []ice.ManifestEntry) int64 {
	var n int64
	for _, e := range es {
		df := e.DataFile()
		n += 512 + int64(len(df.FilePath()))
		n += 32 * int64(len(df.ColumnSizes())+len(df.ValueCounts())+len(df.NullValueCounts())+len(df.NaNValueCounts()))
		for _, bounds := range []map[int][]byte{df.LowerBoundValues(), df.UpperBoundValues()} {
			for _, b := range bounds {
				n += 48 + int64(len(b))
			}
		}
	}
	return n
}
