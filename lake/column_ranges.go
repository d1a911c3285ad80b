package lake

import (
	"context"
	"encoding/binary"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// ColumnRanges are, for each integer or date column of a snapshot of tbl
// (nil: the current one) by field id, the least lower bound and greatest
// upper bound its live data files record: how many values the column can
// hold at most, which the join order weighs. A column some file records no
// bounds for is left out. Manifests are read through cache (nil: read).
func ColumnRanges(ctx context.Context, tbl *table.Table, snapshotID *int64, cache *ManifestCache) (map[int][2]int64, error) {
	entries, err := dataEntries(ctx, tbl, snapshotID, cache)
	if entries == nil || err != nil {
		return nil, err
	}
	schema := SchemaForSnapshot(tbl, snapshotID)
	out := map[int][2]int64{}
	unknown := map[int]bool{}
	first := true
	for _, es := range entries {
		for _, e := range es {
			if e.Status() == iceberg.EntryStatusDELETED {
				continue
			}
			df := e.DataFile()
			for _, f := range schema.Fields() {
				lo, okLo := intBound(f.Type, df.LowerBoundValues()[f.ID])
				hi, okHi := intBound(f.Type, df.UpperBoundValues()[f.ID])
				if !okLo || !okHi || unknown[f.ID] || !first && !has(out, f.ID) {
					unknown[f.ID] = true
					delete(out, f.ID)
					continue
				}
				r, seen := out[f.ID]
				if !seen {
					r = [2]int64{lo, hi}
				}
				out[f.ID] = [2]int64{min(r[0], lo), max(r[1], hi)}
			}
			first = false
		}
	}
	return out, nil
}

func has(m map[int][2]int64, id int) bool {
	_, ok := m[id]
	return ok
}

// intBound decodes an Iceberg single-value bound of an int, long or date
// column.
func intBound(t iceberg.Type, b []byte) (int64, bool) {
	switch t.(type) {
	case iceberg.Int32Type, iceberg.DateType:
		if len(b) == 4 {
			return int64(int32(binary.LittleEndian.Uint32(b))), true
		}
	case iceberg.Int64Type:
		if len(b) == 8 {
			return int64(binary.LittleEndian.Uint64(b)), true
		}
	}
	return 0, false
}

// dataEntries are the data manifests' entries of tbl at snapshotID (nil:
// its current snapshot), read through cache (nil: read); nil when there
// is no such snapshot.
func dataEntries(ctx context.Context, tbl *table.Table, snapshotID *int64, cache *ManifestCache) ([][]iceberg.ManifestEntry, error) {
	snap := tbl.CurrentSnapshot()
	if snapshotID != nil {
		snap = tbl.Metadata().SnapshotByID(*snapshotID)
	}
	if snap == nil {
		return nil, nil
	}
	fs, err := FS(ctx, tbl)
	if err != nil {
		return nil, err
	}
	mfs, err := cache.list(fs, *snap)
	if err != nil {
		return nil, err
	}
	var data []iceberg.ManifestFile
	for _, mf := range mfs {
		if mf.ManifestContent() == iceberg.ManifestContentData {
			data = append(data, mf)
		}
	}
	return cache.readAll(ctx, fs, data)
}
