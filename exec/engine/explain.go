package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	ice "github.com/apache/iceberg-go"
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/magmalake/magmalake/sql"
)

// Explain describes the plan, one line per operator and detail; analyze
// also runs it and reports the rows and time.
func (q *Query) Explain(ctx context.Context, params []any, analyze bool) ([]string, error) {
	lines := describeQuery(ctx, q.root, params, "")
	if analyze {
		start := time.Now()
		rows, err := q.Run(ctx, params)
		if err != nil {
			return nil, err
		}
		n, err := CountRows(ctx, rows)
		if err != nil {
			return nil, err
		}
		lines = append(lines, fmt.Sprintf("Actual: %d rows, %.3f ms", n, float64(time.Since(start).Microseconds())/1000))
	}
	return lines, nil
}

// CountRows drains rows and counts them.
func CountRows(ctx context.Context, rows Rows) (int64, error) {
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

func describeQuery(ctx context.Context, q *selectQuery, params []any, ind string) []string {
	lines := describeSource(ctx, q, q.src, params, ind)
	if n, ok := q.metadataCount(); ok {
		lines = append(lines, fmt.Sprintf("%s  Count: %d rows from the snapshot summary (no data file read)", ind, n))
	}
	if q.agg != nil {
		lines = append(lines, fmt.Sprintf("%s  Aggregate: %d group key(s), %d aggregate(s)", ind, len(q.agg.GroupBy), len(q.agg.Calls)))
	}
	if q.winTop != 0 {
		lines = append(lines, fmt.Sprintf("%s  Window: only the first %d rows of each partition are kept (a heap per partition)", ind, max(q.winTop, 0)))
	}
	if q.where != nil {
		if _, scan := q.src.(*tableSource); !scan {
			lines = append(lines, ind+"  Filter: "+q.where.String())
		}
	}
	if q.distinct {
		lines = append(lines, ind+"  Distinct")
	}
	if len(q.order) > 0 {
		lines = append(lines, fmt.Sprintf("%s  Sort: %d key(s)", ind, len(q.order)))
	}
	return lines
}

func describeSource(ctx context.Context, q *selectQuery, src source, params []any, ind string) []string {
	switch s := src.(type) {
	case *tableSource:
		lines := []string{ind + "Scan on " + strings.Join(s.rt.Ident, ".")}
		cols := "all"
		if s.cols != nil {
			cols = strings.Join(s.cols, ", ")
			if cols == "" {
				cols = "none (row count only)"
			}
		}
		lines = append(lines, ind+"  Columns: "+cols)
		var where sql.Expr
		var scope *sql.Scope
		if q != nil && q.src == src {
			where, scope = q.where, q.input
		}
		for _, l := range FilterLines(ctx, where, scope, s.rt.Table.Schema(), params) {
			lines = append(lines, ind+l)
		}
		return lines
	case *metaSource:
		return []string{ind + "Metadata table scan"}
	case *joinSource:
		return describeJoin(ctx, s, params, ind)
	case *mergedSource:
		return describeSource(ctx, nil, s.src, params, ind)
	case *picked:
		return describeSource(ctx, nil, s.src, params, ind)
	case *rescoped:
		return describeSource(ctx, nil, s.src, params, ind)
	case *derivedSource:
		lines := []string{ind + "Subquery Scan on " + qualifierOf(s.sc)}
		return append(lines, describeQuery(ctx, s.q, params, ind+"  ")...)
	case *setSource:
		return describeSet(ctx, s.root, params, ind)
	case *seriesSource:
		return []string{ind + "Function Scan on generate_series"}
	}
	return []string{ind + "Result"}
}

func describeJoin(ctx context.Context, j *joinSource, params []any, ind string) []string {
	kind := "Nested Loop"
	if len(j.lkeys) > 0 {
		kind = "Hash Join"
	}
	lines := []string{fmt.Sprintf("%s%s (%s)", ind, kind, j.kind)}
	if len(j.lkeys) > 0 {
		var keys []string
		for i := range j.lkeys {
			keys = append(keys, j.lkeys[i].String()+" = "+j.rkeys[i].String())
		}
		lines = append(lines, ind+"  Hash keys: "+strings.Join(keys, ", "))
	}
	if j.residual != nil {
		lines = append(lines, ind+"  Join filter: "+j.residual.String())
	}
	if j.lfilter != nil {
		lines = append(lines, ind+"  Left filter: "+j.lfilter.String())
	}
	if j.rfilter != nil {
		lines = append(lines, ind+"  Right filter: "+j.rfilter.String())
	}
	lines = append(lines, describeSource(ctx, nil, j.left, params, ind+"  ")...)
	return append(lines, describeSource(ctx, nil, j.right, params, ind+"  ")...)
}

func describeSet(ctx context.Context, n *setNode, params []any, ind string) []string {
	if n.leaf != nil {
		return describeQuery(ctx, n.leaf, params, ind)
	}
	name := map[ast.SetOprType]string{ast.Union: "Union", ast.UnionAll: "Append", ast.Intersect: "Intersect",
		ast.IntersectAll: "Intersect All", ast.Except: "Except", ast.ExceptAll: "Except All"}[n.op]
	lines := []string{ind + name}
	lines = append(lines, describeSet(ctx, n.left, params, ind+"  ")...)
	return append(lines, describeSet(ctx, n.right, params, ind+"  ")...)
}

// FilterLines describes how a WHERE clause reaches Iceberg.
func FilterLines(ctx context.Context, where sql.Expr, scope *sql.Scope, schema *ice.Schema, args []any) []string {
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
