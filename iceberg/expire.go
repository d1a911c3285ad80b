package iceberg

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	ice "github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// ExpireOutcome is what expiring snapshots did.
type ExpireOutcome struct {
	ExpiredSnapshots int
	DeletedFiles     int // data, delete, manifest and manifest-list files
	DeletedBytes     int64
}

// ExpireSnapshots expires the snapshots of ident older than olderThan
// beyond the last retainLast (iceberg-go's rules: never the current one,
// never one a branch or tag keeps), then deletes the files only they
// referenced. iceberg-go's own clean-up is not used: the files to delete
// are what the expired snapshots referenced minus what the committed
// metadata's snapshots reference, so a file the table still needs is never
// deleted. The commit takes this process's turn at the table, so its own
// statements cannot make it lose; a commit of another process makes it
// start again.
func (w *Warehouse) ExpireSnapshots(ctx context.Context, ident table.Identifier, olderThan time.Duration, retainLast int) (ExpireOutcome, error) {
	return w.ExpireSnapshotsPinned(ctx, ident, olderThan, retainLast, nil)
}

// Pins reports the commit time (ms) of the oldest snapshot a reader still
// reads (0: none), and ok false when a reader's snapshot is not known yet
// (expiry then does nothing).
type Pins func() (oldest int64, ok bool)

// pinSlack is kept beyond the oldest pinned snapshot: iceberg-go measures
// the retention age from its own clock, read a few microseconds after the
// bound is set, and in whole milliseconds.
const pinSlack = 10 * time.Millisecond

// ExpireSnapshotsPinned is ExpireSnapshots keeping, besides, the oldest
// snapshot pins reports and every newer one. pins (nil: none) is asked
// within the table's commit turn, after the head is read: a reader that
// reads the head later reads a snapshot the expiry keeps.
func (w *Warehouse) ExpireSnapshotsPinned(ctx context.Context, ident table.Identifier, olderThan time.Duration, retainLast int, pins Pins) (ExpireOutcome, error) {
	what := "expire snapshots of " + identString(ident)
	for attempt := 0; ; attempt++ {
		before, after, err := w.commitExpiry(ctx, ident, olderThan, retainLast, pins)
		if errors.Is(err, errUnpinned) {
			return ExpireOutcome{}, nil
		}
		if err == nil {
			out, err := w.removeExpired(ctx, before, after)
			if err != nil {
				return out, fmt.Errorf("%s: %w", what, err)
			}
			return out, nil
		}
		if attempt >= 5 || !isRequirementFailure(err) {
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
// commit turn from reading the head to committing.
func (w *Warehouse) commitExpiry(ctx context.Context, ident table.Identifier, olderThan time.Duration, retainLast int, pins Pins) (before, after *table.Table, err error) {
	release, err := w.HoldCommits(ctx, ident)
	if err != nil {
		return nil, nil, err
	}
	defer release()
	before, err = w.LoadTable(ctx, ident)
	if err != nil {
		return nil, nil, err
	}
	if pins != nil {
		oldest, ok := pins()
		if !ok {
			return nil, nil, errUnpinned
		}
		if oldest > 0 {
			olderThan = max(olderThan, time.Since(time.UnixMilli(oldest))+pinSlack)
		}
	}
	tx := before.NewTransaction()
	opts := []table.ExpireSnapshotsOpt{table.WithOlderThan(olderThan), table.WithPostCommit(false)}
	if retainLast > 0 {
		opts = append(opts, table.WithRetainLast(retainLast))
	}
	if err := tx.ExpireSnapshots(opts...); err != nil {
		return nil, nil, err
	}
	after, err = tx.Commit(ctx)
	return before, after, err
}

// removeExpired deletes the files the snapshots of before that after no
// longer has referenced, unless after's snapshots reference them too.
func (w *Warehouse) removeExpired(ctx context.Context, before, after *table.Table) (ExpireOutcome, error) {
	var out ExpireOutcome
	fs, err := FS(ctx, after)
	if err != nil {
		return out, err
	}
	gone, n, err := expiredFiles(ctx, fs, before.Metadata(), after.Metadata(), w.refs)
	out.ExpiredSnapshots = n
	if err != nil {
		return out, err
	}
	for path, size := range gone {
		if err := fs.Remove(path); err != nil {
			return out, fmt.Errorf("delete %s: %w", path, err)
		}
		out.DeletedFiles++
		out.DeletedBytes += size
	}
	return out, nil
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
	gone, err := referencedFiles(ctx, fs, expired, refs)
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

// OrphanOutcome is what removing orphan files did.
type OrphanOutcome struct {
	DeletedFiles int
	DeletedBytes int64
}

// RemoveOrphanFiles deletes the files under the table's location that no
// snapshot and no metadata file references and that are older than
// olderThan (the leftovers of statements whose process died before
// committing; younger ones may belong to a commit in flight). iceberg-go
// finds the candidates; each is checked here against the references read
// independently (every snapshot's manifest lists, manifests, data and
// delete files, and the metadata log) before anything is deleted.
func (w *Warehouse) RemoveOrphanFiles(ctx context.Context, ident table.Identifier, olderThan time.Duration) (OrphanOutcome, error) {
	what := "remove orphan files of " + identString(ident)
	tbl, err := w.LoadTable(ctx, ident)
	if err != nil {
		return OrphanOutcome{}, err
	}
	listed, err := settledTable(ctx, tbl)
	if err != nil {
		return OrphanOutcome{}, err
	}
	plan, err := listed.PlanOrphanFiles(ctx, table.WithFilesOlderThan(olderThan))
	if err != nil {
		return OrphanOutcome{}, fmt.Errorf("%s: %w", what, err)
	}
	fs, err := FS(ctx, tbl)
	if err != nil {
		return OrphanOutcome{}, err
	}
	refs, err := referencedFiles(ctx, fs, tbl.Metadata().Snapshots(), w.refs)
	if err != nil {
		return OrphanOutcome{}, fmt.Errorf("%s: %w", what, err)
	}
	refs[tbl.MetadataLocation()] = 0
	for e := range tbl.Metadata().PreviousFiles() {
		refs[e.MetadataFile] = 0
	}
	known := make(map[string]bool, len(refs))
	for p := range refs {
		known[plainPath(p)] = true
	}
	orphans := plan.OrphanFiles()
	for _, f := range orphans {
		if known[plainPath(f.Path)] {
			return OrphanOutcome{}, fmt.Errorf("%s: %s is referenced by the table; nothing deleted", what, f.Path)
		}
	}
	var out OrphanOutcome
	for _, f := range orphans {
		if err := fs.Remove(f.Path); err != nil {
			return out, fmt.Errorf("%s: delete %s: %w", what, f.Path, err)
		}
		out.DeletedFiles++
		out.DeletedBytes += f.SizeBytes
	}
	return out, nil
}

// plainPath compares local paths with and without their file:// scheme.
func plainPath(p string) string {
	return strings.TrimPrefix(strings.TrimPrefix(p, "file://"), "file:")
}

// ErrNotAncestor: a rollback's target is not in the current snapshot's
// history.
var ErrNotAncestor = errors.New("snapshot is not an ancestor of the current snapshot")

// RollbackToSnapshot makes snapshotID, an ancestor of the current
// snapshot, current again (metadata only; the later snapshots stay until
// they expire). It returns the snapshot that was current.
func (w *Warehouse) RollbackToSnapshot(ctx context.Context, ident table.Identifier, snapshotID int64) (int64, error) {
	what := "roll back " + identString(ident)
	tbl, err := w.LoadTable(ctx, ident)
	if err != nil {
		return 0, err
	}
	var prev int64
	if cur := tbl.CurrentSnapshot(); cur != nil {
		prev = cur.SnapshotID
	}
	tx := tbl.NewTransaction()
	if err := tx.RollbackToSnapshot(snapshotID); err != nil {
		if errors.Is(err, ice.ErrInvalidArgument) {
			return 0, fmt.Errorf("%s to %d: %w", what, snapshotID, ErrNotAncestor)
		}
		return 0, fmt.Errorf("%s: %w", what, err)
	}
	if _, err := tx.Commit(ctx); err != nil {
		return 0, fmt.Errorf("%s: %w", what, err)
	}
	return prev, nil
}
