package exec

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/deletes"
	"github.com/magmalake/magmalake/iceberg"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

var expireColumns = []Column{
	{Name: "expired_snapshots_count", Type: sql.Int64}, {Name: "deleted_files_count", Type: sql.Int64},
	{Name: "deleted_bytes_count", Type: sql.Int64},
}

// prepareExpire plans ALTER TABLE t EXECUTE expire_snapshots
// [(retention_threshold => '7d', retain_last => 1)].
func (s *Session) prepareExpire(ctx context.Context, st *sql.AlterExecute, params *sql.Params) (plan, []Column, error) {
	if _, _, _, err := s.expireOptions(ctx, st, params, nil); err != nil {
		return nil, nil, err
	}
	run := func(ctx context.Context, s *Session, args []Param) (*Result, error) {
		if err := s.maintenanceAllowed("ALTER TABLE ... EXECUTE expire_snapshots"); err != nil {
			return nil, err
		}
		rt, age, keep, err := s.expireOptions(ctx, st, params, args)
		if err != nil {
			return nil, err
		}
		out, err := s.engine.wh.ExpireSnapshots(ctx, rt.Ident, age, keep)
		if err != nil {
			return nil, err
		}
		return datumResult("ALTER TABLE", expireColumns, []any{int64(out.ExpiredSnapshots), int64(out.DeletedFiles), out.DeletedBytes})
	}
	return planFunc(run), expireColumns, nil
}

// orphanRetention is how old an unreferenced file must be before VACUUM
// deletes it (Trino's and Spark's default).
const orphanRetention = 7 * 24 * time.Hour

var orphanColumns = []Column{{Name: "deleted_files_count", Type: sql.Int64}, {Name: "deleted_bytes_count", Type: sql.Int64}}

// prepareRemoveOrphans plans ALTER TABLE t EXECUTE remove_orphan_files
// [(retention_threshold => '7d')].
func (s *Session) prepareRemoveOrphans(ctx context.Context, st *sql.AlterExecute, params *sql.Params) (plan, []Column, error) {
	if _, _, err := s.orphanOptions(ctx, st, params, nil); err != nil {
		return nil, nil, err
	}
	run := func(ctx context.Context, s *Session, args []Param) (*Result, error) {
		if err := s.maintenanceAllowed("ALTER TABLE ... EXECUTE remove_orphan_files"); err != nil {
			return nil, err
		}
		rt, age, err := s.orphanOptions(ctx, st, params, args)
		if err != nil {
			return nil, err
		}
		out, err := s.engine.wh.RemoveOrphanFiles(ctx, rt.Ident, age)
		if err != nil {
			return nil, err
		}
		return datumResult("ALTER TABLE", orphanColumns, []any{int64(out.DeletedFiles), out.DeletedBytes})
	}
	return planFunc(run), orphanColumns, nil
}

func (s *Session) orphanOptions(ctx context.Context, st *sql.AlterExecute, params *sql.Params, args []Param) (*resolvedTable, time.Duration, error) {
	rt, err := s.maintenanceTarget(ctx, st.Table)
	if err != nil {
		return nil, 0, err
	}
	age := orphanRetention
	for name, n := range st.Args {
		if !strings.EqualFold(name, "retention_threshold") {
			return nil, 0, pgerr.Errorf(pgerr.InvalidParameterValue, "remove_orphan_files has no argument %q (retention_threshold)", name)
		}
		v, err := constText(ctx, n, params, args)
		if err != nil {
			return nil, 0, err
		}
		if age, err = parseRetention(v); err != nil {
			return nil, 0, err
		}
		if err := s.checkOrphanRetention(v, age); err != nil {
			return nil, 0, err
		}
	}
	if st.Where != nil {
		return nil, 0, pgerr.Errorf(pgerr.SyntaxError, "remove_orphan_files takes no WHERE")
	}
	return rt, age, nil
}

// orphanMinRetentionSetting is the shortest retention_threshold
// remove_orphan_files accepts (Trino's remove_orphan_files_min_retention):
// a younger unreferenced file may be another server's commit in flight,
// which removing would destroy. This server's own writers are protected
// whatever it says (iceberg.Writes).
const orphanMinRetentionSetting = "magmalake.remove_orphan_files_min_retention"

// checkMinRetention validates the setting's value.
func checkMinRetention(v string) (string, error) {
	if _, err := parseRetention(v); err != nil {
		return "", pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", orphanMinRetentionSetting, v)
	}
	return strings.TrimSpace(v), nil
}

// checkOrphanRetention refuses a retention_threshold below the session's
// minimum, saying how to override it.
func (s *Session) checkOrphanRetention(given string, age time.Duration) error {
	v, err := s.settings.Get(orphanMinRetentionSetting)
	if err != nil {
		return err
	}
	least, err := parseRetention(v)
	if err != nil || age >= least {
		return err
	}
	return &pgerr.Error{Code: pgerr.InvalidParameterValue,
		Message: fmt.Sprintf("retention_threshold %q is shorter than the minimum retention for remove_orphan_files (%s)", given, v),
		Detail:  "An unreferenced file younger than that may belong to a commit another server or shell is making now; removing it would break the table. This server's own statements are protected whatever the threshold.",
		Hint:    fmt.Sprintf("If no other process writes this table, SET %s = '%s' first.", orphanMinRetentionSetting, given)}
}

var rewriteManifestsColumns = []Column{{Name: "rewritten_manifests_count", Type: sql.Int64}, {Name: "added_manifests_count", Type: sql.Int64}}

// prepareRewriteManifests plans ALTER TABLE t EXECUTE rewrite_manifests:
// the current snapshot's manifests rewritten to the target size, grouped
// by partition spec (Spark's procedure of that name; its result columns).
func (s *Session) prepareRewriteManifests(ctx context.Context, st *sql.AlterExecute) (plan, []Column, error) {
	if _, err := s.rewriteManifestsTarget(ctx, st); err != nil {
		return nil, nil, err
	}
	run := func(ctx context.Context, s *Session, _ []Param) (*Result, error) {
		if err := s.maintenanceAllowed("ALTER TABLE ... EXECUTE rewrite_manifests"); err != nil {
			return nil, err
		}
		rt, err := s.rewriteManifestsTarget(ctx, st)
		if err != nil {
			return nil, err
		}
		out, err := s.engine.wh.RewriteManifests(ctx, rt.Ident)
		if err != nil {
			return nil, err
		}
		return datumResult("ALTER TABLE", rewriteManifestsColumns, []any{int64(out.ReplacedManifests), int64(out.AddedManifests)})
	}
	return planFunc(run), rewriteManifestsColumns, nil
}

func (s *Session) rewriteManifestsTarget(ctx context.Context, st *sql.AlterExecute) (*resolvedTable, error) {
	rt, err := s.maintenanceTarget(ctx, st.Table)
	if err != nil {
		return nil, err
	}
	for name := range st.Args {
		return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "rewrite_manifests has no argument %q", name)
	}
	if st.Where != nil {
		return nil, pgerr.Errorf(pgerr.SyntaxError, "rewrite_manifests takes no WHERE")
	}
	return rt, nil
}

var rollbackColumns = []Column{{Name: "previous_snapshot_id", Type: sql.Int64}, {Name: "current_snapshot_id", Type: sql.Int64}}

// prepareRollback plans ALTER TABLE t EXECUTE rollback_to_snapshot(
// snapshot_id => id): the snapshot, an ancestor of the current one,
// becomes current.
func (s *Session) prepareRollback(ctx context.Context, st *sql.AlterExecute, params *sql.Params) (plan, []Column, error) {
	if _, _, err := s.snapshotIDOption(ctx, st, params, nil); err != nil {
		return nil, nil, err
	}
	run := func(ctx context.Context, s *Session, args []Param) (*Result, error) {
		if err := s.maintenanceAllowed("ALTER TABLE ... EXECUTE rollback_to_snapshot"); err != nil {
			return nil, err
		}
		rt, id, err := s.snapshotIDOption(ctx, st, params, args)
		if err != nil {
			return nil, err
		}
		prev, err := s.engine.wh.RollbackToSnapshot(ctx, rt.Ident, id)
		if err != nil {
			return nil, err
		}
		return datumResult("ALTER TABLE", rollbackColumns, []any{prev, id})
	}
	return planFunc(run), rollbackColumns, nil
}

// snapshotIDOption reads the one argument, snapshot_id => id, of a
// procedure such as rollback_to_snapshot; the id is 0 at planning when a
// parameter gives it.
func (s *Session) snapshotIDOption(ctx context.Context, st *sql.AlterExecute, params *sql.Params, args []Param) (*resolvedTable, int64, error) {
	rt, err := s.maintenanceTarget(ctx, st.Table)
	if err != nil {
		return nil, 0, err
	}
	n, ok := st.Args["snapshot_id"]
	if len(st.Args) != 1 || !ok || st.Where != nil {
		return nil, 0, pgerr.Errorf(pgerr.InvalidParameterValue, "%s takes one argument, snapshot_id => id", strings.ToLower(st.Procedure))
	}
	if args == nil && params != nil && len(params.Types) > 0 {
		return rt, 0, nil // a parameter's value comes at execution
	}
	v, err := constText(ctx, n, params, args)
	if err != nil {
		return nil, 0, err
	}
	id, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return nil, 0, pgerr.Errorf(pgerr.InvalidParameterValue, "snapshot_id must be a snapshot's id, not %q", v)
	}
	return rt, id, nil
}

// maintenanceAllowed refuses maintenance inside a transaction block and
// in a read-only one.
func (s *Session) maintenanceAllowed(what string) error {
	if s.tx.active {
		return pgerr.Errorf(pgerr.ActiveSQLTransaction, "%s cannot run inside a transaction block", what)
	}
	return s.tx.checkWrite()
}

func (s *Session) expireOptions(ctx context.Context, st *sql.AlterExecute, params *sql.Params, args []Param) (*resolvedTable, time.Duration, int, error) {
	rt, err := s.maintenanceTarget(ctx, st.Table)
	if err != nil {
		return nil, 0, 0, err
	}
	age, keep := 7*24*time.Hour, 1
	for name, n := range st.Args {
		v, err := constText(ctx, n, params, args)
		if err != nil {
			return nil, 0, 0, err
		}
		switch strings.ToLower(name) {
		case "retention_threshold", "older_than":
			if age, err = parseRetention(v); err != nil {
				return nil, 0, 0, err
			}
		case "retain_last":
			if keep, err = strconv.Atoi(strings.TrimSpace(v)); err != nil || keep < 1 {
				return nil, 0, 0, pgerr.Errorf(pgerr.InvalidParameterValue, "retain_last must be a whole number of at least 1, not %q", v)
			}
		default:
			return nil, 0, 0, pgerr.Errorf(pgerr.InvalidParameterValue, "expire_snapshots has no argument %q (retention_threshold, retain_last)", name)
		}
	}
	if st.Where != nil {
		return nil, 0, 0, pgerr.Errorf(pgerr.SyntaxError, "expire_snapshots takes no WHERE")
	}
	return rt, age, keep, nil
}

func (s *Session) maintenanceTarget(ctx context.Context, n sql.TableName) (*resolvedTable, error) {
	rt, err := s.resolveTableOn(ctx, n, true, "") // the table itself, not the session's branch
	if err != nil {
		return nil, err
	}
	if err := tableItself(rt, n); err != nil {
		return nil, err
	}
	return rt, nil
}

// parseRetention reads '7d', '12h', '30m', '0s', '1.5d' (Trino's units) or
// a Go duration.
func parseRetention(v string) (time.Duration, error) {
	t := strings.TrimSpace(strings.ToLower(v))
	if strings.HasSuffix(t, "d") {
		if n, err := strconv.ParseFloat(strings.TrimSuffix(t, "d"), 64); err == nil && n >= 0 {
			return time.Duration(n * float64(24*time.Hour)), nil
		}
	}
	if d, err := time.ParseDuration(t); err == nil && d >= 0 {
		return d, nil
	}
	return 0, pgerr.Errorf(pgerr.InvalidParameterValue, "retention_threshold must be a duration such as '7d' or '12h', not %q", v)
}

// prepareVacuum plans VACUUM [t [, ...]]: per table, OPTIMIZE with the
// table's thresholds, then expire snapshots by its history.expire.*
// properties, then remove orphan files older than a week; no table is
// every table of the catalog, each vacuumed and committed in turn as
// PostgreSQL's. VACUUM (PURGE) erases deleted rows (purgeTable).
func (s *Session) prepareVacuum(ctx context.Context, st *sql.Vacuum) (plan, []Column, error) {
	for _, n := range st.Tables {
		if _, err := s.maintenanceTarget(ctx, n); err != nil {
			return nil, nil, err
		}
	}
	run := func(ctx context.Context, s *Session, _ []Param) (*Result, error) {
		if err := s.maintenanceAllowed("VACUUM"); err != nil {
			return nil, err
		}
		idents, err := s.vacuumTargets(ctx, st.Tables)
		if err != nil {
			return nil, err
		}
		var total vacuumOutcome
		var notices []Notice
		for _, ident := range idents {
			vacuum := func() (vacuumOutcome, error) { return s.vacuumTable(ctx, ident) }
			if st.Purge {
				vacuum = func() (vacuumOutcome, error) { return s.purgeTable(ctx, ident, st.Tags) }
			}
			out, err := vacuum()
			if err != nil {
				if len(st.Tables) == 0 && errors.Is(err, iceberg.ErrNoSuchTable) {
					continue // dropped since the listing
				}
				return nil, err
			}
			if st.Verbose {
				notices = append(notices, out.verbose(identKey(ident))...)
			}
			total.add(out)
		}
		if st.Purge {
			notices = append(notices, Notice{Severity: "NOTICE", Code: pgerr.SuccessfulCompletion, Message: fmt.Sprintf(
				"%d deleted rows physically removed from rewritten data files, %d files deleted, %d bytes freed; every remaining data file holds only rows live on a branch",
				total.erased, total.exp.DeletedFiles, total.exp.DeletedBytes)})
		}
		return &Result{Tag: "VACUUM", Notices: notices}, nil
	}
	return planFunc(run), nil, nil
}

// vacuumTargets resolves the tables VACUUM names, or lists every table.
func (s *Session) vacuumTargets(ctx context.Context, names []sql.TableName) ([]table.Identifier, error) {
	if len(names) == 0 {
		return allTables(ctx, s.engine.wh)
	}
	out := make([]table.Identifier, 0, len(names))
	for _, n := range names {
		rt, err := s.maintenanceTarget(ctx, n)
		if err != nil {
			return nil, err
		}
		out = append(out, rt.Ident)
	}
	return out, nil
}

// allTables lists every table of every schema of the catalog.
func allTables(ctx context.Context, wh *iceberg.Warehouse) ([]table.Identifier, error) {
	schemas, err := wh.ListNamespaces(ctx)
	if err != nil {
		return nil, err
	}
	var out []table.Identifier
	for _, ns := range schemas {
		names, err := wh.ListTables(ctx, ns)
		if err != nil {
			if errors.Is(err, iceberg.ErrNoSuchNamespace) {
				continue // dropped since the listing
			}
			return nil, err
		}
		for _, n := range names {
			out = append(out, iceberg.Ident(ns, n))
		}
	}
	return out, nil
}

// vacuumOutcome is what VACUUM did to one table, or to all of them.
type vacuumOutcome struct {
	opt    deletes.OptimizeOutcome
	exp    iceberg.ExpireOutcome // orphans removed counted in
	erased int64                 // PURGE: deleted rows no file holds any more
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
func (v vacuumOutcome) verbose(name string) []Notice {
	return []Notice{
		{Severity: "INFO", Code: pgerr.SuccessfulCompletion, Message: fmt.Sprintf("%q: rewrote %d data files into %d (%d rows), removed %d delete files",
			name, v.opt.RewrittenFiles, v.opt.AddedFiles, v.opt.RewrittenRows, v.opt.RemovedDeleteFiles)},
		{Severity: "INFO", Code: pgerr.SuccessfulCompletion, Message: fmt.Sprintf("%q: expired %d snapshots, deleted %d files (%d bytes)",
			name, v.exp.ExpiredSnapshots, v.exp.DeletedFiles, v.exp.DeletedBytes)},
	}
}

// vacuumTable optimizes, expires and removes orphans of one table.
func (s *Session) vacuumTable(ctx context.Context, ident table.Identifier) (vacuumOutcome, error) {
	tbl, err := s.engine.wh.LoadTable(ctx, ident)
	if err != nil {
		return vacuumOutcome{}, err
	}
	opts := deletes.OptimizeOptions{Options: s.deleteOptions(false)}
	opts.SizeThreshold, opts.RatioThreshold = vacuumThresholds(tbl)
	age, keep := retentionOf(tbl)
	var out vacuumOutcome
	if out.opt, err = deletes.Optimize(ctx, s.commitTarget(), ident, opts); err != nil {
		return out, err
	}
	// Like PostgreSQL's, VACUUM does not break other sessions' open
	// transactions and queries: expiry keeps the snapshots they read.
	if out.exp, err = s.engine.wh.ExpireSnapshots(ctx, ident, age, keep); err != nil {
		return out, err
	}
	out.exp.Deleted = nil
	return out, s.vacuumOrphans(ctx, ident, &out)
}

// vacuumOrphans removes the table's orphans older than a week, counted
// in out: younger ones may be a commit in flight (even for PURGE: an
// erased row is in a committed file, not in those).
func (s *Session) vacuumOrphans(ctx context.Context, ident table.Identifier, out *vacuumOutcome) error {
	orph, err := s.engine.wh.RemoveOrphanFiles(ctx, ident, orphanRetention)
	out.exp.DeletedFiles += orph.DeletedFiles
	out.exp.DeletedBytes += orph.DeletedBytes
	return err
}

// Table properties VACUUM (and serve --auto-vacuum) optimize by; OPTIMIZE's
// defaults when unset.
const (
	propVacuumSizeThreshold  = "magmalake.vacuum.file-size-threshold"
	propVacuumRatioThreshold = "magmalake.vacuum.delete-ratio-threshold"
)

// vacuumThresholds are the table's VACUUM thresholds; a value another
// engine wrote that does not parse counts as unset.
func vacuumThresholds(tbl *table.Table) (int64, float64) {
	size, ratio := int64(deletes.DefaultSizeThreshold), deletes.DefaultRatioThreshold
	props := tbl.Properties()
	if v, ok := props[propVacuumSizeThreshold]; ok {
		if n, err := ParseByteSize(v); err == nil {
			size = n
		}
	}
	if v, ok := props[propVacuumRatioThreshold]; ok {
		if r, err := parseRatio(v); err == nil {
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
