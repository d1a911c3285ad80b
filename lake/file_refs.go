package lake

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"

	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/internal/lru"
)

// FileRefs keeps what each manifest list and manifest names, by path, for
// the maintenance that walks every snapshot (expiry, orphan removal). A
// table committed to many times a second has thousands of snapshots within
// its retention, and reading all their manifests again on every pass cost
// seconds of CPU per pass; most of them are the ones the previous pass read.
// Manifest lists and manifests never change once written, so nothing is
// invalidated.
type FileRefs struct {
	lists *lru.Cache[string, []iceberg.ManifestFile] // manifest list → its manifests
	files *lru.Cache[string, []fileRef]              // manifest → its live files
}

// fileRef is a data or delete file a manifest names, with its size.
type fileRef struct {
	path string
	size int64
}

// DefaultFileRefsBytes bounds a warehouse's FileRefs (an estimate of the
// memory held).
const DefaultFileRefsBytes = 16 << 20

// NewFileRefs holds at most limit bytes, least recently used out (as lru approximates it).
func NewFileRefs(limit int64) *FileRefs {
	return &FileRefs{
		lists: lru.New[string, []iceberg.ManifestFile](limit/2, nil),
		files: lru.New[string, []fileRef](limit/2, nil),
	}
}

// manifests are snap's manifests. A nil FileRefs reads every time.
func (r *FileRefs) manifests(fs iceio.IO, snap table.Snapshot) ([]iceberg.ManifestFile, error) {
	if r == nil {
		return snap.Manifests(fs)
	}
	return cachedManifestList(r.lists, fs, snap)
}

// cachedManifestList is snap's manifests, from lists when it holds them
// (keyed by the manifest list's path; a list never changes once written).
func cachedManifestList(lists *lru.Cache[string, []iceberg.ManifestFile], fs iceio.IO, snap table.Snapshot) ([]iceberg.ManifestFile, error) {
	if snap.ManifestList == "" {
		return snap.Manifests(fs)
	}
	if mfs, ok := lists.Get(snap.ManifestList, nil); ok {
		return mfs, nil
	}
	mfs, err := snap.Manifests(fs)
	if err != nil {
		return nil, err
	}
	lists.Add(snap.ManifestList, mfs, listBytes(mfs))
	return mfs, nil
}

// listBytes estimates the memory a manifest list's decoded manifests hold.
func listBytes(mfs []iceberg.ManifestFile) int64 {
	var n int64
	for _, m := range mfs {
		n += 256 + int64(len(m.FilePath()))
	}
	return n
}

// liveFiles are the data or delete files mf adds or keeps (not the ones it
// records as deleted).
func (r *FileRefs) liveFiles(fs iceio.IO, mf iceberg.ManifestFile) ([]fileRef, error) {
	if r != nil {
		if refs, ok := r.files.Get(mf.FilePath(), nil); ok {
			return refs, nil
		}
	}
	entries, err := mf.FetchEntries(fs, true)
	if err != nil {
		return nil, err
	}
	refs := make([]fileRef, len(entries))
	var cost int64
	for i, e := range entries {
		refs[i] = fileRef{path: e.DataFile().FilePath(), size: e.DataFile().FileSizeBytes()}
		cost += 48 + int64(len(refs[i].path))
	}
	if r != nil {
		r.files.Add(mf.FilePath(), refs, cost)
	}
	return refs, nil
}

// referencedFiles are every file snaps reference, by path and size:
// manifest lists, manifests, data and delete files.
func referencedFiles(ctx context.Context, fs iceio.IO, snaps []table.Snapshot, refs *FileRefs) (map[string]int64, error) {
	return walkReferences(ctx, fs, snaps, refs, false)
}

// expiredReferences is referencedFiles of snapshots an expiry removed,
// where a manifest list or manifest already gone is passed over: another
// pass of maintenance (an orphan sweep, another server's expiry) took it
// once the snapshots left the metadata, and what it named is either gone
// too or an orphan for a later sweep.
func expiredReferences(ctx context.Context, fs iceio.IO, snaps []table.Snapshot, refs *FileRefs) (map[string]int64, error) {
	return walkReferences(ctx, fs, snaps, refs, true)
}

func walkReferences(ctx context.Context, fs iceio.IO, snaps []table.Snapshot, refs *FileRefs, passGone bool) (map[string]int64, error) {
	out := map[string]int64{}
	seen := map[string]bool{}
	gone := func(err error) bool { return passGone && errors.Is(err, iofs.ErrNotExist) }
	for _, snap := range snaps {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if snap.ManifestList != "" {
			out[snap.ManifestList] = 0
		}
		manifests, err := refs.manifests(fs, snap)
		if gone(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("manifests of snapshot %d: %w", snap.SnapshotID, err)
		}
		for _, m := range manifests {
			if seen[m.FilePath()] {
				continue
			}
			seen[m.FilePath()] = true
			out[m.FilePath()] = m.Length()
			files, err := refs.liveFiles(fs, m)
			if gone(err) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("manifest %s: %w", m.FilePath(), err)
			}
			for _, f := range files {
				out[f.path] = f.size
			}
		}
	}
	return out, nil
}

// SnapshotFiles are the data and the delete files snap of tbl reads, by
// path.
func (m *Maintenance) SnapshotFiles(ctx context.Context, tbl *table.Table, snap table.Snapshot) (data, deletes map[string]bool, err error) {
	fs, err := FS(ctx, tbl)
	if err != nil {
		return nil, nil, err
	}
	manifests, err := m.refs.manifests(fs, snap)
	if err != nil {
		return nil, nil, fmt.Errorf("manifests of snapshot %d: %w", snap.SnapshotID, err)
	}
	data, deletes = map[string]bool{}, map[string]bool{}
	for _, mf := range manifests {
		files, err := m.refs.liveFiles(fs, mf)
		if err != nil {
			return nil, nil, fmt.Errorf("manifest %s: %w", mf.FilePath(), err)
		}
		into := data
		if mf.ManifestContent() == iceberg.ManifestContentDeletes {
			into = deletes
		}
		for _, f := range files {
			into[f.path] = true
		}
	}
	return data, deletes, nil
}
