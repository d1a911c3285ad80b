package exec

import (
	"github.com/magmalake/magmalake/exec/engine"

	"context"
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/magmalake/magmalake/deletes"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

var explainColumns = []stmt.Column{{Name: "QUERY PLAN", Type: sql.Text}}

// explainJSONColumns is EXPLAIN (FORMAT JSON)'s one json column.
var explainJSONColumns = []stmt.Column{{Name: "QUERY PLAN", Type: sql.JSON}}

func (s *Session) prepareExplain(ctx context.Context, x *sql.Explain, params *sql.Params) (plan, []stmt.Column, error) {
	pl, cols, err := s.prepareExplainPlan(ctx, x, params)
	if x.Format == "json" && cols != nil {
		cols = explainJSONColumns
	}
	return pl, cols, err
}

// explainResult renders a plan as the statement's FORMAT asks.
func explainResult(x *sql.Explain, p *engine.ExplainPlan) *stmt.Result {
	if x.Format == "json" {
		r := textRows([]string{p.JSON()})
		r.Columns = explainJSONColumns
		return r
	}
	return textRows(p.Lines())
}

func (s *Session) prepareExplainPlan(ctx context.Context, x *sql.Explain, params *sql.Params) (plan, []stmt.Column, error) {
	if pl, ok, err := s.prepareExplainDML(ctx, x, params); ok {
		return pl, explainColumns, err
	}
	switch st := x.Stmt.(type) {
	case *sql.Delete:
		if st.Join != nil {
			if pl, ok, err := s.prepareExplainJoin(ctx, x, func(ctx context.Context, s *Session) (*mergePlan, error) {
				return s.planJoinDelete(ctx, st, params)
			}); ok {
				return pl, explainColumns, err
			}
		}
		if _, err := s.planDelete(ctx, st, params); err != nil {
			return nil, nil, err
		}
		run := func(ctx context.Context, s *Session, args []Param) (*stmt.Result, error) {
			if x.Analyze {
				if err := s.tx.checkWrite(); err != nil {
					return nil, err
				}
			}
			p, err := s.planDelete(ctx, st, params)
			if err != nil {
				return nil, err
			}
			ep, err := s.explainDelete(ctx, p, args, x.Analyze)
			if err != nil {
				return nil, err
			}
			return explainResult(x, ep), nil
		}
		return planFunc(run), explainColumns, nil
	case *sql.Select:
		if _, err := engine.Plan(ctx, s.queryEnv(), st, params); err != nil {
			return nil, nil, err
		}
		run := func(ctx context.Context, s *Session, args []Param) (*stmt.Result, error) {
			start := time.Now()
			q, err := engine.Plan(ctx, s.queryEnv(), st, params)
			if err != nil {
				return nil, err
			}
			planning := elapsedMs(start)
			ep, err := q.Explain(ctx, args, x.Analyze)
			if err != nil {
				return nil, err
			}
			if x.Analyze {
				ep.Props = append([]engine.ExplainProp{{Key: "Planning Time", Value: planning}}, ep.Props...)
			}
			return explainResult(x, ep), nil
		}
		return planFunc(run), explainColumns, nil
	}
	return nil, nil, notSupported("EXPLAIN of %s is not supported yet", strings.Fields(x.Stmt.Text())[0])
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

func (s *Session) explainDelete(ctx context.Context, p *deletePlan, args []Param, analyze bool) (*engine.ExplainPlan, error) {
	tbl := p.rt.Table
	mode := deletes.ModeOf(tbl.Properties())
	n := dmlNode("Delete", p.rt.Ident, string(mode), tbl.Metadata().Version(),
		fmt.Sprintf("Delete on %s (mode %s, format v%d)", strings.Join(p.rt.Ident, "."), mode, tbl.Metadata().Version()))
	n.Props = append(n.Props, engine.FilterProps(ctx, p.where, p.scope, tbl.Schema(), args)...)
	strategy, err := s.deleteStrategy(engine.WithStatement(ctx, s.queryEnv()), p, args)
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
		ms := elapsedMs(start)
		actualProps(ep, out.Deleted, out.SnapshotID, out.Attempts, ms,
			fmt.Sprintf("Actual: %d rows deleted, snapshot %s, %d attempt(s), %.3f ms", out.Deleted, snap, out.Attempts, ms))
	}
	return ep, nil
}

// textRows is a one-column text result, as EXPLAIN and SHOW produce.
func textRows(lines []string) *stmt.Result {
	rows := engine.NewBatchRows("EXPLAIN", []arrow.RecordBatch{textBatch("QUERY PLAN", lines)})
	rows.SetTag("EXPLAIN")
	return &stmt.Result{Columns: explainColumns, Rows: rows}
}

func textBatch(name string, lines []string) arrow.RecordBatch {
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(lines, nil)
	arr := b.NewArray()
	defer arr.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: name, Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	return array.NewRecordBatch(schema, []arrow.Array{arr}, int64(len(lines)))
}
