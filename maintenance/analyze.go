package maintenance

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// PrepareAnalyze plans ANALYZE [t [(col, ...)] [, ...]]: per table, a
// Theta sketch of each column's distinct values at the snapshot of main
// (or of the ref the name carries, "t@b"), committed to the table's
// metadata as an Iceberg statistics file (lake.Analyze). No table is every
// table of the catalog, each analyzed and committed in turn. A view or a
// catalog relation is skipped with a warning, as PostgreSQL skips what it
// cannot analyze.
func PrepareAnalyze(ctx context.Context, p Port, st *sql.Analyze) (Run, []stmt.Column, error) {
	for _, target := range st.Tables {
		if _, _, err := analyzeTarget(ctx, p, target); err != nil {
			return nil, nil, err
		}
	}
	run := func(ctx context.Context, p Port, _ []any) (*stmt.Result, error) {
		if err := p.Allowed("ANALYZE"); err != nil {
			return nil, err
		}
		var notices []stmt.Notice
		if len(st.Tables) == 0 {
			idents, err := allTables(ctx, p.Warehouse())
			if err != nil {
				return nil, err
			}
			for _, ident := range idents {
				out, err := p.Warehouse().Maintenance().Analyze(ctx, ident, lake.AnalyzeOptions{})
				if errors.Is(err, lake.ErrNoSuchTable) {
					continue // dropped since the listing
				}
				if err != nil {
					return nil, err
				}
				notices = append(notices, analyzeNotices(st.Verbose, lake.IdentKey(ident), out)...)
			}
			return &stmt.Result{Tag: "ANALYZE", Notices: notices}, nil
		}
		for _, target := range st.Tables {
			rt, opts, err := analyzeTarget(ctx, p, target)
			if err != nil {
				return nil, err
			}
			name := lake.IdentKey(rt.Ident)
			if rt.Table == nil {
				notices = append(notices, stmt.Notice{Severity: "WARNING", Code: pgerr.Warning,
					Message: fmt.Sprintf("skipping %q --- cannot analyze non-tables or special system tables", target.Table.Table)})
				continue
			}
			out, err := p.Warehouse().Maintenance().Analyze(ctx, rt.Ident, opts)
			if err != nil {
				return nil, err
			}
			if rt.Ref != "" {
				name += "@" + rt.Ref
			}
			notices = append(notices, analyzeNotices(st.Verbose, name, out)...)
		}
		return &stmt.Result{Tag: "ANALYZE", Notices: notices}, nil
	}
	return run, nil, nil
}

// analyzeTarget resolves a table ANALYZE names and checks the columns it
// names as PostgreSQL does (each once, each a column of the table). A
// view or catalog relation comes back without a Table.
func analyzeTarget(ctx context.Context, p Port, target sql.AnalyzeTarget) (*plan.Table, lake.AnalyzeOptions, error) {
	rt, err := p.ReadTable(ctx, target.Table)
	if err != nil || rt.Table == nil {
		return rt, lake.AnalyzeOptions{}, err
	}
	opts := lake.AnalyzeOptions{Ref: rt.Ref, Columns: target.Columns}
	sc := analyzedSchema(rt)
	seen := map[string]bool{}
	for _, c := range target.Columns {
		if _, ok := sc.FindFieldByName(c); !ok {
			return nil, opts, pgerr.Errorf(pgerr.UndefinedColumn, "column %q of relation %q does not exist", c, target.Table.Table)
		}
		if seen[c] {
			return nil, opts, pgerr.Errorf(pgerr.DuplicateColumn, "column %q of relation %q appears more than once", c, target.Table.Table)
		}
		seen[c] = true
	}
	return rt, opts, nil
}

// analyzedSchema is the schema of the snapshot ANALYZE reads: the ref's,
// or the table's current one.
func analyzedSchema(rt *plan.Table) *iceberg.Schema {
	if rt.Ref != "" {
		if ref, ok := lake.FindRef(rt.Table.Metadata(), rt.Ref); ok {
			return lake.SchemaForSnapshot(rt.Table, &ref.SnapshotID)
		}
	}
	return rt.Table.Schema()
}

// analyzeNotices are ANALYZE VERBOSE's INFO lines for one table (none
// without VERBOSE).
func analyzeNotices(verbose bool, name string, out lake.AnalyzeOutcome) []stmt.Notice {
	if !verbose {
		return nil
	}
	info := func(msg string) stmt.Notice {
		return stmt.Notice{Severity: "INFO", Code: pgerr.SuccessfulCompletion, Message: msg}
	}
	msgs := []stmt.Notice{info(fmt.Sprintf("analyzing %q", name))}
	if out.SnapshotID == 0 {
		return append(msgs, info(fmt.Sprintf("%q: no snapshot, nothing to analyze", name)))
	}
	cols := make([]string, len(out.Columns))
	for i, c := range out.Columns {
		cols[i] = fmt.Sprintf("%s %d", c.Name, c.NDV)
	}
	return append(msgs, info(fmt.Sprintf("%q: %d live rows read at snapshot %d; distinct values: %s",
		name, out.Rows, out.SnapshotID, strings.Join(cols, ", "))))
}

// refreshStatistics keeps an analyzed table's statistics on the snapshot
// a rewrite committed (snapID; 0: none) when its parent had them: the
// same sketches, as the rows did not change (lake.CarryStatistics), in a
// metadata-only commit. When the parent had none they are not computed
// here: a sketch of the new snapshot cannot be made from the files the
// rewrite wrote (the others are not in them, and a sketch cannot take
// rows out), so it would cost a read of the whole table; the planner and
// pg_stats use the nearest analyzed ancestor's until the next ANALYZE.
// The rewrite has committed, so a cancel of its statement no longer
// applies: the commit runs apart from it, bounded in time.
func refreshStatistics(ctx context.Context, wh *lake.Warehouse, ident table.Identifier, snapID int64) error {
	if snapID == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), statisticsCarryTimeout)
	defer cancel()
	_, err := wh.Maintenance().CarryStatistics(ctx, ident, snapID)
	if errors.Is(err, lake.ErrConflict) {
		return nil // the snapshot was expired meanwhile: nothing to keep
	}
	return err
}

// statisticsCarryTimeout bounds the metadata commit that carries
// statistics to a rewrite's snapshot.
const statisticsCarryTimeout = 10 * time.Second

// statisticsWarning is the warning of a rewrite that committed but could
// not keep the table's statistics on its snapshot (the next ANALYZE
// computes them).
func statisticsWarning(err error) stmt.Notice {
	return stmt.Notice{Severity: "WARNING", Code: pgerr.Warning,
		Message: fmt.Sprintf("the table's statistics were not kept on the rewritten snapshot (run ANALYZE): %v", err)}
}
