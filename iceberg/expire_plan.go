package iceberg

import (
	"context"
	"maps"
	"time"

	"github.com/apache/iceberg-go/table"
)

// expiryPlan is the snapshots iceberg-go's rules expire on a head read
// outside the commit turn.
type expiryPlan struct {
	head *table.Table
	ids  []int64 // the snapshots to remove
	// refsDropped: the rules also drop a ref (one past its max age), which
	// only an expiry within the turn does.
	refsDropped bool
}

// planExpiry works out, on ident's head as it is now, which snapshots the
// expiry removes; it commits nothing.
func (w *Warehouse) planExpiry(ctx context.Context, ident table.Identifier, olderThan time.Duration, retainLast int, pins Pins) (*expiryPlan, error) {
	head, err := w.LoadTable(ctx, ident)
	if err != nil {
		return nil, err
	}
	age, err := pinnedAge(olderThan, pins)
	if err != nil {
		return nil, err
	}
	tx := head.NewTransaction()
	opts := []table.ExpireSnapshotsOpt{table.WithOlderThan(age), table.WithPostCommit(false)}
	if retainLast > 0 {
		opts = append(opts, table.WithRetainLast(retainLast))
	}
	if err := tx.ExpireSnapshots(opts...); err != nil {
		return nil, err
	}
	staged, err := tx.StagedTable()
	if err != nil {
		return nil, err
	}
	plan := &expiryPlan{head: head}
	kept := snapshotIDs(staged.Metadata())
	for id := range snapshotIDs(head.Metadata()) {
		if !kept[id] {
			plan.ids = append(plan.ids, id)
		}
	}
	for name := range head.Metadata().Refs() {
		if _, ok := FindRef(staged.Metadata(), name); !ok {
			plan.refsDropped = true
		}
	}
	return plan, nil
}

// finishExpiry commits plan within ident's commit turn, on the head as it
// is then: the planned snapshots that still exist, that no ref points at,
// and that are older than the oldest snapshot a reader reads (pins, asked
// again) are removed. Commits since the plan only added snapshots on main,
// which expire nothing the plan did not, so the plan stands; when another
// ref moved, appeared or went, or main did not move forward, the expiry is
// worked out again within the turn, as iceberg-go does it.
func (w *Warehouse) finishExpiry(ctx context.Context, ident table.Identifier, plan *expiryPlan, olderThan time.Duration, retainLast int, pins Pins) (before, after *table.Table, err error) {
	release, err := w.HoldCommits(ctx, ident)
	if err != nil {
		return nil, nil, err
	}
	defer release()
	if before, err = w.LoadTable(ctx, ident); err != nil {
		return nil, nil, err
	}
	age, err := pinnedAge(olderThan, pins)
	if err != nil {
		return nil, nil, err
	}
	if plan.refsDropped || !refsOnlyAdvanced(plan.head.Metadata(), before.Metadata()) {
		after, err = expireInTurn(ctx, before, age, retainLast)
		return before, after, err
	}
	ids := stillExpired(before.Metadata(), plan.ids, time.Now().Add(-age).UnixMilli())
	if len(ids) == 0 {
		return before, before, nil
	}
	meta := before.Metadata()
	reqs := []table.Requirement{table.AssertTableUUID(meta.TableUUID())}
	for name, ref := range meta.Refs() {
		id := ref.SnapshotID
		reqs = append(reqs, table.AssertRefSnapshotID(name, &id))
	}
	nmeta, loc, err := w.cat.CommitTable(ctx, ident, reqs, []table.Update{table.NewRemoveSnapshotsUpdate(ids, false)})
	if err != nil {
		return nil, nil, err
	}
	return before, table.New(ident, nmeta, loc, before.FS, w.cat), nil
}

// refsOnlyAdvanced: now has the refs was had, each pointing at the same
// snapshot, except main, whose head descends from was's.
func refsOnlyAdvanced(was, now table.Metadata) bool {
	old := maps.Collect(was.Refs())
	cur := maps.Collect(now.Refs())
	if len(old) != len(cur) {
		return false
	}
	for name, o := range old {
		c, ok := cur[name]
		switch {
		case !ok || c.SnapshotRefType != o.SnapshotRefType:
			return false
		case name == table.MainBranch:
			if !descends(now, c.SnapshotID, o.SnapshotID) {
				return false
			}
		case c.SnapshotID != o.SnapshotID:
			return false
		}
	}
	return true
}

// stillExpired is the ids of meta's snapshots that no ref points at and
// that were committed before cutoffMs.
func stillExpired(meta table.Metadata, ids []int64, cutoffMs int64) []int64 {
	targets := map[int64]bool{}
	for _, ref := range meta.Refs() {
		targets[ref.SnapshotID] = true
	}
	byID := map[int64]int64{} // id → commit time
	eachSnapshot(meta, func(s *table.Snapshot) { byID[s.SnapshotID] = s.TimestampMs })
	var out []int64
	for _, id := range ids {
		if ts, ok := byID[id]; ok && !targets[id] && ts < cutoffMs {
			out = append(out, id)
		}
	}
	return out
}

// snapshotIDs is the set of meta's snapshot ids.
func snapshotIDs(meta table.Metadata) map[int64]bool {
	out := map[int64]bool{}
	eachSnapshot(meta, func(s *table.Snapshot) { out[s.SnapshotID] = true })
	return out
}

// eachSnapshot calls fn on each of meta's snapshots, read in place where
// it can be (Metadata.Snapshots deep-copies them all).
func eachSnapshot(meta table.Metadata, fn func(*table.Snapshot)) {
	snaps, ok := snapshotsInPlace(meta)
	if !ok {
		snaps = meta.Snapshots()
	}
	for i := range snaps {
		fn(&snaps[i])
	}
}
