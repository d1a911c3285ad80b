package lake

import (
	"context"
	"strconv"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// LiveRecords is the rows snapshot id of tbl (nil: the current one) holds
// by its summary: its records less its position deletes and deletion
// vectors, and less its equality deletes (each of which deletes at most
// the rows it matches, so the count is then a lower bound); 0 for a table
// without a snapshot. ok is false when the summary does not say.
func LiveRecords(tbl *table.Table, id *int64) (n int64, ok bool) {
	snap := tbl.CurrentSnapshot()
	if id != nil {
		snap = tbl.Metadata().SnapshotByID(*id)
	}
	if snap == nil {
		return 0, true
	}
	if snap.Summary == nil {
		return 0, false
	}
	props := snap.Summary.Properties
	n, err := strconv.ParseInt(props[SummaryTotalRecords], 10, 64)
	if err != nil {
		return 0, false
	}
	for _, k := range []string{SummaryTotalPosDeletes, SummaryTotalEqDeletes} {
		d, _ := strconv.ParseInt(props[k], 10, 64)
		n -= d
	}
	return max(n, 0), true
}

// ColumnFileStats are what the live data files of a snapshot record of a
// column, summed: its null values and its bytes on disk, out of Records
// rows (deleted rows included: files' statistics count what they hold).
type ColumnFileStats struct {
	Records int64
	Nulls   map[int]int64 // by field id; a column some file records no count for is absent
	Bytes   map[int]int64 // likewise, column_sizes
}

// ColumnStats sums the column statistics of the live data files of
// snapshot snapshotID of tbl (nil: the current one), reading manifests
// through cache (nil: read).
func ColumnStats(ctx context.Context, tbl *table.Table, snapshotID *int64, cache *ManifestCache) (ColumnFileStats, error) {
	out := ColumnFileStats{Nulls: map[int]int64{}, Bytes: map[int]int64{}}
	entries, err := dataEntries(ctx, tbl, snapshotID, cache)
	if entries == nil || err != nil {
		return out, err
	}
	noNulls, noBytes := map[int]bool{}, map[int]bool{}
	first := true
	for _, es := range entries {
		for _, e := range es {
			if e.Status() == iceberg.EntryStatusDELETED {
				continue
			}
			df := e.DataFile()
			out.Records += df.Count()
			addCounts(out.Nulls, noNulls, df.NullValueCounts(), first)
			addCounts(out.Bytes, noBytes, df.ColumnSizes(), first)
			first = false
		}
	}
	return out, nil
}

// addCounts adds a file's counts by field id to sums; a field the first
// file lacks, or a later one lacks, is unknown from then on.
func addCounts(sums map[int]int64, unknown map[int]bool, counts map[int]int64, first bool) {
	for id := range sums {
		if _, ok := counts[id]; !ok {
			unknown[id] = true
			delete(sums, id)
		}
	}
	for id, n := range counts {
		if unknown[id] {
			continue
		}
		if _, seen := sums[id]; !seen && !first {
			unknown[id] = true
			continue
		}
		sums[id] += n
	}
}

// StatisticsFor is the statistics entry the snapshot id of tbl (nil: the
// current one) has, or, when it has none, that of its nearest ancestor
// that has one: an ancestor shares most of its data, where a later
// snapshot of another branch may not.
func StatisticsFor(tbl *table.Table, id *int64) (table.StatisticsFile, bool) {
	meta := tbl.Metadata()
	snap := meta.CurrentSnapshot()
	if id != nil {
		snap = meta.SnapshotByID(*id)
	}
	byID := map[int64]table.StatisticsFile{}
	for sf := range meta.Statistics() {
		byID[sf.SnapshotID] = sf
	}
	for snap != nil && len(byID) > 0 {
		if sf, ok := byID[snap.SnapshotID]; ok {
			return sf, true
		}
		if snap.ParentSnapshotID == nil {
			break
		}
		snap = meta.SnapshotByID(*snap.ParentSnapshotID)
	}
	return table.StatisticsFile{}, false
}

// ColumnNDVs are the distinct counts by field id that the statistics of
// snapshot id of tbl (StatisticsFor) record in their theta blobs' ndv
// property: read from the metadata, no Puffin file opened.
func ColumnNDVs(tbl *table.Table, id *int64) map[int]int64 {
	sf, ok := StatisticsFor(tbl, id)
	if !ok {
		return nil
	}
	out := map[int]int64{}
	for _, bm := range sf.BlobMetadata {
		if bm.Type != table.BlobTypeApacheDatasketchesThetaV1 || len(bm.Fields) != 1 {
			continue
		}
		if n, err := strconv.ParseInt(bm.Properties[ndvProperty], 10, 64); err == nil && n >= 0 {
			out[int(bm.Fields[0])] = n
		}
	}
	return out
}
