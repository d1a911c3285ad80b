package session

import (
	"github.com/magmalake/magmalake/engine"

	"context"
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/magmalake/magmalake/dml"
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
	if ex, ok, err := dml.PrepareExplain(ctx, dmlPort{s}, x, params); ok {
		if err != nil {
			return nil, explainColumns, err
		}
		run := func(ctx context.Context, s *Session, args []stmt.Param) (*stmt.Result, error) {
			ep, err := ex(ctx, dmlPort{s}, args)
			if err != nil {
				return nil, err
			}
			return explainResult(x, ep), nil
		}
		return planFunc(run), explainColumns, nil
	}
	switch st := x.Stmt.(type) {
	case *sql.Select:
		p, err := s.planQuery(ctx, st, params)
		if err != nil {
			return nil, nil, err
		}
		run := func(ctx context.Context, s *Session, args []stmt.Param) (*stmt.Result, error) {
			start := time.Now()
			q, done, err := p.query(ctx, s)
			if err != nil {
				return nil, err
			}
			defer done()
			planning := engine.ElapsedMs(start)
			ep, err := q.Explain(ctx, args, x.Analyze)
			if err != nil {
				return nil, err
			}
			if x.Analyze {
				ep.Props = append([]engine.ExplainProp{{Key: "Planning Time", Value: planning,
					Text: fmt.Sprintf("Planning Time: %.3f ms", planning)}}, ep.Props...)
			}
			return explainResult(x, ep), nil
		}
		return planFunc(run), explainColumns, nil
	}
	return nil, nil, notSupported("EXPLAIN of %s is not supported yet", strings.Fields(x.Stmt.Text())[0])
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
