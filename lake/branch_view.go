package lake

import (
	"encoding/json"
	"fmt"

	"github.com/apache/iceberg-go/table"
)

// A branch view is the table as one branch (or tag) sees it: its metadata
// is the table's, except that main and the current snapshot are the ref's
// head. Everything that reads a table's head (scans, the delete engine's
// planning, the commit loop's rebases and live-file diffs) then reads the
// branch without knowing about branches; only the producer must know where
// a change commits, which FileChange.Branch tells it. A view is never
// committed as metadata: commits send explicit updates, applied by the
// catalog to the real metadata.

// IsMain reports whether branch names the table's own history.
func IsMain(branch string) bool { return branch == "" || branch == table.MainBranch }

// BranchView is tbl as writes to branch see it: tbl itself for main and
// for a branch that does not exist yet (a write creates it from main's
// head, as Iceberg's Java library does), the branch's head otherwise. A
// tag of that name is ErrRefKind: tags cannot be written.
func BranchView(tbl *table.Table, branch string) (*table.Table, error) {
	if IsMain(branch) {
		return tbl, nil
	}
	ref, ok := FindRef(tbl.Metadata(), branch)
	switch {
	case !ok:
		return tbl, nil
	case ref.SnapshotRefType != table.BranchRef:
		return nil, fmt.Errorf("write to %s of %s: %w", branch, IdentKey(tbl.Identifier()), ErrRefKind)
	}
	return SnapshotView(tbl, ref.SnapshotID)
}

// RefView is tbl as a read of branch or tag name sees it (ErrNoSuchRef
// when the table has neither).
func RefView(tbl *table.Table, name string) (*table.Table, error) {
	if IsMain(name) {
		return tbl, nil
	}
	ref, ok := FindRef(tbl.Metadata(), name)
	if !ok {
		return nil, fmt.Errorf("read %s of %s: %w", name, IdentKey(tbl.Identifier()), ErrNoSuchRef)
	}
	return SnapshotView(tbl, ref.SnapshotID)
}

// SnapshotView is tbl with snapshot id as main's head. It goes through the
// metadata's JSON so nothing else changes: the snapshot log, the
// last-updated time and every other ref stay the table's (the metadata
// builder would log the move and stamp it now).
func SnapshotView(tbl *table.Table, id int64) (*table.Table, error) {
	what := fmt.Sprintf("view snapshot %d of %s", id, IdentKey(tbl.Identifier()))
	meta := tbl.Metadata()
	if meta.SnapshotByID(id) == nil {
		return nil, fmt.Errorf("%s: %w", what, ErrNoSuchSnapshot)
	}
	if cur := meta.CurrentSnapshot(); cur != nil && cur.SnapshotID == id {
		return tbl, nil
	}
	raw, err := json.Marshal(meta)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	refs := map[string]json.RawMessage{}
	if r, ok := doc["refs"]; ok {
		if err := json.Unmarshal(r, &refs); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
	}
	main, ok := FindRef(meta, table.MainBranch)
	if !ok {
		main = table.SnapshotRef{SnapshotRefType: table.BranchRef}
	}
	main.SnapshotID = id
	if refs[table.MainBranch], err = json.Marshal(main); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if doc["refs"], err = json.Marshal(refs); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	doc["current-snapshot-id"] = json.RawMessage(fmt.Sprint(id))
	if raw, err = json.Marshal(doc); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	view, err := table.ParseMetadataBytes(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return table.New(tbl.Identifier(), view, tbl.MetadataLocation(), tbl.FS, nil), nil
}
