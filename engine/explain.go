package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/apache/iceberg-go"

	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// Explain describes the plan, one node per operator with its details;
// analyze also runs it and reports the rows and time.
func (q *Query) Explain(ctx context.Context, params []any, analyze bool) (*ExplainPlan, error) {
	p := &ExplainPlan{Root: describeQuery(ctx, q.root, params)}
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
		ms := ElapsedMs(start)
		p.Root.Prop("Actual Rows", n, "")
		p.Props = append(p.Props, ExplainProp{Key: "Execution Time", Value: ms,
			Text: fmt.Sprintf("Actual: %d rows, %.3f ms", n, ms)})
	}
	return p, nil
}

// CountRows drains rows and counts them.
func CountRows(ctx context.Context, rows stmt.Rows) (int64, error) {
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

// describeQuery is the query's source node with what the query does to
// its rows after it.
func describeQuery(ctx context.Context, q *selectQuery, params []any) *ExplainNode {
	n := describeSource(ctx, q, q.src, params)
	if c, ok := q.metadataCount(); ok {
		n.Prop("Metadata Count", c, fmt.Sprintf("  Count: %d rows from the snapshot summary (no data file read)", c))
	}
	if q.Agg != nil {
		n.Prop("Aggregate", ExplainObject{{Key: "Group Keys", Value: len(q.Agg.GroupBy)}, {Key: "Aggregates", Value: len(q.Agg.Calls)}},
			fmt.Sprintf("  Aggregate: %d group key(s), %d aggregate(s)", len(q.Agg.GroupBy), len(q.Agg.Calls)))
	}
	if q.WinTop != 0 {
		n.Prop("Window Top Rows", max(q.WinTop, 0),
			fmt.Sprintf("  Window: only the first %d rows of each partition are kept (a heap per partition)", max(q.WinTop, 0)))
	}
	if q.Where != nil {
		if _, scan := q.src.(*tableSource); !scan {
			n.Prop("Filter", q.Where.String(), "  Filter: "+q.Where.String())
		}
	}
	if q.Distinct {
		n.Prop("Distinct", true, "  Distinct")
	}
	if len(q.Order) > 0 {
		n.Prop("Sort Key Count", len(q.Order), fmt.Sprintf("  Sort: %d key(s)", len(q.Order)))
	}
	return n
}

// node starts a node of the given type; its type is in its text line.
func node(typ, text string) *ExplainNode {
	n := &ExplainNode{Text: text}
	n.Prop("Node Type", typ, "")
	return n
}

func describeSource(ctx context.Context, q *selectQuery, src source, params []any) *ExplainNode {
	switch s := src.(type) {
	case *tableSource:
		n := node("Scan", "Scan on "+strings.Join(s.rt.Ident, "."))
		RelationProps(n, s.rt.Ident, plan.QualifierOf(s.sc))
		cols, names := "all", s.cols
		if s.cols != nil {
			cols = strings.Join(s.cols, ", ")
			if cols == "" {
				cols = "none (row count only)"
			}
		} else {
			for _, f := range s.rt.Table.Schema().Fields() {
				names = append(names, f.Name)
			}
		}
		n.Prop("Columns", append([]string{}, names...), "  Columns: "+cols)
		var where sql.Expr
		var scope *sql.Scope
		if q != nil && q.src == src {
			where, scope = q.Where, q.Input
		}
		n.Props = append(n.Props, FilterProps(ctx, where, scope, s.rt.Table.Schema(), params)...)
		return n
	case *metaSource:
		return node("Metadata Table Scan", "Metadata table scan")
	case *joinSource:
		return describeJoin(ctx, s, params)
	case *mergedSource:
		return describeSource(ctx, nil, s.src, params)
	case *picked:
		return describeSource(ctx, nil, s.src, params)
	case *rescoped:
		return describeSource(ctx, nil, s.src, params)
	case *lateralSource:
		n := node("Nested Loop", fmt.Sprintf("Nested Loop (%s, Lateral)", s.kind))
		n.Prop("Join Type", s.kind.String(), "")
		if s.cond != nil {
			n.Prop("Join Filter", s.cond.String(), "  Join filter: "+s.cond.String())
		}
		n.Props = append(n.Props, ExplainProp{Key: "Outer", Plan: describeSource(ctx, nil, s.left, params)},
			ExplainProp{Key: "Inner", Plan: describeQuery(ctx, s.right, params)})
		return n
	case *filterSource:
		n := describeSource(ctx, nil, s.src, params)
		n.Prop("Filter", s.cond.String(), "  Filter: "+s.cond.String())
		return n
	case *derivedSource:
		n := node("Subquery Scan", "Subquery Scan on "+plan.QualifierOf(s.sc))
		n.Prop("Alias", plan.QualifierOf(s.sc), "")
		n.Child(describeQuery(ctx, s.q, params))
		return n
	case *setSource:
		return describeSet(ctx, s.root, params)
	case *seriesSource:
		n := node("Function Scan", "Function Scan on generate_series")
		n.Prop("Function Name", "generate_series", "")
		return n
	}
	return node("Result", "Result")
}

// RelationProps are a scanned or changed table's keys, as PostgreSQL names
// them: "Relation Name", "Schema", "Alias".
func RelationProps(n *ExplainNode, ident []string, alias string) {
	name := ident[len(ident)-1]
	if alias == "" {
		alias = name
	}
	n.Prop("Relation Name", name, "")
	n.Prop("Schema", strings.Join(ident[:len(ident)-1], "."), "")
	n.Prop("Alias", alias, "")
}

func describeJoin(ctx context.Context, j *joinSource, params []any) *ExplainNode {
	kind := "Nested Loop"
	if len(j.LKeys) > 0 {
		kind = "Hash Join"
	}
	n := node(kind, fmt.Sprintf("%s (%s)", kind, j.Kind))
	n.Prop("Join Type", j.Kind.String(), "")
	if len(j.LKeys) > 0 {
		keys := hashKeyText(j)
		n.Prop("Hash Keys", keys, "  Hash keys: "+strings.Join(keys, ", "))
	}
	if j.Residual != nil {
		n.Prop("Join Filter", j.Residual.String(), "  Join filter: "+j.Residual.String())
	}
	if j.LFilter != nil {
		n.Prop("Left Filter", j.LFilter.String(), "  Left filter: "+j.LFilter.String())
	}
	if j.RFilter != nil {
		n.Prop("Right Filter", j.RFilter.String(), "  Right filter: "+j.RFilter.String())
	}
	n.Props = append(n.Props, ExplainProp{Key: "Outer", Plan: describeSource(ctx, nil, j.left, params)},
		ExplainProp{Key: "Inner", Plan: describeSource(ctx, nil, j.right, params)})
	return n
}

// hashKeyText spells a hash join's key pairs, "l = r".
func hashKeyText(j *joinSource) []string {
	var keys []string
	for i := range j.LKeys {
		keys = append(keys, j.LKeys[i].String()+" = "+j.RKeys[i].String())
	}
	return keys
}

func describeSet(ctx context.Context, n *setNode, params []any) *ExplainNode {
	if n.leaf != nil {
		return describeQuery(ctx, n.leaf, params)
	}
	name := map[sql.SetOp]string{sql.SetUnion: "Union", sql.SetUnionAll: "Append", sql.SetIntersect: "Intersect",
		sql.SetIntersectAll: "Intersect All", sql.SetExcept: "Except", sql.SetExceptAll: "Except All"}[n.op]
	out := node(name, name)
	out.Child(describeSet(ctx, n.left, params))
	out.Child(describeSet(ctx, n.right, params))
	return out
}

// FilterProps describe how a WHERE clause reaches Iceberg: the filter the
// scan plans files with, whether it is exact, what is checked per row.
func FilterProps(ctx context.Context, where sql.Expr, scope *sql.Scope, schema *iceberg.Schema, args []any) []ExplainProp {
	if where == nil {
		return []ExplainProp{{Key: "Iceberg Filter", Value: true, Text: "  Iceberg filter: true (no WHERE)"},
			{Text: "  Residual: none"}}
	}
	tr := sql.Translate(ctx, where, scope, args)
	js, err := sql.FilterJSON(tr.Filter, schema)
	filter, value := string(js), any(json.RawMessage(js))
	if err != nil {
		filter = tr.Filter.String()
		value = filter
	}
	residual := ExplainProp{Text: "  Residual: none"}
	if tr.Residual != nil {
		residual = ExplainProp{Key: "Residual Filter", Value: tr.Residual.String(), Text: "  Residual: " + tr.Residual.String()}
	}
	return []ExplainProp{
		{Key: "Iceberg Filter", Value: value, Text: "  Iceberg filter: " + filter},
		{Key: "Exact", Value: tr.Exact, Text: fmt.Sprintf("  Exact: %t", tr.Exact)},
		residual,
	}
}
