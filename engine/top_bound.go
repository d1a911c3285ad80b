package engine

import (
	"context"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"

	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
)

// topBound is an ORDER BY ... LIMIT's bound on its first key, handed to
// its table scan as a dynamic filter (lake.ScanOptions.Dynamic): once the
// top-N holds its LIMIT of rows, a row sorting after the last of them on
// the first key cannot make the cut, so the row groups and pages without
// a value at or before that one are never decoded (late materialisation
// by page: the key's page index is read, not its values).
type topBound struct {
	key  *sql.ColumnRef // the first key: a column of the scan
	spec plan.SortSpec
	sc   *sql.Scope
	cur  atomic.Pointer[iceberg.BooleanExpression]
}

type topBoundKey struct{ src *tableSource }

// newTopBound is the bound of q's top-N over its table scan t, when its
// first key is a column of t with an order Iceberg's bounds agree with;
// else nil.
func newTopBound(q *selectQuery, t *tableSource) *topBound {
	ref, ok := q.Outputs[q.Order[0].Col].(*sql.ColumnRef)
	if !ok || ref.Index >= len(t.sc.Columns) {
		return nil
	}
	c := t.sc.Columns[ref.Index]
	if c.FieldID == 0 || c.System {
		return nil
	}
	switch c.T.Kind {
	case sql.KindInt32, sql.KindInt64, sql.KindNumeric, sql.KindDate, sql.KindTimestamp, sql.KindTimestampTZ:
		// Floats: PostgreSQL sorts NaN above every number, Iceberg's
		// bounds leave it out. Text: collations differ from bytes.
	default:
		return nil
	}
	key := *ref
	key.Name = t.columnName(ref.Index)
	return &topBound{key: &key, spec: q.Order[0].Spec, sc: t.sc}
}

// withTopBound hands b to src's scan; nil-safe.
func withTopBound(ctx context.Context, src *tableSource, b *topBound) context.Context {
	if b == nil {
		return ctx
	}
	return context.WithValue(ctx, topBoundKey{src}, b)
}

// dynamicOf is the dynamic filter of t's scan: its top-N's bound, or nil.
func (t *tableSource) dynamicOf(ctx context.Context) func() iceberg.BooleanExpression {
	b, _ := ctx.Value(topBoundKey{t}).(*topBound)
	if b == nil {
		return nil
	}
	return b.filter
}

// filter is the current bound as a filter on the scan, nil while none.
func (b *topBound) filter() iceberg.BooleanExpression {
	if p := b.cur.Load(); p != nil {
		return *p
	}
	return nil
}

// publish makes the first key of the last row the top-N holds (key, one
// value) the bound; nil-safe. The rows that can still make the cut sort
// before it or tie with it: key <= v ascending, key >= v descending, and
// NULL when NULLs sort first.
func (b *topBound) publish(ctx context.Context, key arrow.Array) {
	if b == nil || key.Len() != 1 {
		return
	}
	v := sql.DatumAt(key, b.key.T, 0)
	var keep sql.Expr
	isNull := &sql.IsNull{X: b.key}
	nullsFirst := b.spec.NullsFirst // resolved: DESC defaults to NULLS FIRST
	switch {
	case v == nil && nullsFirst:
		keep = isNull
	case v == nil:
		return // NULLs last: every row ties or sorts before
	default:
		op := sql.OpLE
		if b.spec.Desc {
			op = sql.OpGE
		}
		keep = &sql.Compare{Op: op, L: b.key, R: &sql.Const{Value: v, T: b.key.T}, Domain: b.key.T}
		if nullsFirst {
			keep = &sql.Logic{Args: []sql.Expr{keep, isNull}}
		}
	}
	f := sql.Translate(ctx, keep, b.sc, nil).Filter
	b.cur.Store(&f)
}

// columnName is the table column scope column k of t reads.
func (t *tableSource) columnName(k int) string {
	if t.cols != nil {
		return t.cols[k]
	}
	return t.sc.Columns[k].Name
}
