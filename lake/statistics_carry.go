package lake

import (
	"context"

	"github.com/apache/iceberg-go/table"
)

// StatisticsCarry is what CarryStatistics found.
type StatisticsCarry struct {
	Carried  bool // the snapshot now has its parent's statistics
	Analyzed bool // the table has statistics for some snapshot
}

// CarryStatistics gives snapshot snapID of ident, when it is a replace
// snapshot (OPTIMIZE's: files rewritten, the table's rows unchanged, as
// the spec defines the operation), its parent's statistics: the same
// Puffin file, whose blobs go on saying which snapshot they were computed
// from, as the spec allows. Nothing is read or written but the table's
// metadata, so it is cheap enough to follow every rewrite; the sketches
// of a rewrite cannot be computed from the files it wrote alone, which
// hold only part of the table.
func (m *Maintenance) CarryStatistics(ctx context.Context, ident table.Identifier, snapID int64) (StatisticsCarry, error) {
	tbl, err := m.wh.LoadTable(ctx, ident)
	if err != nil {
		return StatisticsCarry{}, err
	}
	meta := tbl.Metadata()
	var out StatisticsCarry
	var parent *table.StatisticsFile
	snap := meta.SnapshotByID(snapID)
	for sf := range meta.Statistics() {
		out.Analyzed = true
		if sf.SnapshotID == snapID {
			out.Carried = true
			return out, nil // analyzed already
		}
		if snap != nil && snap.ParentSnapshotID != nil && sf.SnapshotID == *snap.ParentSnapshotID {
			parent = &sf
		}
	}
	if parent == nil || snap.Summary == nil || snap.Summary.Operation != table.OpReplace {
		return out, nil
	}
	carried := *parent
	carried.SnapshotID = snapID
	if err := m.commitStatistics(ctx, ident, carried, false); err != nil {
		return out, err
	}
	out.Carried = true
	return out, nil
}
