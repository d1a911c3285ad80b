package maintenance

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/deletes"
	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// PrepareVacuum plans VACUUM [t [, ...]]: per table, OPTIMIZE with the
// table's thresholds, then expire snapshots by its history.expire.*
// properties, then remove orphan files older than a week; no table is
// every table of the catalog, each vacuumed and committed in turn as
// PostgreSQL's. VACUUM (PURGE) erases deleted rows (purgeTable).
func PrepareVacuum(ctx context.Context, p Port, st *sql.Vacuum) (Run, []stmt.Column, error) {
	for _, n := range st.Tables {
		if _, err := p.TableItself(ctx, n); err != nil {
			return nil, nil, err
		}
	}
	run := func(ctx context.Context, p Port, _ []any) (*stmt.Result, error) {
		if err := p.Allowed("VACUUM"); err != nil {
			return nil, err
		}
		idents, err := vacuumTargets(ctx, p, st.Tables)
		if err != nil {
			return nil, err
		}
		var total vacuumOutcome
		var notices []stmt.Notice
		for _, ident := range idents {
			vacuum := func() (vacuumOutcome, error) { return vacuumTable(ctx, p, ident) }
			if st.Purge {
				vacuum = func() (vacuumOutcome, error) { return purgeTable(ctx, p, ident, st.Tags) }
			}
			out, err := vacuum()
			if err != nil {
				if len(st.Tables) == 0 && errors.Is(err, lake.ErrNoSuchTable) {
					continue // dropped since the listing
				}
				return nil, err
			}
			notices = append(notices, out.warnings...)
			if st.Verbose {
				notices = append(notices, out.verbose(lake.IdentKey(ident))...)
			}
			total.add(out)
		}
		if st.Purge {
			notices = append(notices, stmt.NewNotice(fmt.Sprintf(
				"%d deleted rows physically removed from rewritten data files, %d files deleted, %d bytes freed; every remaining data file holds only rows live on a branch",
				total.erased, total.exp.DeletedFiles, total.exp.DeletedBytes)))
		}
		return &stmt.Result{Tag: "VACUUM", Notices: notices}, nil
	}
	return run, nil, nil
}

// vacuumTargets resolves the tables VACUUM names, or lists every table.
func vacuumTargets(ctx context.Context, p Port, names []sql.TableName) ([]table.Identifier, error) {
	if len(names) == 0 {
		return allTables(ctx, p.Warehouse())
	}
	out := make([]table.Identifier, 0, len(names))
	for _, n := range names {
		rt, err := p.TableItself(ctx, n)
		if err != nil {
			return nil, err
		}
		out = append(out, rt.Ident)
	}
	return out, nil
}

// allTables lists every table of every schema of the catalog.
func allTables(ctx context.Context, wh *lake.Warehouse) ([]table.Identifier, error) {
	schemas, err := wh.Tables().ListNamespaces(ctx)
	if err != nil {
		return nil, err
	}
	var out []table.Identifier
	for _, ns := range schemas {
		names, err := wh.Tables().ListTables(ctx, ns)
		if err != nil {
			if errors.Is(err, lake.ErrNoSuchNamespace) {
				continue // dropped since the listing
			}
			return nil, err
		}
		for _, n := range names {
			out = append(out, lake.Ident(ns, n))
		}
	}
	return out, nil
}

// vacuumOutcome is what VACUUM did to one table, or to all of them.
type vacuumOutcome struct {
	opt    deletes.OptimizeOutcome
	exp    lake.ExpireOutcome // orphans removed counted in
	erased int64              // PURGE: deleted rows no file holds any more
	// warnings are what went wrong after a commit, which the statement
	// reports without failing (statistics not kept).
	warnings []stmt.Notice
}

func (v *vacuumOutcome) add(o vacuumOutcome) {
	v.opt.RewrittenFiles += o.opt.RewrittenFiles
	v.opt.AddedFiles += o.opt.AddedFiles
	v.opt.RewrittenRows += o.opt.RewrittenRows
	v.opt.PurgedRows += o.opt.PurgedRows
	v.opt.RemovedDeleteFiles += o.opt.RemovedDeleteFiles
	v.exp.ExpiredSnapshots += o.exp.ExpiredSnapshots
	v.exp.DeletedFiles += o.exp.DeletedFiles
	v.exp.DeletedBytes += o.exp.DeletedBytes
	v.erased += o.erased
}

// verbose is VACUUM VERBOSE's report of one table, as INFO messages.
func (v vacuumOutcome) verbose(name string) []stmt.Notice {
	return []stmt.Notice{
		{Severity: "INFO", Code: pgerr.SuccessfulCompletion, Message: fmt.Sprintf("%q: rewrote %d data files into %d (%d rows), removed %d delete files",
			name, v.opt.RewrittenFiles, v.opt.AddedFiles, v.opt.RewrittenRows, v.opt.RemovedDeleteFiles)},
		{Severity: "INFO", Code: pgerr.SuccessfulCompletion, Message: fmt.Sprintf("%q: expired %d snapshots, deleted %d files (%d bytes)",
			name, v.exp.ExpiredSnapshots, v.exp.DeletedFiles, v.exp.DeletedBytes)},
	}
}

// vacuumTable optimizes, expires and removes orphans of one table.
func vacuumTable(ctx context.Context, p Port, ident table.Identifier) (vacuumOutcome, error) {
	wh := p.Warehouse()
	tbl, err := wh.LoadTable(ctx, ident)
	if err != nil {
		return vacuumOutcome{}, err
	}
	opts := deletes.OptimizeOptions{Options: p.DeleteOptions()}
	opts.SizeThreshold, opts.RatioThreshold = vacuumThresholds(tbl)
	age, keep := retentionOf(tbl)
	var out vacuumOutcome
	if out.opt, err = deletes.Optimize(ctx, p.CommitTarget(), ident, opts); err != nil {
		return out, err
	}
	if err := refreshStatistics(ctx, wh, ident, out.opt.SnapshotID); err != nil {
		out.warnings = append(out.warnings, statisticsWarning(err))
	}
	// Like PostgreSQL's, VACUUM does not break other sessions' open
	// transactions and queries: expiry keeps the snapshots they read.
	if out.exp, err = wh.Maintenance().ExpireSnapshots(ctx, ident, age, keep); err != nil {
		return out, err
	}
	out.exp.Deleted = nil
	return out, vacuumOrphans(ctx, wh, ident, &out)
}

// vacuumOrphans removes the table's orphans older than a week, counted
// in out: younger ones may be a commit in flight (even for PURGE: an
// erased row is in a committed file, not in those).
func vacuumOrphans(ctx context.Context, wh *lake.Warehouse, ident table.Identifier, out *vacuumOutcome) error {
	orph, err := wh.Maintenance().RemoveOrphanFiles(ctx, ident, orphanRetention)
	out.exp.DeletedFiles += orph.DeletedFiles
	out.exp.DeletedBytes += orph.DeletedBytes
	return err
}

// Table properties VACUUM (and serve --auto-vacuum) optimize by; OPTIMIZE's
// defaults when unset.
const (
	PropVacuumSizeThreshold  = "magmalake.vacuum.file-size-threshold"
	PropVacuumRatioThreshold = "magmalake.vacuum.delete-ratio-threshold"
)

// vacuumThresholds are the table's VACUUM thresholds; a value another
// engine wrote that does not parse counts as unset.
func vacuumThresholds(tbl *table.Table) (int64, float64) {
	size, ratio := int64(deletes.DefaultSizeThreshold), deletes.DefaultRatioThreshold
	props := tbl.Properties()
	if v, ok := props[PropVacuumSizeThreshold]; ok {
		if n, err := ParseByteSize(v); err == nil {
			size = n
		}
	}
	if v, ok := props[PropVacuumRatioThreshold]; ok {
		if r, err := ParseRatio(v); err == nil {
			ratio = r
		}
	}
	return size, ratio
}

// retentionOf is the table's history.expire.max-snapshot-age-ms (default 5
// days) and history.expire.min-snapshots-to-keep (default 1).
func retentionOf(tbl *table.Table) (time.Duration, int) {
	props := tbl.Properties()
	age := time.Duration(props.GetInt64(table.MaxSnapshotAgeMsKey, table.MaxSnapshotAgeMsDefault)) * time.Millisecond
	keep := props.GetInt(table.MinSnapshotsToKeepKey, table.MinSnapshotsToKeepDefault)
	return age, max(keep, 1)
}
