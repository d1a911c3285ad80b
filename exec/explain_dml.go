package exec

import (
	"github.com/magmalake/magmalake/exec/engine"

	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/magmalake/magmalake/deletes"
	"github.com/magmalake/magmalake/sql"
)

// prepareExplainDML plans EXPLAIN [ANALYZE] of UPDATE, MERGE, INSERT
// OVERWRITE, REPLACE WHERE and TRUNCATE; ok is false for other statements.
func (s *Session) prepareExplainDML(ctx context.Context, x *sql.Explain, params *sql.Params) (plan, bool, error) {
	var explain func(ctx context.Context, s *Session, args []Param) ([]string, error)
	switch st := x.Stmt.(type) {
	case *sql.Update:
		if st.Join != nil {
			if pl, ok, err := s.prepareExplainJoin(ctx, x, func(ctx context.Context, s *Session) (*mergePlan, error) {
				return s.planJoinUpdate(ctx, st, params)
			}); ok {
				return pl, true, err
			}
		}
		if _, err := s.planUpdate(ctx, st, params); err != nil {
			return nil, true, err
		}
		explain = func(ctx context.Context, s *Session, args []Param) ([]string, error) {
			p, err := s.planUpdate(ctx, st, params)
			if err != nil {
				return nil, err
			}
			return s.explainUpdate(ctx, p, args, x.Analyze)
		}
	case *sql.Merge:
		pl, _, err := s.prepareExplainJoin(ctx, x, func(ctx context.Context, s *Session) (*mergePlan, error) {
			return s.planMerge(ctx, st, params)
		})
		return pl, true, err
	case *sql.Insert:
		if !st.Overwrite && st.ReplaceWhere == nil {
			return nil, false, nil
		}
		if _, err := s.planOverwrite(ctx, st, params); err != nil {
			return nil, true, err
		}
		explain = func(ctx context.Context, s *Session, args []Param) ([]string, error) {
			p, err := s.planOverwrite(ctx, st, params)
			if err != nil {
				return nil, err
			}
			return s.explainOverwrite(ctx, p, args, x.Analyze)
		}
	case *sql.Truncate:
		if _, err := s.truncateTarget(ctx, st); err != nil {
			return nil, true, err
		}
		explain = func(ctx context.Context, s *Session, _ []Param) ([]string, error) {
			rt, err := s.truncateTarget(ctx, st)
			if err != nil {
				return nil, err
			}
			return s.explainTruncate(ctx, rt, x.Analyze)
		}
	default:
		return nil, false, nil
	}
	run := func(ctx context.Context, s *Session, args []Param) (*Result, error) {
		if x.Analyze {
			if err := s.tx.checkWrite(); err != nil {
				return nil, err
			}
		}
		lines, err := explain(ctx, s, args)
		if err != nil {
			return nil, err
		}
		return textRows(lines), nil
	}
	return planFunc(run), true, nil
}

// fileActionLines lists per data file what a statement does, and a total.
func fileActionLines(files []deletes.FileAction) []string {
	var lines []string
	var matched, read, written int64
	for _, f := range files {
		lines = append(lines, fmt.Sprintf("  File %s: %s, matched %d of %d live rows, read %d bytes, write %d bytes",
			f.Path, actionText(f), f.Matched, f.Live, f.BytesRead, f.BytesWritten))
		matched += f.Matched
		read += f.BytesRead
		written += f.BytesWritten
	}
	return append(lines, fmt.Sprintf("Total: %d data files, %d rows matched, %d bytes to read, %d bytes to write", len(files), matched, read, written))
}

// mergeFileLines lists per target file what a MERGE does to it: the rows
// it updates (replaces) and deletes, and a total.
func mergeFileLines(files []deletes.FileAction) []string {
	var lines []string
	var matched, read, written int64
	for _, f := range files {
		lines = append(lines, fmt.Sprintf("  File %s: %s, matched %d of %d live rows (%d updated, %d deleted), read %d bytes, write %d bytes",
			f.Path, actionText(f), f.Matched, f.Live, f.Replaced, f.Matched-f.Replaced, f.BytesRead, f.BytesWritten))
		matched += f.Matched
		read += f.BytesRead
		written += f.BytesWritten
	}
	return append(lines, fmt.Sprintf("Total: %d target files, %d rows matched, %d bytes to read, %d bytes to write besides the new rows",
		len(files), matched, read, written))
}

// actionText is a file's action, with why when the table's rewrite ratio
// chose it.
func actionText(f deletes.FileAction) string {
	if f.Why != "" {
		return f.Action + " (" + f.Why + ")"
	}
	return f.Action
}

func elapsedMs(start time.Time) float64 { return float64(time.Since(start).Microseconds()) / 1000 }

func snapshotText(id int64) string {
	if id == 0 {
		return "none (nothing changed)"
	}
	return fmt.Sprint(id)
}

func (s *Session) explainUpdate(ctx context.Context, p *updatePlan, args []Param, analyze bool) ([]string, error) {
	tbl := p.del.rt.Table
	lines := []string{fmt.Sprintf("Update on %s (mode %s, format v%d)", strings.Join(p.del.rt.Ident, "."),
		deletes.UpdateModeOf(tbl.Properties()), tbl.Metadata().Version())}
	lines = append(lines, engine.FilterLines(ctx, p.del.where, p.del.scope, tbl.Schema(), args)...)
	start := time.Now()
	out, err := s.runUpdate(ctx, p, args, !analyze)
	if err != nil {
		return nil, err
	}
	engine.ReleaseAll(out.Returned)
	lines = append(lines, fileActionLines(out.Files)...)
	if analyze {
		lines = append(lines, fmt.Sprintf("Actual: %d rows updated, snapshot %s, %d attempt(s), %.3f ms",
			out.Deleted, snapshotText(out.SnapshotID), out.Attempts, elapsedMs(start)))
	}
	return lines, nil
}

// prepareExplainJoin plans EXPLAIN [ANALYZE] of a MERGE, or of a DELETE ...
// USING or UPDATE ... FROM run as one; ok is false when the latter needs
// its semi-join form (volatile conditions).
func (s *Session) prepareExplainJoin(ctx context.Context, x *sql.Explain, build func(context.Context, *Session) (*mergePlan, error)) (plan, bool, error) {
	if _, err := build(ctx, s); err != nil {
		return nil, !errors.Is(err, engine.ErrVolatileMerge), err
	}
	run := func(ctx context.Context, s *Session, args []Param) (*Result, error) {
		if x.Analyze {
			if err := s.tx.checkWrite(); err != nil {
				return nil, err
			}
		}
		p, err := build(ctx, s)
		if err != nil {
			return nil, err
		}
		lines, err := s.explainMerge(ctx, p, args, x.Analyze)
		if err != nil {
			return nil, err
		}
		return textRows(lines), nil
	}
	return planFunc(run), true, nil
}

// explainMerge shows the join, the clauses, the filter the source's keys
// put on the target, and per target file the action and rows; the counts
// come from planning the merge whole (nothing is written without ANALYZE).
func (s *Session) explainMerge(ctx context.Context, p *mergePlan, args []Param, analyze bool) ([]string, error) {
	tbl := p.rt.Table
	mode := p.mode
	if mode == "" {
		mode = deletes.MergeModeOf(tbl.Properties())
	}
	title := map[string]string{"MERGE": "Merge", "DELETE": "Delete", "UPDATE": "Update"}[p.verb]
	lines := []string{fmt.Sprintf("%s on %s (mode %s, format v%d)", title, strings.Join(p.rt.Ident, "."), mode, tbl.Metadata().Version())}
	lines = append(lines, p.plan.Explain(ctx, args)...)
	start := time.Now()
	out, rows, err := s.runMerge(ctx, p, args, !analyze)
	if err != nil {
		return nil, err
	}
	engine.ReleaseAll(rows)
	filter := "true (every target file is a candidate)"
	if js, err := sql.FilterJSON(out.filter, tbl.Schema()); err == nil && out.filter.String() != "AlwaysTrue()" {
		filter = string(js)
	}
	lines = append(lines, "  Target filter (from the source's keys): "+filter)
	lines = append(lines, mergeFileLines(out.Files)...)
	verb := "to be"
	if analyze {
		verb = "were"
	}
	lines = append(lines, fmt.Sprintf("Rows: %d %s updated, %d %s deleted, %d %s inserted",
		out.updated, verb, out.deleted, verb, out.inserted, verb))
	if analyze {
		lines = append(lines, fmt.Sprintf("Actual: MERGE %d, snapshot %s, %d attempt(s), %.3f ms",
			out.inserted+out.updated+out.deleted, snapshotText(out.SnapshotID), out.Attempts, elapsedMs(start)))
	}
	return lines, nil
}

func (s *Session) explainOverwrite(ctx context.Context, p *overwritePlan, args []Param, analyze bool) ([]string, error) {
	tbl := p.del.rt.Table
	kind := "static"
	switch {
	case p.replace:
		kind = "replace where"
	case p.dynamic(s):
		kind = "dynamic"
	}
	lines := []string{fmt.Sprintf("Overwrite on %s (%s, copy-on-write, format v%d)", strings.Join(p.del.rt.Ident, "."), kind, tbl.Metadata().Version())}
	if kind == "dynamic" {
		lines = append(lines, "  Replaces: every partition the new rows land in (whole files, unread)")
	} else {
		lines = append(lines, engine.FilterLines(ctx, p.del.where, p.del.scope, tbl.Schema(), args)...)
	}
	start := time.Now()
	out, err := s.runOverwrite(ctx, p, args, !analyze)
	if err != nil {
		return nil, err
	}
	if kind == "dynamic" && !analyze {
		lines = append(lines, "  Files: known once the new rows are written (EXPLAIN ANALYZE)")
	} else {
		lines = append(lines, fileActionLines(out.Files)...)
	}
	if analyze {
		lines = append(lines, fmt.Sprintf("Actual: %d rows removed, %d rows inserted, snapshot %s, %d attempt(s), %.3f ms",
			out.Deleted, out.Added, snapshotText(out.SnapshotID), out.Attempts, elapsedMs(start)))
	}
	return lines, nil
}

func (s *Session) explainTruncate(ctx context.Context, rt *resolvedTable, analyze bool) ([]string, error) {
	start := time.Now()
	out, err := deletes.Truncate(ctx, s.engine.wh.Catalog(), rt.Ident, s.deleteOptions(!analyze))
	if err != nil {
		return nil, fmt.Errorf("truncate %s: %w", strings.Join(rt.Ident, "."), err)
	}
	lines := []string{fmt.Sprintf("Truncate on %s (metadata only)", strings.Join(rt.Ident, ".")),
		fmt.Sprintf("  Remove: %d data files, %d delete files, no file read", out.DataFiles, out.DeleteFiles)}
	if analyze {
		lines = append(lines, fmt.Sprintf("Actual: snapshot %s, %d attempt(s), %.3f ms", snapshotText(out.SnapshotID), out.Attempts, elapsedMs(start)))
	}
	return lines, nil
}
