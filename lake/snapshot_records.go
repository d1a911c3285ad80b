package lake

import (
	"strconv"

	"github.com/apache/iceberg-go/table"
)

// SnapshotRecords is the rows snapshot id of tbl (nil: the current one)
// records in its summary (0 for a table without a snapshot) and whether
// delete files apply to them; ok is false when the summary does not say.
func SnapshotRecords(tbl *table.Table, id *int64) (n int64, deletes, ok bool) {
	snap := tbl.CurrentSnapshot()
	if id != nil {
		snap = tbl.Metadata().SnapshotByID(*id)
	}
	if snap == nil {
		return 0, false, true
	}
	if snap.Summary == nil {
		return 0, false, false
	}
	props := snap.Summary.Properties
	n, err := strconv.ParseInt(props[SummaryTotalRecords], 10, 64)
	return n, props[SummaryTotalDeleteFiles] != "0", err == nil
}
