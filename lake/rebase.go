package lake

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// ErrReplan says a change planned against one snapshot does not mean the
// same on a newer head: an autocommit statement plans again, a transaction
// block fails with a serialization error.
var ErrReplan = errors.New("a concurrent commit changed what this change was planned on")

// Rebaser carries in.Change, planned against in.Base, onto in.Head: the
// change to commit instead, any files it wrote for that, or an error
// wrapping ErrReplan when the change must be planned again. A change
// carries its own (FileChange.Rebase); the commit loop has none of its own
// beyond RebaseFiles.
type Rebaser func(ctx context.Context, in RebaseInput) (FileChange, []string, error)

// RebaseInput is one rebase the commit loop asks for.
type RebaseInput struct {
	Base, Head *table.Table
	Change     FileChange
	live       *liveFilesCache // nil: every Diff plans both snapshots
	diff       *HeadDiff       // set: the diff, not planned (a group's virtual head)
	keep       bool            // the change's own files must stay (see KeepsOwnFiles)
}

// KeepsOwnFiles reports a rebase whose caller may still commit the change
// as it was (a group combination that may not land): files of the change
// the result no longer uses must not be removed.
func (in RebaseInput) KeepsOwnFiles() bool { return in.keep }

// KeepingOwnFiles is in for a change whose files are not the caller's to
// remove (a cherry-pick's, which its branch still references).
func (in RebaseInput) KeepingOwnFiles() RebaseInput {
	in.keep = true
	return in
}

// Diff reads both snapshots' live files, from the table's cache when the
// commit loop keeps one: a head one statement rebased onto is the base the
// next one rebases from.
func (in RebaseInput) Diff(ctx context.Context) (*HeadDiff, error) {
	if in.diff != nil {
		return in.diff, nil
	}
	b, err := in.live.get(ctx, in.Base)
	if err != nil {
		return nil, err
	}
	h, err := in.live.get(ctx, in.Head)
	if err != nil {
		return nil, err
	}
	return &HeadDiff{Base: b, Head: h}, nil
}

// LiveFile is one live data file of a snapshot and what deletes apply to it.
type LiveFile struct {
	Tasks []table.FileScanTask // the file's scan tasks (split files have several)
	Keys  []string             // its delete files, sorted; a DV as path@offset
}

// LiveFiles maps every live data file of tbl's current snapshot to its
// deletes.
func LiveFiles(ctx context.Context, tbl *table.Table) (map[string]*LiveFile, error) {
	return liveFiles(ctx, tbl, nil)
}

// liveFiles is LiveFiles reading manifests through cache.
func liveFiles(ctx context.Context, tbl *table.Table, cache *ManifestCache) (map[string]*LiveFile, error) {
	out := map[string]*LiveFile{}
	if tbl.CurrentSnapshot() == nil {
		return out, nil
	}
	tasks, err := PlanFiles(ctx, tbl, PlanRequest{Manifests: cache})
	if err != nil {
		return nil, fmt.Errorf("plan %s: %w", IdentKey(tbl.Identifier()), err)
	}
	for _, t := range tasks {
		lf := out[t.File.FilePath()]
		if lf == nil {
			lf = &LiveFile{}
			out[t.File.FilePath()] = lf
		}
		lf.Tasks = append(lf.Tasks, t)
	}
	for _, lf := range out {
		lf.Keys = deleteKeys(lf.Tasks)
	}
	return out, nil
}

// deleteKeys names the delete files of a data file's tasks, sorted.
func deleteKeys(tasks []table.FileScanTask) []string {
	var keys []string
	for _, t := range tasks {
		for _, d := range slices.Concat(t.DeleteFiles, t.EqualityDeleteFiles, t.DeletionVectorFiles) {
			if key := DeleteKey(d); !slices.Contains(keys, key) {
				keys = append(keys, key)
			}
		}
	}
	slices.Sort(keys)
	return keys
}

// DeleteKey names one delete file; a deletion vector is a blob of a Puffin
// file, so its offset is part of its name.
func DeleteKey(d iceberg.DataFile) string {
	if off := d.ContentOffset(); off != nil {
		return fmt.Sprintf("%s@%d", d.FilePath(), *off)
	}
	return d.FilePath()
}

// HeadDiff is what happened to a table's live data files between the
// snapshot a change was planned on and the head it must commit on.
// Its maps may be shared with other rebases: read them, never change them.
type HeadDiff struct {
	Base, Head map[string]*LiveFile
}

// Changed reports whether the deletes of data file p differ between base
// and head; false for a file that is gone from head (see Gone).
func (d *HeadDiff) Changed(p string) bool {
	now, ok := d.Head[p]
	if !ok {
		return false
	}
	was := d.Base[p]
	return was == nil || !slices.Equal(now.Keys, was.Keys)
}

// Gone reports whether data file p, live in base, is no longer live in head.
func (d *HeadDiff) Gone(p string) bool {
	_, ok := d.Head[p]
	return !ok
}

// Touched checks change against the diff at the level of data files. A
// data file the change removes must be live in head with exactly its
// deletes of base; equality deletes must not meet data added since base;
// every data file the change adds deletes for must still be live. It
// returns the data files the change adds position deletes for whose deletes
// another commit changed: the caller decides by position whether the change
// still holds there. Anything else is ErrReplan. names tells which data
// files a position delete file without a referenced data file covers (it
// must read the file); nil counts it as covering every file.
func (d *HeadDiff) Touched(change FileChange, names func(iceberg.DataFile) ([]string, error)) ([]string, error) {
	for _, f := range change.RemoveData {
		p := f.FilePath()
		if d.Gone(p) {
			return nil, fmt.Errorf("%w: data file %s was removed", ErrReplan, p)
		}
		if d.Changed(p) {
			return nil, fmt.Errorf("%w: rows of data file %s were deleted", ErrReplan, p)
		}
	}
	var changed []string
	for _, del := range change.AddDeletes {
		if del.ContentType() == iceberg.EntryContentEqDeletes {
			if p := d.newData(); p != "" {
				return nil, fmt.Errorf("%w: equality deletes would also remove rows of %s, added concurrently", ErrReplan, p)
			}
			continue
		}
		refs, err := d.covered(del, names)
		if err != nil {
			return nil, err
		}
		for _, p := range refs {
			switch {
			case d.Gone(p):
				return nil, fmt.Errorf("%w: data file %s was removed", ErrReplan, p)
			case d.Changed(p) && !slices.Contains(changed, p):
				changed = append(changed, p)
			}
		}
	}
	return changed, nil
}

// covered is the data files a position delete file or DV applies to.
func (d *HeadDiff) covered(del iceberg.DataFile, names func(iceberg.DataFile) ([]string, error)) ([]string, error) {
	if ref := del.ReferencedDataFile(); ref != nil {
		return []string{*ref}, nil
	}
	if names == nil {
		return slices.Collect(maps.Keys(d.Base)), nil
	}
	return names(del)
}

// newData is a data file live in head that base did not have, or "".
func (d *HeadDiff) newData() string {
	for p := range d.Head {
		if _, ok := d.Base[p]; !ok {
			return p
		}
	}
	return ""
}

// RebaseFiles is the rebase that needs no file contents: change holds on
// head when no data file it touches changed since base.
func RebaseFiles(ctx context.Context, in RebaseInput) (FileChange, []string, error) {
	change := in.Change
	if change.OnlyAddsData() {
		return change, nil, nil
	}
	d, err := in.Diff(ctx)
	if err != nil {
		return FileChange{}, nil, err
	}
	changed, err := d.Touched(change, nil)
	if err != nil {
		return FileChange{}, nil, err
	}
	if len(changed) > 0 {
		return FileChange{}, nil, fmt.Errorf("%w: rows of data file %s were deleted", ErrReplan, changed[0])
	}
	return change, nil, nil
}
