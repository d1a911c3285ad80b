package deletes

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table/dv"

	"github.com/magmalake/magmalake/lake"
)

// A rewrite replaces data files by new ones holding the same live rows.
// Under steady writes another statement nearly always deletes rows of some
// file it replaces before it commits; planned again, it would lose again,
// and the table would never be compacted. So a rewrite that knows where
// each row went (lake.RowMoves) is carried onto the new head instead:
//
//   - a replaced file that is still live but lost more rows has those rows
//     deleted from the new files, at their new positions (a deletion
//     vector on v3, a position delete file on v2), and head's delete files
//     of it are removed with it;
//   - a replaced file another commit removed (a copy-on-write statement
//     wrote its survivors elsewhere, or another rewrite moved them) has
//     every row it gave the new files deleted there, and is not removed
//     again.
//
// The new files' delete files commit in the rewrite's own snapshot: their
// sequence number is the files', so they apply. The result is rebuilt
// from the moves on every rebase, so a rewrite that loses several rounds
// keeps one set of delete files. Equality deletes, which would not apply
// to the newer files, still make it plan again.

// movesApply reports whether change's rebase can go through its moves:
// every data file it removes has moved rows (an earlier rebase may have
// dropped them all, when others removed them) and it removes no equality
// delete file.
func movesApply(change lake.FileChange) bool {
	if change.Moves == nil {
		return false
	}
	for _, f := range change.RemoveData {
		if !change.Moves.Moved(f.FilePath()) {
			return false
		}
	}
	return !slices.ContainsFunc(change.RemoveDeletes, func(d iceberg.DataFile) bool {
		return d.ContentType() == iceberg.EntryContentEqDeletes
	})
}

// rebaseMoved carries a rewrite whose moves apply onto in.Head.
func rebaseMoved(ctx context.Context, in lake.RebaseInput) (lake.FileChange, []string, error) {
	change := in.Change
	diff, err := in.Diff(ctx)
	if err != nil {
		return lake.FileChange{}, nil, err
	}
	inputs := change.Moves.Files()
	if !slices.ContainsFunc(inputs, func(p string) bool { return diff.Gone(p) || diff.Changed(p) }) {
		return change, nil, nil
	}
	if in.Head.Metadata().Version() < 2 {
		return lake.FileChange{}, nil, fmt.Errorf("%w: rows of a rewritten file were deleted", lake.ErrReplan)
	}
	r, err := newRebaser(ctx, in.Head, diff)
	if err != nil {
		return lake.FileChange{}, nil, err
	}
	m := movedRebase{rebaser: r, change: change, inputs: inputs, targets: map[string]*dv.RoaringPositionBitmap{}}
	if err := m.plan(ctx); err != nil {
		return lake.FileChange{}, nil, err
	}
	return m.result(ctx, in.KeepsOwnFiles())
}

// movedRebase rebuilds a rewrite on head.
type movedRebase struct {
	*rebaser
	change  lake.FileChange
	inputs  []string
	targets map[string]*dv.RoaringPositionBitmap // new file -> its rows to delete
	// removeData and removeDeletes are what the rewrite removes on head.
	removeData    []iceberg.DataFile
	removeDeletes []iceberg.DataFile
}

// plan works out, input by input, what the rewrite removes on head and
// which rows of the new files it must delete.
func (m *movedRebase) plan(ctx context.Context) error {
	// leaves: a data file not live once the rewrite committed.
	leaves := func(p string) bool { return m.diff.Gone(p) || slices.Contains(m.inputs, p) }
	seen := map[string]bool{}
	for _, p := range m.inputs {
		if m.diff.Gone(p) {
			m.change.Moves.Targets(p, m.target)
			continue
		}
		ex, err := m.deletedSince(ctx, p)
		if err != nil {
			return err
		}
		m.removeData = append(m.removeData, m.diff.Head[p].Tasks[0].File)
		for _, d := range ex.superseded {
			if key := lake.DeleteKey(d); !seen[key] {
				seen[key] = true
				m.removeDeletes = append(m.removeDeletes, d)
			}
		}
		for _, d := range ex.posFiles {
			if !seen[d.FilePath()] && !slices.ContainsFunc(ex.posTargets[d.FilePath()], func(t string) bool { return !leaves(t) }) {
				seen[d.FilePath()] = true
				m.removeDeletes = append(m.removeDeletes, d)
			}
		}
	}
	return nil
}

// deletedSince loads head's deletes of live input p and marks, in the new
// files, its rows deleted since the rewrite was planned.
func (m *movedRebase) deletedSince(ctx context.Context, p string) (*existingDeletes, error) {
	was, now := m.diff.Base[p], m.diff.Head[p]
	if was == nil {
		return nil, fmt.Errorf("%w: data file %s is new", lake.ErrReplan, p)
	}
	for _, t := range now.Tasks {
		for _, e := range t.EqualityDeleteFiles {
			if !slices.Contains(was.Keys, lake.DeleteKey(e)) {
				return nil, fmt.Errorf("%w: equality deletes were added for %s", lake.ErrReplan, p)
			}
		}
	}
	ex, err := m.ix.load(ctx, p, now.Tasks)
	if err != nil {
		return nil, err
	}
	dropped := m.change.Moves.Dropped(p)
	for _, pos := range dropped {
		if !ex.positions.Contains(pos) {
			return nil, fmt.Errorf("%w: deletes of %s were rewritten", lake.ErrReplan, p)
		}
	}
	for pos := range ex.positions.Positions() {
		if out, at, ok := m.change.Moves.Target(p, pos); ok {
			m.target(out, at)
		}
	}
	return ex, nil
}

func (m *movedRebase) target(out string, pos int64) {
	bm := m.targets[out]
	if bm == nil {
		bm = dv.NewRoaringPositionBitmap()
		m.targets[out] = bm
	}
	bm.Set(uint64(pos))
}

// result is the rewrite on head: its new files, the inputs still live and
// their delete files removed, and the rows others deleted meanwhile
// deleted from the new files. Delete files an earlier rebase wrote are
// replaced (and removed unless keepOwn).
func (m *movedRebase) result(ctx context.Context, keepOwn bool) (lake.FileChange, []string, error) {
	out := m.change
	out.RemoveData, out.RemoveDeletes, out.AddDeletes = m.removeData, m.removeDeletes, nil
	var written []string
	if len(m.targets) > 0 {
		sink, err := newFileSink(ctx, m.head)
		if err != nil {
			return lake.FileChange{}, nil, err
		}
		if out.AddDeletes, err = m.writeTargets(ctx, sink); err != nil {
			sink.removeAll()
			return lake.FileChange{}, nil, err
		}
		written = sink.written
	}
	if !keepOwn {
		for _, d := range m.change.AddDeletes {
			_ = m.ix.reader.fs.Remove(d.FilePath())
		}
	}
	return out, written, nil
}

// writeTargets writes the new files' deletes the way the table takes them.
func (m *movedRebase) writeTargets(ctx context.Context, sink *fileSink) ([]iceberg.DataFile, error) {
	byPath := map[string]iceberg.DataFile{}
	for _, f := range m.change.AddData {
		byPath[f.FilePath()] = f
	}
	var plans []*RowDelete
	for _, p := range slices.Sorted(maps.Keys(m.targets)) {
		f, ok := byPath[p]
		if !ok {
			return nil, fmt.Errorf("rewrite moved rows to %s, which it does not add", p)
		}
		plans = append(plans, &RowDelete{File: f, Positions: slices.Collect(m.targets[p].Positions())})
	}
	if m.head.Metadata().Version() >= 3 {
		return writeDeletionVectors(ctx, m.head, sink, plans)
	}
	return writePositionDeletes(ctx, m.head, sink, plans)
}
