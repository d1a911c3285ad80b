package lake

import (
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/internal/lru"
)

// ManifestCache keeps the entries of manifests, and the manifests of
// manifest lists, this process read: for its later plans (PlanFiles), which
// read every live manifest of a snapshot, and commits, which read the
// parent's manifests that hold a file they remove (to rewrite them) and the
// small ones they merge. Under a stream of small statements on one table
// those are mostly what the previous statements read too, and decoding them
// again (iceberg-go parses each file's Avro schema anew) was a quarter of a
// busy server's CPU. A file never changes once written, so nothing is
// invalidated (a discarded block view's manifests stay until evicted); entries
// are keyed by what they inherit from the manifest list as well as by path,
// since a staged manifest can be listed again with another sequence number
// or first row id. Callers treat the entries as read-only: they are shared.
type ManifestCache struct {
	held  *lru.Cache[manifestKey, []iceberg.ManifestEntry] // cost: entriesBytes
	lists *lru.Cache[string, []iceberg.ManifestFile]       // manifest list → its manifests
	// metrics keeps the column metrics of a manifest's data files as
	// plans read them for pruning: iceberg-go copies all five maps at
	// every call, which was most of what planning a DELETE over many
	// small files allocated.
	metrics *lru.Cache[manifestKey, *manifestMetrics]

	// For writing manifests: entry schemas by format version and partition
	// type, and idle deflate compressors.
	mu          sync.Mutex
	schemas     map[string]string
	listSchemas map[int]*listSchema
	deflaters   sync.Pool
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

// NewManifestCache holds at most limit bytes of entries, least recently
// used out.
func NewManifestCache(limit int64) *ManifestCache {
	return &ManifestCache{held: lru.New[manifestKey, []iceberg.ManifestEntry](limit, nil),
		lists:   lru.New[string, []iceberg.ManifestFile](limit/8, nil),
		metrics: lru.New[manifestKey, *manifestMetrics](limit/2, nil),
		schemas: map[string]string{}, listSchemas: map[int]*listSchema{}}
}

// entrySchema is manifestEntrySchema, remembered. Few keys exist: one per
// format version and partition type the process writes.
func (c *ManifestCache) entrySchema(version int, spec iceberg.PartitionSpec, schema *iceberg.Schema) (string, error) {
	if c == nil {
		return manifestEntrySchema(version, spec, schema)
	}
	key := strconv.Itoa(version) + " " + spec.PartitionType(schema).String()
	c.mu.Lock()
	text, ok := c.schemas[key]
	c.mu.Unlock()
	if ok {
		return text, nil
	}
	text, err := manifestEntrySchema(version, spec, schema)
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	c.schemas[key] = text
	c.mu.Unlock()
	return text, nil
}

// rememberList holds mfs as the manifests of the manifest list at path.
func (c *ManifestCache) rememberList(path string, mfs []iceberg.ManifestFile) {
	if c != nil {
		c.lists.Add(path, mfs, listBytes(mfs))
	}
}

// rememberEntries holds es as the entries of mf (as a manifest list lists it).
func (c *ManifestCache) rememberEntries(mf iceberg.ManifestFile, es []iceberg.ManifestEntry) {
	if c != nil {
		c.held.Add(keyOf(mf), es, entriesBytes(es))
	}
}

// manifestMetrics holds the metrics of one manifest's entries, by index,
// each read on first use.
type manifestMetrics struct {
	files []atomic.Pointer[fileMetrics]
}

// metricsMemo is the memo of mf's metrics, whose entries are es; nil (read
// every time) without a cache.
func (c *ManifestCache) metricsMemo(mf iceberg.ManifestFile, es []iceberg.ManifestEntry) *manifestMetrics {
	if c == nil {
		return nil
	}
	k := keyOf(mf)
	if mm, ok := c.metrics.Get(k, nil); ok && len(mm.files) == len(es) {
		return mm
	}
	mm := &manifestMetrics{files: make([]atomic.Pointer[fileMetrics], len(es))}
	if !c.metrics.Add(k, mm, statsBytes(es)) {
		if held, ok := c.metrics.Get(k, nil); ok && len(held.files) == len(es) {
			return held // another plan added it meanwhile
		}
	}
	return mm
}

// of is entry i's metrics (df its data file).
func (m *manifestMetrics) of(i int, df iceberg.DataFile) *fileMetrics {
	if m == nil {
		return metricsOf(df)
	}
	if fm := m.files[i].Load(); fm != nil {
		return fm
	}
	fm := metricsOf(df)
	m.files[i].Store(fm)
	return fm
}

// listSchema is newListSchema, remembered.
func (c *ManifestCache) listSchema(version int) (*listSchema, error) {
	if c == nil {
		return newListSchema(version)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if ls, ok := c.listSchemas[version]; ok {
		return ls, nil
	}
	ls, err := newListSchema(version)
	if err != nil {
		return nil, err
	}
	c.listSchemas[version] = ls
	return ls, nil
}

// codec deflates manifest blocks with the cache's idle compressors.
func (c *ManifestCache) codec() *manifestCodec {
	if c == nil {
		return &manifestCodec{}
	}
	return &manifestCodec{pool: &c.deflaters}
}

// list is snap's manifests, read through the cache (a nil cache reads).
func (c *ManifestCache) list(fs iceio.IO, snap table.Snapshot) ([]iceberg.ManifestFile, error) {
	if c == nil {
		return snap.Manifests(fs)
	}
	return cachedManifestList(c.lists, fs, snap)
}

func keyOf(mf iceberg.ManifestFile) manifestKey {
	k := manifestKey{path: mf.FilePath(), seq: mf.SequenceNum(), snap: mf.SnapshotID()}
	if id := mf.FirstRowID(); id != nil {
		k.firstRowID, k.hasFirstRow = *id, true
	}
	return k
}

// entries is every entry of mf, of every status, read through fs unless
// the cache holds it. A nil cache reads every time.
func (c *ManifestCache) entries(fs iceio.IO, mf iceberg.ManifestFile) ([]iceberg.ManifestEntry, error) {
	if c == nil {
		return mf.FetchEntries(fs, false)
	}
	k := keyOf(mf)
	if es, ok := c.held.Get(k, nil); ok {
		return es, nil
	}
	es, err := mf.FetchEntries(fs, false)
	if err != nil {
		return nil, err
	}
	c.held.Add(k, es, entriesBytes(es))
	return es, nil
}

// entriesBytes estimates the memory decoded entries hold: a fixed part,
// the path, and each column statistic (map slots, and the bounds' bytes).
// Wide tables have many statistics per entry, so counting entries alone
// would let the cache grow a hundredfold with the column count.
func entriesBytes(es []iceberg.ManifestEntry) int64 {
	var n int64
	for _, e := range es {
		df := e.DataFile()
		n += 512 + int64(len(df.FilePath())) + 32*int64(len(df.ColumnSizes()))
	}
	return n + statsBytes(es)
}

// statsBytes is the part of entriesBytes the metrics pruning reads (value,
// null and NaN counts, bounds), which fileMetrics copy.
func statsBytes(es []iceberg.ManifestEntry) int64 {
	var n int64
	for _, e := range es {
		df := e.DataFile()
		n += 64 + 32*int64(len(df.ValueCounts())+len(df.NullValueCounts())+len(df.NaNValueCounts()))
		for _, bounds := range []map[int][]byte{df.LowerBoundValues(), df.UpperBoundValues()} {
			for _, b := range bounds {
				n += 48 + int64(len(b))
			}
		}
	}
	return n
}
