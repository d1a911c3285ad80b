package lake

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// ErrRefExists, ErrNoSuchRef and ErrRefKind describe branch and tag
// changes that cannot be made as asked.
var (
	ErrRefExists = errors.New("a branch or tag of that name exists")
	ErrNoSuchRef = errors.New("no branch or tag of that name")
	ErrRefKind   = errors.New("the name is of the other kind (a branch, not a tag, or the reverse)")
	ErrNotAhead  = errors.New("cannot fast-forward: the target does not descend from the branch's head")
)

// Branches are a warehouse's tables' branches and tags: creating, moving
// (fast-forward included), dropping them, and rolling a table back.
type Branches struct {
	wh *Warehouse
}

// RefChange is a branch or tag to create, move or drop.
type RefChange struct {
	Name string
	Tag  bool
	// SnapshotID is where it points; nil: the current snapshot.
	SnapshotID *int64
	// MaxRefAgeMs is RETAIN's age (0: the table's default).
	MaxRefAgeMs int64
	Replace     bool // CREATE OR REPLACE / REPLACE: move an existing one
	Create      bool // CREATE (OR REPLACE): make one that does not exist
}

func refType(tag bool) table.RefType {
	if tag {
		return table.TagRef
	}
	return table.BranchRef
}

// SetRef creates or moves a branch or tag as rc asks, returning the
// snapshot it now names.
func (b *Branches) SetRef(ctx context.Context, ident table.Identifier, rc RefChange) (int64, error) {
	what := fmt.Sprintf("set %s of %s", rc.Name, IdentKey(ident))
	tbl, err := b.wh.LoadTable(ctx, ident)
	if err != nil {
		return 0, err
	}
	meta := tbl.Metadata()
	existing, exists := FindRef(meta, rc.Name)
	switch {
	case exists && existing.SnapshotRefType != refType(rc.Tag):
		return 0, fmt.Errorf("%s: %w", what, ErrRefKind)
	case exists && !rc.Replace:
		return 0, fmt.Errorf("%s: %w", what, ErrRefExists)
	case !exists && !rc.Create:
		return 0, fmt.Errorf("%s: %w", what, ErrNoSuchRef)
	}
	var target int64
	switch {
	case rc.SnapshotID != nil:
		if meta.SnapshotByID(*rc.SnapshotID) == nil {
			return 0, fmt.Errorf("%s: %w: %d", what, ErrNoSuchSnapshot, *rc.SnapshotID)
		}
		target = *rc.SnapshotID
	case tbl.CurrentSnapshot() != nil:
		target = tbl.CurrentSnapshot().SnapshotID
	default:
		return 0, fmt.Errorf("%s: %w: the table has no snapshot yet", what, ErrNoSuchSnapshot)
	}
	var was *int64
	if exists {
		id := existing.SnapshotID
		was = &id
	}
	keep := refRetention(existing)
	if rc.MaxRefAgeMs != 0 || !exists {
		keep.maxRefAge = rc.MaxRefAgeMs
	}
	if err := b.moveRef(ctx, ident, meta, rc.Name, refType(rc.Tag), was, target, keep); err != nil {
		return 0, fmt.Errorf("%s: %w", what, err)
	}
	return target, nil
}

// retention is a ref's expiry settings (0: the table's defaults).
type retention struct {
	maxRefAge, maxSnapAge int64
	minKeep               int
}

func refRetention(ref table.SnapshotRef) retention {
	var r retention
	if ref.MaxRefAgeMs != nil {
		r.maxRefAge = *ref.MaxRefAgeMs
	}
	if ref.MaxSnapshotAgeMs != nil {
		r.maxSnapAge = *ref.MaxSnapshotAgeMs
	}
	if ref.MinSnapshotsToKeep != nil {
		r.minKeep = *ref.MinSnapshotsToKeep
	}
	return r
}

// moveRef points ref name at target, provided it still points at was
// (nil: it does not exist) in the catalog.
func (b *Branches) moveRef(ctx context.Context, ident table.Identifier, meta table.Metadata, name string, kind table.RefType, was *int64, target int64, keep retention) error {
	reqs := []table.Requirement{table.AssertTableUUID(meta.TableUUID()), table.AssertRefSnapshotID(name, was)}
	ups := []table.Update{table.NewSetSnapshotRefUpdate(name, target, kind, keep.maxRefAge, keep.maxSnapAge, keep.minKeep)}
	_, _, err := b.wh.cat.CommitTable(ctx, ident, reqs, ups)
	return err
}

// DropRef removes a branch or tag; main cannot be dropped.
func (b *Branches) DropRef(ctx context.Context, ident table.Identifier, name string, tag bool) error {
	what := fmt.Sprintf("drop %s of %s", name, IdentKey(ident))
	tbl, err := b.wh.LoadTable(ctx, ident)
	if err != nil {
		return err
	}
	ref, ok := FindRef(tbl.Metadata(), name)
	switch {
	case !ok:
		return fmt.Errorf("%s: %w", what, ErrNoSuchRef)
	case ref.SnapshotRefType != refType(tag):
		return fmt.Errorf("%s: %w", what, ErrRefKind)
	}
	id := ref.SnapshotID
	reqs := []table.Requirement{table.AssertTableUUID(tbl.Metadata().TableUUID()), table.AssertRefSnapshotID(name, &id)}
	if _, _, err := b.wh.cat.CommitTable(ctx, ident, reqs, []table.Update{table.NewRemoveSnapshotRefUpdate(name)}); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// FastForward moves branch to the head of to when that head descends from
// branch's head; it returns both heads.
func (b *Branches) FastForward(ctx context.Context, ident table.Identifier, branch, to string) (int64, int64, error) {
	what := fmt.Sprintf("fast-forward %s of %s to %s", branch, IdentKey(ident), to)
	tbl, err := b.wh.LoadTable(ctx, ident)
	if err != nil {
		return 0, 0, err
	}
	target := tbl.Metadata().SnapshotByName(to)
	if target == nil {
		return 0, 0, fmt.Errorf("%s: %w", what, ErrNoSuchRef)
	}
	from, err := b.fastForwardTo(ctx, tbl, branch, target.SnapshotID)
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", what, err)
	}
	return from, target.SnapshotID, nil
}

// FastForwardTo moves branch of tbl (as loaded) to snapshot id when id
// descends from the branch's head, keeping the branch's retention; it
// returns the head it moved from. The catalog refuses the move if the
// branch moved since tbl was loaded.
func (b *Branches) FastForwardTo(ctx context.Context, tbl *table.Table, branch string, id int64) (int64, error) {
	from, err := b.fastForwardTo(ctx, tbl, branch, id)
	if err != nil {
		return 0, fmt.Errorf("fast-forward %s of %s to %d: %w", branch, IdentKey(tbl.Identifier()), id, err)
	}
	return from, nil
}

func (b *Branches) fastForwardTo(ctx context.Context, tbl *table.Table, branch string, id int64) (int64, error) {
	meta := tbl.Metadata()
	ref, ok := FindRef(meta, branch)
	if !ok || ref.SnapshotRefType != table.BranchRef {
		return 0, ErrNoSuchRef
	}
	if !descends(meta, id, ref.SnapshotID) {
		return 0, ErrNotAhead
	}
	was := ref.SnapshotID
	if err := b.moveRef(ctx, tbl.Identifier(), meta, branch, table.BranchRef, &was, id, refRetention(ref)); err != nil {
		return 0, err
	}
	return was, nil
}

// FindRef is meta's branch or tag name.
func FindRef(meta table.Metadata, name string) (table.SnapshotRef, bool) {
	for n, r := range meta.Refs() {
		if n == name {
			return r, true
		}
	}
	return table.SnapshotRef{}, false
}

// descends reports whether ancestor is id or one of its parents.
func descends(meta table.Metadata, id, ancestor int64) bool {
	for snap := meta.SnapshotByID(id); snap != nil; {
		if snap.SnapshotID == ancestor {
			return true
		}
		if snap.ParentSnapshotID == nil {
			return false
		}
		snap = meta.SnapshotByID(*snap.ParentSnapshotID)
	}
	return false
}

// ErrNotAncestor: a rollback's target is not in the current snapshot's
// history.
var ErrNotAncestor = errors.New("snapshot is not an ancestor of the current snapshot")

// RollbackToSnapshot makes snapshotID, an ancestor of the current
// snapshot, current again (metadata only; the later snapshots stay until
// they expire). It returns the snapshot that was current.
func (b *Branches) RollbackToSnapshot(ctx context.Context, ident table.Identifier, snapshotID int64) (int64, error) {
	what := "roll back " + IdentKey(ident)
	tbl, err := b.wh.LoadTable(ctx, ident)
	if err != nil {
		return 0, err
	}
	var prev int64
	if cur := tbl.CurrentSnapshot(); cur != nil {
		prev = cur.SnapshotID
	}
	tx := tbl.NewTransaction()
	if err := tx.RollbackToSnapshot(snapshotID); err != nil {
		if errors.Is(err, iceberg.ErrInvalidArgument) {
			return 0, fmt.Errorf("%s to %d: %w", what, snapshotID, ErrNotAncestor)
		}
		return 0, fmt.Errorf("%s: %w", what, err)
	}
	if _, err := tx.Commit(ctx); err != nil {
		return 0, fmt.Errorf("%s: %w", what, err)
	}
	return prev, nil
}
