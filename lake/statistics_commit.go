package lake

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/apache/iceberg-go/table"
)

// errSnapshotGone: the snapshot statistics were computed for left the
// table (expired) before they were committed.
var errSnapshotGone = errors.New("the snapshot analyzed was expired meanwhile")

// commitStatistics sets sf as the statistics of its snapshot, a
// metadata-only commit (no snapshot), staged again on the new head when
// another commit lands first, like every commit of the table. The file of
// the statistics it replaces is deleted once no entry of the committed
// metadata names it. owned says sf's file was written for this commit:
// it is deleted when the commit does not happen.
func (m *Maintenance) commitStatistics(ctx context.Context, ident table.Identifier, sf table.StatisticsFile, owned bool) error {
	p := RetryPolicy{}.withDefaults()
	start := time.Now()
	for tries := 1; ; tries++ {
		tbl, replaced, err := m.setStatistics(ctx, ident, sf)
		if err == nil {
			m.removeUnlistedStatistics(ctx, tbl, replaced)
			return nil
		}
		if !IsConflict(err) || errors.Is(err, errSnapshotGone) || p.exhausted(tries, time.Since(start)) {
			if owned {
				m.removeUnlistedStatistics(ctx, tbl, sf.StatisticsPath)
			}
			if errors.Is(err, errSnapshotGone) {
				return fmt.Errorf("%w: %w", ErrConflict, err)
			}
			return err
		}
		if err := commitSleep(ctx, p.backoff(tries)); err != nil {
			return err
		}
	}
}

// setStatistics commits sf on the head of ident, holding the table's
// commit turn so that this process's statements do not make it lose, and
// returns the table committed (or the head, on failure) and the path of
// the statistics file sf replaced ("" none).
func (m *Maintenance) setStatistics(ctx context.Context, ident table.Identifier, sf table.StatisticsFile) (*table.Table, string, error) {
	release, err := m.commits.HoldCommits(ctx, ident)
	if err != nil {
		return nil, "", err
	}
	defer release()
	head, err := m.wh.LoadTable(withoutReadSet(ctx), ident)
	if err != nil {
		return nil, "", err
	}
	if head.Metadata().SnapshotByID(sf.SnapshotID) == nil {
		return head, "", errSnapshotGone
	}
	var replaced string
	for old := range head.Metadata().Statistics() {
		if old.SnapshotID == sf.SnapshotID && old.StatisticsPath != sf.StatisticsPath {
			replaced = old.StatisticsPath
		}
	}
	reqs := []table.Requirement{table.AssertTableUUID(head.Metadata().TableUUID())}
	meta, loc, err := m.wh.cat.CommitTable(ctx, ident, reqs, []table.Update{table.NewSetStatisticsUpdate(sf)})
	if err != nil {
		return head, "", err
	}
	out := table.New(ident, meta, loc, head.FS, m.wh.cat)
	if meta.SnapshotByID(sf.SnapshotID) == nil {
		// Another process expired the snapshot between the head read and
		// the commit: take the entry out again.
		if _, _, err := m.wh.cat.CommitTable(ctx, ident, reqs, []table.Update{table.NewRemoveStatisticsUpdate(sf.SnapshotID)}); err != nil {
			return out, "", err
		}
		return out, "", errSnapshotGone
	}
	return out, replaced, nil
}

// removeUnlistedStatistics deletes the statistics file at path unless an
// entry of tbl's metadata names it (a statistics entry carried to a later
// snapshot shares its file). Best effort: a file left behind is an
// orphan for orphan removal.
func (m *Maintenance) removeUnlistedStatistics(ctx context.Context, tbl *table.Table, path string) {
	if path == "" || tbl == nil || statisticsPaths(tbl.Metadata())[path] {
		return
	}
	if fs, err := FS(ctx, tbl); err == nil {
		_, _ = removeFile(fs, path)
	}
}

// statisticsPaths are the statistics and partition statistics files meta
// lists.
func statisticsPaths(meta table.Metadata) map[string]bool {
	out := map[string]bool{}
	for sf := range meta.Statistics() {
		out[sf.StatisticsPath] = true
	}
	for sf := range meta.PartitionStatistics() {
		out[sf.StatisticsPath] = true
	}
	return out
}
