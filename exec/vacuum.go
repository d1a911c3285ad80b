package exec

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/deletes"
	"github.com/magmalake/magmalake/iceberg"
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
			return nil, 0, sql.Errorf(sql.CodeInvalidParameterValue, "remove_orphan_files has no argument %q (retention_threshold)", name)
		}
		v, err := constText(ctx, n, params, args)
		if err != nil {
			return nil, 0, err
		}
		if age, err = parseRetention(v); err != nil {
			return nil, 0, err
		}
	}
	if st.Where != nil {
		return nil, 0, sql.Errorf(sql.CodeSyntaxError, "remove_orphan_files takes no WHERE")
	}
	return rt, age, nil
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
		return nil, sql.Errorf(sql.CodeInvalidParameterValue, "rewrite_manifests has no argument %q", name)
	}
	if st.Where != nil {
		return nil, sql.Errorf(sql.CodeSyntaxError, "rewrite_manifests takes no WHERE")
	}
	return rt, nil
}

var rollbackColumns = []Column{{Name: "previous_snapshot_id", Type: sql.Int64}, {Name: "current_snapshot_id", Type: sql.Int64}}

// prepareRollback plans ALTER TABLE t EXECUTE rollback_to_snapshot(
// snapshot_id => id): the snapshot, an ancestor of the current one,
// becomes current.
func (s *Session) prepareRollback(ctx context.Context, st *sql.AlterExecute, params *sql.Params) (plan, []Column, error) {
	if _, _, err := s.rollbackOptions(ctx, st, params, nil); err != nil {
		return nil, nil, err
	}
	run := func(ctx context.Context, s *Session, args []Param) (*Result, error) {
		if err := s.maintenanceAllowed("ALTER TABLE ... EXECUTE rollback_to_snapshot"); err != nil {
			return nil, err
		}
		rt, id, err := s.rollbackOptions(ctx, st, params, args)
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

func (s *Session) rollbackOptions(ctx context.Context, st *sql.AlterExecute, params *sql.Params, args []Param) (*resolvedTable, int64, error) {
	rt, err := s.maintenanceTarget(ctx, st.Table)
	if err != nil {
		return nil, 0, err
	}
	n, ok := st.Args["snapshot_id"]
	if len(st.Args) != 1 || !ok || st.Where != nil {
		return nil, 0, sql.Errorf(sql.CodeInvalidParameterValue, "rollback_to_snapshot takes one argument, snapshot_id => id")
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
		return nil, 0, sql.Errorf(sql.CodeInvalidParameterValue, "snapshot_id must be a snapshot's id, not %q", v)
	}
	return rt, id, nil
}

// maintenanceAllowed refuses maintenance inside a transaction block and
// in a read-only one.
func (s *Session) maintenanceAllowed(what string) error {
	if s.tx.active {
		return sql.Errorf(sql.CodeActiveTransaction, "%s cannot run inside a transaction block", what)
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
				return nil, 0, 0, sql.Errorf(sql.CodeInvalidParameterValue, "retain_last must be a whole number of at least 1, not %q", v)
			}
		default:
			return nil, 0, 0, sql.Errorf(sql.CodeInvalidParameterValue, "expire_snapshots has no argument %q (retention_threshold, retain_last)", name)
		}
	}
	if st.Where != nil {
		return nil, 0, 0, sql.Errorf(sql.CodeSyntaxError, "expire_snapshots takes no WHERE")
	}
	return rt, age, keep, nil
}

func (s *Session) maintenanceTarget(ctx context.Context, n sql.TableName) (*resolvedTable, error) {
	rt, err := s.resolveTable(ctx, n)
	if err != nil {
		return nil, err
	}
	if rt.Meta != "" {
		return nil, sql.Errorf(sql.CodeWrongObjectType, "%q is a metadata table", n.Table)
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
	return 0, sql.Errorf(sql.CodeInvalidParameterValue, "retention_threshold must be a duration such as '7d' or '12h', not %q", v)
}

// prepareVacuum plans VACUUM t (OPTIMIZE with its default thresholds, then
// expire snapshots by the table's history.expire.* properties, then remove
// orphan files older than a week) and VACUUM
// (PURGE) t: rewrite every file holding a deleted row, expire every
// snapshot but the new current one and delete every file only they kept,
// so a deleted row's bytes are in no file of the table any more.
func (s *Session) prepareVacuum(ctx context.Context, st *sql.Vacuum) (plan, []Column, error) {
	if _, err := s.maintenanceTarget(ctx, st.Table); err != nil {
		return nil, nil, err
	}
	run := func(ctx context.Context, s *Session, _ []Param) (*Result, error) {
		if err := s.maintenanceAllowed("VACUUM"); err != nil {
			return nil, err
		}
		rt, err := s.maintenanceTarget(ctx, st.Table)
		if err != nil {
			return nil, err
		}
		opts := deletes.OptimizeOptions{Options: s.deleteOptions(false), SizeThreshold: deletes.DefaultSizeThreshold,
			RatioThreshold: deletes.DefaultRatioThreshold}
		age, keep := retentionOf(rt.Table)
		if st.Purge {
			opts.RatioThreshold = 0 // any deleted row
			age, keep = 0, 1
		}
		opt, err := deletes.Optimize(ctx, s.engine.wh.Catalog(), rt.Ident, opts)
		if err != nil {
			return nil, err
		}
		exp, err := s.engine.wh.ExpireSnapshots(ctx, rt.Ident, age, keep)
		if err != nil {
			return nil, err
		}
		// Orphans younger than a week may be a commit in flight: even PURGE
		// leaves them (an erased row is in a committed file, not in those).
		orph, err := s.engine.wh.RemoveOrphanFiles(ctx, rt.Ident, orphanRetention)
		if err != nil {
			return nil, err
		}
		exp.DeletedFiles += orph.DeletedFiles
		exp.DeletedBytes += orph.DeletedBytes
		return &Result{Tag: "VACUUM", Notices: vacuumNotices(st, opt, exp)}, nil
	}
	return planFunc(run), nil, nil
}

// retentionOf is the table's history.expire.max-snapshot-age-ms (default 5
// days) and history.expire.min-snapshots-to-keep (default 1).
func retentionOf(tbl *table.Table) (time.Duration, int) {
	props := tbl.Properties()
	age := time.Duration(props.GetInt64(table.MaxSnapshotAgeMsKey, table.MaxSnapshotAgeMsDefault)) * time.Millisecond
	keep := props.GetInt(table.MinSnapshotsToKeepKey, table.MinSnapshotsToKeepDefault)
	return age, max(keep, 1)
}

func vacuumNotices(st *sql.Vacuum, opt deletes.OptimizeOutcome, exp iceberg.ExpireOutcome) []Notice {
	var out []Notice
	if st.Verbose {
		out = append(out,
			Notice{Severity: "INFO", Code: sql.CodeSuccessfulCompletion, Message: fmt.Sprintf("%q: rewrote %d data files into %d (%d rows), removed %d delete files",
				st.Table.Table, opt.RewrittenFiles, opt.AddedFiles, opt.RewrittenRows, opt.RemovedDeleteFiles)},
			Notice{Severity: "INFO", Code: sql.CodeSuccessfulCompletion, Message: fmt.Sprintf("%q: expired %d snapshots, deleted %d files (%d bytes)",
				st.Table.Table, exp.ExpiredSnapshots, exp.DeletedFiles, exp.DeletedBytes)})
	}
	if st.Purge {
		out = append(out, Notice{Severity: "NOTICE", Code: sql.CodeSuccessfulCompletion, Message: fmt.Sprintf(
			"%d deleted rows physically removed, %d files deleted, %d bytes freed", opt.PurgedRows, exp.DeletedFiles, exp.DeletedBytes)})
	}
	return out
}
