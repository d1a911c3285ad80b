package lake

import (
	"context"

	"github.com/apache/iceberg-go/table"
)

// CarryStatistics gives snapshot snapID of ident, when it is a replace
// snapshot (OPTIMIZE's: files rewritten, the table's rows unchanged, as
// the spec defines the operation), its parent's statistics: the same
// Puffin file, whose blobs go on saying which snapshot they were computed
// from, as the spec allows. Nothing is read or written but the table's
// metadata, so it is cheap enough to follow every rewrite. It reports
// whether the snapshot has statistics now.
func (m *Maintenance) CarryStatistics(ctx context.Context, ident table.Identifier, snapID int64) (carried bool, err error) {
	tbl, err := m.wh.LoadTable(ctx, ident)
	if err != nil {
		return false, err
	}
	meta := tbl.Metadata()
	var parent *table.StatisticsFile
	snap := meta.SnapshotByID(snapID)
	for sf := range meta.Statistics() {
		if sf.SnapshotID == snapID {
			return true, nil // analyzed already
		}
		if snap != nil && snap.ParentSnapshotID != nil && sf.SnapshotID == *snap.ParentSnapshotID {
			parent = &sf
		}
	}
	if parent == nil || snap.Summary == nil || snap.Summary.Operation != table.OpReplace {
		return false, nil
	}
	sf := *parent
	sf.SnapshotID = snapID
	if err := m.commitStatistics(ctx, ident, sf, false); err != nil {
		return false, err
	}
	return true, nil
}
