package engine

import (
	"context"
	"iter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	ice "github.com/apache/iceberg-go"
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/magmalake/magmalake/sql"
)

// lateralSource is a join with a LATERAL subquery: the subquery runs for
// each distinct value of the left columns it reads, and its rows join the
// left row they ran for.
type lateralSource struct {
	left  source
	right *selectQuery
	refs  []sql.Expr // the left values the subquery reads, over left's scope
	kind  joinKind   // inner or left
	cond  sql.Expr   // ON, over sc; nil: every pair
	sc    *sql.Scope
	env   *Env
}

// lateral plans JOIN LATERAL (subquery) and , LATERAL (subquery).
func (p *planner) lateral(j *ast.Join, ts *ast.TableSource, outer *sql.Outer) (source, error) {
	left, err := p.fromItem(j.Left, outer)
	if err != nil {
		return nil, err
	}
	kind := joinKindOf(j)
	if kind == joinRight || kind == joinFull {
		return nil, sql.Errorf(sql.CodeInvalidColumnReference, "the combining JOIN type must be INNER or LEFT for a LATERAL reference")
	}
	alias, cols := splitAlias(ts.AsName.O)
	if alias == "" {
		return nil, sql.Errorf(sql.CodeSyntaxError, "subquery in FROM must have an alias")
	}
	lsc := withOuter(left.scope(), outer)
	inner := sql.NewOuter(func(cn *ast.ColumnNameExpr) (sql.Expr, error) { return sql.Bind(cn, lsc, p.params) })
	st, err := sql.SelectFromAST(ts.Source)
	if err != nil {
		return nil, err
	}
	q, err := p.query(st, inner)
	if err != nil {
		return nil, err
	}
	if len(inner.Refs) == 0 {
		// It reads nothing of the left side (a function in FROM is
		// LATERAL by default): an ordinary join, which may hash.
		ts.Lateral = false
		return p.join(j, outer)
	}
	markReuse(q.src)
	var right source = newDerived(q, p.env, alias)
	if len(cols) > 0 {
		if right, err = renameColumns(right, cols); err != nil {
			return nil, err
		}
	}
	ls := &lateralSource{left: left, right: q, refs: inner.Refs, kind: kind, env: p.env}
	ls.sc = concatScopes(left.scope(), right.scope())
	if j.On != nil {
		if ls.cond, err = sql.BindCondition(j.On.Expr, withOuter(ls.sc, outer), p.params, "JOIN/ON"); err != nil {
			return nil, err
		}
	}
	if len(j.Using) > 0 || j.NaturalJoin {
		return nil, sql.Errorf(sql.CodeFeatureNotSupported, "USING and NATURAL with LATERAL are not supported yet")
	}
	return ls, nil
}

func (l *lateralSource) scope() *sql.Scope { return l.sc }

func (l *lateralSource) project(cols []int) source { return newPicked(l, cols) }

func (l *lateralSource) batches(ctx context.Context, _ ice.BooleanExpression, params []any) (iter.Seq2[arrow.RecordBatch, error], error) {
	seq, err := l.left.batches(ctx, nil, params)
	if err != nil {
		return nil, err
	}
	sub := &subPlan{q: l.right, env: l.env}
	runs := map[string][][]any{}
	return func(yield func(arrow.RecordBatch, error) bool) {
		var match *sql.Matcher
		if l.cond != nil {
			match = sql.NewMatcher(l.cond, params)
		}
		for b, err := range seq {
			if err != nil {
				yield(nil, err)
				return
			}
			out, err := l.joinBatch(ctx, b, sub, runs, match, params)
			b.Release()
			if err != nil {
				yield(nil, err)
				return
			}
			if out != nil && !yield(out, nil) {
				return
			}
		}
	}, nil
}

// joinBatch joins one left batch with the subquery's rows for each row.
func (l *lateralSource) joinBatch(ctx context.Context, b arrow.RecordBatch, sub *subPlan, runs map[string][][]any,
	match *sql.Matcher, params []any) (arrow.RecordBatch, error) {
	n := int(b.NumRows())
	refs := make([][]any, len(l.refs))
	for k, e := range l.refs {
		arr, err := sql.Eval(ctx, e, b, params)
		if err != nil {
			return nil, err
		}
		refs[k] = make([]any, n)
		for i := range n {
			refs[k][i] = sql.DatumAt(arr, e.Type(), i)
		}
		arr.Release()
	}
	nl := len(l.left.scope().Columns)
	rtypes := sub.Columns()
	bld := array.NewRecordBuilder(memory.DefaultAllocator, l.schema(b))
	defer bld.Release()
	var leftRow []int // the left row of each output row
	var rightNull []bool
	for i := range n {
		vals := make([]any, len(refs))
		for k := range refs {
			vals[k] = refs[k][i]
		}
		key := sql.ValuesKey(vals)
		rows, ok := runs[key]
		if !ok {
			var err error
			if rows, err = sub.Run(ctx, params, vals); err != nil {
				return nil, err
			}
			runs[key] = rows
		}
		for _, r := range rows {
			if err := l.appendRow(bld, b, i, nl, r, rtypes); err != nil {
				return nil, err
			}
			leftRow, rightNull = append(leftRow, i), append(rightNull, false)
		}
		if l.kind == joinLeft && l.cond == nil && len(rows) == 0 {
			if err := l.appendRow(bld, b, i, nl, nil, rtypes); err != nil {
				return nil, err
			}
			leftRow, rightNull = append(leftRow, i), append(rightNull, true)
		}
	}
	out := bld.NewRecordBatch()
	if match == nil {
		return out, nil
	}
	return l.filter(ctx, out, match, b, leftRow, rtypes, nl)
}

// filter applies ON; a LEFT join keeps the left rows ON rejected for every
// subquery row, NULL-extended.
func (l *lateralSource) filter(ctx context.Context, out arrow.RecordBatch, match *sql.Matcher, b arrow.RecordBatch,
	leftRow []int, rtypes []sql.Type, nl int) (arrow.RecordBatch, error) {
	mask, err := match.Match(ctx, out)
	if err != nil {
		out.Release()
		return nil, err
	}
	kept, err := filterBatch(out, mask)
	out.Release()
	if err != nil || l.kind != joinLeft {
		return kept, err
	}
	matched := make([]bool, b.NumRows())
	for k, m := range mask {
		if m {
			matched[leftRow[k]] = true
		}
	}
	bld := array.NewRecordBuilder(memory.DefaultAllocator, kept.Schema())
	defer bld.Release()
	for c := 0; c < int(kept.NumCols()); c++ {
		for r := 0; r < int(kept.NumRows()); r++ {
			if err := AppendFrom(bld.Field(c), kept.Column(c), r); err != nil {
				kept.Release()
				return nil, err
			}
		}
	}
	kept.Release()
	for i, m := range matched {
		if !m {
			if err := l.appendRow(bld, b, i, nl, nil, rtypes); err != nil {
				return nil, err
			}
		}
	}
	return bld.NewRecordBatch(), nil
}

func (l *lateralSource) schema(b arrow.RecordBatch) *arrow.Schema {
	fields := make([]arrow.Field, len(l.sc.Columns))
	nl := int(b.NumCols())
	for i, c := range l.sc.Columns {
		dt := c.T.ArrowType()
		if i < nl {
			dt = b.Column(i).DataType()
		}
		fields[i] = arrow.Field{Name: c.Name, Type: dt, Nullable: true}
	}
	return arrow.NewSchema(fields, nil)
}

// appendRow appends left row i of b joined with right (nil: NULLs).
func (l *lateralSource) appendRow(bld *array.RecordBuilder, b arrow.RecordBatch, i, nl int, right []any, rtypes []sql.Type) error {
	for c := 0; c < nl; c++ {
		if err := AppendFrom(bld.Field(c), b.Column(c), i); err != nil {
			return err
		}
	}
	for k, t := range rtypes {
		var v any
		if right != nil {
			v = right[k]
		}
		if err := sql.AppendDatum(bld.Field(nl+k), t, v); err != nil {
			return err
		}
	}
	return nil
}
