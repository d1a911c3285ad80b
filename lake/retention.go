package lake

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/iceberg-go/table"
)

// Retained is what a table's snapshots keep on storage: the files the
// current snapshot reads, and those only older snapshots still reference
// (what expiring them would free).
type Retained struct {
	Snapshots    int
	CurrentBytes int64
	OldOnlyFiles int
	OldOnlyBytes int64
}

// RetainedFiles walks every snapshot's manifests once each (snapshots
// share most of them) and sizes the data and delete files by who
// references them.
func RetainedFiles(ctx context.Context, tbl *table.Table) (Retained, error) {
	md := tbl.Metadata()
	out := Retained{Snapshots: len(md.Snapshots())}
	fs, err := FS(ctx, tbl)
	if err != nil {
		return out, err
	}
	current := map[string]int64{}
	old := map[string]int64{}
	seen := map[string][]fileRef{}
	var uncached *FileRefs
	cur := md.CurrentSnapshot()
	for _, snap := range md.Snapshots() {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		manifests, err := uncached.manifests(fs, snap)
		if err != nil {
			return out, fmt.Errorf("manifests of snapshot %d: %w", snap.SnapshotID, err)
		}
		into := old
		if cur != nil && snap.SnapshotID == cur.SnapshotID {
			into = current
		}
		for _, m := range manifests {
			files, ok := seen[m.FilePath()]
			if !ok {
				if files, err = uncached.liveFiles(fs, m); err != nil {
					return out, fmt.Errorf("manifest %s: %w", m.FilePath(), err)
				}
				seen[m.FilePath()] = files
			}
			for _, f := range files {
				into[f.path] = f.size
			}
		}
	}
	for p, n := range current {
		out.CurrentBytes += n
		delete(old, p)
	}
	for _, n := range old {
		out.OldOnlyFiles++
		out.OldOnlyBytes += n
	}
	return out, nil
}

// TableProperties lists a table's properties as sorted key/value pairs,
// with the format version among them as Spark and Trino show it.
func TableProperties(tbl *table.Table) [][2]string {
	props := map[string]string{"format-version": fmt.Sprint(tbl.Metadata().Version())}
	for k, v := range tbl.Properties() {
		props[k] = v
	}
	out := make([][2]string, 0, len(props))
	for k, v := range props {
		out = append(out, [2]string{k, v})
	}
	slices.SortFunc(out, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	return out
}
