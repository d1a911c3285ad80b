package lake

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"maps"
	"strings"
	"time"

	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// ExpireOutcome is what expiring snapshots did.
type ExpireOutcome struct {
	ExpiredSnapshots int
	DeletedFiles     int // data, delete, manifest and manifest-list files
	DeletedBytes     int64
	Deleted          []string // their paths
}

// ExpireSnapshots expires the snapshots of ident older than olderThan
// beyond the last retainLast (iceberg-go's rules: never the current one,
// never one a branch or tag keeps), then deletes the files only they
// referenced. iceberg-go's own clean-up is not used: the files to delete
// are what the expired snapshots referenced minus what the committed
// metadata's snapshots reference, so a file the table still needs is never
// deleted. The snapshots this process's readers read (Readers) are kept,
// so no open cursor, block or running query loses a file. The commit takes this process's turn at the table, so its
// own statements cannot make it lose; a commit of another process makes it
// start again.
func (m *Maintenance) ExpireSnapshots(ctx context.Context, ident table.Identifier, olderThan time.Duration, retainLast int) (ExpireOutcome, error) {
	return m.expire(ctx, ident, olderThan, retainLast, &m.commits.readers)
}

// PurgeSnapshots expires every snapshot no branch or tag keeps, whatever
// this process's readers read (erasure: a reader of an older snapshot then
// finds its files gone), and deletes the files only they referenced.
func (m *Maintenance) PurgeSnapshots(ctx context.Context, ident table.Identifier) (ExpireOutcome, error) {
	return m.expire(ctx, ident, 0, 1, nil)
}

// expire commits the expiry and removes what it freed, keeping what
// readers (nil: none) read.
func (m *Maintenance) expire(ctx context.Context, ident table.Identifier, olderThan time.Duration, retainLast int, readers *Readers) (ExpireOutcome, error) {
	what := "expire snapshots of " + IdentKey(ident)
	wait := time.Millisecond
	for attempt := 0; ; {
		before, after, err := m.commitExpiry(ctx, ident, olderThan, retainLast, readers)
		if errors.Is(err, errUnpinned) {
			// A reader is between taking its pin and reading the head:
			// a catalog load's time, outside the table's turn.
			if err := commitSleep(ctx, wait); err != nil {
				return ExpireOutcome{}, fmt.Errorf("%s: %w", what, err)
			}
			wait = min(2*wait, 50*time.Millisecond)
			continue
		}
		if err == nil {
			out, err := m.removeExpired(ctx, before, after)
			if err != nil {
				return out, fmt.Errorf("%s: %w", what, err)
			}
			return out, nil
		}
		if attempt++; attempt > 20 || !(isRequirementFailure(err) || IsConflict(err)) {
			return ExpireOutcome{}, fmt.Errorf("%s: %w", what, err)
		}
		// Another process committed meanwhile (this one's commits wait
		// for the turn): try again on its head.
		if err := commitSleep(ctx, time.Duration(attempt)*time.Millisecond); err != nil {
			return ExpireOutcome{}, fmt.Errorf("%s: %w", what, err)
		}
	}
}

// errUnpinned: a reader of the table has not yet said which snapshot it
// reads.
var errUnpinned = errors.New("a reader's snapshot is not known yet")

func isRequirementFailure(err error) bool {
	return err != nil && (errors.Is(err, ErrConflict) || strings.Contains(strings.ToLower(err.Error()), "requirement failed"))
}

// commitExpiry commits the expiry on the table's head, holding the table's
// commit turn from reading the head to committing, and returns the head
// and the metadata committed (the head's when nothing expired).
// iceberg-go's rules choose what expires (age, retain-last, refs' own
// retention); the snapshots readers read are then taken out of that.
// Readers are asked after the head is read: one that reads the head later
// reads a snapshot the expiry keeps (the current one).
func (m *Maintenance) commitExpiry(ctx context.Context, ident table.Identifier, olderThan time.Duration, retainLast int, readers *Readers) (*table.Table, table.Metadata, error) {
	release, err := m.commits.HoldCommits(ctx, ident)
	if err != nil {
		return nil, nil, err
	}
	defer release()
	before, err := m.wh.LoadTable(withoutReadSet(ctx), ident)
	if err != nil {
		return nil, nil, err
	}
	keep := map[int64]bool{}
	if readers != nil {
		var settled bool
		if keep, settled = readers.Pinned(ident, readSetOf(ctx)); !settled {
			return nil, nil, errUnpinned
		}
	}
	updates, err := expiryUpdates(before, olderThan, retainLast, keep)
	if err != nil || len(updates) == 0 {
		return before, before.Metadata(), err
	}
	meta := before.Metadata()
	reqs := []table.Requirement{table.AssertTableUUID(meta.TableUUID())}
	for name, ref := range meta.Refs() {
		id := ref.SnapshotID
		reqs = append(reqs, table.AssertRefSnapshotID(name, &id))
	}
	after, _, err := m.wh.cat.CommitTable(ctx, ident, reqs, updates)
	return before, after, err
}

// expiryUpdates are the updates that expire what iceberg-go's rules
// expire of tbl, but the snapshots in keep: the refs it drops, then the
// snapshots it removes.
func expiryUpdates(tbl *table.Table, olderThan time.Duration, retainLast int, keep map[int64]bool) ([]table.Update, error) {
	tx := tbl.NewTransaction()
	opts := []table.ExpireSnapshotsOpt{table.WithOlderThan(olderThan), table.WithPostCommit(false)}
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
	proposed := staged.Metadata()
	var updates []table.Update
	for name := range tbl.Metadata().Refs() {
		if _, ok := FindRef(proposed, name); !ok {
			updates = append(updates, table.NewRemoveSnapshotRefUpdate(name))
		}
	}
	var gone []int64
	for _, snap := range tbl.Metadata().Snapshots() {
		if proposed.SnapshotByID(snap.SnapshotID) == nil && !keep[snap.SnapshotID] {
			gone = append(gone, snap.SnapshotID)
		}
	}
	if len(gone) > 0 {
		updates = append(updates, removeStatisticsUpdates(tbl.Metadata(), gone)...)
		updates = append(updates, table.NewRemoveSnapshotsUpdate(gone, false))
	}
	return updates, nil
}

// removeExpired deletes the files the snapshots of before that after no
// longer has referenced, unless after's snapshots reference them too.
func (m *Maintenance) removeExpired(ctx context.Context, before *table.Table, after table.Metadata) (ExpireOutcome, error) {
	var out ExpireOutcome
	fs, err := FS(ctx, before)
	if err != nil {
		return out, err
	}
	gone, n, err := expiredFiles(ctx, fs, before.Metadata(), after, m.refs)
	out.ExpiredSnapshots = n
	if err != nil {
		return out, err
	}
	if gone == nil {
		gone = map[string]int64{}
	}
	maps.Copy(gone, expiredStatistics(before.Metadata(), after))
	for path, size := range gone {
		removed, err := removeFile(fs, path)
		if err != nil {
			return out, err
		}
		if removed {
			out.DeletedFiles++
			out.DeletedBytes += size
			out.Deleted = append(out.Deleted, path)
		}
	}
	return out, nil
}

// removeFile deletes path; one already gone (another pass of maintenance
// took it) is not an error, and not counted.
func removeFile(fs iceio.IO, path string) (removed bool, err error) {
	err = fs.Remove(path)
	if errors.Is(err, iofs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("delete %s: %w", path, err)
	}
	return true, nil
}

// expiredFiles are the files the snapshots of before that after no longer
// has reference (with their sizes) that no snapshot of after references,
// and how many snapshots expired.
//
// When after's snapshots are one line of history on main (no other refs)
// and the expired ones are all its older ancestors, only the oldest kept
// snapshot's files need reading to know which of those are still
// referenced: in one line of history a file or manifest leaves the table
// for good (paths are new on every write), so one that an expired snapshot
// and some kept snapshot both reference is referenced by the oldest kept
// one in between. Reading every kept snapshot's manifests instead (a table
// committed to many times a second keeps thousands) took each expiry pass
// of the contention soak 10-15 s.
func expiredFiles(ctx context.Context, fs iceio.IO, before, after table.Metadata, refs *FileRefs) (map[string]int64, int, error) {
	kept := after.Snapshots()
	keptIDs := make(map[int64]bool, len(kept))
	for _, s := range kept {
		keptIDs[s.SnapshotID] = true
	}
	var expired []table.Snapshot
	for _, s := range before.Snapshots() {
		if !keptIDs[s.SnapshotID] {
			expired = append(expired, s)
		}
	}
	if len(expired) == 0 {
		return nil, 0, nil
	}
	gone, err := expiredReferences(ctx, fs, expired, refs)
	if err != nil {
		return nil, len(expired), err
	}
	reading := kept
	if base, ok := lineBase(after, expired); ok {
		reading = []table.Snapshot{base}
	}
	still, err := referencedFiles(ctx, fs, reading, refs)
	if err != nil {
		return nil, len(expired), err
	}
	for path := range still {
		delete(gone, path)
	}
	return gone, len(expired), nil
}

// lineBase is the oldest of meta's snapshots when they are one line of
// history from main's head, main is the only ref, and the expired
// snapshots are all older ancestors of it.
func lineBase(meta table.Metadata, expired []table.Snapshot) (table.Snapshot, bool) {
	for name := range meta.Refs() {
		if name != table.MainBranch {
			return table.Snapshot{}, false
		}
	}
	head := meta.CurrentSnapshot()
	if head == nil {
		return table.Snapshot{}, false
	}
	kept := map[int64]table.Snapshot{}
	for _, s := range meta.Snapshots() {
		kept[s.SnapshotID] = s
	}
	base, seen := *head, 1
	for base.ParentSnapshotID != nil {
		parent, ok := kept[*base.ParentSnapshotID]
		if !ok {
			break
		}
		base, seen = parent, seen+1
	}
	if seen != len(kept) {
		return table.Snapshot{}, false
	}
	older := map[int64]table.Snapshot{}
	for _, s := range expired {
		older[s.SnapshotID] = s
	}
	n := 0
	for at := base.ParentSnapshotID; at != nil; n++ {
		s, ok := older[*at]
		if !ok {
			break
		}
		at = s.ParentSnapshotID
	}
	return base, n == len(expired)
}
