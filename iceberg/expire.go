package iceberg

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	ice "github.com/apache/iceberg-go"
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
// are what the snapshots referenced before minus what the remaining ones
// reference, read again from the committed metadata, so a file the table
// still needs is never deleted. A concurrent commit makes it start again.
func (w *Warehouse) ExpireSnapshots(ctx context.Context, ident table.Identifier, olderThan time.Duration, retainLast int) (ExpireOutcome, error) {
	what := "expire snapshots of " + identString(ident)
	for attempt := 0; ; attempt++ {
		tbl, err := w.LoadTable(ctx, ident)
		if err != nil {
			return ExpireOutcome{}, err
		}
		out, err := expireOnce(ctx, tbl, olderThan, retainLast)
		if err == nil || attempt >= 5 || !isRequirementFailure(err) {
			if err != nil {
				return out, fmt.Errorf("%s: %w", what, err)
			}
			return out, nil
		}
	}
}

func isRequirementFailure(err error) bool {
	return err != nil && (errors.Is(err, ErrConflict) || strings.Contains(strings.ToLower(err.Error()), "requirement failed"))
}

func expireOnce(ctx context.Context, tbl *table.Table, olderThan time.Duration, retainLast int) (ExpireOutcome, error) {
	var out ExpireOutcome
	before, err := referencedFiles(ctx, tbl)
	if err != nil {
		return out, err
	}
	tx := tbl.NewTransaction()
	opts := []table.ExpireSnapshotsOpt{table.WithOlderThan(olderThan), table.WithPostCommit(false)}
	if retainLast > 0 {
		opts = append(opts, table.WithRetainLast(retainLast))
	}
	if err := tx.ExpireSnapshots(opts...); err != nil {
		return out, err
	}
	committed, err := tx.Commit(ctx)
	if err != nil {
		return out, err
	}
	out.ExpiredSnapshots = len(tbl.Metadata().Snapshots()) - len(committed.Metadata().Snapshots())
	after, err := referencedFiles(ctx, committed)
	if err != nil {
		return out, err
	}
	fs, err := FS(ctx, committed)
	if err != nil {
		return out, err
	}
	for path, size := range before {
		if _, kept := after[path]; kept {
			continue
		}
		if err := fs.Remove(path); err != nil {
			return out, fmt.Errorf("delete %s: %w", path, err)
		}
		out.DeletedFiles++
		out.DeletedBytes += size
	}
	return out, nil
}

// referencedFiles are every file tbl's snapshots reference, by path and
// size: manifest lists, manifests, data and delete files.
func referencedFiles(ctx context.Context, tbl *table.Table) (map[string]int64, error) {
	fs, err := FS(ctx, tbl)
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	seen := map[string]bool{}
	for _, snap := range tbl.Metadata().Snapshots() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out[snap.ManifestList] = 0
		manifests, err := snap.Manifests(fs)
		if err != nil {
			return nil, fmt.Errorf("manifests of snapshot %d: %w", snap.SnapshotID, err)
		}
		for _, m := range manifests {
			if seen[m.FilePath()] {
				continue
			}
			seen[m.FilePath()] = true
			out[m.FilePath()] = m.Length()
			entries, err := m.FetchEntries(fs, true)
			if err != nil {
				return nil, fmt.Errorf("manifest %s: %w", m.FilePath(), err)
			}
			for _, e := range entries {
				out[e.DataFile().FilePath()] = e.DataFile().FileSizeBytes()
			}
		}
	}
	return out, nil
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
	plan, err := tbl.PlanOrphanFiles(ctx, table.WithFilesOlderThan(olderThan))
	if err != nil {
		return OrphanOutcome{}, fmt.Errorf("%s: %w", what, err)
	}
	refs, err := referencedFiles(ctx, tbl)
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
	fs, err := FS(ctx, tbl)
	if err != nil {
		return OrphanOutcome{}, err
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
