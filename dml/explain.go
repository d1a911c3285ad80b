package dml

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/magmalake/magmalake/deletes"
	"github.com/magmalake/magmalake/engine"
	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
)

// prepareExplainDML plans EXPLAIN [ANALYZE] of DELETE, UPDATE, MERGE,
// INSERT OVERWRITE, REPLACE WHERE and TRUNCATE; ok is false for other
// statements.
func (s session) prepareExplainDML(ctx context.Context, x *sql.Explain, params *sql.Params) (Explain, bool, error) {
	var explain explainFunc
	var err error
	switch st := x.Stmt.(type) {
	case *sql.Delete:
		if st.Join != nil {
			if pl, ok, err := s.prepareExplainJoin(ctx, x, func(ctx context.Context, s session) (*mergePlan, error) {
				return s.planJoinDelete(ctx, st, params)
			}); ok {
				return pl, true, err
			}
		}
		explain, err = explainPlanned(ctx, s,
			func(ctx context.Context, s session) (*deletePlan, error) { return s.planDelete(ctx, st, params) },
			func(ctx context.Context, s session, p *deletePlan, args []Param) (*engine.ExplainPlan, error) {
				return s.explainDelete(ctx, p, args, x.Analyze)
			})
	case *sql.Update:
		if st.Join != nil {
			if pl, ok, err := s.prepareExplainJoin(ctx, x, func(ctx context.Context, s session) (*mergePlan, error) {
				return s.planJoinUpdate(ctx, st, params)
			}); ok {
				return pl, true, err
			}
		}
		explain, err = explainPlanned(ctx, s,
			func(ctx context.Context, s session) (*updatePlan, error) { return s.planUpdate(ctx, st, params) },
			func(ctx context.Context, s session, p *updatePlan, args []Param) (*engine.ExplainPlan, error) {
				return s.explainUpdate(ctx, p, args, x.Analyze)
			})
	case *sql.Merge:
		pl, _, err := s.prepareExplainJoin(ctx, x, func(ctx context.Context, s session) (*mergePlan, error) {
			return s.planMerge(ctx, st, params)
		})
		return pl, true, err
	case *sql.Insert:
		if !st.Overwrite && st.ReplaceWhere == nil {
			return nil, false, nil
		}
		explain, err = explainPlanned(ctx, s,
			func(ctx context.Context, s session) (*overwritePlan, error) { return s.planOverwrite(ctx, st, params) },
			func(ctx context.Context, s session, p *overwritePlan, args []Param) (*engine.ExplainPlan, error) {
				return s.explainOverwrite(ctx, p, args, x.Analyze)
			})
	case *sql.Truncate:
		explain, err = explainPlanned(ctx, s,
			func(ctx context.Context, s session) (*plan.Table, error) { return s.truncateTarget(ctx, st) },
			func(ctx context.Context, s session, rt *plan.Table, _ []Param) (*engine.ExplainPlan, error) {
				return s.explainTruncate(ctx, rt, x.Analyze)
			})
	default:
		return nil, false, nil
	}
	if err != nil {
		return nil, true, err
	}
	run := func(ctx context.Context, p Port, args []Param) (*engine.ExplainPlan, error) {
		s := session{p}
		if x.Analyze {
			if err := s.CheckWrite(); err != nil {
				return nil, err
			}
		}
		return explain(ctx, s, args)
	}
	return run, true, nil
}

// explainFunc explains a planned statement for the session executing it.
type explainFunc func(ctx context.Context, s session, args []Param) (*engine.ExplainPlan, error)

// explainPlanned plans the statement now, for its errors, and again at
// each execution (against the tables as they are then), whose plan it
// explains.
func explainPlanned[P any](ctx context.Context, s session, plan func(context.Context, session) (P, error),
	explain func(context.Context, session, P, []Param) (*engine.ExplainPlan, error)) (explainFunc, error) {
	k, _, err := keep(ctx, s, plan)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, s session, args []Param) (*engine.ExplainPlan, error) {
		p, err := k.take(ctx, s)
		if err != nil {
			return nil, err
		}
		return explain(ctx, s, p, args)
	}, nil
}

// dmlNode starts the node of a statement that changes a table: its text
// line, and PostgreSQL's ModifyTable keys with the table's Iceberg mode.
func dmlNode(op string, ident []string, mode string, version int, text string) *engine.ExplainNode {
	n := &engine.ExplainNode{Text: text}
	n.Prop("Node Type", "ModifyTable", "")
	n.Prop("Operation", op, "")
	engine.RelationProps(n, ident, "")
	if mode != "" {
		n.Prop("Mode", mode, "")
	}
	if version != 0 {
		n.Prop("Format Version", version, "")
	}
	return n
}

// actualProps put an ANALYZE'd statement's outcome in its node and the
// time beside the plan; text is its one "Actual:" line.
func actualProps(p *engine.ExplainPlan, rows, snapshot int64, attempts int, ms float64, text string) {
	p.Root.Prop("Actual Rows", rows, "")
	p.Root.Prop("Snapshot ID", snapshot, "")
	p.Root.Prop("Attempts", attempts, "")
	p.Props = append(p.Props, engine.ExplainProp{Key: "Execution Time", Value: ms, Text: text})
}

func (s session) explainDelete(ctx context.Context, p *deletePlan, args []Param, analyze bool) (*engine.ExplainPlan, error) {
	tbl := p.rt.Table
	mode := deletes.ModeOf(tbl.Properties())
	n := dmlNode("Delete", p.rt.Ident, string(mode), tbl.Metadata().Version(),
		fmt.Sprintf("Delete on %s (mode %s, format v%d)", strings.Join(p.rt.Ident, "."), mode, tbl.Metadata().Version()))
	n.Props = append(n.Props, engine.FilterProps(ctx, p.where, p.scope, tbl.Schema(), args)...)
	strategy, err := s.deleteStrategy(engine.WithStatement(ctx, s.QueryEnv()), p, args)
	if err != nil {
		return nil, err
	}
	n.Prop("Strategy", strategy, "Strategy: "+strategy)
	start := time.Now()
	out, err := s.runDelete(ctx, p, args, !analyze)
	if err != nil {
		return nil, err
	}
	engine.ReleaseAll(out.Returned)
	fileActionProps(n, out.Files, "data files")
	ep := &engine.ExplainPlan{Root: n}
	if analyze {
		snap := "none (nothing matched)"
		if out.SnapshotID != 0 {
			snap = fmt.Sprint(out.SnapshotID)
		}
		ms := engine.ElapsedMs(start)
		actualProps(ep, out.Deleted, out.SnapshotID, out.Attempts, ms,
			fmt.Sprintf("Actual: %d rows deleted, snapshot %s, %d attempt(s), %.3f ms", out.Deleted, snap, out.Attempts, ms))
	}
	return ep, nil
}

// fileActionProps list per data file what a statement does, and a total;
// a MERGE's files (target) also say how many rows it updates and deletes.
func fileActionProps(n *engine.ExplainNode, files []deletes.FileAction, what string) {
	var lines []string
	var objs []any
	var matched, read, written int64
	merge := what == "target files"
	for _, f := range files {
		obj := engine.ExplainObject{{Key: "Path", Value: f.Path}, {Key: "Action", Value: f.Action}}
		if f.Why != "" {
			obj = append(obj, engine.ExplainProp{Key: "Reason", Value: f.Why})
		}
		obj = append(obj, engine.ExplainProp{Key: "Matched Rows", Value: f.Matched}, engine.ExplainProp{Key: "Live Rows", Value: f.Live})
		if merge {
			obj = append(obj, engine.ExplainProp{Key: "Updated Rows", Value: f.Replaced}, engine.ExplainProp{Key: "Deleted Rows", Value: f.Matched - f.Replaced})
			lines = append(lines, fmt.Sprintf("  File %s: %s, matched %d of %d live rows (%d updated, %d deleted), read %d bytes, write %d bytes",
				f.Path, actionText(f), f.Matched, f.Live, f.Replaced, f.Matched-f.Replaced, f.BytesRead, f.BytesWritten))
		} else {
			lines = append(lines, fmt.Sprintf("  File %s: %s, matched %d of %d live rows, read %d bytes, write %d bytes",
				f.Path, actionText(f), f.Matched, f.Live, f.BytesRead, f.BytesWritten))
		}
		obj = append(obj, engine.ExplainProp{Key: "Bytes Read", Value: f.BytesRead}, engine.ExplainProp{Key: "Bytes Written", Value: f.BytesWritten})
		objs = append(objs, obj)
		matched += f.Matched
		read += f.BytesRead
		written += f.BytesWritten
	}
	if objs == nil {
		objs = []any{}
	}
	n.Prop("Files", objs, strings.Join(lines, "\n"))
	total := fmt.Sprintf("Total: %d %s, %d rows matched, %d bytes to read, %d bytes to write", len(files), what, matched, read, written)
	if merge {
		total += " besides the new rows"
	}
	n.Prop("Total", engine.ExplainObject{{Key: "Files", Value: len(files)}, {Key: "Matched Rows", Value: matched},
		{Key: "Bytes To Read", Value: read}, {Key: "Bytes To Write", Value: written}}, total)
}

// actionText is a file's action, with why when the table's rewrite ratio
// chose it.
func actionText(f deletes.FileAction) string {
	if f.Why != "" {
		return f.Action + " (" + f.Why + ")"
	}
	return f.Action
}

func snapshotText(id int64) string {
	if id == 0 {
		return "none (nothing changed)"
	}
	return fmt.Sprint(id)
}

func (s session) explainUpdate(ctx context.Context, p *updatePlan, args []Param, analyze bool) (*engine.ExplainPlan, error) {
	tbl := p.del.rt.Table
	mode := deletes.UpdateModeOf(tbl.Properties())
	n := dmlNode("Update", p.del.rt.Ident, string(mode), tbl.Metadata().Version(),
		fmt.Sprintf("Update on %s (mode %s, format v%d)", strings.Join(p.del.rt.Ident, "."), mode, tbl.Metadata().Version()))
	n.Props = append(n.Props, engine.FilterProps(ctx, p.del.where, p.del.scope, tbl.Schema(), args)...)
	start := time.Now()
	out, err := s.runUpdate(ctx, p, args, !analyze)
	if err != nil {
		return nil, err
	}
	engine.ReleaseAll(out.Returned)
	fileActionProps(n, out.Files, "data files")
	ep := &engine.ExplainPlan{Root: n}
	if analyze {
		ms := engine.ElapsedMs(start)
		actualProps(ep, out.Deleted, out.SnapshotID, out.Attempts, ms, fmt.Sprintf("Actual: %d rows updated, snapshot %s, %d attempt(s), %.3f ms",
			out.Deleted, snapshotText(out.SnapshotID), out.Attempts, ms))
	}
	return ep, nil
}

// prepareExplainJoin plans EXPLAIN [ANALYZE] of a MERGE, or of a DELETE ...
// USING or UPDATE ... FROM run as one; ok is false when the latter needs
// its semi-join form (volatile conditions).
func (s session) prepareExplainJoin(ctx context.Context, x *sql.Explain, build func(context.Context, session) (*mergePlan, error)) (Explain, bool, error) {
	k, _, err := keep(ctx, s, build)
	if err != nil {
		return nil, !errors.Is(err, engine.ErrVolatileMerge), err
	}
	run := func(ctx context.Context, port Port, args []Param) (*engine.ExplainPlan, error) {
		s := session{port}
		if x.Analyze {
			if err := s.CheckWrite(); err != nil {
				return nil, err
			}
		}
		p, err := k.take(ctx, s)
		if err != nil {
			return nil, err
		}
		return s.explainMerge(ctx, p, args, x.Analyze)
	}
	return run, true, nil
}

// explainMerge shows the join, the clauses, the filter the source's keys
// put on the target, and per target file the action and rows; the counts
// come from planning the merge whole (nothing is written without ANALYZE).
func (s session) explainMerge(ctx context.Context, p *mergePlan, args []Param, analyze bool) (*engine.ExplainPlan, error) {
	tbl := p.rt.Table
	mode := p.mode
	if mode == "" {
		mode = deletes.MergeModeOf(tbl.Properties())
	}
	title := map[string]string{"MERGE": "Merge", "DELETE": "Delete", "UPDATE": "Update"}[p.verb]
	n := dmlNode(title, p.rt.Ident, string(mode), tbl.Metadata().Version(),
		fmt.Sprintf("%s on %s (mode %s, format v%d)", title, strings.Join(p.rt.Ident, "."), mode, tbl.Metadata().Version()))
	n.Props = append(n.Props, p.plan.Explain(ctx, args)...)
	start := time.Now()
	out, rows, err := s.runMerge(ctx, p, args, !analyze)
	if err != nil {
		return nil, err
	}
	engine.ReleaseAll(rows)
	filter, value := "true (every target file is a candidate)", any(true)
	if js, err := sql.FilterJSON(out.filter, tbl.Schema()); err == nil && out.filter.String() != "AlwaysTrue()" {
		filter, value = string(js), json.RawMessage(js)
	}
	n.Prop("Target Filter", value, "  Target filter (from the source's keys): "+filter)
	fileActionProps(n, out.Files, "target files")
	verb := "to be"
	if analyze {
		verb = "were"
	}
	n.Prop("Rows", engine.ExplainObject{{Key: "Updated", Value: out.updated}, {Key: "Deleted", Value: out.deleted}, {Key: "Inserted", Value: out.inserted}},
		fmt.Sprintf("Rows: %d %s updated, %d %s deleted, %d %s inserted", out.updated, verb, out.deleted, verb, out.inserted, verb))
	ep := &engine.ExplainPlan{Root: n}
	if analyze {
		ms := engine.ElapsedMs(start)
		total := out.inserted + out.updated + out.deleted
		actualProps(ep, total, out.SnapshotID, out.Attempts, ms, fmt.Sprintf("Actual: MERGE %d, snapshot %s, %d attempt(s), %.3f ms",
			total, snapshotText(out.SnapshotID), out.Attempts, ms))
	}
	return ep, nil
}

func (s session) explainOverwrite(ctx context.Context, p *overwritePlan, args []Param, analyze bool) (*engine.ExplainPlan, error) {
	tbl := p.del.rt.Table
	kind := "static"
	switch {
	case p.replace:
		kind = "replace where"
	case p.dynamic(s):
		kind = "dynamic"
	}
	n := dmlNode("Overwrite", p.del.rt.Ident, "copy-on-write", tbl.Metadata().Version(),
		fmt.Sprintf("Overwrite on %s (%s, copy-on-write, format v%d)", strings.Join(p.del.rt.Ident, "."), kind, tbl.Metadata().Version()))
	n.Prop("Overwrite Kind", kind, "")
	if kind == "dynamic" {
		n.Prop("Replaces", "every partition the new rows land in (whole files, unread)",
			"  Replaces: every partition the new rows land in (whole files, unread)")
	} else {
		n.Props = append(n.Props, engine.FilterProps(ctx, p.del.where, p.del.scope, tbl.Schema(), args)...)
	}
	start := time.Now()
	out, err := s.runOverwrite(ctx, p, args, !analyze)
	if err != nil {
		return nil, err
	}
	if kind == "dynamic" && !analyze {
		n.Prop("Files", nil, "  Files: known once the new rows are written (EXPLAIN ANALYZE)")
	} else {
		fileActionProps(n, out.Files, "data files")
	}
	ep := &engine.ExplainPlan{Root: n}
	if analyze {
		ms := engine.ElapsedMs(start)
		actualProps(ep, out.Added, out.SnapshotID, out.Attempts, ms,
			fmt.Sprintf("Actual: %d rows removed, %d rows inserted, snapshot %s, %d attempt(s), %.3f ms",
				out.Deleted, out.Added, snapshotText(out.SnapshotID), out.Attempts, ms))
		ep.Root.Prop("Removed Rows", out.Deleted, "")
	}
	return ep, nil
}

func (s session) explainTruncate(ctx context.Context, rt *plan.Table, analyze bool) (*engine.ExplainPlan, error) {
	start := time.Now()
	out, err := deletes.Truncate(ctx, s.CommitTarget(), rt.Ident, s.DeleteOptions(!analyze))
	if err != nil {
		return nil, fmt.Errorf("truncate %s: %w", strings.Join(rt.Ident, "."), err)
	}
	n := dmlNode("Truncate", rt.Ident, "", 0, fmt.Sprintf("Truncate on %s (metadata only)", strings.Join(rt.Ident, ".")))
	n.Prop("Remove", engine.ExplainObject{{Key: "Data Files", Value: out.DataFiles}, {Key: "Delete Files", Value: out.DeleteFiles}},
		fmt.Sprintf("  Remove: %d data files, %d delete files, no file read", out.DataFiles, out.DeleteFiles))
	ep := &engine.ExplainPlan{Root: n}
	if analyze {
		ms := engine.ElapsedMs(start)
		ep.Root.Prop("Snapshot ID", out.SnapshotID, "")
		ep.Root.Prop("Attempts", out.Attempts, "")
		ep.Props = append(ep.Props, engine.ExplainProp{Key: "Execution Time", Value: ms,
			Text: fmt.Sprintf("Actual: snapshot %s, %d attempt(s), %.3f ms", snapshotText(out.SnapshotID), out.Attempts, ms)})
	}
	return ep, nil
}
