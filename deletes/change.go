package deletes

import (
	"context"
	"fmt"
	"runtime"
	"strconv"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
)

// Actions a delete takes on one data file, as EXPLAIN shows them.
const (
	ActionDropUnread = "drop-unread" // whole file removed unread: its partition tuple or exact column statistics prove every row matches
	ActionDrop       = "drop"        // whole file removed after reading it
	ActionDV         = "dv"          // v3 deletion vector
	ActionPosDelete  = "posdelete"   // v2 position delete file
	ActionRewrite    = "rewrite"     // copy-on-write
)

// FileAction is what a delete did (or, dry, would do) to one data file.
type FileAction struct {
	Path         string
	Action       string
	Matched      int64 // rows this delete removes from the file
	Live         int64 // live rows before the delete
	BytesRead    int64
	BytesWritten int64 // rewrite only; delete files are shared per commit
	// Replaced counts the matched rows a new version replaces (MERGE's
	// updates); the others are removed.
	Replaced int64
	// Why explains an action the table's rewrite ratio chose.
	Why string
}

// Change is a prepared delete: files written, not yet staged.
type Change struct {
	deleted int64
	actions []FileAction

	dropData      []iceberg.DataFile // whole-file drops and rewritten originals
	addData       []iceberg.DataFile // rewrite survivors
	dropDeletes   []iceberg.DataFile // delete files that only served dropped data
	addDeletes    []iceberg.DataFile // new DVs or position delete files
	supersededDVs []iceberg.DataFile // DVs the new ones absorb
	written       []string
}

// Deleted is the number of rows the change removes.
func (c *Change) Deleted() int64 { return c.deleted }

// Written lists the files Prepare wrote: remove them if the change is not
// committed.
func (c *Change) Written() []string { return c.written }

// Actions reports per data file what the change does.
func (c *Change) Actions() []FileAction { return c.actions }

// effectiveMode resolves "" to the table property; v1 tables cannot hold
// delete files, so they are always copy-on-write.
func effectiveMode(tbl *table.Table, mode Mode) Mode {
	if mode == "" {
		mode = ModeOf(tbl.Properties())
	}
	if tbl.Metadata().Version() < 2 {
		return ModeCopyOnWrite
	}
	return mode
}

// PropRewriteRatio opts a merge-on-read table into choosing per file: a
// file whose deleted share of rows after the statement reaches the ratio
// is rewritten (copy-on-write), the others get a deletion vector or
// position deletes, so the files most of whose rows are dead stop costing
// every reader.
const PropRewriteRatio = "magmalake.delete.rewrite-ratio"

// rewriteRatio is the table's PropRewriteRatio, 0 when unset or invalid.
func rewriteRatio(tbl *table.Table) float64 {
	r, err := strconv.ParseFloat(tbl.Properties()[PropRewriteRatio], 64)
	if err != nil || r <= 0 || r > 1 {
		return 0
	}
	return r
}

// actionFor classifies a plan under mode and format version; why says
// when the rewrite ratio turned merge-on-read into a rewrite.
func actionFor(p *RowDelete, mode Mode, version int, ratio float64) (action, why string) {
	switch {
	case p.WholeFile && p.Unread:
		return ActionDropUnread, ""
	case p.WholeFile:
		return ActionDrop, ""
	case mode == ModeCopyOnWrite:
		return ActionRewrite, ""
	}
	if n := p.File.Count(); ratio > 0 && n > 0 {
		dead := float64(n-p.LiveRows+p.Deleted()) / float64(n)
		if dead >= ratio {
			return ActionRewrite, fmt.Sprintf("dead ratio after %.3g >= %s %g", dead, PropRewriteRatio, ratio)
		}
	}
	if version >= 3 {
		return ActionDV, ""
	}
	return ActionPosDelete, ""
}

// Actions is what Prepare would do to each planned file (EXPLAIN without
// writing anything).
func Actions(tbl *table.Table, plans []RowDelete, mode Mode) []FileAction {
	mode = effectiveMode(tbl, mode)
	ratio := rewriteRatio(tbl)
	out := make([]FileAction, len(plans))
	for i := range plans {
		p := &plans[i]
		action, why := actionFor(p, mode, tbl.Metadata().Version(), ratio)
		out[i] = FileAction{Path: p.File.FilePath(), Action: action, Why: why,
			Matched: p.Deleted(), Live: p.LiveRows, BytesRead: p.BytesRead}
	}
	return out
}

// Prepare writes the files plans need under mode ("" = the table's
// write.delete.mode) and returns what to stage. On error nothing it wrote
// remains.
func Prepare(ctx context.Context, tbl *table.Table, plans []RowDelete, mode Mode) (*Change, error) {
	mode = effectiveMode(tbl, mode)
	sink, err := newFileSink(ctx, tbl)
	if err != nil {
		return nil, err
	}
	c := &Change{actions: Actions(tbl, plans, mode)}
	if err := c.prepare(ctx, tbl, sink, plans); err != nil {
		sink.removeAll()
		return nil, fmt.Errorf("prepare delete: %w", err)
	}
	c.written = sink.written
	return c, nil
}

func (c *Change) prepare(ctx context.Context, tbl *table.Table, sink *fileSink, plans []RowDelete) error {
	var dvs, posdels []*RowDelete
	var rewrites []rewriteJob
	removed := map[string]bool{}
	for i := range plans {
		p := &plans[i]
		c.deleted += p.Deleted()
		switch c.actions[i].Action {
		case ActionDV:
			dvs = append(dvs, p)
			c.supersededDVs = append(c.supersededDVs, p.Superseded...)
			continue
		case ActionPosDelete:
			posdels = append(posdels, p)
			continue
		case ActionRewrite:
			rewrites = append(rewrites, rewriteJob{action: i, plan: p})
		}
		removed[p.File.FilePath()] = true
		c.dropData = append(c.dropData, p.File)
		c.dropDeletes = append(c.dropDeletes, p.Superseded...)
	}
	if err := c.rewrite(ctx, tbl, sink, rewrites); err != nil {
		return err
	}
	c.dropDeletes = append(c.dropDeletes, exclusivePositionDeletes(plans, removed)...)
	var err error
	if len(dvs) > 0 {
		if c.addDeletes, err = writeDeletionVectors(ctx, tbl, sink, dvs); err != nil {
			return err
		}
	}
	if len(posdels) > 0 {
		if c.addDeletes, err = writePositionDeletes(ctx, tbl, sink, posdels); err != nil {
			return err
		}
	}
	return nil
}

// rewriteJob is one copy-on-write rewrite. v3 row ids are left to the
// snapshot producer, which numbers the new manifest's files in order.
type rewriteJob struct {
	action int
	plan   *RowDelete
}

// rewrite runs the copy-on-write rewrites in parallel: each is CPU-bound
// Parquet encoding of one file, so one at a time left cores idle. Results
// keep plan order.
func (c *Change) rewrite(ctx context.Context, tbl *table.Table, sink *fileSink, jobs []rewriteJob) error {
	files := make([]iceberg.DataFile, len(jobs))
	err := forEachParallel(ctx, len(jobs), rewriteWorkers(), func(ctx context.Context, j int) error {
		df, size, err := rewriteFile(ctx, tbl, sink, jobs[j].plan)
		if err != nil {
			return err
		}
		files[j] = df
		c.actions[jobs[j].action].BytesWritten = size
		return nil
	})
	if err != nil {
		return err
	}
	for j, df := range files {
		if df.Count() != jobs[j].plan.survivors() {
			return fmt.Errorf("rewrite %s: wrote %d rows, expected %d survivors", jobs[j].plan.File.FilePath(), df.Count(), jobs[j].plan.survivors())
		}
	}
	c.addData = append(c.addData, files...)
	return nil
}

// rewriteWorkers bounds parallel rewrites: each holds a file's encoded row
// group in memory until it closes, so more workers than cores only adds heap.
func rewriteWorkers() int { return max(1, min(runtime.GOMAXPROCS(0), 4)) }

// exclusivePositionDeletes are the v2 position delete files every data file
// of which this change removes; a file that also names a surviving data file
// stays, or those rows would come back.
func exclusivePositionDeletes(plans []RowDelete, removed map[string]bool) []iceberg.DataFile {
	var out []iceberg.DataFile
	seen := map[string]bool{}
	for i := range plans {
		for _, d := range plans[i].PositionDeleteFiles {
			if seen[d.FilePath()] || !removed[plans[i].File.FilePath()] {
				continue
			}
			seen[d.FilePath()] = true
			exclusive := true
			for _, target := range plans[i].posTargets[d.FilePath()] {
				exclusive = exclusive && removed[target]
			}
			if exclusive {
				out = append(out, d)
			}
		}
	}
	return out
}

// FileChange is the change, plus data files added beside it (the new rows
// of an UPDATE or overwrite), as the one snapshot the producer commits.
// Removed data files take their deletion vectors with them (Superseded), and
// a new vector replaces the old one of its file.
func (c *Change) FileChange(added []iceberg.DataFile, props iceberg.Properties) lake.FileChange {
	return lake.FileChange{
		AddData:       append(append([]iceberg.DataFile{}, c.addData...), added...),
		RemoveData:    c.dropData,
		AddDeletes:    c.addDeletes,
		RemoveDeletes: append(append([]iceberg.DataFile{}, c.dropDeletes...), c.supersededDVs...),
		Props:         props,
		Rebase:        Rebase,
	}
}
