package iceberg

import (
	"context"
	"errors"
	"fmt"

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
func (w *Warehouse) SetRef(ctx context.Context, ident table.Identifier, rc RefChange) (int64, error) {
	what := fmt.Sprintf("set %s of %s", rc.Name, identString(ident))
	tbl, err := w.LoadTable(ctx, ident)
	if err != nil {
		return 0, err
	}
	meta := tbl.Metadata()
	existing, exists := findRef(meta, rc.Name)
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
	reqs := []table.Requirement{table.AssertTableUUID(meta.TableUUID()), table.AssertRefSnapshotID(rc.Name, was)}
	ups := []table.Update{table.NewSetSnapshotRefUpdate(rc.Name, target, refType(rc.Tag), rc.MaxRefAgeMs, 0, 0)}
	if _, _, err := w.cat.CommitTable(ctx, ident, reqs, ups); err != nil {
		return 0, fmt.Errorf("%s: %w", what, err)
	}
	return target, nil
}

// DropRef removes a branch or tag; main cannot be dropped.
func (w *Warehouse) DropRef(ctx context.Context, ident table.Identifier, name string, tag bool) error {
	what := fmt.Sprintf("drop %s of %s", name, identString(ident))
	tbl, err := w.LoadTable(ctx, ident)
	if err != nil {
		return err
	}
	ref, ok := findRef(tbl.Metadata(), name)
	switch {
	case !ok:
		return fmt.Errorf("%s: %w", what, ErrNoSuchRef)
	case ref.SnapshotRefType != refType(tag):
		return fmt.Errorf("%s: %w", what, ErrRefKind)
	}
	id := ref.SnapshotID
	reqs := []table.Requirement{table.AssertTableUUID(tbl.Metadata().TableUUID()), table.AssertRefSnapshotID(name, &id)}
	if _, _, err := w.cat.CommitTable(ctx, ident, reqs, []table.Update{table.NewRemoveSnapshotRefUpdate(name)}); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// FastForward moves branch to the head of to when that head descends from
// branch's head; it returns both heads.
func (w *Warehouse) FastForward(ctx context.Context, ident table.Identifier, branch, to string) (int64, int64, error) {
	what := fmt.Sprintf("fast-forward %s of %s to %s", branch, identString(ident), to)
	tbl, err := w.LoadTable(ctx, ident)
	if err != nil {
		return 0, 0, err
	}
	meta := tbl.Metadata()
	from, target := meta.SnapshotByName(branch), meta.SnapshotByName(to)
	if from == nil || target == nil {
		return 0, 0, fmt.Errorf("%s: %w", what, ErrNoSuchRef)
	}
	if !descends(meta, target.SnapshotID, from.SnapshotID) {
		return 0, 0, fmt.Errorf("%s: %w", what, ErrNotAhead)
	}
	id := from.SnapshotID
	reqs := []table.Requirement{table.AssertTableUUID(meta.TableUUID()), table.AssertRefSnapshotID(branch, &id)}
	ups := []table.Update{table.NewSetSnapshotRefUpdate(branch, target.SnapshotID, table.BranchRef, 0, 0, 0)}
	if _, _, err := w.cat.CommitTable(ctx, ident, reqs, ups); err != nil {
		return 0, 0, fmt.Errorf("%s: %w", what, err)
	}
	return from.SnapshotID, target.SnapshotID, nil
}

func findRef(meta table.Metadata, name string) (table.SnapshotRef, bool) {
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
