package deletes

import (
	"context"
	"fmt"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/apache/iceberg-go/table/dv"

	"github.com/magmalake/magmalake/lake"
)

// OptimizeOptions choose what OPTIMIZE rewrites.
type OptimizeOptions struct {
	Options
	// Filter limits the files considered to those whose rows may satisfy
	// it (a partition or column predicate); nil: every file.
	Filter iceberg.BooleanExpression
	// SizeThreshold: files smaller than this are bin-packed together.
	SizeThreshold int64
	// RatioThreshold: files whose deleted share of rows reaches it are
	// rewritten with their deletes applied.
	RatioThreshold float64
	// MaxRewriteBytes bounds the bytes of data files one run rewrites
	// (background maintenance does a bounded amount of work per pass); the
	// files beyond it wait for the next run. 0: no bound. At least one file
	// is taken, however large.
	MaxRewriteBytes int64
	// KeepDeadRows fills OptimizeOutcome.DeadRows (VACUUM (PURGE) counts
	// what its rewrites erased across branches).
	KeepDeadRows bool
}

// Default thresholds: Trino's file_size_threshold (100 MB) rounded to 128
// MiB, and a tenth of a file dead.
const (
	DefaultSizeThreshold  = 128 << 20
	DefaultRatioThreshold = 0.1
)

// OptimizeOutcome is what OPTIMIZE did (or, dry, would do).
type OptimizeOutcome struct {
	RewrittenFiles     int
	AddedFiles         int
	RemovedDeleteFiles int
	RewrittenRows      int64 // live rows read and written again
	PurgedRows         int64 // deleted rows the rewritten files held, now gone from them
	RewrittenBytes     int64 // size of the files replaced
	AddedBytes         int64
	SnapshotID         int64
	Attempts           int
	// DeadRows are, per rewritten data file, the positions of the deleted
	// rows its rewrite left out (with OptimizeOptions.KeepDeadRows).
	DeadRows map[string]*dv.RoaringPositionBitmap
}

// Optimize pays back delete debt and small files in one snapshot
// (operation replace): per partition, the files below the size threshold
// and those whose dead ratio reaches the ratio threshold are read with
// every delete applied and written again as files of the table's target
// size; the deletion vectors and position delete files left with nothing
// to apply go with them. Rows are counted before committing: the live rows
// read must be the rows written. A concurrent commit makes it plan again
// against the new head, so a delete committed meanwhile is applied, not
// lost.
func Optimize(ctx context.Context, to CommitTarget, ident table.Identifier, opts OptimizeOptions) (OptimizeOutcome, error) {
	var out OptimizeOutcome
	committed, err := to.Commit(ctx, ident, func(ctx context.Context, head *table.Table) (lake.FileChange, []string, error) {
		out = OptimizeOutcome{Attempts: out.Attempts + 1}
		return PrepareOptimize(ctx, head, opts, &out)
	})
	if err != nil {
		return OptimizeOutcome{}, fmt.Errorf("optimize %v: %w", ident, err)
	}
	if out.RewrittenFiles > 0 && !opts.DryRun {
		if s := snapshotOf(committed); s != nil {
			out.SnapshotID = s.SnapshotID
		}
	}
	return out, nil
}

// optimizePlan is what planning learns beyond the groups.
type optimizePlan struct {
	keptEq map[string]bool // equality delete files a file left alone still needs
}

// optimizeGroup is one partition's files to rewrite together.
type optimizeGroup struct {
	plans []RowDelete
	live  int64
}

// PrepareOptimize plans OPTIMIZE against head and writes the new files.
func PrepareOptimize(ctx context.Context, head *table.Table, opts OptimizeOptions, out *OptimizeOutcome) (lake.FileChange, []string, error) {
	var o optimizePlan
	groups, err := planOptimize(ctx, head, opts, &o)
	if err != nil {
		return lake.FileChange{}, nil, err
	}
	var plans []RowDelete
	for _, g := range groups {
		plans = append(plans, g.plans...)
		out.RewrittenRows += g.live
	}
	removed := map[string]bool{}
	var dropData, dropDeletes []iceberg.DataFile
	for i := range plans {
		removed[plans[i].File.FilePath()] = true
		dropData = append(dropData, plans[i].File)
		dropDeletes = append(dropDeletes, plans[i].Superseded...)
		out.RewrittenBytes += plans[i].File.FileSizeBytes()
		out.PurgedRows += plans[i].File.Count() - plans[i].LiveRows
		if opts.KeepDeadRows {
			if out.DeadRows == nil {
				out.DeadRows = map[string]*dv.RoaringPositionBitmap{}
			}
			out.DeadRows[plans[i].File.FilePath()] = plans[i].dropped()
		}
	}
	dropDeletes = append(dropDeletes, exclusivePositionDeletes(plans, removed)...)
	if len(plans) > 0 && isAlwaysTrue(Predicate{Filter: opts.Filter}.filter()) {
		// Every live file was planned: an equality delete file that no file
		// left alone needs applies to nothing once the rewritten ones are
		// replaced (the new files are newer than it), and it still holds the
		// deleted rows' key values.
		eq, err := unneededEqualityDeletes(ctx, head, o.keptEq)
		if err != nil {
			return lake.FileChange{}, nil, err
		}
		dropDeletes = append(dropDeletes, eq...)
	}
	out.RewrittenFiles, out.RemovedDeleteFiles = len(plans), len(dropDeletes)
	if len(plans) == 0 || opts.DryRun {
		return lake.FileChange{}, nil, nil
	}
	added, written, moves, err := writeSurvivors(ctx, head, groups)
	if err != nil {
		return lake.FileChange{}, nil, err
	}
	paths := make([]string, len(added))
	for i, f := range added {
		paths[i] = f.FilePath()
		out.AddedBytes += f.FileSizeBytes()
	}
	if written != out.RewrittenRows {
		return lake.FileChange{}, paths, fmt.Errorf("optimize read %d live rows but wrote %d: nothing committed", out.RewrittenRows, written)
	}
	out.AddedFiles = len(added)
	return lake.FileChange{AddData: added, RemoveData: dropData, RemoveDeletes: dropDeletes,
		Operation: table.OpReplace, Props: opts.SnapshotProps, Moves: moves, Rebase: Rebase}, paths, nil
}

// planOptimize picks the files to rewrite, grouped by partition: the dead
// enough ones, and the small ones of a partition that has more than one
// (a small file alone gains nothing from being written again).
func planOptimize(ctx context.Context, head *table.Table, opts OptimizeOptions, o *optimizePlan) ([]optimizeGroup, error) {
	plans, err := eachFile(ctx, head, Predicate{Filter: opts.Filter}, opts.Plan, (*planner).liveRows)
	if err != nil {
		return nil, err
	}
	o.keptEq = map[string]bool{}
	byPart := map[string]*optimizeGroup{}
	var order []string
	small := map[string]int{}
	for _, r := range plans {
		if r.File.FileSizeBytes() < opts.SizeThreshold {
			small[partKey(r.File)]++
		}
	}
	for _, r := range plans {
		dead := r.File.Count() - r.LiveRows
		ratio := float64(dead) / float64(max(r.File.Count(), 1))
		key := partKey(r.File)
		isSmall := r.File.FileSizeBytes() < opts.SizeThreshold && small[key] > 1
		if !isSmall && !(dead > 0 && ratio >= opts.RatioThreshold) {
			for _, p := range r.eqPaths {
				o.keptEq[p] = true // it still applies to a file that stays
			}
			continue
		}
		g, ok := byPart[key]
		if !ok {
			g = &optimizeGroup{}
			byPart[key] = g
			order = append(order, key)
		}
		g.plans = append(g.plans, *r)
		g.live += r.LiveRows
	}
	out := make([]optimizeGroup, 0, len(order))
	for _, k := range order {
		out = append(out, *byPart[k])
	}
	return withinBudget(out, opts.MaxRewriteBytes, o), nil
}

// withinBudget keeps the groups' files, in order, until their bytes reach
// budget (0: all). A group cut short keeps at least what makes progress: a
// dead file, or two small ones (one small file written again is as small).
// The equality deletes of the files left out still apply to them, so they
// are kept.
func withinBudget(groups []optimizeGroup, budget int64, o *optimizePlan) []optimizeGroup {
	if budget <= 0 {
		return groups
	}
	var used int64
	var out []optimizeGroup
	for _, g := range groups {
		var kept optimizeGroup
		for _, r := range g.plans {
			if used >= budget && !needsCompanion(kept.plans) {
				for _, p := range r.eqPaths {
					o.keptEq[p] = true
				}
				continue
			}
			used += r.File.FileSizeBytes()
			kept.plans = append(kept.plans, r)
			kept.live += r.LiveRows
		}
		if len(kept.plans) > 0 {
			out = append(out, kept)
		}
	}
	return out
}

// needsCompanion reports a group's kept files that gain nothing alone: one
// file without a deleted row.
func needsCompanion(plans []RowDelete) bool {
	return len(plans) == 1 && plans[0].LiveRows == plans[0].File.Count()
}

// unneededEqualityDeletes are the table's equality delete files not in
// needed.
func unneededEqualityDeletes(ctx context.Context, head *table.Table, needed map[string]bool) ([]iceberg.DataFile, error) {
	_, dels, err := liveFiles(ctx, head)
	if err != nil {
		return nil, err
	}
	var out []iceberg.DataFile
	for _, d := range dels {
		if d.ContentType() == iceberg.EntryContentEqDeletes && !needed[d.FilePath()] {
			out = append(out, d)
		}
	}
	return out, nil
}

// partKey names a data file's partition: its spec and tuple.
func partKey(df iceberg.DataFile) string {
	return fmt.Sprintf("%d/%s", df.SpecID(), sortedPartition(df.Partition()))
}

// liveRows plans one file for a rewrite that drops only what its deletes
// already remove.
func (p *planner) liveRows(ctx context.Context, tasks []table.FileScanTask) (*RowDelete, error) {
	df := tasks[0].File
	ex, err := p.ix.load(ctx, df.FilePath(), tasks)
	if err != nil {
		return nil, fmt.Errorf("existing deletes of %s: %w", df.FilePath(), err)
	}
	r := &RowDelete{Task: tasks[0], File: df, Existing: ex.positions, Superseded: ex.superseded,
		PositionDeleteFiles: ex.posFiles, eqDeleted: dv.NewRoaringPositionBitmap(), posTargets: ex.posTargets}
	for _, t := range tasks {
		for _, f := range t.EqualityDeleteFiles {
			r.eqPaths = append(r.eqPaths, f.FilePath())
		}
	}
	if len(ex.eqFiles) > 0 {
		if err := p.read(ctx, r, ex, nil, false); err != nil {
			return nil, err
		}
	}
	r.LiveRows = df.Count() - int64(r.dropped().Cardinality())
	return r, nil
}
