package lake

import (
	"slices"

	"github.com/apache/iceberg-go/table"
)

// removeStatisticsUpdates are the remove-statistics and
// remove-partition-statistics updates of the snapshots gone that meta has
// statistics for: the spec's way of saying the entries leave with their
// snapshots, which a catalog applying the updates need not infer.
func removeStatisticsUpdates(meta table.Metadata, gone []int64) []table.Update {
	var out []table.Update
	for sf := range meta.Statistics() {
		if slices.Contains(gone, sf.SnapshotID) {
			out = append(out, table.NewRemoveStatisticsUpdate(sf.SnapshotID))
		}
	}
	for sf := range meta.PartitionStatistics() {
		if slices.Contains(gone, sf.SnapshotID) {
			out = append(out, table.NewRemovePartitionStatisticsUpdate(sf.SnapshotID))
		}
	}
	return out
}

// expiredStatistics are the statistics files before lists and after does
// not, with their sizes: an expiry frees them only when no entry that
// stays names them (an entry carried to a later snapshot shares its
// predecessor's file).
func expiredStatistics(before, after table.Metadata) map[string]int64 {
	kept := statisticsPaths(after)
	out := map[string]int64{}
	for sf := range before.Statistics() {
		if !kept[sf.StatisticsPath] {
			out[sf.StatisticsPath] = sf.FileSizeInBytes
		}
	}
	for sf := range before.PartitionStatistics() {
		if !kept[sf.StatisticsPath] {
			out[sf.StatisticsPath] = sf.FileSizeInBytes
		}
	}
	return out
}
