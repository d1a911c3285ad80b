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
)

var explainColumns = []Column{{Name: "QUERY PLAN", Type: sql.Text}}

func (s *Session) prepareExplain(ctx context.Context, x *sql.Explain, params *sql.Params) (plan, []Column, error) {
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
		run := func(ctx context.Context, s *Session, args []Param) (*Result, error) {
			if x.Analyze {
				if err := s.tx.checkWrite(); err != nil {
					return nil, err
				}
			}
			p, err := s.planDelete(ctx, st, params)
			if err != nil {
				return nil, err
			}
			lines, err := s.explainDelete(ctx, p, args, x.Analyze)
			if err != nil {
				return nil, err
			}
			return textRows(lines), nil
		}
		return planFunc(run), explainColumns, nil
	case *sql.Select:
		if _, err := engine.Plan(ctx, s.queryEnv(), st, params); err != nil {
			return nil, nil, err
		}
		run := func(ctx context.Context, s *Session, args []Param) (*Result, error) {
			q, err := engine.Plan(ctx, s.queryEnv(), st, params)
			if err != nil {
				return nil, err
			}
			lines, err := q.Explain(ctx, args, x.Analyze)
			if err != nil {
				return nil, err
			}
			return textRows(lines), nil
		}
		return planFunc(run), explainColumns, nil
	}
	return nil, nil, notSupported("EXPLAIN of %s is not supported yet", strings.Fields(x.Stmt.Text())[0])
}

func (s *Session) explainDelete(ctx context.Context, p *deletePlan, args []Param, analyze bool) ([]string, error) {
	tbl := p.rt.Table
	mode := deletes.ModeOf(tbl.Properties())
	lines := []string{fmt.Sprintf("Delete on %s (mode %s, format v%d)", strings.Join(p.rt.Ident, "."), mode, tbl.Metadata().Version())}
	lines = append(lines, engine.FilterLines(ctx, p.where, p.scope, tbl.Schema(), args)...)
	start := time.Now()
	out, err := s.runDelete(ctx, p, args, !analyze)
	if err != nil {
		return nil, err
	}
	engine.ReleaseAll(out.Returned)
	var matched, read, written int64
	for _, f := range out.Files {
		lines = append(lines, fmt.Sprintf("  File %s: %s, matched %d of %d live rows, read %d bytes, write %d bytes",
			f.Path, actionText(f), f.Matched, f.Live, f.BytesRead, f.BytesWritten))
		matched += f.Matched
		read += f.BytesRead
		written += f.BytesWritten
	}
	lines = append(lines, fmt.Sprintf("Total: %d data files, %d rows matched, %d bytes to read, %d bytes to write", len(out.Files), matched, read, written))
	if analyze {
		snap := "none (nothing matched)"
		if out.SnapshotID != 0 {
			snap = fmt.Sprint(out.SnapshotID)
		}
		lines = append(lines, fmt.Sprintf("Actual: %d rows deleted, snapshot %s, %d attempt(s), %.3f ms",
			out.Deleted, snap, out.Attempts, float64(time.Since(start).Microseconds())/1000))
	}
	return lines, nil
}

// textRows is a one-column text result, as EXPLAIN and SHOW produce.
func textRows(lines []string) *Result {
	rows := engine.NewBatchRows("EXPLAIN", []arrow.RecordBatch{textBatch("QUERY PLAN", lines)})
	rows.SetTag("EXPLAIN")
	return &Result{Columns: explainColumns, Rows: rows}
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
