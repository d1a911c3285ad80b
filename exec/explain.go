package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	ice "github.com/apache/iceberg-go"

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
		if _, err := s.planSelect(ctx, st, params); err != nil {
			return nil, nil, err
		}
		run := func(ctx context.Context, s *Session, args []Param) (*Result, error) {
			q, err := s.planSelect(ctx, st, params)
			if err != nil {
				return nil, err
			}
			lines, err := s.explainSelect(ctx, q, args, x.Analyze)
			if err != nil {
				return nil, err
			}
			return textRows(lines), nil
		}
		return planFunc(run), explainColumns, nil
	}
	return nil, nil, notSupported("EXPLAIN of %s is not supported yet", strings.Fields(x.Stmt.Text())[0])
}

// filterLines describes how a WHERE clause reaches Iceberg.
func filterLines(ctx context.Context, where sql.Expr, scope *sql.Scope, schema *ice.Schema, args []Param) []string {
	if where == nil {
		return []string{"  Iceberg filter: true (no WHERE)", "  Residual: none"}
	}
	tr := sql.Translate(ctx, where, scope, args)
	js, err := sql.FilterJSON(tr.Filter, schema)
	filter := string(js)
	if err != nil {
		filter = tr.Filter.String()
	}
	residual := "none"
	if tr.Residual != nil {
		residual = tr.Residual.String()
	}
	return []string{
		"  Iceberg filter: " + filter,
		fmt.Sprintf("  Exact: %t", tr.Exact),
		"  Residual: " + residual,
	}
}

func (s *Session) explainDelete(ctx context.Context, p *deletePlan, args []Param, analyze bool) ([]string, error) {
	tbl := p.rt.Table
	mode := deletes.ModeOf(tbl.Properties())
	lines := []string{fmt.Sprintf("Delete on %s (mode %s, format v%d)", strings.Join(p.rt.Ident, "."), mode, tbl.Metadata().Version())}
	lines = append(lines, filterLines(ctx, p.where, p.scope, tbl.Schema(), args)...)
	start := time.Now()
	out, err := s.runDelete(ctx, p, args, !analyze)
	if err != nil {
		return nil, err
	}
	releaseAll(out.Returned)
	var matched, read, written int64
	for _, f := range out.Files {
		lines = append(lines, fmt.Sprintf("  File %s: %s, matched %d of %d live rows, read %d bytes, write %d bytes",
			f.Path, f.Action, f.Matched, f.Live, f.BytesRead, f.BytesWritten))
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

func (s *Session) explainSelect(ctx context.Context, q *selectQuery, args []Param, analyze bool) ([]string, error) {
	var lines []string
	switch src := q.src.(type) {
	case *tableSource:
		lines = append(lines, "Scan on "+strings.Join(src.rt.Ident, "."))
		cols := "all"
		if src.cols != nil {
			cols = strings.Join(src.cols, ", ")
			if cols == "" {
				cols = "none (row count only)"
			}
		}
		lines = append(lines, "  Columns: "+cols)
		lines = append(lines, filterLines(ctx, q.where, q.input, src.rt.Table.Schema(), args)...)
	case *metaSource:
		lines = append(lines, "Metadata table scan")
	default:
		lines = append(lines, "Result")
	}
	if q.agg != nil {
		lines = append(lines, fmt.Sprintf("  Aggregate: %d group key(s), %d aggregate(s)", len(q.agg.GroupBy), len(q.agg.Calls)))
	}
	if q.distinct {
		lines = append(lines, "  Distinct")
	}
	if len(q.order) > 0 {
		lines = append(lines, fmt.Sprintf("  Sort: %d key(s)", len(q.order)))
	}
	if analyze {
		start := time.Now()
		rows, err := s.runSelect(ctx, q, args)
		if err != nil {
			return nil, err
		}
		n, err := countRows(ctx, rows)
		if err != nil {
			return nil, err
		}
		lines = append(lines, fmt.Sprintf("Actual: %d rows, %.3f ms", n, float64(time.Since(start).Microseconds())/1000))
	}
	return lines, nil
}

func countRows(ctx context.Context, rows Rows) (int64, error) {
	defer rows.Close()
	var n int64
	for {
		b, err := rows.Next(ctx)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return n, nil
			}
			return n, err
		}
		n += b.NumRows()
	}
}

// textRows is a one-column text result, as EXPLAIN and SHOW produce.
func textRows(lines []string) *Result {
	rows := newBatchRows("EXPLAIN", []arrow.RecordBatch{textBatch("QUERY PLAN", lines)})
	rows.tag = "EXPLAIN"
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
