package iceberg

import (
	ice "github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
)

// manifestCache keeps the entries of manifests a table's commits read.
// Each commit opens the parent's delete manifests (and the data manifests of
// files it removes), and under contention the next commit opens nearly the
// same ones; decoding them is most of the cost of staging a small change.
// A manifest file never changes once written, and the values inherited from
// the manifest list (sequence numbers, first_row_id) are fixed when it is
// first committed, so its entries can be reused for as long as it is
// referenced. Used only by the holder of the table's turn; a nil cache reads
// every time.
type manifestCache struct {
	order   []string // oldest first
	entries map[string][]ice.ManifestEntry
	size    int // entries held
}

// manifestEntriesCached bounds the cache by entries, not manifests: a few
// hundred bytes each, so some tens of MB at most.
const manifestEntriesCached = 200_000

// fetch returns mf's entries, every status included.
func (c *manifestCache) fetch(fs iceio.IO, mf ice.ManifestFile) ([]ice.ManifestEntry, error) {
	if c == nil {
		return mf.FetchEntries(fs, false)
	}
	if es, ok := c.entries[mf.FilePath()]; ok {
		return es, nil
	}
	es, err := mf.FetchEntries(fs, false)
	if err != nil {
		return nil, err
	}
	c.put(mf.FilePath(), es)
	return es, nil
}

func (c *manifestCache) put(path string, es []ice.ManifestEntry) {
	if len(es) > manifestEntriesCached {
		return
	}
	if c.entries == nil {
		c.entries = map[string][]ice.ManifestEntry{}
	}
	for c.size+len(es) > manifestEntriesCached && len(c.order) > 0 {
		c.size -= len(c.entries[c.order[0]])
		delete(c.entries, c.order[0])
		c.order = c.order[1:]
	}
	c.order = append(c.order, path)
	c.entries[path] = es
	c.size += len(es)
}
