package lake

import (
	"maps"
	"slices"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// Combining statements that touch the same data file. Two DELETEs (or
// merge-on-read UPDATEs) of different rows of one file each replace the
// file's deletion vector, so they cannot simply share a snapshot; but the
// second can be rebased onto the first as if the first had committed (a
// virtual head: the turn's head plus the group's change so far), which
// merges their vectors by position — the rows must differ, else it is
// planned again later. The group then commits the net of both. If the
// group does not land, the combined statement goes back to its own change
// (kept with its files until then) and is rebased like any other.

// combine tries to add m's change to the group's union, planned on head.
// It reports false (m waits for a later snapshot) when the rebase says the
// change must be planned again. superseded are files the combination no
// longer uses (vectors it merged), to remove once it has committed; until
// then m keeps its own change (a.solo) and every file of it, to go back
// to if the group does not land.
func (l CommitLoop) combine(turn *tableTurn, head *table.Table, union FileChange, m *member) (net FileChange, superseded []string, ok bool) {
	if m.a.change.Rebase == nil || m.a.solo != nil {
		return FileChange{}, nil, false
	}
	base, err := turn.live.get(m.ctx, head)
	if err != nil {
		return FileChange{}, nil, false
	}
	diff := &HeadDiff{Base: base, Head: virtualHead(base, union)}
	rebased, extra, err := m.a.change.Rebase(m.ctx, RebaseInput{Base: head, Head: head, Change: m.a.change, diff: diff, keep: true})
	if err != nil {
		commitRemoveWritten(head, extra)
		return FileChange{}, nil, false
	}
	net, superseded, err = union.Then(rebased)
	if err != nil {
		commitRemoveWritten(head, extra)
		return FileChange{}, nil, false
	}
	superseded = append(superseded, orphanPaths(m.a.change.AddDeletes, rebased.AddDeletes)...)
	solo := m.a
	m.a.solo, m.a.change, m.a.written = &solo, rebased, append(slices.Clone(m.a.written), extra...)
	return net, superseded, true
}

// uncombine puts a back as it was before a group combined it, removing
// what the combination wrote.
func (a *attempt) uncombine() {
	solo := a.solo
	var extra []string
	for _, p := range a.written {
		if !slices.Contains(solo.written, p) {
			extra = append(extra, p)
		}
	}
	commitRemoveWritten(a.head, extra)
	tries := a.tries
	*a = *solo
	a.tries = tries
}

// virtualHead is base's live files as they would be after change: its
// removed data files gone, its delete files applied to the data files they
// reference. The maps and tasks of base are not changed.
func virtualHead(base map[string]*LiveFile, change FileChange) map[string]*LiveFile {
	out := maps.Clone(base)
	for _, f := range change.RemoveData {
		delete(out, f.FilePath())
	}
	removed := map[string]bool{}
	touched := map[string]bool{}
	for _, d := range change.RemoveDeletes {
		removed[DeleteKey(d)] = true
		if ref := d.ReferencedDataFile(); ref != nil {
			touched[*ref] = true
		}
	}
	added := map[string][]iceberg.DataFile{}
	for _, d := range change.AddDeletes {
		if ref := d.ReferencedDataFile(); ref != nil {
			added[*ref] = append(added[*ref], d)
			touched[*ref] = true
		}
	}
	for p := range touched {
		if lf := out[p]; lf != nil {
			out[p] = withDeletes(lf, removed, added[p])
		}
	}
	return out
}

// withDeletes is lf with the delete files named in removed dropped and add
// added.
func withDeletes(lf *LiveFile, removed map[string]bool, add []iceberg.DataFile) *LiveFile {
	keep := func(ds []iceberg.DataFile) []iceberg.DataFile {
		return slices.DeleteFunc(slices.Clone(ds), func(d iceberg.DataFile) bool { return removed[DeleteKey(d)] })
	}
	out := &LiveFile{}
	for _, t := range lf.Tasks {
		t.DeleteFiles, t.DeletionVectorFiles = keep(t.DeleteFiles), keep(t.DeletionVectorFiles)
		for _, d := range add {
			if d.ContentOffset() != nil {
				t.DeletionVectorFiles = append(t.DeletionVectorFiles, d)
			} else {
				t.DeleteFiles = append(t.DeleteFiles, d)
			}
		}
		out.Tasks = append(out.Tasks, t)
	}
	out.Keys = deleteKeys(out.Tasks)
	return out
}
