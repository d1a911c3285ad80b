package deletes

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/apache/iceberg-go/table/dv"

	"github.com/magmalake/magmalake/lake"
)

// Rebase carries a change planned against base onto head (the
// lake.Rebaser every change of this package carries, FileChange.Rebase)
// without planning it again where it still holds, deciding by data file and
// position: files no other commit touched keep their plan and the delete
// files written for them; a data file another commit deleted other rows of
// keeps this change's positions — its position delete file stays beside
// the other's, its deletion vector is merged with head's into a new one. It
// answers lake.ErrReplan when the same rows were deleted by both, when a
// file the change removes or rewrites changed, or when the other commit
// added equality deletes or its equality deletes meet new data. A rewrite
// that knows where its rows went is carried over by rebaseMoved.
func Rebase(ctx context.Context, in lake.RebaseInput) (lake.FileChange, []string, error) {
	change := in.Change
	if movesApply(change) {
		return rebaseMoved(ctx, in)
	}
	if change.OnlyAddsData() {
		return change, nil, nil
	}
	diff, err := in.Diff(ctx)
	if err != nil {
		return lake.FileChange{}, nil, err
	}
	r, err := newRebaser(ctx, in.Head, diff)
	if err != nil {
		return lake.FileChange{}, nil, err
	}
	changed, err := diff.Touched(change, r.names(ctx))
	if err != nil || len(changed) == 0 {
		return change, nil, err
	}
	for _, p := range changed {
		if err := r.file(ctx, p, change); err != nil {
			return lake.FileChange{}, nil, err
		}
	}
	return r.result(ctx, change, in.KeepsOwnFiles())
}

// rebaser carries one rebase: the files to re-merge and their new vectors.
type rebaser struct {
	head *table.Table
	diff *lake.HeadDiff
	ix   *deleteIndex
	// merged maps a data file whose DV this change re-merges to head's
	// positions ∪ the change's; replaced are head's DVs of those files.
	merged   map[string]*dv.RoaringPositionBitmap
	replaced []iceberg.DataFile
}

func newRebaser(ctx context.Context, head *table.Table, diff *lake.HeadDiff) (*rebaser, error) {
	fs, err := head.FS(ctx)
	if err != nil {
		return nil, fmt.Errorf("table io: %w", err)
	}
	rd := positionalReader{fs: fs, nameMapping: head.NameMapping(), formatVersion: head.Metadata().Version(), mem: memory.DefaultAllocator}
	return &rebaser{head: head, diff: diff, ix: newDeleteIndex(rd, head.Schema()), merged: map[string]*dv.RoaringPositionBitmap{}}, nil
}

// names reads which data files a multi-file position delete file covers.
func (r *rebaser) names(ctx context.Context) func(iceberg.DataFile) ([]string, error) {
	return func(d iceberg.DataFile) ([]string, error) {
		pf, err := r.ix.posFile(ctx, d)
		if err != nil {
			return nil, err
		}
		return slices.Collect(maps.Keys(pf.byData)), nil
	}
}

// file decides data file p, whose deletes another commit changed: the rows
// this change deletes there must still be live in head.
func (r *rebaser) file(ctx context.Context, p string, change lake.FileChange) error {
	was, now := r.diff.Base[p], r.diff.Head[p]
	if was == nil {
		return fmt.Errorf("%w: data file %s is new", lake.ErrReplan, p)
	}
	for _, t := range now.Tasks {
		for _, e := range t.EqualityDeleteFiles {
			if !slices.Contains(was.Keys, lake.DeleteKey(e)) {
				return fmt.Errorf("%w: equality deletes were added for %s", lake.ErrReplan, p)
			}
		}
	}
	before, err := r.ix.load(ctx, p, was.Tasks)
	if err != nil {
		return err
	}
	after, err := r.ix.load(ctx, p, now.Tasks)
	if err != nil {
		return err
	}
	if !contains(after.positions, before.positions) {
		return fmt.Errorf("%w: deletes of %s were rewritten", lake.ErrReplan, p)
	}
	ours, vector, err := r.ownPositions(ctx, p, change, before.positions)
	if err != nil {
		return err
	}
	for pos := range ours.Positions() {
		if after.positions.Contains(pos) {
			return fmt.Errorf("%w: row %d of %s was deleted concurrently", lake.ErrReplan, pos, p)
		}
	}
	if vector {
		ours.Or(after.positions)
		r.merged[p] = ours
		r.replaced = append(r.replaced, after.superseded...)
	}
	return nil
}

// ownPositions are the positions of p the change deletes that base had not
// deleted, and whether they come from a deletion vector (which must be
// re-merged) rather than a position delete file (which stays as it is).
func (r *rebaser) ownPositions(ctx context.Context, p string, change lake.FileChange, existing *dv.RoaringPositionBitmap) (*dv.RoaringPositionBitmap, bool, error) {
	ours := dv.NewRoaringPositionBitmap()
	vector := false
	for _, d := range change.AddDeletes {
		switch {
		case d.ContentType() != iceberg.EntryContentPosDeletes:
		case d.ContentOffset() != nil:
			if ref := d.ReferencedDataFile(); ref == nil || *ref != p {
				continue
			}
			bm, err := lake.ReadDV(r.ix.reader.fs, d)
			if err != nil {
				return nil, false, fmt.Errorf("read deletion vector %s: %w", d.FilePath(), err)
			}
			for pos := range bm.Positions() {
				if !existing.Contains(pos) {
					ours.Set(pos)
				}
			}
			vector = true
		default:
			if ref := d.ReferencedDataFile(); ref != nil && *ref != p {
				continue
			}
			pf, err := r.ix.posFile(ctx, d)
			if err != nil {
				return nil, false, err
			}
			for _, pos := range pf.byData[p] {
				ours.Set(uint64(pos))
			}
		}
	}
	return ours, vector, nil
}

// result is change with the re-merged vectors in one new Puffin file in
// place of the change's own vectors for those files, and head's vectors of
// them replaced instead of base's. A Puffin file of the change left with no
// vector in use is removed, unless keepOwn.
func (r *rebaser) result(ctx context.Context, change lake.FileChange, keepOwn bool) (lake.FileChange, []string, error) {
	if len(r.merged) == 0 {
		return change, nil, nil
	}
	sink, err := newFileSink(ctx, r.head)
	if err != nil {
		return lake.FileChange{}, nil, err
	}
	vectors, err := r.writeVectors(ctx, sink)
	if err != nil {
		sink.removeAll()
		return lake.FileChange{}, nil, err
	}
	out := change
	out.AddDeletes = slices.DeleteFunc(slices.Clone(change.AddDeletes), r.isMerged)
	out.AddDeletes = append(out.AddDeletes, vectors...)
	out.RemoveDeletes = slices.DeleteFunc(slices.Clone(change.RemoveDeletes), r.isMerged)
	out.RemoveDeletes = append(out.RemoveDeletes, r.replaced...)
	if !keepOwn {
		r.removeUnused(change.AddDeletes, out.AddDeletes)
	}
	return out, sink.written, nil
}

// isMerged is a deletion vector of a file whose vector is re-merged.
func (r *rebaser) isMerged(d iceberg.DataFile) bool {
	ref := d.ReferencedDataFile()
	return d.ContentOffset() != nil && ref != nil && r.merged[*ref] != nil
}

func (r *rebaser) writeVectors(ctx context.Context, sink *fileSink) ([]iceberg.DataFile, error) {
	meta := r.head.Metadata()
	w := dv.NewDVWriter(sink.fs, func(id int32) *iceberg.PartitionSpec { return meta.PartitionSpecByID(int(id)) })
	for _, p := range slices.Sorted(maps.Keys(r.merged)) {
		f := r.diff.Head[p].Tasks[0].File
		w.Load(p, r.merged[p], f.SpecID(), f.Partition())
	}
	files, err := w.Flush(ctx, sink.newPath("deletes.puffin"))
	if err != nil {
		return nil, fmt.Errorf("write deletion vectors: %w", err)
	}
	return files, nil
}

// removeUnused removes Puffin files of before that after no longer uses.
func (r *rebaser) removeUnused(before, after []iceberg.DataFile) {
	used := map[string]bool{}
	for _, d := range after {
		used[d.FilePath()] = true
	}
	for _, d := range before {
		if d.ContentOffset() != nil && !used[d.FilePath()] {
			used[d.FilePath()] = true
			_ = r.ix.reader.fs.Remove(d.FilePath())
		}
	}
}

// contains reports whether every position of small is in big.
func contains(big, small *dv.RoaringPositionBitmap) bool {
	for pos := range small.Positions() {
		if !big.Contains(pos) {
			return false
		}
	}
	return true
}
