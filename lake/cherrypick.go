package lake

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// ErrNoParent says a snapshot starts a history: there is no change of it
// to carry elsewhere.
var ErrNoParent = errors.New("the snapshot has no parent")

// SourceSnapshotProp is the summary property naming the snapshot a
// cherry-pick copied, as Iceberg's Java library writes it.
const SourceSnapshotProp = "source-snapshot-id"

// SnapshotChange is what snapshot id did to its parent, as a change planned
// against the parent (base, the parent's view): the data and delete files
// live in the snapshot but not in its parent are added, the ones live in
// the parent but not in the snapshot removed. Files are compared as scans
// see them, so a delete file counts where it applies to a live data file.
func SnapshotChange(ctx context.Context, tbl *table.Table, id int64) (base *table.Table, change FileChange, err error) {
	what := fmt.Sprintf("change of snapshot %d of %s", id, IdentKey(tbl.Identifier()))
	snap := tbl.Metadata().SnapshotByID(id)
	switch {
	case snap == nil:
		return nil, FileChange{}, fmt.Errorf("%s: %w", what, ErrNoSuchSnapshot)
	case snap.ParentSnapshotID == nil:
		return nil, FileChange{}, fmt.Errorf("%s: %w", what, ErrNoParent)
	}
	if base, err = SnapshotView(tbl, *snap.ParentSnapshotID); err != nil {
		return nil, FileChange{}, fmt.Errorf("%s: %w", what, err)
	}
	after, err := SnapshotView(tbl, id)
	if err != nil {
		return nil, FileChange{}, fmt.Errorf("%s: %w", what, err)
	}
	was, err := LiveFiles(ctx, base)
	if err != nil {
		return nil, FileChange{}, fmt.Errorf("%s: %w", what, err)
	}
	now, err := LiveFiles(ctx, after)
	if err != nil {
		return nil, FileChange{}, fmt.Errorf("%s: %w", what, err)
	}
	change.AddData, change.RemoveData = fileDiff(dataFiles(now), dataFiles(was))
	for i, df := range change.AddData {
		if change.AddData[i], err = withoutRowID(df); err != nil {
			return nil, FileChange{}, fmt.Errorf("%s: %w", what, err)
		}
	}
	change.AddDeletes, change.RemoveDeletes = fileDiff(deleteFiles(now), deleteFiles(was))
	change.Props = map[string]string{SourceSnapshotProp: strconv.FormatInt(id, 10)}
	return base, change, nil
}

// withoutRowID is df with no first_row_id: read from a v3 manifest it
// carries the id its snapshot gave its first row, but re-added elsewhere
// its rows take ids from the new snapshot's range (CommitChange assigns
// them). iceberg-go has no way to copy a data file with one field
// changed, so this copies its struct and clears the field by name.
func withoutRowID(df iceberg.DataFile) (iceberg.DataFile, error) {
	if df.FirstRowID() == nil {
		return df, nil
	}
	v := reflect.ValueOf(df)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("data file %s: cannot clear its first_row_id", df.FilePath())
	}
	field := v.Elem().FieldByName("FirstRowIDField")
	if !field.IsValid() || field.Kind() != reflect.Pointer {
		return nil, fmt.Errorf("data file %s: cannot clear its first_row_id", df.FilePath())
	}
	clone := reflect.New(v.Elem().Type())
	clone.Elem().Set(v.Elem())
	clone.Elem().FieldByName("FirstRowIDField").SetZero()
	out, ok := clone.Interface().(iceberg.DataFile)
	if !ok || out.FirstRowID() != nil {
		return nil, fmt.Errorf("data file %s: cannot clear its first_row_id", df.FilePath())
	}
	return out, nil
}

// dataFiles keys live data files by path.
func dataFiles(live map[string]*LiveFile) map[string]iceberg.DataFile {
	out := make(map[string]iceberg.DataFile, len(live))
	for p, lf := range live {
		out[p] = lf.Tasks[0].File
	}
	return out
}

// deleteFiles keys the delete files that apply to live data files by
// DeleteKey.
func deleteFiles(live map[string]*LiveFile) map[string]iceberg.DataFile {
	out := map[string]iceberg.DataFile{}
	for _, lf := range live {
		for _, t := range lf.Tasks {
			for _, d := range slices.Concat(t.DeleteFiles, t.EqualityDeleteFiles, t.DeletionVectorFiles) {
				out[DeleteKey(d)] = d
			}
		}
	}
	return out
}

// fileDiff is the files of now that was lacks, and the reverse, in key order.
func fileDiff(now, was map[string]iceberg.DataFile) (added, removed []iceberg.DataFile) {
	for _, k := range slices.Sorted(maps.Keys(now)) {
		if _, ok := was[k]; !ok {
			added = append(added, now[k])
		}
	}
	for _, k := range slices.Sorted(maps.Keys(was)) {
		if _, ok := now[k]; !ok {
			removed = append(removed, was[k])
		}
	}
	return added, removed
}

// PickedInto is the snapshot of branch's history that cherry-picked id (its
// summary names id as its source), or nil.
func PickedInto(meta table.Metadata, branch string, id int64) *table.Snapshot {
	src := strconv.FormatInt(id, 10)
	for snap := meta.SnapshotByName(branch); snap != nil; {
		if snap.Summary != nil && snap.Summary.Properties[SourceSnapshotProp] == src {
			return snap
		}
		if snap.ParentSnapshotID == nil {
			return nil
		}
		snap = meta.SnapshotByID(*snap.ParentSnapshotID)
	}
	return nil
}

// InHistory reports whether id is branch's head or one of its ancestors.
func InHistory(meta table.Metadata, branch string, id int64) bool {
	head := meta.SnapshotByName(branch)
	return head != nil && descends(meta, head.SnapshotID, id)
}
