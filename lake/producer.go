package lake

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
	"github.com/google/uuid"
)

// ErrFileNotInSnapshot is returned when a change removes a file the base
// snapshot does not hold live: typically another writer removed it since the
// change was planned, so the caller re-plans (or reports a serialization
// failure).
var ErrFileNotInSnapshot = errors.New("file to remove is not live in the base snapshot")

// ErrCommitUnknown marks a failed catalog swap whose outcome could not be
// checked: the change may have been committed, so its files must stay.
var ErrCommitUnknown = errors.New("commit outcome unknown")

// FileChange is everything one commit does to a table's files.
type FileChange struct {
	AddData, RemoveData       []iceberg.DataFile // data files
	AddDeletes, RemoveDeletes []iceberg.DataFile // position/equality delete files and DVs
	Operation                 table.Operation    // "" = derive: append (only adds data), delete (only removes / adds deletes), overwrite (both)
	Props                     map[string]string  // extra summary properties; computed keys win
	// Branch is where the change commits ("" is main), planned against
	// the branch's view of the table (BranchView). The commit loop sets it
	// from its own Branch.
	Branch string
	// Moves, on a rewrite, says where the rows of the data files it
	// replaces went; a rebase uses it to carry other writers' deletes of
	// those rows over to the new files (nil: the change must be planned
	// again when they change).
	Moves *RowMoves
	// Rebase is how the change is carried onto a head newer than the one
	// it was planned against, set by what planned it (the delete engine's
	// changes rebase by data file and position): the commit loop calls it
	// when another writer moved the table first, and to combine the change
	// with overlapping ones in a group commit. nil: RebaseFiles, by data
	// file alone, and the change combines with none.
	Rebase Rebaser
}

// rebaser is how c is carried onto a newer head.
func (c FileChange) rebaser() Rebaser {
	if c.Rebase == nil {
		return RebaseFiles
	}
	return c.Rebase
}

// rebaseOf is the rebase of a change made of a and b: the first one set.
func rebaseOf(a, b FileChange) Rebaser {
	if a.Rebase != nil {
		return a.Rebase
	}
	return b.Rebase
}

// IsEmpty reports a change that touches no file.
func (c FileChange) IsEmpty() bool {
	return len(c.AddData)+len(c.RemoveData)+len(c.AddDeletes)+len(c.RemoveDeletes) == 0
}

// OnlyAddsData reports a change that adds data files and nothing else: it
// holds on any later head.
func (c FileChange) OnlyAddsData() bool {
	return len(c.RemoveData)+len(c.AddDeletes)+len(c.RemoveDeletes) == 0
}

// operation is c.Operation, or the one derived from what c does.
func (c FileChange) operation() (table.Operation, error) {
	onlyAddsData := c.OnlyAddsData()
	if c.Operation != "" {
		op, err := table.ValidOperation(string(c.Operation))
		if err != nil {
			return "", err
		}
		if op == table.OpAppend && !onlyAddsData {
			return "", fmt.Errorf("operation append cannot remove files or add delete files")
		}
		return op, nil
	}
	switch {
	case onlyAddsData:
		return table.OpAppend, nil
	case len(c.AddData) == 0:
		return table.OpDelete, nil
	default:
		return table.OpOverwrite, nil
	}
}

// StagedChange is a change written out as one snapshot, not yet committed:
// its manifests and manifest list exist, the catalog has not seen them.
type StagedChange struct {
	Snapshot     table.Snapshot      // the new snapshot (summary included)
	Updates      []table.Update      // add-snapshot and set main to it
	Requirements []table.Requirement // table UUID and main still at the base snapshot
	Written      []string            // manifests and manifest list this staging wrote

	fs iceio.IO
}

// Discard removes the files s wrote. Call it when the change is not
// committed; it is safe to call more than once.
func (s *StagedChange) Discard() {
	if s == nil || s.fs == nil {
		return
	}
	RemoveWrittenFiles(s.fs, s.Written)
	s.Written = nil
}

// CommitChange writes manifests and a manifest list for change on top of
// base's current snapshot and commits ONE snapshot through cat to
// change.Branch (main by default; for another branch base is the branch's
// view, and so is the table returned), with the requirement that the
// branch is still at base's snapshot, so a concurrent commit makes it fail
// with an error IsConflict recognises (the caller re-plans). An empty
// change commits nothing and returns base. On any failure the manifests it
// wrote are removed, unless the commit may have landed after all.
func CommitChange(ctx context.Context, cat catalog.Catalog, base *table.Table, change FileChange) (*table.Table, error) {
	return commitChange(ctx, cat, base, change, nil, time.Time{}, "")
}

// commitChange is CommitChange reading the parent's manifests through
// manifests (nil: no cache).
func commitChange(ctx context.Context, cat catalog.Catalog, base *table.Table, change FileChange, manifests *ManifestCache, since time.Time, self string) (*table.Table, error) {
	if change.IsEmpty() {
		return base, nil
	}
	what := "commit change to " + IdentKey(base.Identifier())
	staged, err := stageChange(ctx, base, change, manifests)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if err := ctx.Err(); err != nil {
		staged.Discard()
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	// The swap itself is not cancellable: a swap cut short leaves the
	// catalog's new metadata file behind and its outcome uncertain.
	reqs := withSweepRequirement(cat, staged.Requirements, since, self)
	meta, loc, err := cat.CommitTable(context.WithoutCancel(ctx), base.Identifier(), reqs, staged.Updates)
	if err != nil {
		landed, lerr := changeLanded(ctx, cat, base, staged.Snapshot.SnapshotID)
		switch {
		case landed != nil:
			return BranchView(landed, change.Branch)
		case errors.Is(lerr, catalog.ErrNoSuchTable) || errors.Is(lerr, catalog.ErrNoSuchNamespace):
			// Dropped concurrently: no table references the change any
			// more, so its files go and the caller sees a missing table.
			staged.Discard()
			removeFailedMetadata(base, err)
			return nil, mapCatalogErr(what, lerr)
		case lerr != nil:
			return nil, fmt.Errorf("%s: %w (%w)", what, err, ErrCommitUnknown)
		}
		staged.Discard()
		removeFailedMetadata(base, err)
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	fsF, err := sharedFS(ctx, base)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return BranchView(table.New(base.Identifier(), meta, loc, fsF, cat), change.Branch)
}

// changeLanded reloads the table after a failed swap. A non-nil table means
// the snapshot is there after all (an ambiguous error such as a cancelled
// swap). An error means the outcome is unknown and the files must stay,
// since orphans are safe and deleting committed manifests is not, unless it
// is the catalog's "no such table" (or schema): then the table was dropped
// and no live table can reference the change.
func changeLanded(ctx context.Context, cat catalog.Catalog, base *table.Table, snapID int64) (*table.Table, error) {
	now, err := cat.LoadTable(context.WithoutCancel(ctx), base.Identifier())
	if err != nil {
		return nil, err
	}
	if now.SnapshotByID(snapID) != nil {
		return now, nil
	}
	return nil, nil
}

// removeFailedMetadata removes the metadata file a swap that did not land
// was writing, when the catalog's error names it (a full disk mid-write):
// iceberg-go's catalogs leave it behind, and no table can reference it.
func removeFailedMetadata(base *table.Table, err error) {
	var pe *iofs.PathError
	if !errors.As(err, &pe) || !strings.HasSuffix(pe.Path, ".metadata.json") ||
		strings.HasSuffix(base.MetadataLocation(), pe.Path) {
		return
	}
	if fsys, ferr := base.FS(context.Background()); ferr == nil {
		_ = fsys.Remove(pe.Path)
	}
}

// StageChange validates change against base's current snapshot of main and
// writes its manifests and manifest list. Nothing is committed: pass
// Updates and Requirements to a catalog commit (or a multi-table
// transaction), and Discard the result if that does not happen. On error
// nothing it wrote remains.
func StageChange(ctx context.Context, base *table.Table, change FileChange) (*StagedChange, error) {
	return stageChange(ctx, base, change, nil)
}

// stageChange is StageChange reading the parent's manifests through
// manifests (nil: no cache).
func stageChange(ctx context.Context, base *table.Table, change FileChange, manifests *ManifestCache) (*StagedChange, error) {
	return stage(ctx, base, change, manifests, false)
}

// stage stages change on base; view: to be read, never committed.
func stage(ctx context.Context, base *table.Table, change FileChange, manifests *ManifestCache, view bool) (*StagedChange, error) {
	p, err := newChangePlan(ctx, base, change)
	if err != nil {
		return nil, err
	}
	p.manifests, p.view = manifests, view
	staged, err := p.stage(ctx)
	if err != nil {
		RemoveWrittenFiles(p.fs, p.written)
		return nil, err
	}
	return staged, nil
}

// changePlan carries one staging of a FileChange.
type changePlan struct {
	base       *table.Table
	meta       table.Metadata
	version    int
	change     FileChange
	op         table.Operation
	parent     *table.Snapshot
	snapshotID int64
	seq        int64
	commitID   uuid.UUID
	fs         iceio.WriteFileIO
	loc        table.LocationProvider
	written    []string // paths put, uploaded or not
	up         uploads
	nManifests int
	manifests  *ManifestCache             // nil: read every manifest
	wrote      map[string]*manifestWriter // manifests written, by path
	// view: the staged snapshot is only read (a transaction block's view
	// of its own changes) and then discarded, so small manifests are not
	// merged: merging rewrites them, and a commit would do it again.
	view bool
	// branch is the ref the snapshot moves; parent is its head (base is
	// the branch's view, whose main is that head).
	branch string
}

func newChangePlan(ctx context.Context, base *table.Table, change FileChange) (*changePlan, error) {
	meta := base.Metadata()
	op, err := change.operation()
	if err != nil {
		return nil, err
	}
	if err := checkChangeShape(meta, change); err != nil {
		return nil, err
	}
	fs, err := FS(ctx, base)
	if err != nil {
		return nil, err
	}
	wfs, ok := fs.(iceio.WriteFileIO)
	if !ok {
		return nil, fmt.Errorf("table io %T cannot write files", fs)
	}
	loc, err := base.LocationProvider()
	if err != nil {
		return nil, fmt.Errorf("location provider: %w", err)
	}
	p := &changePlan{
		base: base, meta: meta, version: meta.Version(), change: change, op: op,
		parent: meta.SnapshotByName(table.MainBranch), commitID: uuid.New(), fs: wfs, loc: loc,
		branch: change.Branch,
	}
	if IsMain(p.branch) {
		p.branch = table.MainBranch
	}
	p.snapshotID = newChangeSnapshotID(meta)
	if p.version >= 2 {
		p.seq = meta.LastSequenceNumber() + 1
	}
	return p, nil
}

// newChangeSnapshotID picks a positive id no snapshot of meta has.
func newChangeSnapshotID(meta table.Metadata) int64 {
	for {
		id := rand.Int64N(math.MaxInt64-1) + 1
		if meta.SnapshotByID(id) == nil {
			return id
		}
	}
}

// put writes a file of the change in the background (uploads); stage
// waits for it.
func (p *changePlan) put(path string, data []byte) {
	p.written = append(p.written, path)
	p.up.put(p.fs, path, data)
}

// stage builds the manifest set and list and the catalog updates, and
// returns once every file it wrote is written.
func (p *changePlan) stage(ctx context.Context) (staged *StagedChange, err error) {
	defer func() {
		if werr := p.up.wait(); werr != nil && err == nil {
			staged, err = nil, werr
		}
	}()
	carried, err := p.scanParent(ctx)
	if err != nil {
		return nil, err
	}
	if err := p.checkAgainstParent(carried); err != nil {
		return nil, err
	}
	added, err := p.writeAddedManifests(ctx)
	if err != nil {
		return nil, err
	}
	kept, err := p.carryManifests(ctx, carried)
	if err != nil {
		return nil, err
	}
	if !p.view {
		if kept, err = p.mergeManifests(ctx, kept); err != nil {
			return nil, err
		}
	}
	summary, err := p.summary(carried)
	if err != nil {
		return nil, err
	}
	snap, err := p.writeSnapshot(slices.Concat(added, kept), summary)
	if err != nil {
		return nil, err
	}
	return &StagedChange{
		Snapshot:     snap,
		Updates:      p.updates(&snap),
		Requirements: p.requirements(),
		Written:      slices.Clone(p.written),
		fs:           p.fs,
	}, nil
}

// writeSnapshot writes the manifest list and describes the snapshot.
func (p *changePlan) writeSnapshot(manifests []iceberg.ManifestFile, summary table.Summary) (table.Snapshot, error) {
	var parentID *int64
	if p.parent != nil {
		id := p.parent.SnapshotID
		parentID = &id
	}
	firstRowID := p.meta.NextRowID()
	path := p.loc.NewMetadataLocation(fmt.Sprintf("snap-%d-0-%s.avro", p.snapshotID, p.commitID))
	addedRows, err := p.writeManifestList(path, parentID, firstRowID, manifests)
	if err != nil {
		return table.Snapshot{}, err
	}
	schemaID := p.meta.CurrentSchema().ID
	snap := table.Snapshot{
		SnapshotID:       p.snapshotID,
		ParentSnapshotID: parentID,
		SequenceNumber:   p.seq,
		TimestampMs:      p.timestamp(),
		ManifestList:     path,
		Summary:          &summary,
		SchemaID:         &schemaID,
	}
	if p.version >= 3 {
		snap.FirstRowID = &firstRowID
		snap.AddedRows = &addedRows
	}
	return snap, nil
}

// timestamp is now, but never before the table's last update: the metadata
// builder rejects snapshots that go back in time by more than a minute, and
// snapshot-log order should follow commit order even under clock skew.
func (p *changePlan) timestamp() int64 {
	now := time.Now().UnixMilli()
	if last := p.meta.LastUpdatedMillis(); now < last {
		return last
	}
	return now
}

// updates add the snapshot and move the branch to it, keeping the
// branch's retention.
func (p *changePlan) updates(snap *table.Snapshot) []table.Update {
	var maxRefAge, maxSnapAge int64
	var minKeep int
	for name, ref := range p.meta.Refs() {
		if name != p.branch {
			continue
		}
		if ref.MaxRefAgeMs != nil {
			maxRefAge = *ref.MaxRefAgeMs
		}
		if ref.MaxSnapshotAgeMs != nil {
			maxSnapAge = *ref.MaxSnapshotAgeMs
		}
		if ref.MinSnapshotsToKeep != nil {
			minKeep = *ref.MinSnapshotsToKeep
		}
	}
	return []table.Update{
		table.NewAddSnapshotUpdate(snap),
		table.NewSetSnapshotRefUpdate(p.branch, snap.SnapshotID, table.BranchRef, maxRefAge, maxSnapAge, minKeep),
	}
}

// requirements pin the table and the branch's head (absent, for a write
// that creates the branch): a concurrent commit fails ours.
func (p *changePlan) requirements() []table.Requirement {
	var head *int64
	if p.parent != nil {
		id := p.parent.SnapshotID
		head = &id
	}
	return []table.Requirement{
		table.AssertTableUUID(p.meta.TableUUID()),
		table.AssertRefSnapshotID(p.branch, p.branchHead(head)),
	}
}

// branchHead is what the branch's requirement expects: the parent, unless
// the branch does not exist yet (its view is main's head, but the
// requirement is that nobody created the branch meanwhile).
func (p *changePlan) branchHead(parent *int64) *int64 {
	if p.branch == table.MainBranch {
		return parent
	}
	if _, ok := FindRef(p.meta, p.branch); !ok {
		return nil
	}
	return parent
}
