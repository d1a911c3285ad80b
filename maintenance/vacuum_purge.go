package maintenance

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/iceberg-go/table"
	"github.com/apache/iceberg-go/table/dv"

	"github.com/magmalake/magmalake/deletes"
	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// purgeTable is VACUUM (PURGE) of one table, erasure: on every branch each
// data file holding a deleted row is rewritten without it; every snapshot
// no branch or tag keeps is expired, whatever readers read, and the files
// only they kept are deleted. A tag is immutable: one that keeps a file the
// purge would otherwise delete stops it (tags says to drop such tags, or
// move them to main's purged snapshot, instead). Afterwards every data file
// of the table holds only rows live on a branch, and the rows counted as
// erased are those no remaining file holds: positions a rewrite left out on
// every branch that read the file, whose original file was then deleted.
func purgeTable(ctx context.Context, p Port, ident table.Identifier, tags sql.TagAction) (vacuumOutcome, error) {
	var out vacuumOutcome
	wh := p.Warehouse()
	tbl, err := wh.LoadTable(ctx, ident)
	if err != nil {
		return out, err
	}
	branches, tagNames := refNames(tbl.Metadata())
	blocking, err := blockingTags(ctx, p, tbl, branches, tagNames)
	if err != nil {
		return out, err
	}
	if err := clearTags(ctx, wh, ident, blocking, tags, true); err != nil {
		return out, err
	}
	dead := map[string][]*dv.RoaringPositionBitmap{}
	for _, b := range branches {
		opt, err := deletes.Optimize(ctx, p.CommitLoop(b), ident, purgeOptions(p))
		if err != nil {
			return out, err
		}
		for path, rows := range opt.DeadRows {
			dead[path] = append(dead[path], rows)
		}
		opt.DeadRows = nil
		out.add(vacuumOutcome{opt: opt})
	}
	if err := clearTags(ctx, wh, ident, blocking, tags, false); err != nil {
		return out, err
	}
	if out.exp, err = wh.Maintenance().PurgeSnapshots(ctx, ident); err != nil {
		return out, err
	}
	for _, path := range out.exp.Deleted {
		out.erased += commonCardinality(dead[path])
	}
	out.exp.Deleted = nil
	return out, vacuumOrphans(ctx, wh, ident, &out)
}

// purgeOptions rewrite every file of a branch holding a deleted row, and
// no other, keeping which rows each rewrite left out.
func purgeOptions(p Port) deletes.OptimizeOptions {
	return deletes.OptimizeOptions{Options: p.DeleteOptions(), KeepDeadRows: true}
}

// refNames are the table's branches (main first) and tags, sorted.
func refNames(meta table.Metadata) (branches, tags []string) {
	for name, ref := range meta.Refs() {
		if ref.SnapshotRefType == table.TagRef {
			tags = append(tags, name)
		} else if name != table.MainBranch {
			branches = append(branches, name)
		}
	}
	slices.Sort(branches)
	slices.Sort(tags)
	if meta.CurrentSnapshot() != nil {
		branches = append([]string{table.MainBranch}, branches...)
	}
	return branches, tags
}

// blockingTags are the tags that would keep a file the purge deletes: one
// that holds a deleted row (a delete file applies to it in the tag), or
// one no branch keeps once its files holding deleted rows are rewritten.
func blockingTags(ctx context.Context, p Port, tbl *table.Table, branches, tags []string) ([]string, error) {
	if len(tags) == 0 {
		return nil, nil
	}
	meta := tbl.Metadata()
	survive := map[string]bool{}
	for _, b := range branches {
		head, err := lake.BranchView(tbl, b)
		if err != nil {
			return nil, err
		}
		var plan deletes.OptimizeOutcome
		opts := purgeOptions(p)
		opts.DryRun = true
		if _, _, err := deletes.PrepareOptimize(ctx, head, opts, &plan); err != nil {
			return nil, err
		}
		files, _, err := p.Warehouse().Maintenance().SnapshotFiles(ctx, tbl, *head.CurrentSnapshot())
		if err != nil {
			return nil, err
		}
		for path := range files {
			if plan.DeadRows[path] == nil {
				survive[path] = true
			}
		}
	}
	var out []string
	for _, name := range tags {
		ref, _ := lake.FindRef(meta, name)
		data, dels, err := p.Warehouse().Maintenance().SnapshotFiles(ctx, tbl, *meta.SnapshotByID(ref.SnapshotID))
		if err != nil {
			return nil, err
		}
		kept := len(dels) > 0
		for path := range data {
			kept = kept || !survive[path]
		}
		if kept {
			out = append(out, name)
		}
	}
	return out, nil
}

// clearTags deals with the tags in the purge's way: refused, or dropped
// before the rewrites (before is true), or moved to main's purged head
// after them.
func clearTags(ctx context.Context, wh *lake.Warehouse, ident table.Identifier, blocking []string, how sql.TagAction, before bool) error {
	if len(blocking) == 0 {
		return nil
	}
	switch {
	case how == sql.TagsRefuse:
		return &pgerr.Error{Code: pgerr.ObjectNotInPrerequisiteState,
			Message: fmt.Sprintf("VACUUM (PURGE) cannot erase the deleted rows of %q: tag %s keeps files that hold them", lake.IdentKey(ident), quotedList(blocking)),
			Detail:  "A tag names one snapshot for good: the files it references stay as long as it exists.",
			Hint:    "Drop those tags, or move them to the purged current snapshot: VACUUM (PURGE, DROP_TAGS) or VACUUM (PURGE, MOVE_TAGS)."}
	case how == sql.TagsDrop && before:
		for _, name := range blocking {
			if err := wh.Branches().DropRef(ctx, ident, name, true); err != nil {
				return err
			}
		}
	case how == sql.TagsMove && !before:
		for _, name := range blocking {
			if _, err := wh.Branches().SetRef(ctx, ident, lake.RefChange{Name: name, Tag: true, Replace: true}); err != nil {
				return err
			}
		}
	}
	return nil
}

// commonCardinality is how many positions every one of sets holds (0 for
// none): the rows of a file no branch's rewrite kept.
func commonCardinality(sets []*dv.RoaringPositionBitmap) int64 {
	if len(sets) == 0 {
		return 0
	}
	var n int64
	for pos := range sets[0].Positions() {
		if !slices.ContainsFunc(sets[1:], func(s *dv.RoaringPositionBitmap) bool { return !s.Contains(pos) }) {
			n++
		}
	}
	return n
}

func quotedList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
